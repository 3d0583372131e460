"""What must hold for any catalogue and any scenario of jobs and services (hypothesis):

* the plan named is the plan priced: the ranked cost is that plan's charge (with its rounding and
  minimum charge) for the usage, plus storage, and never less than the metered time it covers;
* one-off jobs are costed for their run, anything recurring for a month;
* the order follows the objective, fresh before stale at equal cost, and "tied" means within
  TIE_FRACTION of #1;
* a lone single-GPU task never sits on a MIG slice of a whole card it has to itself;
* interruptible offerings never serve a user-facing service (a fixed task without frames,
  whatever its hours) unless allowed, and serve nothing when the scenario says no.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import replace
from datetime import datetime, timedelta
from decimal import Decimal

from hypothesis import assume, event, given, settings
from hypothesis import strategies as st

from advisor.engine import usage
from advisor.engine.advise import advise
from advisor.engine.billing import charge, granularity, period_units
from advisor.engine.errors import NoFit
from advisor.engine.hardware import load_accelerators
from advisor.engine.messages import Code
from advisor.engine.presets import MODEL_PRESETS
from advisor.engine.ranking import TIE_FRACTION
from advisor.engine.types import (
    Constraints,
    OfferingSpec,
    PriceSpec,
    Scenario,
    StoragePriceSpec,
    Task,
)
from advisor.engine.vocab import CostBasis, PlacementMode
from tests.conftest import examples

ACCELERATORS = load_accelerators()
NOW = datetime(2026, 11, 20)
CARDS = ("rtx-4090-24gb", "a100-80gb", "a100-40gb", "h100-sxm-80gb", "l20-48gb")

prices = st.builds(
    lambda unit, cents, age, min_charge: PriceSpec(
        unit=unit,
        amount=Decimal(cents) / 100,
        currency="CNY",
        observed_at=NOW - timedelta(days=age),
        min_charge=Decimal(min_charge) / 100,
    ),
    st.sampled_from(["hour", "day", "week", "month"]),
    st.integers(50, 3_000_000),
    st.integers(0, 200),
    st.sampled_from([0, 0, 1]),
)


@st.composite
def offerings(draw: st.DrawFn) -> list[OfferingSpec]:
    out = []
    for i in range(draw(st.integers(1, 6))):
        card = draw(st.sampled_from(CARDS))
        out.append(
            OfferingSpec(
                id=i,
                platform=draw(st.sampled_from(["a", "b", "c"])),
                platform_name="P",
                name=f"o{i}",
                accelerator=ACCELERATORS[card],
                gpu_count=draw(st.sampled_from([1, 2, 8])),
                multi_task=draw(st.sampled_from(["instance", "mig"])),
                interconnect="nvlink",
                interruptible=draw(st.booleans()),
                prices=tuple(draw(st.lists(prices, min_size=1, max_size=3))),
            )
        )
    return out


def job(tokens: float, hours: float | None, jobs: float | None) -> Task:
    return Task(
        name="job",
        kind="lora",
        model="llama-2-7b",
        arch=MODEL_PRESETS["llama-2-7b"],
        activation_checkpointing="full",
        tokens=tokens,
        hours_per_month=hours,
        jobs_per_month=jobs,
    )


services = st.builds(
    lambda gib, hours, when: Task(
        name="svc", kind="fixed", vram_gib=gib, hours_per_month=hours, when=when
    ),
    st.floats(1, 70),
    st.none() | st.floats(1, 720),
    st.sampled_from(["always", "burst", "day"]),
)
jobs = st.builds(
    job,
    st.floats(1e6, 3e9),
    st.none() | st.floats(10, 720),
    st.none() | st.floats(0.5, 20),
)
scenarios = st.builds(
    lambda tasks, objective, storage, spot, fresh: Scenario(
        tasks=tuple(tasks),
        constraints=Constraints(storage_gb=storage, allow_interruptible=spot, fresh_only=fresh),
        objective=objective,
    ),
    st.lists(st.one_of(services, jobs), min_size=1, max_size=3, unique_by=lambda t: id(t)),
    st.sampled_from(["cost", "time", "balanced"]),
    st.sampled_from([0.0, 0.0, 500.0]),
    st.sampled_from([None, True, False]),
    st.booleans(),
)
STORAGE = [StoragePriceSpec("a", "gb_day", Decimal("0.0066"), "CNY", NOW)]


def renamed(s: Scenario) -> Scenario:
    """Task names made unique, as the parser requires."""
    return replace(s, tasks=tuple(replace(t, name=f"t{i}") for i, t in enumerate(s.tasks)))


@settings(max_examples=examples(300), deadline=None)
@given(scenarios, offerings())
def test_the_ranked_cost_is_the_named_plan_priced_for_the_usage(s: Scenario, offs) -> None:
    s = renamed(s)
    try:
        advice = advise(s, offs, ACCELERATORS, now=NOW, storage_prices=STORAGE, stale_after_days=90)
    except NoFit:
        event("nothing fits")
        return
    event("advice")
    basis = usage.basis(s.tasks)
    assert advice.cost_basis == basis
    allow = s.constraints.allow_interruptible
    user_facing = any(
        t.kind == "inference" or (t.kind == "fixed" and t.frames is None) for t in s.tasks
    )
    recs = advice.recommendations
    for rec in recs:
        assert rec.cost_basis == basis
        storage = rec.storage_cost or Decimal(0)
        assert rec.cost == rec.plan.converted + storage
        assert rec.cost > 0
        if basis is CostBasis.JOB:
            assert rec.job_cost == rec.cost - storage
        else:
            assert rec.cost == rec.monthly_cost and rec.months == 1
        if s.constraints.storage_gb > 0:
            assert rec.storage_cost is not None and rec.storage_cost > 0
        offering = next(o for o in offs if o.id == rec.offering_id)
        if offering.interruptible:
            assert allow is True or (allow is None and not user_facing)
        if s.constraints.fresh_only:
            assert not rec.stale
        lone = len(s.tasks) == 1 and s.tasks[0].gpus == 1
        hourly = rec.instances == 1 and rec.plan.unit == "hour" and rec.time_hours
        if lone and hourly and basis is CostBasis.JOB:
            # A lone one-off job pays at least its metered hours, never a rounding less.
            assert rec.plan.cost >= rec.plan.price * Decimal(rec.time_hours) - Decimal("1e-9")
        if lone and offering.mig_profile is None and offering.sharing == "exclusive":
            [a] = rec.placement.assignments
            assert a.mode != PlacementMode.MIG
    # Order: by the objective's figure; fresh before stale at equal cost.
    if s.objective == "cost":
        for a, b in itertools.pairwise(recs):
            assert b.cost >= a.cost - Decimal("0.01")
            if abs(b.cost - a.cost) < Decimal("0.005"):
                assert a.stale <= b.stale
    for r in recs[1:]:
        assert r.vs_first is not None
        assert r.vs_first.cost == r.cost - recs[0].cost
        if s.objective == "cost" and recs[0].cost > 0:
            within = abs(r.cost - recs[0].cost) <= Decimal(str(TIE_FRACTION)) * recs[0].cost
            # Float ranking against exact money: allow a cent at the boundary.
            edge = abs(abs(r.cost - recs[0].cost) - Decimal(str(TIE_FRACTION)) * recs[0].cost)
            assert r.vs_first.tied == within or edge < Decimal("0.01")
    rejected = advice.rejected.get(Code.REJECT_INTERRUPTIBLE_SERVICE, 0)
    if not user_facing or allow is not None:
        assert rejected == 0
    if allow is not False:
        assert advice.rejected.get(Code.REJECT_INTERRUPTIBLE_NOT_ALLOWED, 0) == 0


@settings(max_examples=examples(200), deadline=None)
@given(
    st.sampled_from(["hour", "day", "week", "month"]),
    st.floats(0.01, 5000),
    st.floats(10, 720),
)
def test_a_one_off_run_is_charged_for_every_hour_and_every_month_it_spans(
    unit: str, hours: float, window: float
) -> None:
    """A run of `hours` inside a `window` a month: metered plans charge at least its hours; a
    monthly plan is bought for each month it spans; never less than the packed whole days."""
    task = job(1e9, window, None)
    use = usage.task_usage(task, hours)
    assert use.months == max(1, math.ceil(hours / min(window, 720) - 1e-9))
    price = PriceSpec(unit=unit, amount=Decimal("1"), currency="CNY", observed_at=NOW)
    units = period_units(unit, granularity(price), use.total_hours, use.months, use.active_days)
    if unit == "hour":
        assert units >= Decimal(str(hours))
    elif unit == "month":
        assert units == max(use.months, math.ceil(hours / 720 - 1e-9))
    else:
        assert units * {"day": 24, "week": 168}[unit] >= hours
    assert charge(price, units) > 0
    assume(window < 720)
    assert use.elapsed_hours >= hours
