"""Training time as the page and the API show it: a range, optimizer steps and seconds per step,
and a job cost range that follows the time (docs/time-model.md, "Ranges")."""

from __future__ import annotations

import re
from decimal import Decimal

from django.http import QueryDict
from rest_framework.test import APIClient

from advisor.forms import scenario_query
from advisor.presets import PRESETS
from wording.messages import hours_number

URL = "/advisor/"
LORA_ON_4090 = {
    "tasks": [
        {
            "name": "lora",
            "kind": "lora",
            "model": "llama-3.1-8b",
            "seq_len": 2048,
            "micro_batch": 2,
            "gradient_accumulation": 4,
            "activation_checkpointing": "full",
            "tokens": 2e8,
            "on": {"accelerator": "rtx-4090-24gb"},
        }
    ]
}


def page(client, scenario):
    response = client.get(URL, QueryDict(scenario_query(scenario).urlencode()))
    assert response.status_code == 200
    return response, response.content.decode()


def test_the_estimate_shows_the_time_range_the_steps_and_seconds_per_step(client, seed, frozen):
    response, html = page(client, LORA_ON_4090)
    [task] = response.context["plan"]
    time = task["time"]
    assert time is not None and time.low_hours < time.hours < time.high_hours
    # 2e8 tokens / (2 × 4 × 2,048 tokens a step) = 12,207.03: 12,208 steps.
    assert time.steps == 12208 and time.tokens_per_step == 2 * 4 * 2048
    block = html[html.index("data-time") :][:600]
    # Hours as every figure of the page writes them (wording.messages.hours_number).
    h = hours_number
    assert f"about {h(time.hours)} h ({h(time.low_hours)} to {h(time.high_hours)} h)" in block
    assert f"12208 optimizer steps of about {time.seconds_per_step:.2f} s each" in block


def test_the_results_show_the_time_range_and_the_job_cost_follows_it(client, seed, frozen):
    scenario = PRESETS["training-inference"].scenario
    response, html = page(client, scenario)
    rows = response.context["rows"]
    timed = [r for r in rows if r["rec"].time_hours is not None]
    assert timed
    for row in timed:
        rec = row["rec"]
        assert rec.time_low_hours < rec.time_hours < rec.time_high_hours
        assert rec.job_cost_low <= rec.job_cost <= rec.job_cost_high
        assert row["time_range"] in html and "data-time-range" in html
    reason = next(r for r in timed[0]["reasons"] if r.startswith("Training takes about"))
    assert re.search(r"\(\d[\d,.]* h to \d[\d,.]* h\)", reason)


def test_the_api_gives_the_range_steps_and_job_cost_range(db, seed, frozen):
    client = APIClient()
    estimate = client.post("/api/v1/estimate/", LORA_ON_4090, format="json").json()
    time = estimate["tasks"][0]["time"]
    assert time["low_hours"] < time["hours"] < time["high_hours"]
    assert time["steps"] == 12208 and time["tokens_per_step"] == 16384
    assert time["seconds_per_step"] * 2e8 / 16384 == pytest_approx(time["hours"] * 3600)
    assert {"mfu_low", "mfu_high", "offload_seconds", "nodes"} <= set(time)
    advice = client.post("/api/v1/advise/", PRESETS["training-inference"].scenario, format="json")
    [first, *_] = advice.json()["recommendations"]
    assert first["time_low_hours"] < first["time_hours"] < first["time_high_hours"]
    low, cost, high = (Decimal(first[k]) for k in ("job_cost_low", "job_cost", "job_cost_high"))
    assert low <= cost <= high


def pytest_approx(value: float):
    import pytest

    return pytest.approx(value, rel=1e-3)
