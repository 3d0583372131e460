"""The API takes any model of the catalogue by name and a Hugging Face config.json (`config`),
and refuses two of model, config and params in one task with a 400 naming the second."""

from __future__ import annotations

from typing import Any

import pytest

from tests.advisor.engine.test_hf_config import QWEN3_30B_A3B
from tests.api.conftest import conforms


def estimate(client: Any, **model: Any) -> Any:
    body = {
        "tasks": [
            {
                "name": "chat",
                "kind": "inference",
                "context_len": 4096,
                **model,
            }
        ]
    }
    return client.post("/api/v1/estimate/", body, format="json")


def test_a_model_by_its_hugging_face_name_and_its_config_give_one_estimate(
    anon_client, openapi, db
):
    """Qwen3-30B-A3B (https://huggingface.co/Qwen/Qwen3-30B-A3B/blob/main/config.json): by
    catalogue id, by repository and by its config.json, the same per-GPU memory."""
    answers = [
        estimate(anon_client, model="qwen3-30b-a3b"),
        estimate(anon_client, model="Qwen/Qwen3-30B-A3B"),
        estimate(anon_client, config=QWEN3_30B_A3B),
    ]
    for response in answers:
        assert response.status_code == 200, response.json()
        conforms(openapi, "post", "/api/v1/estimate/", response)
    totals = {r.json()["tasks"][0]["per_gpu"]["total"] for r in answers}
    assert len(totals) == 1
    # 30.53B parameters in bf16: 61.1 GB of weights.
    assert answers[0].json()["tasks"][0]["per_gpu"]["weights"] == 2 * 30_532_122_624


@pytest.mark.parametrize(
    ("model", "field", "words"),
    [
        ({"model": "llama-3.1-8b", "params": 13e9}, "tasks[0].params", "not both"),
        ({"model": "llama-3.1-8b", "config": QWEN3_30B_A3B}, "tasks[0].config", "not two"),
        ({"config": {"hidden_size": 4096}}, "tasks[0].config.num_hidden_layers", "config.json"),
        ({"config": "{}"}, "tasks[0].config", "JSON object"),
        ({"model": "bge-m3"}, "tasks[0].model", "paste its config.json"),
        ({"model": "qwen3-31b"}, "tasks[0].model", "qwen3-32b"),
    ],
)
def test_what_cannot_be_read_is_a_400_naming_the_field(anon_client, db, model, field, words):
    response = estimate(anon_client, **model)
    assert response.status_code == 400, response.json()
    error = response.json()["error"]
    assert list(error["fields"]) == [field]
    assert words in error["message"]


def test_the_errors_are_in_chinese_for_a_chinese_reader(anon_client, db):
    response = anon_client.post(
        "/api/v1/estimate/",
        {"tasks": [{"kind": "inference", "config": {"hidden_size": 4096}}]},
        format="json",
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )
    assert response.status_code == 400
    assert "读取模型结构需要它" in response.json()["error"]["message"]


def test_the_models_endpoint_lists_the_catalogue_with_sources(anon_client, openapi, db):
    response = anon_client.get("/api/v1/models/")
    assert response.status_code == 200
    conforms(openapi, "get", "/api/v1/models/", response)
    models = {m["id"]: m for m in response.json()}
    pickable = [m for m in models.values() if m["pickable"]]
    assert len(pickable) >= 110
    assert all(m["source"] and m["params"] for m in pickable)
    qwen = models["qwen3-30b-a3b"]
    assert (qwen["params"], qwen["active_params"], qwen["basis"]) == (
        30_532_122_624,
        3_353_032_704,
        "counted",
    )
    assert models["llama-3.1-8b"]["basis"] == "preset"
    assert models["bge-m3"]["excluded"]["code"] == "excluded_no_count"


def test_one_model_by_id_and_its_reason_in_chinese(anon_client, openapi, db):
    response = anon_client.get("/api/v1/models/bge-m3/", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert response.status_code == 200
    conforms(openapi, "get", "/api/v1/models/{id}/", response)
    assert (
        response.json()["excluded"]["message"]
        == "未公布参数量，其来源也没有给出可用于计算的完整结构"
    )
    assert anon_client.get("/api/v1/models/gpt-5/").status_code == 404
