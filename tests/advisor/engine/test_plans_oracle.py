"""The plan search (advisor/engine/plans.py) against an exhaustive oracle: on small random
catalogues (a few platforms, minimum charges, stale prices, release rules, several GPU counts) and
scenarios of two or three tasks, every split the search tries is priced on every pair of offerings
(every offering priced for each side by ranking.evaluate_offering, each leg's exact cost), and

- the cheapest plan across two platforms the oracle finds costs what the search's `best_cross`
  costs (the search prices only each platform's cheapest per side, prune.cheapest_per_platform,
  and the two cheapest platforms of each side);
- the best single-platform plan (every task on one offering, or a split whose legs share a
  platform) costs what the search's `single` costs;
- once ranked with the single offerings (`plans.ranked_plans`), #1 is no dearer (the cost
  objective) than any plan the answer mentions: its rows and the search's plans.

The search's bound is its splits (`plans.splits`, docs/advisor-rules.md): the oracle tries the same
splits, on every offering. Share splits (one job's hours on two legs) are left to
tests/advisor/engine/test_plans.py's worked examples: the oracle skips scenarios that have them.
Costs agree to the cent per leg: the search picks a side's cheapest by its float cost (rounded to
the cent), then prices it exactly.
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from decimal import Decimal

from hypothesis import assume, event, given, settings
from hypothesis import strategies as st

from advisor.engine import plans, ranking, usage
from advisor.engine.advise import advise
from advisor.engine.errors import NoFit
from advisor.engine.types import Constraints, OfferingSpec, Scenario
from tests.advisor.engine.price_strategies import RATES
from tests.advisor.engine.test_advice_properties import ACCELERATORS, NOW, jobs, services
from tests.advisor.engine.test_prune import STORAGE, catalogue
from tests.conftest import examples

CENT = Decimal("0.01")

scenarios = st.builds(
    lambda tasks, objective, storage, fresh, deadline, chosen: Scenario(
        tasks=tuple(replace(t, name=f"t{i}") for i, t in enumerate(tasks)),
        constraints=Constraints(
            storage_gb=storage,
            fresh_only=fresh,
            deadline_hours=deadline,
            platforms=chosen,
        ),
        objective=objective,
    ),
    st.lists(st.one_of(services, jobs), min_size=2, max_size=3),
    st.sampled_from(["cost", "time", "balanced"]),
    st.sampled_from([0.0, 300.0]),
    st.booleans(),
    st.sampled_from([None, None, 50.0, 500.0]),
    st.sampled_from([(), (), ("a", "b"), ("a", "c", "d")]),
)


def side_context(scenario: Scenario, indices: tuple[int, ...]) -> ranking.Context:
    """A scenario of the tasks `indices` alone, without the budget, on the whole scenario's
    basis: what a leg is priced in (the search's own rule, plans._Pricer.context)."""
    sub = replace(
        scenario,
        tasks=tuple(scenario.tasks[i] for i in indices),
        constraints=replace(scenario.constraints, budget_per_month=None),
        preset=None,
    )
    ctx = ranking.Context(sub, ACCELERATORS, NOW, RATES, STORAGE, 30)
    ctx.basis = usage.basis(scenario.tasks)
    return ctx


def every_leg(
    scenario: Scenario, indices: tuple[int, ...], offerings: list[OfferingSpec]
) -> list[tuple[str, Decimal]]:
    """Every offering that can run the tasks `indices` alone: (its platform, its exact cost)."""
    ctx = side_context(scenario, indices)
    out = []
    for off in offerings:
        c = ranking.evaluate_offering(ctx, off)
        if c is not None:
            out.append((off.platform, ranking.exact_costs(ctx, c)[0]))
    return out


def oracle(scenario: Scenario, offerings: list[OfferingSpec]):
    """(cheapest plan across two platforms, best single-platform plan): costs, None for none."""
    everything = tuple(range(len(scenario.tasks)))
    single = [cost for _platform, cost in every_leg(scenario, everything, offerings)]
    cross = []
    for split in plans.splits(scenario.tasks):
        first = every_leg(scenario, split.first, offerings)
        second = every_leg(scenario, split.second, offerings)
        for (pa, ca), (pb, cb) in itertools.product(first, second):
            (cross if pa != pb else single).append(ca + cb)
    return min(cross, default=None), min(single, default=None)


@settings(max_examples=examples(300), deadline=None)
@given(scenarios, catalogue())
def test_the_plan_search_finds_the_plans_of_pricing_every_pair_of_offerings(scenario, offerings):
    assume(not plans.share_tasks(scenario))
    cross, single = oracle(scenario, offerings)
    found = plans.search_plans(
        scenario, offerings, ACCELERATORS, now=NOW, rates=RATES, storage_prices=STORAGE
    )
    assert found is not None  # two tasks or more: there are splits to try
    event("a plan across platforms" if cross is not None else "no plan across platforms")
    if cross is None:
        assert found.best_cross is None
    else:
        assert found.best_cross is not None
        assert abs(found.best_cross.cost - cross) <= 2 * CENT
    if single is None:
        assert found.single is None
    else:
        assert found.single is not None
        assert abs(found.single.cost - single) <= 2 * CENT


@settings(max_examples=examples(200), deadline=None)
@given(scenarios, catalogue())
def test_the_first_of_the_ranked_plans_is_no_dearer_than_any_plan_the_answer_mentions(
    scenario, offerings
):
    """For the cost objective #1 costs no more than any ranked row, nor than the search's plans
    (the proposed one, the cheapest across platforms, the best on one platform) that are within
    the scenario's deadline: a plan over the deadline is not an answer."""
    scenario = replace(scenario, objective="cost")
    try:
        advice = advise(
            scenario, offerings, ACCELERATORS, now=NOW, rates=RATES, storage_prices=STORAGE
        )
    except NoFit:
        event("nothing fits")
        return
    found = plans.search_plans(
        scenario, offerings, ACCELERATORS, now=NOW, rates=RATES, storage_prices=STORAGE
    )
    ranked = plans.ranked_plans(advice, found, scenario)
    first = ranked.recommendations[0]
    assert all(first.cost <= r.cost + CENT for r in ranked.recommendations)
    deadline = scenario.constraints.deadline_hours
    mentioned = [] if found is None else [found.plan, found.best_cross, found.single]
    for plan in mentioned:
        time = None if plan is None else plan.time_hours
        if plan is None or (deadline is not None and (time is None or time > deadline)):
            continue
        event("a plan mentioned")
        assert first.cost <= plan.cost + CENT
