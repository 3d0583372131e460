"""Issue 27 on the seed catalogue: a job over more GPUs than one instance holds is answered on
several instances (docs/advisor-rules.md, "Placement"), through the service and the API, where
it was a 422 ("does not fit: 158")."""

from __future__ import annotations

import math

from django.http import QueryDict
from rest_framework.test import APIClient

from advisor.engine import restarts, timing
from advisor.engine.messages import Code
from advisor.forms import scenario_query
from advisor.services import advise_scenario
from tests.conftest import NOW

# Llama 3.1 70B full fine-tune, ZeRO-3 over 32 GPUs, full recomputation: 52.8 GiB per GPU
# (docs/memory-model.md), more than any one instance of the seed catalogue holds in GPUs.
FULL_70B_ON_32 = {
    "tasks": [
        {
            "name": "70b",
            "kind": "full_finetune",
            "model": "llama-3.1-70b",
            "sharding": "zero3",
            "gpus": 32,
            "activation_checkpointing": "full",
            "tokens": 1e8,
            "seq_len": 4096,
        }
    ],
    "constraints": {"currency": "CNY"},
    "objective": "cost",
}
SPANS = {Code.WARN_SPANS_MACHINES_STATED, Code.WARN_SPANS_MACHINES_ASSUMED}


def test_a_70b_full_finetune_on_32_gpus_is_answered_on_several_instances(seed, frozen):
    """Each recommendation bills ceil(32 / n) instances of its n GPUs, its time is the estimate
    over those machines (timing.training_time with n GPUs to a machine and the network the
    offering states or the one assumed), and it says how its instances are joined."""
    report = advise_scenario(FULL_70B_ON_32, now=NOW)
    assert report.no_fit is None and report.advice is not None
    recs = report.advice.recommendations
    assert recs
    by_id = {o.id: o for o in report.catalogue.offerings}
    [task] = report.scenario.tasks
    for rec in recs:
        n = rec.gpus_per_instance
        assert rec.instances == math.ceil(32 / n) > 1
        [a] = rec.placement.assignments
        assert (a.machines, a.gpu_count) == (rec.instances, 32)
        off = by_id[rec.offering_id]
        expected = timing.training_time(
            task,
            off.accelerator,
            32,
            off.interconnect,
            gpus_per_node=n,
            network=off.network,
            network_gbps=off.network_gbps,
        )
        # On spot capacity, the time with restarts at the platform's rate (restarts.py).
        hours = expected.hours
        rate = restarts.interruption_rate(off)
        if rate is not None:
            hours = restarts.with_restarts(hours, rate, 0.5, 1 / 6).hours
        assert rec.time_hours is not None
        assert math.isclose(rec.time_hours, hours, rel_tol=1e-9)
        said = {w.params["message"].code for w in rec.warnings if w.code is Code.WARN_TASK}
        assert said & SPANS
    # The 8-GPU H100 machines of the catalogue are among the answers, on 4 instances each.
    h100 = [r for r in recs if r.accelerator == "h100-sxm-80gb" and r.gpus_per_instance == 8]
    assert h100 and all(r.instances == 4 for r in h100)


def test_the_api_answers_a_job_over_several_instances_with_recommendations(seed, frozen):
    """POST /api/v1/advise/ gives 200 with recommendations (no longer a 422); each placement
    names the instances its task takes (`machines`, `gpu_count`)."""
    response = APIClient().post("/api/v1/advise/", FULL_70B_ON_32, format="json")
    assert response.status_code == 200, response.json()
    recs = response.json()["recommendations"]
    assert recs
    for rec in recs:
        [a] = rec["placement"]
        assert (a["machines"], a["gpu_count"]) == (rec["instances"], 32)


def test_the_page_names_the_instances_a_task_spans_in_both_languages(client, seed, frozen):
    """The advisor page's placement column: the 32-GPU job on 4 H100 machines of 8 is "instances
    1 to 4, 32 GPUs" (实例 1 至 4，共 32 张 GPU), and its warning says the network is assumed."""
    query = QueryDict(scenario_query(FULL_70B_ON_32).urlencode())
    for language, where, assumed in (
        ("en", "70b → instances 1 to 4, 32 GPUs", "is assumed"),
        ("zh-hans", "70b → 实例 1 至 4，共 32 张 GPU", "平台未说明实例间网络"),
    ):
        response = client.get("/advisor/", query, HTTP_ACCEPT_LANGUAGE=language)
        assert response.status_code == 200
        rows = [
            r
            for r in response.context["rows"]
            if r["rec"].accelerator == "h100-sxm-80gb" and r["rec"].gpus_per_instance == 8
        ]
        assert rows and all(r["placement_text"] == [where] for r in rows)
        assert assumed in response.content.decode()
