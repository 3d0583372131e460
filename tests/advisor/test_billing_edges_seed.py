"""Billing at the edges through the seed catalogue (fixtures/): what the issue's author saw, and
what the advisor now answers."""

from __future__ import annotations

from decimal import Decimal

from advisor.engine.billing import cents
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
    """A LoRA of Qwen2.5-7B on 5e7 tokens by half an hour: 660 offerings train too slowly, and
    Paperspace's Quadro P6000 has no time estimate (its NVIDIA datasheet states FP32 only, no
    BF16 figure). It was kept before, costed as a full month and badged Pareto; now nothing is
    left, and it is counted as "no time estimate". The seed's 12 market floors and statistics
    are left out before their time is asked (docs/advisor-rules.md, "What a price is")."""
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
    # 128 of the Chinese and global platforms' offerings, 532 of the AWS, Google Cloud and Azure
    # instance kinds the seed imports from their SkyPilot catalogs (fixtures/catalogs/); the two
    # domestic cards (AutoDL's Ascend 910B and MTT S4000) run PyTorch only through a port
    # (torch_npu, torch_musa), which the scenario does not allow.
    assert rejected[Code.REJECT_MISSES_DEADLINE] == 128 + 532
    assert rejected[Code.REJECT_STACK_PORT_ONLY] == 2
    assert rejected[Code.REJECT_MARKET_FIGURE] == 12


def _specs():
    from advisor.services import accelerator_specs, offering_specs
    from platforms.models import Offering

    keys = dict(Offering.objects.values_list("pk", "external_id"))
    return {keys[s.id]: s for s in offering_specs(accelerator_specs(), now=NOW)}


def test_the_platforms_stated_metering_reaches_their_hourly_prices(seed):
    """智星云 bills "按小时计费" (the seed article, 智星云 on itself): each started hour.
    矩池云 "支持按秒计费" (the same article on its competitors): per second. 优云智算 states
    no step: none is set, and the engine assumes per second and says so."""
    specs = _specs()
    (zxy,) = specs["zxy-4090-vm"].prices
    assert (zxy.unit, zxy.granularity_seconds) == ("hour", 3600)
    (matpool,) = specs["mp-4090"].prices
    assert (matpool.unit, matpool.granularity_seconds) == ("hour", 1)
    compshare = {p.unit: p for p in specs["cs-4090-48g"].prices}
    assert compshare["hour"].granularity_seconds is None


def test_zhixingyun_bills_each_started_hour_of_a_short_daily_service(seed, frozen):
    """智星云 RTX 4090 cloud VM at ¥1.50 an hour (the seed article), a service busy 15 h a month:
    30 daily runs of 30 minutes, 30 started hours, ¥45 (¥22.50 per second, before)."""
    report = advise_scenario(
        {
            "tasks": [{"name": "dev", "kind": "fixed", "vram_gib": 10, "hours_per_month": 15}],
            "constraints": {"platforms": ["zhixingyun"]},
        },
        now=NOW,
    )
    rec = _by_offering(report)["zxy-4090-vm"]
    assert (rec.plan.unit, rec.cost) == ("hour", Decimal("45.00"))
    assert Code.WARN_METERING_ASSUMED not in {w.code for w in rec.warnings}


def test_an_unknown_metering_is_stated_on_the_seeded_advice(seed, frozen):
    """优云智算 states no metering step (fixtures/catalogue.json, its billing rules): its RTX
    4090 48GB at ¥3.30 an hour (compshare.cn/price-list) for 15 h a month is billed per second,
    15 × ¥3.30 = ¥49.50, and the advice says per started hour would add 15 × ¥3.30 = ¥49.50."""
    report = advise_scenario(
        {
            "tasks": [{"name": "dev", "kind": "fixed", "vram_gib": 40, "hours_per_month": 15}],
            "constraints": {"platforms": ["compshare"]},
        },
        now=NOW,
    )
    rec = _by_offering(report)["cs-4090-48g"]
    assert (rec.plan.unit, rec.cost) == ("hour", Decimal("49.50"))
    (note,) = [w for w in rec.warnings if w.code is Code.WARN_METERING_ASSUMED]
    assert note.params["platform"] == "优云智算 (Compshare, UCloud)"
    assert note.params["more"].amount == Decimal("49.50")


def test_a_thousand_runs_of_32_5_hours_are_costed_on_46_instances(seed, frozen):
    """1,000 renders a month of 117,000 frames at 1 s a frame on an RTX 4090 (32.5 h a run, timed
    on its own card): 32,500 h a month, on ceil(32,500 / 720) = 46 instances, each busy 706.5 h.
    AutoDL's RTX 4090 month plan, ¥1,052 (AutoDL market listing, autumn 2026), beats 706.5 h at
    ¥1.98 an hour (¥1,398.91): 46 × ¥1,052 = ¥48,392 a month (one month plan, ¥1,052, before)."""
    report = advise_scenario(
        {
            "tasks": [
                {
                    "name": "render",
                    "kind": "fixed",
                    "vram_gib": 10,
                    "frames": 117000,
                    "seconds_per_frame": 1,
                    "reference_accelerator": "rtx-4090-24gb",
                    "jobs_per_month": 1000,
                }
            ],
            "constraints": {"platforms": ["autodl"]},
        },
        now=NOW,
    )
    rec = _by_offering(report)["adl-4090"]
    assert rec.time_hours == 32.5
    assert (rec.plan.unit, rec.instances) == ("month", 46)
    assert cents(rec.cost) == Decimal("48392.00")
    codes = {w.params["message"].code for w in rec.warnings if w.code is Code.WARN_TASK}
    assert Code.WARN_JOBS_ON_PARALLEL_INSTANCES in codes
