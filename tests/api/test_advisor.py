"""The estimate and advise endpoints: the engine's answer in the documented shape, its errors as
a 400 naming the field, and "nothing fits" as a 422 with the reason."""

from __future__ import annotations

import copy

import pytest

from tests.api.conftest import conforms

LORA_ON_4090 = {
    "tasks": [
        {
            "name": "7B LoRA",
            "kind": "lora",
            "model": "llama-2-7b",
            "precision": "bf16",
            "activation_checkpointing": "full",
            "seq_len": 2048,
            "tokens": 1e8,
            "on": {"accelerator": "rtx-4090-24gb"},
        }
    ]
}
# An 8 GiB notebook fits every offering in the test catalogue.
FITS_ANYWHERE = {
    "tasks": [{"name": "notebook", "kind": "fixed", "vram_gib": 8, "hours_per_month": 100}],
    "constraints": {"currency": "CNY", "include_stale": True},
    "objective": "cost",
}


def post(client, path, body, **kwargs):
    return client.post(path, body, format="json", **kwargs)


def test_an_estimate_is_the_engines_memory_plan_in_the_documented_shape(
    anon_client, openapi, accelerator
):
    response = post(anon_client, "/api/v1/estimate/", LORA_ON_4090)
    assert response.status_code == 200
    conforms(openapi, "post", "/api/v1/estimate/", response)
    [task] = response.json()["tasks"]
    assert (task["name"], task["kind"], task["gpus"]) == ("7B LoRA", "lora", 1)
    assert task["on"]["accelerator"] == "rtx-4090-24gb"
    assert task["fit"]["fits"] is True
    assert task["per_gpu"]["total"] == sum(
        task["per_gpu"][part]
        for part in ("weights", "gradients", "optimizer", "activations", "kv_cache", "overhead")
    )
    assert task["time"]["hours"] > 0


def test_an_estimate_needs_no_catalogue_unless_a_task_names_hardware(anon_client, db):
    scenario = copy.deepcopy(LORA_ON_4090)
    del scenario["tasks"][0]["on"]
    response = post(anon_client, "/api/v1/estimate/", scenario)
    assert response.status_code == 200
    assert "fit" not in response.json()["tasks"][0]


@pytest.mark.parametrize("path", ["/api/v1/estimate/", "/api/v1/advise/"])
@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"precision": "fp99"}, "tasks[0].precision"),
        ({"kind": "pretrain"}, "tasks[0].kind"),
        ({"seq_len": -5}, "tasks[0].seq_len"),
        ({"params": -7e9}, "tasks[0].params"),
        ({"on": {"accelerator": "tpu-v9"}}, "tasks[0].on.accelerator"),
    ],
)
def test_a_field_the_engine_rejects_is_a_400_naming_it(
    anon_client, openapi, catalogue, path, change, field
):
    scenario = copy.deepcopy(LORA_ON_4090)
    scenario["tasks"][0].update(change)
    response = post(anon_client, path, scenario)
    assert response.status_code == 400, response.json()
    conforms(openapi, "post", path, response)
    error = response.json()["error"]
    assert (error["status"], error["code"]) == (400, "invalid")
    assert list(error["fields"]) == [field]
    assert error["message"].startswith(f"{field}: ")


def test_a_number_too_large_for_a_float_is_a_400_naming_it(anon_client, db):
    # JSON allows 1e400; Python reads it as infinity, which no task can have.
    body = '{"tasks": [{"name": "big", "kind": "lora", "model": "llama-2-7b", "tokens": 1e400}]}'
    response = anon_client.post("/api/v1/estimate/", body, content_type="application/json")
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["tasks[0].tokens"]


@pytest.mark.parametrize(
    "body",
    [[], "a scenario", 42, None, {"tasks": []}, {"tasks": "all of them"}, {"objective": "cost"}],
)
def test_a_body_that_is_not_a_scenario_is_a_400(anon_client, db, body):
    response = post(anon_client, "/api/v1/estimate/", body)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid"


def test_advice_ranks_the_offerings_that_fit_in_the_documented_shape(
    anon_client, openapi, catalogue, frozen
):
    response = post(anon_client, "/api/v1/advise/", FITS_ANYWHERE)
    assert response.status_code == 200, response.json()
    conforms(openapi, "post", "/api/v1/advise/", response)
    body = response.json()
    assert body["objective"] == "cost"
    assert body["currency"] == "CNY"
    ranks = [r["rank"] for r in body["recommendations"]]
    assert ranks == list(range(1, len(ranks) + 1))
    listed = {o.pk for key, o in catalogue.items() if key in ("4090", "4090x8", "pooled", "a100x8")}
    assert {r["offering_id"] for r in body["recommendations"]} <= listed
    assert body["estimate"]["tasks"][0]["name"] == "notebook"


def test_advice_where_nothing_fits_is_a_422_that_says_why(anon_client, openapi, catalogue):
    too_big = {"tasks": [{"name": "huge", "kind": "fixed", "vram_gib": 5000}]}
    response = post(anon_client, "/api/v1/advise/", too_big)
    assert response.status_code == 422
    conforms(openapi, "post", "/api/v1/advise/", response)
    error = response.json()["error"]
    assert (error["status"], error["code"]) == (422, "no_fit")
    assert error["message"]
