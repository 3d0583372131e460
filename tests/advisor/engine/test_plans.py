"""Plans of legs (advisor/engine/plans.py), the verdict on the article's pick (verdict.py) and the
"what would fit" changes (suggest.py), on small hand-made catalogues.

Prices here are made up for the arithmetic; each test says the sums it expects, and the product's
rule they follow (README, "Plans across platforms"): a plan across platforms is proposed only
when it costs more than 5 % less than the best single-platform plan.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from decimal import Decimal
from typing import Any

import pytest

from advisor.engine import plans, verdict
from advisor.engine.advise import advise
from advisor.engine.billing import cents
from advisor.engine.errors import NoFit
from advisor.engine.estimate import estimate
from advisor.engine.hardware import load_accelerators
from advisor.engine.messages import Code
from advisor.engine.scenario import parse_scenario, scenario_to_dict
from advisor.engine.suggest import what_would_fit
from advisor.engine.types import (
    Constraints,
    OfferingSpec,
    PriceSpec,
    Scenario,
    StoragePriceSpec,
    Task,
)
from advisor.engine.vocab import BillingUnit

ACCELERATORS = load_accelerators()
NOW = datetime(2026, 10, 2)
FRESH = datetime(2026, 9, 30)


def price(unit: str, amount: str) -> PriceSpec:
    return PriceSpec(unit=unit, amount=Decimal(amount), currency="CNY", observed_at=FRESH)  # type: ignore[arg-type]


def offer(oid: str, platform: str, *prices: PriceSpec, **kw: Any) -> OfferingSpec:
    return OfferingSpec(
        id=oid,
        platform=platform,
        platform_name=platform.upper(),
        name=oid,
        accelerator=ACCELERATORS["rtx-4090-24gb"],
        prices=prices,
        **kw,
    )


# Two tasks of 20 GiB each: they cannot share a 24 GB card, so each takes an instance.
STEADY = Task(name="steady", kind="fixed", vram_gib=20, when="always")
BURST = Task(name="burst", kind="fixed", vram_gib=20, when="burst", hours_per_month=100)


def scenario(*tasks: Task, **constraints: Any) -> Scenario:
    return Scenario(tasks=tasks, constraints=Constraints(**constraints), objective="cost")  # type: ignore[arg-type]


def search(s: Scenario, offerings: list[OfferingSpec], **kw: Any) -> plans.PlanSearch:
    found = plans.search_plans(s, offerings, ACCELERATORS, now=NOW, **kw)
    assert found is not None
    return found


def catalogue(b_hourly: str) -> list[OfferingSpec]:
    """Platform A: a card for 1,000 a month or 10 an hour; platform B: `b_hourly` an hour."""
    return [
        offer("a", "a", price("month", "1000"), price("hour", "10")),
        offer("b", "b", price("hour", b_hourly)),
    ]


def test_a_steady_base_on_one_platform_and_bursts_on_another_wins_by_more_than_five_percent():
    """One platform alone: A = 1,000 (month) + 1,000 (100 h × 10, or a month) = 2,000; B = 720 h
    × 2 + 100 h × 2 = 1,640. Across them: A's month for the steady task (1,000) + B's hours for
    the bursts (200) = 1,200, which is 440 (26.8 %) less than B alone."""
    found = search(scenario(STEADY, BURST), catalogue("2"))
    assert found.plan is not None and found.plan is found.best_cross
    legs = {leg.tasks: leg for leg in found.plan.legs}
    assert legs[("steady",)].platform == "a" and legs[("steady",)].plan.unit == "month"
    assert legs[("burst",)].platform == "b" and legs[("burst",)].plan.unit == "hour"
    assert found.plan.cost == Decimal("1200")
    assert found.single is not None and found.single.cost == Decimal("1640")
    assert found.saving == Decimal("440")
    assert found.saving_fraction == pytest.approx(440 / 1640)
    assert found.note.code is Code.PLAN_MIXED_WINS
    assert found.note.params["why"].code is Code.PLAN_SPLIT_BURST  # type: ignore[union-attr]


def test_a_split_that_saves_five_percent_or_less_is_not_proposed_but_says_by_how_much():
    """B at 1.45 an hour: B alone 720 × 1.45 + 100 × 1.45 = 1,189; across, 1,000 + 145 = 1,145:
    44 (3.7 %) less, under the 5 % a second platform must save."""
    found = search(scenario(STEADY, BURST), catalogue("1.45"))
    assert found.plan is None
    assert found.best_cross is not None and found.best_cross.cost == Decimal("1145")
    assert found.single is not None and found.single.cost == Decimal("1189")
    assert found.saving == Decimal("44")
    assert found.note.code is Code.PLAN_NONE_BEATS


def test_the_budget_is_the_plans_not_each_legs():
    """The 1,200 plan of the first test over a budget of 1,100: not proposed, and said so."""
    found = search(scenario(STEADY, BURST, budget_per_month=Decimal("1100")), catalogue("2"))
    assert found.plan is None
    assert found.details[0].code is Code.PLAN_OVER_BUDGET


def test_a_single_task_has_no_plan_of_legs_to_try():
    assert plans.search_plans(scenario(STEADY), catalogue("2"), ACCELERATORS, now=NOW) is None


def test_data_is_kept_on_both_platforms_and_moving_it_is_timed_at_the_stated_link():
    """100 GB on both platforms at 0.5 a GB-month each: 50 on each leg. Moving it at 100 Mbit/s
    takes 100 × 8,000 / 100 s = 8,000 s = 2.22 h; the scenario may state the link."""
    storage = [
        StoragePriceSpec(
            platform=p, unit="gb_month", amount=Decimal("0.5"), currency="CNY", observed_at=FRESH
        )  # type: ignore[arg-type]
        for p in ("a", "b")
    ]
    found = search(scenario(STEADY, BURST, storage_gb=100), catalogue("2"), storage_prices=storage)
    assert found.best_cross is not None
    assert all(leg.storage_cost == Decimal("50") for leg in found.best_cross.legs)
    twice, move = found.details
    assert twice.code is Code.PLAN_DATA_TWICE
    assert move.params["hours"].value == pytest.approx(100 * 8000 / 100 / 3600)  # type: ignore[union-attr]
    assert move.params["basis"].code is Code.PLAN_MBPS_ASSUMED  # type: ignore[union-attr]
    stated = search(
        scenario(STEADY, BURST, storage_gb=100, transfer_mbps=1000),
        catalogue("2"),
        storage_prices=storage,
    )
    assert stated.details[1].params["hours"].value == pytest.approx(0.222, abs=1e-3)  # type: ignore[union-attr]


def test_a_recommendation_is_a_plan_of_one_leg():
    advice = advise(scenario(STEADY, BURST), catalogue("2"), ACCELERATORS, now=NOW)
    first = advice.recommendations[0]
    plan = plans.single_plan(first, "CNY")
    [leg] = plan.legs
    assert (leg.offering_id, leg.cost, leg.tasks) == (
        first.offering_id,
        first.cost,
        ("steady", "burst"),
    )
    assert plan.cost == first.cost and not plan.across_platforms


# --------------------------------------------------------------------------------- the verdict


def test_the_verdict_says_what_the_answer_saves_against_the_articles_pick_and_why():
    """The article's pick is platform A for both tasks (2,000); the answer is the 1,200 plan
    across A and B: 800 less, because it splits the tasks."""
    s = scenario(STEADY, BURST)
    found = search(s, catalogue("2"))
    pool = verdict.pick_pool(verdict.PickLeg("a"), catalogue("2"))
    pick, _ = plans.price_legs(s, [((0, 1), pool)], ACCELERATORS, now=NOW)
    assert pick is not None and pick.cost == Decimal("2000")
    judged = verdict.judge("A's card", pick, found.plan, "cost")
    assert judged.pick_wins is False and judged.saving == Decimal("800")
    assert judged.message.code is Code.VERDICT_OTHER_CHEAPER
    assert judged.message.params["because"][0].code is Code.BECAUSE_SPLIT  # type: ignore[index]


def test_the_articles_pick_wins_when_it_is_the_answer():
    s = scenario(STEADY, BURST)
    pool = verdict.pick_pool(verdict.PickLeg("b"), catalogue("2"))
    pick, _ = plans.price_legs(s, [((0, 1), pool)], ACCELERATORS, now=NOW)
    judged = verdict.judge("B", pick, pick, "cost")
    assert judged.pick_wins is True and judged.message.code is Code.VERDICT_PICK_WINS


def test_a_pick_whose_priced_part_already_costs_more_than_the_answer_loses_whatever_the_rest():
    """Tip 4's case: one leg of the pick (platform C) has no price. The other, A's month for the
    steady task, costs 1,000: less than the best single-platform answer (1,640), so without C's
    price the pick cannot be judged; against an answer of 900 it loses whatever C costs."""
    s = scenario(STEADY, BURST)
    pool = verdict.pick_pool(verdict.PickLeg("a", units=("month",)), catalogue("2"))
    part, _ = plans.price_legs(s, [((0,), pool)], ACCELERATORS, now=NOW)
    assert part is not None and part.cost == Decimal("1000")
    best = search(s, catalogue("2")).single
    assert best is not None and best.cost == Decimal("1640")
    open_case = verdict.judge("A + C", None, best, "cost", unpriced="C", priced_part=part)
    assert open_case.pick_wins is None and open_case.message.code is Code.VERDICT_PICK_UNPRICED
    cheaper = replace(best.legs[0], cost=Decimal("900"), monthly_cost=Decimal("900"))
    answer = plans.Plan((cheaper,), "CNY", best.basis)
    lost = verdict.judge("A + C", None, answer, "cost", unpriced="C", priced_part=part)
    assert lost.pick_wins is False and lost.message.code is Code.VERDICT_PART_COSTS_MORE


# ------------------------------------------------------------------------- what would fit


def nofit(s: Scenario, offerings: list[OfferingSpec]) -> NoFit:
    with pytest.raises(NoFit) as caught:
        advise(s, offerings, ACCELERATORS, now=NOW)
    return caught.value


def test_over_budget_suggests_the_budget_the_closest_miss_needs_as_a_scenario():
    """B alone costs 1,640 a month: a budget of 1,000 misses; the suggestion is 1,640."""
    s = scenario(STEADY, BURST, budget_per_month=Decimal("1000"))
    error = nofit(s, catalogue("2")[1:])
    assert error.closest_miss is not None and error.closest_miss.reason is Code.REJECT_OVER_BUDGET
    [change] = what_would_fit(
        s, estimate(s, ACCELERATORS), error.closest_miss, dict(error.rejected), ACCELERATORS
    )
    assert change.change.code is Code.SUGGEST_BUDGET
    assert change.scenario.constraints.budget_per_month == Decimal("1640")
    assert advise(change.scenario, catalogue("2")[1:], ACCELERATORS, now=NOW).recommendations


def test_a_constraint_that_leaves_everything_out_is_suggested_away():
    s = scenario(STEADY, physically_exclusive=True)
    unknown = [offer("u", "u", price("hour", "1"), physically_exclusive=None)]
    error = nofit(s, unknown)
    assert dict(error.rejected) == {Code.REJECT_EXCLUSIVE_UNKNOWN: 1}
    [change] = what_would_fit(
        s, estimate(s, ACCELERATORS), error.closest_miss, dict(error.rejected), ACCELERATORS
    )
    assert change.change.code is Code.SUGGEST_NOT_EXCLUSIVE
    assert not change.scenario.constraints.physically_exclusive


def test_memory_fixes_on_the_named_hardware_are_scenarios_that_parse_back():
    """The 70B full fine-tune on 8× A100 80GB: every memory fix is a whole scenario, contract
    JSON that the parser reads back to the same scenario, and `on` counts the GPUs it names."""
    s = parse_scenario(
        {
            "tasks": [
                {
                    "name": "70b",
                    "kind": "full_finetune",
                    "model": "llama-3.1-70b",
                    "sharding": "zero3",
                    "activation_checkpointing": "full",
                    "seq_len": 4096,
                    "tokens": 1e9,
                    "gpus": 8,
                    "on": {"accelerator": "a100-80gb"},
                }
            ]
        }
    )
    changes = what_would_fit(s, estimate(s, ACCELERATORS), None, {}, ACCELERATORS)
    codes = [
        c.change.params["change"].code for c in changes if c.change.code is Code.SUGGEST_TASK_CHANGE
    ]  # type: ignore[union-attr]
    assert Code.FIX_PER_GPU in codes and changes[-1].change.code is Code.SUGGEST_ANY_HARDWARE
    kinds = {c.scenario.tasks[0].kind for c in changes}
    assert {"lora", "qlora"} <= kinds
    for c in changes:
        task = c.scenario.tasks[0]
        assert task.on is None or task.on.count == task.gpus
        assert parse_scenario(scenario_to_dict(c.scenario)) == c.scenario


# A render job of 1,000 hours on an RTX 4090 (its reference card): 120,000 frames × 30 s.
LONG_RENDER = Task(
    name="render",
    kind="fixed",
    vram_gib=20,
    frames=120_000,
    seconds_per_frame=30,
    reference_accelerator="rtx-4090-24gb",
)


def test_a_long_job_runs_its_whole_months_prepaid_and_the_rest_metered_on_another_platform():
    """The job takes 1,000 h and may run around the clock (a 720 h window): one whole month
    holds 720 h of it (72 % of its frames), 280 h are left. Single offerings: A by the month
    buys ceil(1,000 / 720) = 2 months = 4,000, by the hour 1,000 × 5 = 5,000; B 1,000 × 4 =
    4,000. A's month for 720 h + A's hours for the 280 h left: 2,000 + 1,400 = 3,400, the best
    single-platform plan. A's month + B's hours for the 280 h: 2,000 + 1,120 = 3,120, which is
    280 (8.2 %) less: proposed. The shares run one after the other: 720 + 280 = 1,000 h."""
    offerings = [
        offer("a", "a", price("month", "2000"), price("hour", "5")),
        offer("b", "b", price("hour", "4")),
    ]
    s = scenario(LONG_RENDER)
    assert plans.share_tasks(s) == (0,)
    assert plans.period_hours(LONG_RENDER, BillingUnit.MONTH) == 720
    assert plans.period_hours(LONG_RENDER, BillingUnit.DAY) == 24
    found = search(s, offerings)
    assert found.plan is not None and found.plan is found.best_cross
    base, rest = found.plan.legs
    assert (base.platform, base.plan.unit, cents(base.cost)) == ("a", "month", Decimal("2000.00"))
    assert (rest.platform, rest.plan.unit, cents(rest.cost)) == ("b", "hour", Decimal("1120.00"))
    assert base.tasks == rest.tasks == ("render",)
    share, left = base.share_of("render"), rest.share_of("render")
    assert share is not None and left is not None
    assert (share.periods, share.unit, share.base) == (1, BillingUnit.MONTH, True)
    assert share.fraction == pytest.approx(0.72) and left.fraction == pytest.approx(0.28)
    assert (share.hours, share.total_hours) == (pytest.approx(720), pytest.approx(1000))
    assert (left.hours, left.total_hours) == (pytest.approx(280), pytest.approx(1000))
    assert str(base.task_labels()[0]) == "render: 720 h of 1,000 h"
    assert str(rest.task_labels()[0]) == "render: 280 h of 1,000 h"
    assert found.plan.time_hours == pytest.approx(1000)
    assert found.single is not None and {leg.platform for leg in found.single.legs} == {"a"}
    assert cents(found.single.cost) == Decimal("3400.00")
    assert found.saving is not None and cents(found.saving) == Decimal("280.00")
    assert found.note.code is Code.PLAN_MIXED_WINS
    assert found.note.params["why"].code is Code.PLAN_SPLIT_SHARE  # type: ignore[union-attr]
    assert found.splits == ((("render",), ("render",)),)


def test_a_share_that_saves_five_percent_or_less_is_not_proposed():
    """B at 4.80 an hour: A's month + B's 280 h = 2,000 + 1,344 = 3,344 against A's 3,400:
    56 (1.6 %) less, under the 5 %."""
    offerings = [
        offer("a", "a", price("month", "2000"), price("hour", "5")),
        offer("b", "b", price("hour", "4.8")),
    ]
    found = search(scenario(LONG_RENDER), offerings)
    assert found.plan is None
    assert found.best_cross is not None and cents(found.best_cross.cost) == Decimal("3344.00")
    assert found.single is not None and cents(found.single.cost) == Decimal("3400.00")
    assert found.note.code is Code.PLAN_NONE_BEATS


def test_no_share_split_where_no_prepaid_period_is_worth_buying_or_nothing_is_left_over():
    # A month at 4,000 costs more than its 720 h metered (3,600): the ranking meters the base.
    dear = [
        offer("a", "a", price("month", "4000"), price("hour", "5")),
        offer("b", "b", price("hour", "4")),
    ]
    assert plans.search_plans(scenario(LONG_RENDER), dear, ACCELERATORS, now=NOW) is None
    # 1,440 h: exactly two months, no hours left to meter elsewhere.
    two_months = replace(LONG_RENDER, frames=172_800)
    cheap = [offer("a", "a", price("month", "2000"), price("hour", "5")), dear[1]]
    assert plans.search_plans(scenario(two_months), cheap, ACCELERATORS, now=NOW) is None
    # A service is not a job: its hours are a month's, not a share of a run.
    assert plans.share_tasks(scenario(STEADY)) == ()
