"""The estimate and advise endpoints: the engine's answer in the documented shape, its errors as
a 400 naming the field, and "nothing fits" as a 422 with the reason."""

from __future__ import annotations

import copy
import re

import pytest

from advisor.engine import restarts
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
    "constraints": {"currency": "CNY"},
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


SERVE_8B = {
    "tasks": [
        {
            "name": "chat",
            "kind": "inference",
            "model": "llama-3.1-8b",
            "context_len": 4096,
            "concurrent_sequences": 8,
            "hours_per_month": 100,
            "on": {"accelerator": "rtx-4090-24gb"},
        }
    ],
    "constraints": {"currency": "CNY"},
    "objective": "cost",
}


def test_an_inference_task_on_hardware_has_its_serving_figures_in_the_documented_shape(
    anon_client, openapi, accelerator
):
    """advisor/engine/serving.py: per-stream and aggregate decode bounds, the largest concurrency
    that fits, prefill bound, and the chat workload's output rate and time to first token as
    ranges."""
    response = post(anon_client, "/api/v1/estimate/", SERVE_8B)
    assert response.status_code == 200
    conforms(openapi, "post", "/api/v1/estimate/", response)
    [task] = response.json()["tasks"]
    serving = task["serving"]
    assert task["decode_tokens_per_s"] == serving["stream_tokens_per_s"]
    assert serving["concurrency"] == 8 and serving["max_concurrency"] >= 8
    assert serving["aggregate_tokens_per_s"] > 5 * serving["stream_tokens_per_s"]
    assert serving["prompt_tokens"] == 256 and serving["output_tokens"] == 256  # chat
    assert serving["engine"] == "vllm" and 0 < serving["prefill_share"] < 1
    rate, ttft = serving["output_tokens_per_s"], serving["ttft"]
    assert rate["low"] < rate["expected"] < rate["high"] < serving["aggregate_tokens_per_s"]
    assert ttft["low"] < ttft["expected"] == serving["ttft_seconds"] < ttft["high"]
    assert [n["code"] for n in serving["notes"]] == [
        "serving_note_decode",
        "serving_note_measured",
        "serving_note_ttft",
    ]


def test_advice_prices_each_inference_tasks_output_per_million_tokens(
    anon_client, openapi, catalogue, frozen
):
    body = copy.deepcopy(SERVE_8B)
    del body["tasks"][0]["on"]
    response = post(anon_client, "/api/v1/advise/", body)
    assert response.status_code == 200, response.json()
    conforms(openapi, "post", "/api/v1/advise/", response)
    for rec in response.json()["recommendations"]:
        [serving] = rec["serving"]
        assert serving["task"] == "chat" and serving["currency"] == "CNY"
        cost = float(serving["cost_per_million_tokens"])
        assert float(serving["cost_low"]) < cost < float(serving["cost_high"])
        assert float(serving["input_cost_per_million"]) > 0
        assert float(serving["output_cost_per_million"]) > 0
        assert rec["decode_tokens_per_s"] == {"chat": serving["estimate"]["stream_tokens_per_s"]}


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


NOTEBOOK_ON_BIGCLOUD = {
    "tasks": [{"name": "notebook", "kind": "fixed", "vram_gib": 8, "hours_per_month": 100}],
    "constraints": {"currency": "CNY", "platforms": ["bigcloud"]},
    "objective": "cost",
}


def test_advice_is_exactly_this_body(anon_client, openapi, catalogue, frozen):
    """The whole body for one offering (the A100 x8 at 60 CNY/h and 28,000 CNY/month): 100 busy
    hours x 60 = 6,000 CNY a month by the hour; the month plan wins above 28,000 / 60 = 466.7 h.
    A lone notebook gets a whole GPU, not the smallest MIG slice of an idle card."""
    pk = catalogue["a100x8"].pk
    response = post(anon_client, "/api/v1/advise/", NOTEBOOK_ON_BIGCLOUD)
    assert response.status_code == 200, response.json()
    conforms(openapi, "post", "/api/v1/advise/", response)
    assert response.json() == {
        "estimate": {
            "tasks": [
                {
                    "name": "notebook",
                    "kind": "fixed",
                    "gpus": 1,
                    "per_gpu": {
                        "weights": 0,
                        "gradients": 0,
                        "optimizer": 0,
                        "activations": 0,
                        "kv_cache": 0,
                        "overhead": 8589934592,
                        "total": 8589934592,
                    },
                    "per_gpu_gib": {
                        "weights": 0.0,
                        "gradients": 0.0,
                        "optimizer": 0.0,
                        "activations": 0.0,
                        "kv_cache": 0.0,
                        "overhead": 8.0,
                        "total": 8.0,
                    },
                    "sharded": False,
                    "notes": [
                        {
                            "code": "memory_note_fixed_stated",
                            "params": {},
                            "message": (
                                "stated working set of a non-ML workload (vram_gib), taken as given"
                            ),
                        }
                    ],
                    "formulas": {
                        "overhead": {
                            "code": "formula_result",
                            "params": {
                                "formula": {
                                    "code": "formula_fixed",
                                    "params": {"vram_gib": 8.0},
                                    "message": "vram_gib 8 × 2^30",
                                },
                                "bytes": {"value": 8589934592, "unit": "bytes"},
                            },
                            "message": "vram_gib 8 × 2^30 = 8.00 GiB",
                        }
                    },
                }
            ],
            "warnings": [],
        },
        "as_of": "2026-11-20T20:00:00+08:00",
        "cost_basis": "month",
        "objective": "cost",
        "currency": "CNY",
        "considered": 1,
        "fitting": 1,
        "rejected": [],
        "pareto": [pk],
        "recommendations": [
            {
                "rank": 1,
                "offering_id": pk,
                "offering": "A100 x8",
                # The test platform states no website, so there is no page to book it on.
                "url": "",
                "platform": "bigcloud",
                "platform_name": "大云 (Big Cloud)",
                "accelerator": "a100-80gb",
                "instances": 1,
                "gpus_per_instance": 8,
                "plan": {
                    "unit": "hour",
                    "units": ["hour"],
                    "price": "60.000000",
                    "basis": "month",
                    "cost": "6000.00",
                    "monthly": "6000.00",
                    "currency": "CNY",
                    "converted": "6000.00",
                    "converted_monthly": "6000.00",
                    "converted_currency": "CNY",
                    "rate": None,
                    "rate_date": None,
                    "rate_source": "",
                },
                "cost": "6000.00",
                "cost_basis": "month",
                "months": 1,
                "monthly_cost": "6000.00",
                "storage_cost": None,
                "storage_assumed": False,
                "job_cost": None,
                "job_cost_low": None,
                "job_cost_high": None,
                "time_hours": None,
                "time_low_hours": None,
                "time_high_hours": None,
                "headroom_bytes": 76235669504,
                "isolation": ["whole"],
                "price_age_days": 5,
                "price_source": "Test price list",
                "price_source_kind": "manual",
                "vendor_claim": False,
                "stale": False,
                "pareto": True,
                "regions": [],
                "vs_first": None,
                "instance_hours": [100.0],
                "placement": [
                    {
                        "task": "notebook",
                        "instance": 0,
                        "gpus": [0],
                        "machines": 1,
                        "gpu_count": 1,
                        "mode": "whole",
                        "mig_profile": None,
                        "mig_start": None,
                        "pooled_share": None,
                        "usable_bytes": 84825604096,
                        "used_bytes": 8589934592,
                        "headroom_bytes": 76235669504,
                    }
                ],
                "decode_tokens_per_s": {},
                "serving": [],
                "reasons": [
                    {
                        "code": "reason_runs_all",
                        "params": {
                            "tasks": 1,
                            "instances": 1,
                            "gpus": 8,
                            "accelerator": "A100 80GB",
                            "modes": ["whole"],
                        },
                        "message": "Runs all 1 task(s) on 1 instance(s) of 8× A100 80GB "
                        "(exclusive GPU)",
                    },
                    {
                        "code": "reason_best_by_cost",
                        "params": {"fitting": 1, "basis": "month"},
                        "message": "Best of 1 fitting offerings by lowest cost (per month)",
                    },
                    {
                        "code": "reason_pareto",
                        "params": {},
                        "message": "On the Pareto front: nothing else is both cheaper and faster",
                    },
                    {
                        "code": "reason_cheapest_billing",
                        "params": {
                            "unit": "hour",
                            "monthly": {"amount": "6000.00", "currency": "CNY", "per": "month"},
                        },
                        "message": "Cheapest billing here: hour plan, 6,000.00 CNY/month",
                    },
                    {
                        "code": "reason_break_even",
                        "params": {
                            "prepaid_unit": "month",
                            "prepaid": {"amount": "28000.000000", "currency": "CNY"},
                            "metered": {"amount": "60.000000", "currency": "CNY", "per": "hour"},
                            "hours": {"value": 466.6666666666667, "unit": "hours"},
                        },
                        "message": "The month plan (28,000.00 CNY) beats 60.00 CNY/hour "
                        "above 467 h of use per month",
                    },
                ],
                # 大云 states no metering step: assumed per second, and said so; per started
                # hour the 30 runs of 3 h 20 min would bill 4 h each, 120 h x 60 = 7,200 CNY,
                # 1,200 more.
                "warnings": [
                    {
                        "code": "warn_metering_assumed",
                        "params": {
                            "platform": "大云 (Big Cloud)",
                            "more": {"amount": "1200.00", "currency": "CNY", "per": "month"},
                        },
                        "message": "大云 (Big Cloud) does not state how it meters "
                        "pay-as-you-go time: assumed per second; billed per started hour, "
                        "this plan would cost 1,200.00 CNY/month more",
                    }
                ],
                # 100 h a month by an always-on notebook is a run a day: (720 - 100) / 30 h apart,
                # stopped in between; 大云 states no billing rules, so nothing is kept or billed.
                "idle": {
                    "way": "stopped",
                    "hours": 620.0,
                    "runs": 30.0,
                    "gap_hours": 20.667,
                    "kept_hours": 0.0,
                    "cost": "0.00",
                    "stopped_storage_cost": None,
                    "startup_hours": 0.0,
                    "startup_cost": "0.00",
                    "message": {
                        "code": "idle_stopped",
                        "params": {
                            "hours": {"value": 620.0, "unit": "hours"},
                            "runs": {"value": 30.0, "unit": "count"},
                            "gap": {"value": 620 / 30, "unit": "hours"},
                        },
                        "message": "Runs: 30, about 20.7 h apart; idle 620 h: stopped, which "
                        "costs nothing",
                    },
                    "notes": [],
                },
                # A single offering is a plan of one leg: the same offering, plan and cost.
                "legs": [
                    {
                        "platform": "bigcloud",
                        "platform_name": "大云 (Big Cloud)",
                        "offering_id": pk,
                        "offering": "A100 x8",
                        "url": "",
                        "accelerator": "a100-80gb",
                        "instances": 1,
                        "gpus_per_instance": 8,
                        "plan": {
                            "unit": "hour",
                            "units": ["hour"],
                            "price": "60.000000",
                            "basis": "month",
                            "cost": "6000.00",
                            "monthly": "6000.00",
                            "currency": "CNY",
                            "converted": "6000.00",
                            "converted_monthly": "6000.00",
                            "converted_currency": "CNY",
                            "rate": None,
                            "rate_date": None,
                            "rate_source": "",
                        },
                        "tasks": ["notebook"],
                        "shares": [],
                        "cost": "6000.00",
                        "monthly_cost": "6000.00",
                        "storage_cost": None,
                        "time_hours": None,
                        "price_source_kind": "manual",
                        "vendor_claim": False,
                        "placement": [
                            {
                                "task": "notebook",
                                "instance": 0,
                                "gpus": [0],
                                "machines": 1,
                                "gpu_count": 1,
                                "mode": "whole",
                                "mig_profile": None,
                                "mig_start": None,
                                "pooled_share": None,
                                "usable_bytes": 84825604096,
                                "used_bytes": 8589934592,
                                "headroom_bytes": 76235669504,
                            }
                        ],
                    }
                ],
            }
        ],
        # Every platform of this catalogue has a current price.
        "oldest_price_at": "2026-11-15T20:00:00+08:00",
        "oldest_price_age_days": 5,
        "unpriced_platforms": [],
        "unpriced": None,
        "one_card": None,
        # One task: no split into legs to try; no preset, so no article to check.
        "plans": None,
        "preset": None,
        "checks": [],
        "verdict": None,
    }


def test_advice_speaks_the_language_of_accept_language(anon_client, catalogue, frozen):
    english = post(anon_client, "/api/v1/advise/", NOTEBOOK_ON_BIGCLOUD).json()
    chinese = post(
        anon_client, "/api/v1/advise/", NOTEBOOK_ON_BIGCLOUD, HTTP_ACCEPT_LANGUAGE="zh-hans"
    ).json()
    [en], [zh] = english["recommendations"], chinese["recommendations"]
    for key in ("reasons", "warnings"):
        assert [m["code"] for m in en[key]] == [m["code"] for m in zh[key]]
        assert [m["params"] for m in en[key]] == [m["params"] for m in zh[key]]
        for m in zh[key]:
            assert re.search(r"[\u4e00-\u9fff]", m["message"]), m["message"]
            assert m["message"] not in {e["message"] for e in en[key]}
    assert zh["reasons"][3]["message"] == "此处最便宜的计费方式：按小时计费，6,000.00 CNY/月"


def test_nothing_fitting_carries_its_message_code_and_parameters(anon_client, catalogue):
    too_big = {"tasks": [{"name": "huge", "kind": "fixed", "vram_gib": 5000}]}
    response = post(anon_client, "/api/v1/advise/", too_big, HTTP_ACCEPT_LANGUAGE="zh-hans")
    detail = response.json()["error"]["detail"]
    assert response.status_code == 422
    assert detail["code"] == "no_fit_closest"
    assert detail["params"]["reason"]["code"] == "reject_does_not_fit"
    assert re.search(r"[\u4e00-\u9fff]", detail["message"])


# A render job of 1,000 h on the RTX 4090 (120,000 frames × 30 s), scaled to other cards by
# memory bandwidth: on the A100 1,000 × 1,008 / 2,039 = 494.36 h.
LONG_RENDER = {
    "tasks": [
        {
            "name": "render",
            "kind": "fixed",
            "vram_gib": 20,
            "frames": 120_000,
            "seconds_per_frame": 30,
            "reference_accelerator": "rtx-4090-24gb",
            "scale_by": "bandwidth",
        }
    ],
    "constraints": {"currency": "CNY"},
    "objective": "cost",
}


def test_a_long_job_is_tried_in_two_shares_and_each_leg_says_its_share(
    anon_client, openapi, catalogue, frozen
):
    """The 4090 x8 is spot capacity: its 1,000 h render takes 1,017.507 h with restarts (one
    interruption a day assumed, a checkpoint every 30 min, 10 min to restart:
    restarts.with_restarts; docs/advisor-rules.md, "Spot"). One whole month (720 h, 70.76 % of
    the frames) on its month plan (8,000), the 29.24 % left metered on the A100 x8: 29.24 % of
    494.36 h = 144.545 h at 60 an hour = 8,672.70 (per second). Together 16,672.70, far more
    than the RTX 4090 VM's 1,000 h × 1.88 = 1,880: not proposed, and said so."""
    response = post(anon_client, "/api/v1/advise/", LONG_RENDER)
    assert response.status_code == 200
    conforms(openapi, "post", "/api/v1/advise/", response)
    body = response.json()
    plans = body["plans"]
    assert plans["plan"] is None and plans["note"]["code"] == "plan_none_beats"
    assert plans["splits"] == [[["render"], ["render"]]]
    base, rest = plans["best_cross"]["legs"]
    assert (base["offering"], base["plan"]["unit"], base["cost"]) == ("4090 x8", "month", "8000.00")
    assert base["tasks"] == ["render: 720 h of 1,018 h"]
    on_spot = restarts.with_restarts(1000, 1 / 24, 0.5, 1 / 6).hours
    assert base["shares"] == [
        {
            "task": "render",
            "fraction": round(720 / on_spot, 4),
            "hours": 720.0,
            "total_hours": round(on_spot, 3),
            "unit": "month",
            "periods": 1,
            "base": True,
        }
    ]
    whole = 1000 * 1008 / 2039
    assert (rest["offering"], rest["plan"]["unit"]) == ("A100 x8", "hour")
    assert rest["shares"][0]["total_hours"] == round(whole, 3)
    assert rest["shares"][0]["hours"] == pytest.approx((1 - 720 / on_spot) * whole, abs=1e-3)
    assert rest["cost"] == "8672.70"  # 144.545 h × 60, per second
    assert rest["tasks"] == ["render: 145 h of 494 h"]
    assert plans["best_cross"]["cost"] == "16672.70"
    assert plans["single"]["cost"] == "1880.00"
    chinese = post(anon_client, "/api/v1/advise/", LONG_RENDER, HTTP_ACCEPT_LANGUAGE="zh-hans")
    zh_base = chinese.json()["plans"]["best_cross"]["legs"][0]
    assert zh_base["tasks"][0].startswith("render：") and " of " not in zh_base["tasks"][0]


TWO_TASKS = {
    "tasks": [
        {"name": "notebook", "kind": "fixed", "vram_gib": 8, "hours_per_month": 100},
        {"name": "api", "kind": "fixed", "vram_gib": 10, "isolation": "soft"},
    ],
    "constraints": {"currency": "USD", "storage_gb": 50},
    "objective": "balanced",
}


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_advice_json_by_a_kept_serializer_is_a_new_serializers(catalogue, frozen, language):
    """advice_report_json reuses one serializer per thread: for each kind of answer, asked in
    turn, again and from another thread, it writes what a new AdviceReportSerializer writes."""
    from concurrent.futures import ThreadPoolExecutor

    from django.utils import translation

    from advisor.services import advise_scenario
    from api.advice import AdviceReportSerializer, advice_report_json

    with translation.override(language):
        reports = [
            advise_scenario(body)
            for body in (FITS_ANYWHERE, SERVE_8B, TWO_TASKS, NOTEBOOK_ON_BIGCLOUD, LORA_ON_4090)
        ]
        reports = [r for r in reports if r.no_fit is None]
        assert len(reports) >= 4
        expected = [AdviceReportSerializer(r).data for r in reports]
        for _ in range(2):
            assert [advice_report_json(r) for r in reports] == expected

    def in_thread(report):
        with translation.override(language):
            return advice_report_json(report)

    with ThreadPoolExecutor(2) as pool:
        assert list(pool.map(in_thread, reports)) == expected


def test_advise_takes_the_software_fields_and_names_a_wrong_engine(anon_client, catalogue, frozen):
    """serving_engine, portable_code and allow_ports are contract fields (README, "The
    scenario"): taken, and an engine that does not go with the task is a 400 naming it."""
    body = {
        "tasks": [
            {"kind": "inference", "model": "llama-3.1-8b", "serving_engine": "vllm"},
            {"kind": "fixed", "name": "render", "vram_gib": 4, "portable_code": True},
        ],
        "constraints": {"allow_ports": True},
    }
    assert post(anon_client, "/api/v1/advise/", body).status_code in (200, 422)
    body["tasks"][0]["serving_engine"] = "hf"
    body["tasks"][0]["serving"] = "paged"
    response = post(anon_client, "/api/v1/advise/", body)
    assert response.status_code == 400
    error = response.json()["error"]
    assert (error["code"], list(error["fields"])) == ("invalid", ["tasks[0].serving_engine"])
    assert error["message"].startswith("tasks[0].serving_engine: serving engine hf")
