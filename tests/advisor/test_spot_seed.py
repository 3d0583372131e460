"""Spot capacity through the seed catalogue (tests.conftest.NOW), the service, the API and the
form (docs/advisor-rules.md, "Spot: who may use it, restarts and their cost").

The seed holds pre-emptible offerings on 共绩算力 (4090 ¥1.19/h, "抢占统一 6 折", and H800, from
gongjiyun.com/pricing as read 2026-10-04), Nebius (preemptible H100/H200/B200), and the AWS,
Google Cloud and Azure spot rows of the SkyPilot catalogs (skypilot-org/skypilot-catalog
`catalogs/v8/aws/vms.csv`@e385a0d348eda9cefd9806423e7725944dc249e4 and the GCP and Azure files the
seed names)."""

from __future__ import annotations

from typing import Any

import pytest
from django.http import QueryDict
from rest_framework.test import APIClient

from advisor.engine import restarts
from advisor.engine.messages import Code
from advisor.engine.scenario import parse_scenario
from advisor.forms import scenario_query
from advisor.presets import PRESETS
from advisor.services import advise_scenario, load_catalogue
from platforms.models import Offering, Platform
from tests.conftest import NOW

CHATBOT = {
    "name": "chatbot",
    "kind": "inference",
    "model": "qwen2.5-7b",
    "when": "day",
    "hours_per_month": 300,
}
LORA = {
    "name": "fine-tune",
    "kind": "lora",
    "model": "llama-3.1-8b",
    "activation_checkpointing": "full",
    "tokens": 2e8,
}


def spot_ids() -> set[int]:
    return set(Offering.objects.filter(interruptible=True).values_list("pk", flat=True))


def advice(scenario: dict[str, Any]) -> Any:
    report = advise_scenario(scenario, now=NOW)
    assert report.advice is not None, report.no_fit
    return report.advice


def legs_on_spot(rec: Any, spot: set[int]) -> list[Any]:
    return [leg for leg in rec.legs if leg.offering_id in spot] or (
        [rec] if not rec.legs and rec.offering_id in spot else []
    )


def test_the_training_and_inference_preset_keeps_its_daytime_inference_off_spot(seed, frozen):
    """The preset "training + inference mixed" (advisor/presets.json): its daytime inference is
    user-facing, so no recommendation runs it on spot capacity (it was #1's inference leg, a
    spot H200, before); its night fine-tune may still run on spot, priced with restarts."""
    preset = PRESETS["training-inference"]
    spot = spot_ids()
    result = advice(preset.scenario)
    assert result.rejected.get(Code.REJECT_INTERRUPTIBLE_SERVICE, 0) > 0
    for rec in result.recommendations:
        for leg in rec.legs or ():
            if leg.offering_id in spot:
                assert "daytime inference" not in leg.tasks
        if not rec.legs:
            assert rec.offering_id not in spot
    first = result.recommendations[0]
    on_spot = [leg for leg in first.legs if leg.offering_id in spot]
    if on_spot:  # the night fine-tune alone, with its restarts stated
        assert all(leg.tasks == ("night fine-tune",) for leg in on_spot)
        assert Code.WARN_TASK in {w.code for w in first.warnings}
        assert any(w.code is Code.WARN_SPOT_RESTARTS for w in _nested(first.warnings))


def _nested(warnings: Any) -> list[Any]:
    """The warnings and the messages they wrap (WARN_TASK)."""
    out = []
    for w in warnings:
        out.append(w)
        inner = w.params.get("message") if w.code is Code.WARN_TASK else None
        if inner is not None:
            out.append(inner)
    return out


def test_a_day_only_chatbot_gets_no_preemptible_offering(seed, frozen):
    """A chatbot busy 300 h by day: 共绩's and 优云's pre-emptible 4090s were #2 and #5; now
    every spot offering is left out and counted, and none is recommended."""
    spot = spot_ids()
    result = advice({"tasks": [CHATBOT], "objective": "cost"})
    assert not [r for r in result.recommendations if legs_on_spot(r, spot)]
    assert result.rejected[Code.REJECT_INTERRUPTIBLE_SERVICE] >= len(spot) // 2
    allowed = advice(
        {"tasks": [CHATBOT], "constraints": {"allow_interruptible": True}, "objective": "cost"}
    )
    assert Code.REJECT_INTERRUPTIBLE_SERVICE not in allowed.rejected


def test_no_spot_asked_leaves_spot_out_of_a_training_job(seed, frozen):
    """A 2e8-token LoRA: by default its #1 is a pre-emptible offering; with
    `allow_interruptible: false` no recommendation is, and each one left out is counted."""
    spot = spot_ids()
    default = advice({"tasks": [LORA], "objective": "cost"})
    assert default.recommendations[0].offering_id in spot
    no = advice(
        {"tasks": [LORA], "constraints": {"allow_interruptible": False}, "objective": "cost"}
    )
    assert not [r for r in no.recommendations if legs_on_spot(r, spot)]
    assert no.rejected[Code.REJECT_INTERRUPTIBLE_NOT_ALLOWED] > 0
    assert Code.REJECT_INTERRUPTIBLE_SERVICE not in no.rejected


def test_a_spot_first_under_a_deadline_carries_the_risk(seed, frozen):
    """A LoRA with `deadline_hours: 12`: where #1 is on spot, it says its interruptions, time and
    cost with restarts, and the time at twice the rate it is held to, which meets the deadline."""
    spot = spot_ids()
    result = advice({"tasks": [LORA], "constraints": {"deadline_hours": 12}, "objective": "cost"})
    first = result.recommendations[0]
    assert first.offering_id in spot
    warnings = _nested(first.warnings)
    codes = {w.code for w in warnings}
    assert {Code.WARN_SPOT_RESTARTS, Code.WARN_SPOT_DEADLINE, Code.WARN_INTERRUPTIBLE} <= codes
    [deadline] = [w for w in warnings if w.code is Code.WARN_SPOT_DEADLINE]
    assert deadline.params["high"].value <= 12
    assert first.time_hours is not None and first.time_hours <= deadline.params["high"].value
    [figures] = [w for w in warnings if w.code is Code.WARN_SPOT_RESTARTS]
    assert figures.params["interruptions"].value > 0
    assert figures.params["hours"].value == pytest.approx(first.time_hours)


def test_google_clouds_stated_rate_reaches_the_engine_and_others_take_the_default(seed, frozen):
    """Google Cloud's seed row states one interruption a day (its preemptible VMs "always stop
    after 24 hours", docs.cloud.google.com/compute/docs/instances/create-use-preemptible), with
    that source; a platform that states none is left empty, and the engine assumes its default."""
    gcp = Platform.objects.get(slug="gcp")
    assert gcp.spot_interruptions_per_day == 1.0
    assert gcp.spot_interruptions_source is not None
    assert "preemptible" in gcp.spot_interruptions_source.url
    assert Platform.objects.get(slug="aws").spot_interruptions_per_day is None
    specs = load_catalogue(parse_scenario({"tasks": [LORA]}), now=NOW).offerings
    by_platform = {o.platform: o for o in specs if o.interruptible}
    assert by_platform["gcp"].interruptions_per_day == 1.0
    assert restarts.rate_assumed(by_platform["aws"])
    assert not restarts.rate_assumed(by_platform["gcp"])


def test_the_api_and_the_form_take_the_three_values_and_the_minutes(seed, frozen, client):
    body = {
        "tasks": [LORA],
        "constraints": {"allow_interruptible": False, "checkpoint_minutes": 60},
        "objective": "cost",
    }
    response = APIClient().post("/api/v1/advise/", body, format="json")
    assert response.status_code == 200, response.json()
    rejected = response.json()["rejected"]
    assert Code.REJECT_INTERRUPTIBLE_NOT_ALLOWED in str(rejected)
    bad = {**body, "constraints": {"restart_minutes": -1}}
    refused = APIClient().post("/api/v1/advise/", bad, format="json")
    assert refused.status_code == 400
    assert "restart_minutes" in str(refused.json())
    for value, expected in (("off", False), ("on", True)):
        query = scenario_query({"tasks": [LORA], "constraints": {"allow_interruptible": expected}})
        assert query["allow_interruptible"] == value
        page = client.get("/advisor/", QueryDict(query.urlencode()))
        assert page.context["form"].scenario()["constraints"]["allow_interruptible"] is expected
    unset = client.get("/advisor/", QueryDict(scenario_query({"tasks": [LORA]}).urlencode()))
    assert "allow_interruptible" not in unset.context["form"].scenario()["constraints"]
