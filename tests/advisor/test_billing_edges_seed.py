"""Billing at the edges through the seed catalogue (fixtures/): what the issue's author saw, and
what the advisor now answers."""

from __future__ import annotations

from decimal import Decimal

from advisor.engine.messages import Code
from advisor.services import advise_scenario
from tests.conftest import NOW


def _by_offering(report):
    from platforms.models import Offering

    keys = dict(Offering.objects.values_list("pk", "external_id"))
    return {keys[r.offering_id]: r for r in report.advice.recommendations}


def test_a_12_hour_a_day_service_on_compshare_pays_the_hour_not_15_day_plans(seed, frozen):
    """优云智算 RTX 4090 48GB (compshare.cn/price-list, 2026-09-10): ¥3.30/h, ¥72.60/day,
    ¥1,980/month. 12 h a day for 30 days: 30 day plans are ¥2,178 (15 packed, ¥1,089, before);
    360 h by the hour, ¥1,188, wins."""
    report = advise_scenario(
        {
            "tasks": [{"name": "api", "kind": "fixed", "vram_gib": 40, "hours_per_month": 360}],
            "constraints": {"platforms": ["compshare"]},
        },
        now=NOW,
    )
    rec = _by_offering(report)["cs-4090-48g"]
    assert (rec.plan.unit, rec.cost) == ("hour", Decimal("1188.00"))


def test_a_half_hour_deadline_leaves_out_the_card_with_no_time_estimate(seed, frozen):
    """A LoRA of Qwen2.5-7B on 5e7 tokens by half an hour: 142 offerings train too slowly, and
    Paperspace's Quadro P6000 has no time estimate (its NVIDIA datasheet states FP32 only, no
    BF16 figure). It was kept before, costed as a full month and badged Pareto; now nothing is
    left, and it is counted as "no time estimate"."""
    report = advise_scenario(
        {
            "tasks": [
                {
                    "name": "lora",
                    "kind": "lora",
                    "model": "qwen2.5-7b",
                    "activation_checkpointing": "full",
                    "tokens": 5e7,
                }
            ],
            "constraints": {"deadline_hours": 0.5},
        },
        now=NOW,
    )
    assert report.no_fit is not None
    rejected = dict(report.no_fit.rejected)
    assert rejected[Code.REJECT_NO_TIME_ESTIMATE] == 1
    assert rejected[Code.REJECT_MISSES_DEADLINE] == 142
