"""The time between runs on the seed catalogue, the same in the API, the page, its CSV and in
Chinese: AutoDL's seeded billing rules (per second, ¥0.01 minimum, billed from power-on, the no-GPU
mode at ¥0.10 an hour, the data disk billed while stopped, released after 15 days shut down;
docs.gpuhub.com/billing-recharge/billing and autodl.com/docs/instance_data) reach the engine
through advisor/services.py and decide how a monthly job's idle time is priced."""

from __future__ import annotations

import csv
import io
import re
from decimal import Decimal

import pytest
from django.http import QueryDict
from rest_framework.test import APIClient

from advisor.engine.messages import Code
from advisor.engine.vocab import IdleWay
from advisor.forms import scenario_query
from advisor.services import advise_scenario
from tests.conftest import NOW

MONTHLY_JOB = {
    "tasks": [
        {
            "name": "monthly lora",
            "kind": "lora",
            "model": "llama-2-7b",
            "activation_checkpointing": "full",
            "tokens": 2e7,
            "jobs_per_month": 1,
        }
    ],
    "constraints": {"platforms": ["autodl"], "currency": "CNY", "storage_gb": 100},
    "objective": "cost",
}


def page(client, scenario, **extra):
    return client.get("/advisor/", QueryDict(scenario_query(scenario, **extra).urlencode()))


def test_a_monthly_job_on_autodl_is_kept_from_release_in_the_no_gpu_mode(seed, frozen):
    """Runs 30 days apart on AutoDL with 100 GB kept: stopped for 15 days, then the no-GPU mode at
    ¥0.10 an hour until the next run, in the ranked cost, with a warning naming the 15 days. A
    monthly plan (the RTX 4090D's ¥946) already pays for the time between runs."""
    advice = advise_scenario(MONTHLY_JOB, now=NOW).advice
    hourly = [r for r in advice.recommendations if r.plan.unit == "hour"]
    assert hourly and hourly[0].rank == 1
    for rec in advice.recommendations:
        assert rec.platform == "autodl"
        if rec.plan.unit == "month":
            assert rec.idle.way is IdleWay.PREPAID and rec.idle.cost == 0
            continue
        assert rec.idle.way is IdleWay.IDLE_MODE
        kept = Decimal("0.10") * Decimal(repr(rec.idle.kept_hours))
        assert abs(rec.idle.cost - kept) < Decimal("0.0001")
        assert rec.cost == rec.plan.converted + rec.storage_cost + rec.idle.cost
        [warning] = [w for w in rec.warnings if w.code is Code.WARN_KEPT_FROM_RELEASE]
        assert warning.params["days"].value == 15
        # The data disk is billed while stopped: the stopped hours are most of its month.
        assert rec.idle.stopped_storage > rec.storage_cost / 2


def test_the_api_gives_the_idle_time_and_its_warning(seed, frozen):
    body = APIClient().post("/api/v1/advise/", MONTHLY_JOB, format="json").json()
    first = body["recommendations"][0]
    assert first["idle"]["way"] == "idle_mode"
    assert first["idle"]["message"]["code"] == "idle_kept_idle_mode"
    assert Decimal(first["idle"]["cost"]) > 0
    assert "warn_kept_from_release" in [w["code"] for w in first["warnings"]]
    startup = {**MONTHLY_JOB, "constraints": {**MONTHLY_JOB["constraints"], "startup_minutes": 6}}
    timed = APIClient().post("/api/v1/advise/", startup, format="json").json()
    idle = timed["recommendations"][0]["idle"]
    # AutoDL bills from power-on: one run a month, 6 minutes of it start-up.
    assert idle["startup_hours"] == 0.1
    assert "idle_startup_billed" in [n["code"] for n in idle["notes"]]


def test_the_page_and_its_csv_show_how_the_idle_time_is_spent(client, seed, frozen):
    html = page(client, MONTHLY_JOB).content.decode()
    assert 'data-idle="idle_mode"' in html
    assert "between runs: stopped, then no-GPU mode" in html
    assert "releases a stopped instance and its data" in html
    assert 'name="startup_minutes"' in html
    rows = list(
        csv.DictReader(
            io.StringIO(page(client, MONTHLY_JOB, format="csv").content.decode("utf-8-sig"))
        )
    )
    hourly = [row for row in rows if row["billing_unit"] == "hour"]
    assert hourly and all(row["idle_way"] == "idle_mode" for row in hourly)
    assert all(Decimal(row["idle_cost"]) > 0 and row["runs"] == "1.0" for row in hourly)
    for row in hourly:
        assert Decimal(row["cost"]) == pytest.approx(
            Decimal(row["monthly_cost"]), abs=Decimal("0.01")
        )


def test_the_chinese_page_says_it_in_chinese(client, seed, frozen):
    html = page(client, MONTHLY_JOB).content.decode()
    chinese = client.get(
        "/advisor/",
        QueryDict(scenario_query(MONTHLY_JOB).urlencode()),
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    ).content.decode()
    assert "between runs" in html and "运行间隔：关机，之后无卡模式" in chinese
    assert re.search(r"以无卡模式开机 [\d.,]+ 小时", chinese)
    assert "释放关机实例及其数据的期限 15 天" in chinese
