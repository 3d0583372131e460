"""The advisor end to end on small hand-made catalogues (docs/advisor-rules.md and
docs/billing-rules.md)."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

import pytest

from advisor.engine import placement, ranking
from advisor.engine.advise import advise
from advisor.engine.errors import NoFit
from advisor.engine.hardware import load_accelerators
from advisor.engine.messages import Code
from advisor.engine.prune import OfferingIndex
from advisor.engine.scenario import parse_scenario
from advisor.engine.types import (
    Constraints,
    ExchangeRateSpec,
    GiB,
    OfferingSpec,
    PriceSpec,
    Scenario,
    StoragePriceSpec,
    Task,
)
from advisor.engine.vocab import PlacementMode

ACCELERATORS = load_accelerators()
NOW = datetime(2026, 10, 2)
FRESH = datetime(2026, 9, 30)


def price(
    unit: str, amount: str, currency: str = "CNY", at: datetime = FRESH, **kw: Any
) -> PriceSpec:
    return PriceSpec(
        unit=unit,
        amount=Decimal(amount),
        currency=currency,
        observed_at=at,  # type: ignore[arg-type]
        source="test",
        **kw,
    )


def offer(
    oid: str, slug: str, *prices: PriceSpec, gpus: int = 1, platform: str = "p", **kw: Any
) -> OfferingSpec:
    return OfferingSpec(
        id=oid,
        platform=platform,
        platform_name=platform.upper(),
        name=oid,
        accelerator=ACCELERATORS[slug],
        gpu_count=gpus,
        prices=prices,
        **kw,
    )


def fixed(name: str, gib: float, **kw: Any) -> Task:
    return Task(name=name, kind="fixed", vram_gib=gib, **kw)


def scenario(*tasks: Task, objective: str = "cost", **constraints: Any) -> Scenario:
    return Scenario(tasks=tasks, constraints=Constraints(**constraints), objective=objective)  # type: ignore[arg-type]


FIVE = (
    fixed("notebook", 5),
    fixed("embed", 7),
    fixed("ocr", 7),
    fixed("sd", 16),
    fixed("eval", 16),
)


def test_five_small_tasks_are_cheaper_on_one_mig_split_a100_than_on_five_instances() -> None:
    """The vendor article "2026多任务GPU平台怎么选", Q3: a MIG platform runs five tasks on one
    card; an instance-level one needs five."""
    mig = offer("mig-a100", "a100-80gb", price("hour", "4.98"), multi_task="mig")
    inst = offer("inst-4090", "rtx-4090-24gb", price("hour", "1.54"), multi_task="instance")
    advice = advise(scenario(*FIVE), [inst, mig], ACCELERATORS, now=NOW)
    by_id = {r.offering_id: r for r in advice.recommendations}
    assert by_id["mig-a100"].instances == 1 and by_id["inst-4090"].instances == 5
    assert by_id["mig-a100"].monthly_cost == Decimal("4.98") * 720
    assert by_id["inst-4090"].monthly_cost == Decimal("1.54") * 720 * 5
    assert advice.recommendations[0].offering_id == "mig-a100"
    assert by_id["mig-a100"].isolation == (PlacementMode.MIG,)


def test_time_shifted_tasks_share_one_instance_and_its_bill() -> None:
    """docs/advisor-rules.md: time-shifted tasks fit separately and share the bill."""
    s = scenario(
        fixed("day api", 20, when="day", hours_per_month=300),
        fixed("night train", 20, when="night", hours_per_month=300),
    )
    [rec] = advise(
        s, [offer("o", "rtx-4090-24gb", price("hour", "1.98"))], ACCELERATORS, now=NOW
    ).recommendations
    assert rec.instances == 1
    assert rec.monthly_cost == Decimal("1.98") * 600


def test_the_monthly_plan_wins_above_the_break_even_and_hourly_below() -> None:
    """AutoDL 4090 listing: 包月 ¥1052 vs ¥1.98/h breaks even at 531 h/month
    (docs/billing-rules.md)."""
    o = offer("autodl-4090", "rtx-4090-24gb", price("month", "1052"), price("hour", "1.98"))
    busy = advise(scenario(fixed("api", 20, hours_per_month=600)), [o], ACCELERATORS, now=NOW)
    light = advise(scenario(fixed("api", 20, hours_per_month=400)), [o], ACCELERATORS, now=NOW)
    assert busy.recommendations[0].plan.unit == "month"
    assert busy.recommendations[0].monthly_cost == Decimal("1052")
    assert light.recommendations[0].plan.unit == "hour"
    assert light.recommendations[0].monthly_cost == Decimal("792")
    reasons = busy.recommendations[0].reasons
    assert any("above 531 h of use per month" in r.english() for r in reasons)


def test_a_mixed_plan_reserves_the_base_and_pays_bursts_by_the_hour() -> None:
    """A mixed plan: reserved base plus on-demand bursts (docs/billing-rules.md)."""
    o = offer("autodl-4090", "rtx-4090-24gb", price("month", "1052"), price("hour", "1.98"))
    s = scenario(
        fixed("api", 20, hours_per_month=720), fixed("batch", 20, when="burst", hours_per_month=40)
    )
    [rec] = advise(s, [o], ACCELERATORS, now=NOW).recommendations
    assert rec.instances == 2
    assert rec.plan.unit == "mixed" and sorted(rec.plan.units) == ["hour", "month"]
    assert rec.monthly_cost == Decimal("1052") + Decimal("1.98") * 40


def test_prices_in_another_currency_are_converted_with_the_rate_and_its_date() -> None:
    """CNY per USD 6.7351 on 2026-09-30 (CFETS central parity; docs/billing-rules.md)."""
    rates = [
        ExchangeRateSpec("USD", "CNY", Decimal("6.7351"), datetime(2026, 9, 30), "CFETS"),
        ExchangeRateSpec("USD", "CNY", Decimal("6.7413"), datetime(2026, 8, 14), "CFETS"),
    ]
    lambda_a100 = offer("lambda", "a100-40gb", price("hour", "1.99", "USD"), platform="lambda")
    s = scenario(fixed("api", 20, hours_per_month=100))
    [rec] = advise(s, [lambda_a100], ACCELERATORS, now=NOW, rates=rates).recommendations
    assert rec.plan.monthly == Decimal("199") and rec.plan.currency == "USD"
    assert rec.plan.converted == Decimal("199") * Decimal("6.7351")
    assert (rec.plan.rate, rec.plan.rate_date) == (Decimal("6.7351"), datetime(2026, 9, 30))
    with pytest.raises(NoFit, match="USD/CNY"):
        advise(s, [lambda_a100], ACCELERATORS, now=NOW)


def test_constraints_filter_and_are_counted_by_reason() -> None:
    p = price("hour", "2")
    offers = [
        offer("other-platform", "a100-80gb", p, platform="q"),
        offer("not-domestic", "a100-80gb", p),
        offer("domestic-pcie", "ascend-910b-64gb", p),
        offer(
            "stale",
            "ascend-910b-64gb",
            price("hour", "1", at=datetime(2026, 7, 1)),
            interconnect="nvlink",
            physically_exclusive=True,
        ),
        offer("shared-host", "ascend-910b-64gb", p, interconnect="nvlink"),
        offer("ok", "ascend-910b-64gb", p, interconnect="nvlink", physically_exclusive=True),
    ]
    s = scenario(
        fixed("sim", 30, portable_code=True),
        platforms=("p",),
        domestic_only=True,
        require_nvlink=True,
        physically_exclusive=True,
        fresh_only=True,
    )
    advice = advise(s, offers, ACCELERATORS, now=NOW)
    assert [r.offering_id for r in advice.recommendations] == ["ok"]
    assert advice.rejected == {
        Code.REJECT_NOT_ON_PLATFORMS: 1,
        Code.REJECT_NOT_DOMESTIC: 1,
        Code.REJECT_NO_NVLINK: 1,
        Code.REJECT_NO_CURRENT_PRICE: 1,
        Code.REJECT_NOT_EXCLUSIVE: 1,
    }
    with_stale = advise(
        scenario(fixed("sim", 30, portable_code=True)), offers[3:4], ACCELERATORS, now=NOW
    )
    assert any("stale (93 days old)" in w.english() for w in with_stale.recommendations[0].warnings)


def test_budget_and_deadline_filter_and_nothing_left_names_the_closest_miss() -> None:
    cheap = offer("cheap-4090", "rtx-4090-24gb", price("hour", "1.5"))
    dear = offer("dear-a100", "a100-80gb", price("hour", "5"))
    s = scenario(fixed("api", 20), budget_per_month=Decimal("1500"))
    assert [
        r.offering_id for r in advise(s, [cheap, dear], ACCELERATORS, now=NOW).recommendations
    ] == ["cheap-4090"]
    with pytest.raises(
        NoFit, match=r"Closest miss \(over budget\): cheap-4090 on P: 1080.00 CNY/month"
    ):
        advise(
            scenario(fixed("api", 20), budget_per_month=Decimal("1000")),
            [cheap, dear],
            ACCELERATORS,
            now=NOW,
        )
    with pytest.raises(NoFit, match=r"does not fit: 2.*Closest miss \(does not fit\): dear-a100"):
        advise(scenario(fixed("big", 90)), [cheap, dear], ACCELERATORS, now=NOW)


TRAIN = {
    "name": "lora",
    "kind": "lora",
    "model": "llama-3.1-8b",
    "tokens": 2e9,
    "gpus": 8,
    "activation_checkpointing": "full",
    "hours_per_month": 200,
}


def test_time_objective_prefers_nvlink_h100s_and_cost_objective_the_cheap_cards() -> None:
    """Time is timing.training_time per accelerator and interconnect (docs/time-model.md)."""
    h100 = offer("h100x8", "h100-sxm-80gb", price("hour", "200"), gpus=8, interconnect="nvlink")
    r4090 = offer("4090x8", "rtx-4090-24gb", price("hour", "14"), gpus=8)
    s_time = parse_scenario({"tasks": [TRAIN], "objective": "time"})
    s_cost = parse_scenario({"tasks": [TRAIN], "objective": "cost"})
    fast = advise(s_time, [r4090, h100], ACCELERATORS, now=NOW)
    cheap = advise(s_cost, [r4090, h100], ACCELERATORS, now=NOW)
    assert [r.offering_id for r in fast.recommendations] == ["h100x8", "4090x8"]
    assert [r.offering_id for r in cheap.recommendations] == ["4090x8", "h100x8"]
    t_h100, t_4090 = (r.time_hours for r in fast.recommendations)
    assert t_h100 is not None and t_4090 is not None and t_h100 < t_4090
    job = fast.recommendations[0].job_cost
    assert job is not None and job >= Decimal("200") * Decimal(str(t_h100)) - Decimal("0.01")
    assert set(fast.pareto) == {"h100x8", "4090x8"}  # one is cheaper, the other faster


def test_a_deadline_drops_offerings_that_train_too_slowly() -> None:
    h100 = offer("h100x8", "h100-sxm-80gb", price("hour", "200"), gpus=8, interconnect="nvlink")
    r4090 = offer("4090x8", "rtx-4090-24gb", price("hour", "14"), gpus=8)
    base = advise(parse_scenario({"tasks": [TRAIN]}), [h100, r4090], ACCELERATORS, now=NOW)
    times = {r.offering_id: r.time_hours for r in base.recommendations}
    deadline = (times["h100x8"] + times["4090x8"]) / 2  # type: ignore[operator]
    s = parse_scenario({"tasks": [TRAIN], "constraints": {"deadline_hours": deadline}})
    advice = advise(s, [h100, r4090], ACCELERATORS, now=NOW)
    assert [r.offering_id for r in advice.recommendations] == ["h100x8"]
    assert advice.rejected == {Code.REJECT_MISSES_DEADLINE: 1}


def test_pareto_front_drops_what_is_both_dearer_and_slower() -> None:
    h100 = offer("h100x8", "h100-sxm-80gb", price("hour", "200"), gpus=8, interconnect="nvlink")
    dear_slow = offer(
        "a100x8-dear", "a100-80gb", price("hour", "300"), gpus=8, interconnect="nvlink"
    )
    advice = advise(
        parse_scenario({"tasks": [TRAIN], "objective": "balanced"}),
        [dear_slow, h100],
        ACCELERATORS,
        now=NOW,
    )
    assert advice.pareto == ("h100x8",)
    assert [r.pareto for r in advice.recommendations] == [True, False]


def test_warnings_name_vendor_claims_retention_spot_and_pooled_isolation() -> None:
    o = offer(
        "pooled",
        "a100-40gb",
        price("hour", "1", source_kind="vendor_claim"),
        sharing="pooled",
        pooled_vram_gib=12,
        retention_after_expiry=False,
        interruptible=True,
    )
    dev = fixed("dev", 8, isolation="soft")
    with pytest.raises(NoFit, match="interruptible"):
        advise(scenario(dev), [o], ACCELERATORS, now=NOW)
    [rec] = advise(
        scenario(dev, allow_interruptible=True), [o], ACCELERATORS, now=NOW
    ).recommendations
    assert {w.code for w in rec.warnings} >= {
        Code.WARN_VENDOR_CLAIM,
        Code.WARN_NO_RETENTION,
        Code.WARN_INTERRUPTIBLE,
        Code.WARN_POOLED_SOFT,
    }
    assert rec.vendor_claim


def test_storage_is_added_to_the_monthly_cost() -> None:
    """AutoDL price docs: paid data disk ≈ ¥0.007/GB·day, billed while shut down."""
    disk = StoragePriceSpec("autodl", "gb_day", Decimal("0.007"), "CNY", FRESH)
    o = offer("o", "rtx-4090-24gb", price("hour", "2"), platform="autodl")
    s = scenario(fixed("api", 20, hours_per_month=100), storage_gb=500)
    [rec] = advise(s, [o], ACCELERATORS, now=NOW, storage_prices=[disk]).recommendations
    assert rec.storage_cost == Decimal("105") and rec.monthly_cost == Decimal("305")


def counting(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[int]:
    """`module.name` replaced by itself counting its calls: the one-item list's count."""
    calls = [0]
    real = getattr(module, name)

    def count(*a: Any) -> Any:
        calls[0] += 1
        return real(*a)

    monkeypatch.setattr(module, name, count)
    return calls


def test_memory_is_computed_once_per_task_and_placement_once_per_signature(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The speed design (ranking module doc): no per-offering memory or placement work (a
    placement is looked at once per signature: placement._target)."""
    memory = counting(monkeypatch, ranking, "task_memory")
    placed = counting(monkeypatch, placement, "_target")
    offers = [
        offer(f"o{i}", "rtx-4090-24gb" if i % 2 else "a100-80gb", price("hour", str(1 + i)))
        for i in range(50)
    ]
    advice = advise(scenario(*FIVE), offers, ACCELERATORS, now=NOW, limit=5)
    assert (memory, placed) == ([5], [2])
    assert advice.fitting == 50 and len(advice.recommendations) >= 5


def test_a_placement_cache_the_caller_keeps_skips_placement_on_the_next_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    placed = counting(monkeypatch, placement, "_target")
    offers = [
        offer("a", "a100-80gb", price("hour", "5")),
        offer("b", "rtx-4090-24gb", price("hour", "2")),
    ]
    kept = placement.PlacementCache()
    first = advise(scenario(*FIVE), offers, ACCELERATORS, now=NOW, placements=kept)
    assert placed == [2]
    again = advise(scenario(*FIVE), offers, ACCELERATORS, now=NOW, placements=kept)
    assert placed == [2] and again == first
    advise(scenario(*FIVE), offers, ACCELERATORS, now=NOW)  # no cache given: placed afresh
    assert placed == [4]


def test_cards_of_one_memory_size_share_one_placement(monkeypatch: pytest.MonkeyPatch) -> None:
    """Placement reads a card's usable memory, not its name, unless it splits it into MIG slices
    (placement.layout): five 24 GB cards are placed once, and each answer still names its card."""
    computed = counting(monkeypatch, placement, "_place_layout")
    cards = ["rtx-3090-24gb", "rtx-4090-24gb", "a10-24gb", "l4-24gb", "rtx-a5000-24gb"]
    offers = [offer(c, c, price("hour", str(1 + i))) for i, c in enumerate(cards)]
    advice = advise(scenario(fixed("api", 20), fixed("notebook", 2)), offers, ACCELERATORS, now=NOW)
    assert computed == [1]
    assert sorted(r.offering_name for r in advice.recommendations) == sorted(cards)
    # A miss names its own card.
    placer = placement.PlacementCache().placer((placement.TaskNeed("api", 30 * GiB),))
    names = {o.accelerator.name for o in offers}
    for o in offers:
        reason = placer.place(o).reason
        assert reason is not None and o.accelerator.name in reason.english()
        assert not any(n in reason.english() for n in names - {o.accelerator.name})


def test_an_offering_exactly_at_the_budget_is_kept_and_a_cent_over_is_not() -> None:
    """Ranking runs in floats; the budget edge is decided on the exact Decimal total.
    1.5 CNY/h × 720 h = 1080.00 CNY/month."""
    s_at = scenario(fixed("api", 20), budget_per_month=Decimal("1080.00"))
    at = advise(s_at, [offer("4090", "rtx-4090-24gb", price("hour", "1.5"))], ACCELERATORS, now=NOW)
    assert at.recommendations[0].monthly_cost == Decimal("1080.00")
    s_under = scenario(fixed("api", 20), budget_per_month=Decimal("1079.99"))
    with pytest.raises(NoFit, match="over budget"):
        advise(
            s_under, [offer("4090", "rtx-4090-24gb", price("hour", "1.5"))], ACCELERATORS, now=NOW
        )


def test_the_exact_monthly_cost_is_shown_even_for_prices_floats_cannot_hold() -> None:
    """0.1 has no exact float; the recommendation still carries Decimal money: 0.1 × 720 = 72."""
    advice = advise(
        scenario(fixed("api", 20)),
        [offer("4090", "rtx-4090-24gb", price("hour", "0.1"))],
        ACCELERATORS,
        now=NOW,
    )
    assert advice.recommendations[0].monthly_cost == Decimal("72.0")
    assert str(advice.recommendations[0].plan.converted) in {"72.0", "72.00"}


@pytest.mark.parametrize("index_kept", [False, True])
def test_a_rate_dated_tomorrow_applies_once_its_date_comes_to_kept_fits_and_fresh_ones(
    index_kept: bool,
) -> None:
    """The storage a kept fit's bills remember is converted at the rate usable when it was kept:
    a rate that becomes usable later applies to the kept fits (and to a kept index's answers)
    as to fresh ones."""
    disk = StoragePriceSpec("p", "gb_month", Decimal("1"), "USD", FRESH)
    offerings = [offer("o", "rtx-4090-24gb", price("month", "1000"))]
    s = scenario(fixed("api", 20), storage_gb=100)
    tomorrow = datetime(2026, 10, 3)
    rates = [
        ExchangeRateSpec("USD", "CNY", Decimal("7"), FRESH, "test"),
        ExchangeRateSpec("USD", "CNY", Decimal("14"), tomorrow, "test"),
    ]
    kept = placement.PlacementCache()
    index = OfferingIndex(offerings) if index_kept else None

    def storage(now: datetime, cache: placement.PlacementCache, **kw: Any) -> Decimal | None:
        args = {"now": now, "rates": rates, "storage_prices": [disk], "placements": cache}
        advice = advise(s, offerings, ACCELERATORS, **args, **kw)  # type: ignore[arg-type]
        return advice.recommendations[0].storage_cost

    assert storage(NOW, kept, index=index) == Decimal("700")
    later = datetime(2026, 10, 4)
    fresh = storage(later, placement.PlacementCache())
    assert storage(later, kept, index=index) == fresh == Decimal("1400")
