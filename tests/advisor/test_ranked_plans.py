"""Plans are what is ranked (plans.ranked_plans): the plans of several legs the search finds are in
the one ranked list, so the answer's #1 is never dearer (cost objective) or slower (time
objective) than any plan the answer shows, on every preset of the seed article and on renter
scenarios of the kinds that used to rank a dearer single offering first."""

from __future__ import annotations

from decimal import Decimal

import pytest

from advisor.engine.plans import Plan, single_plan
from advisor.presets import PRESETS
from advisor.services import AdviceReport, advise_scenario
from tests.conftest import NOW


def mentioned(report: AdviceReport) -> list[Plan]:
    """Every plan the answer shows: each recommendation as a plan, and the search's own (the
    proposed plan, the cheapest across platforms, the best single-platform one), where they
    fit the budget and the deadline."""
    assert report.advice is not None
    c = report.scenario.constraints
    out = [single_plan(r, report.advice.currency) for r in report.advice.recommendations]
    search = report.plans
    if search is not None:
        out += [p for p in (search.plan, search.best_cross, search.single) if p is not None]
    return [
        p
        for p in out
        if (c.budget_per_month is None or p.monthly_cost <= c.budget_per_month)
        and (c.deadline_hours is None or (p.time_hours or 0) <= c.deadline_hours)
    ]


def holds_first(report: AdviceReport) -> None:
    assert report.advice is not None and report.advice.recommendations
    first = report.advice.recommendations[0]
    plans = mentioned(report)
    objective = report.scenario.objective
    if objective == "cost":
        cheapest = min(p.cost for p in plans)
        assert first.cost <= cheapest + Decimal("0.01"), (first.cost, cheapest)
    elif objective == "time":
        times = [p.time_hours for p in plans if p.time_hours is not None]
        if times and first.time_hours is not None:
            assert first.time_hours <= min(times) + 1e-9


@pytest.mark.django_db
@pytest.mark.parametrize("slug", list(PRESETS))
def test_first_is_no_dearer_or_slower_than_any_plan_the_answer_shows(seed, slug) -> None:
    report = advise_scenario(PRESETS[slug].named_scenario(), now=NOW)
    if report.advice is None:
        pytest.skip("nothing fits this preset on the seed catalogue")
    holds_first(report)
    for objective in ("cost", "time"):
        scenario = {**PRESETS[slug].scenario, "objective": objective}
        again = advise_scenario(scenario, now=NOW)
        if again.advice is not None:
            holds_first(again)


LORA_7B = {
    "kind": "lora",
    "model": "qwen2.5-7b",
    "activation_checkpointing": "full",
    "tokens": 2e8,
    "when": "night",
    "hours_per_month": 300,
    "jobs_per_month": 4,
}
SERVICE_7B = {
    "kind": "inference",
    "model": "qwen2.5-7b",
    "context_len": 4096,
    "concurrent_sequences": 8,
    "when": "day",
    "hours_per_month": 300,
    "isolation": "hard",
}


@pytest.mark.django_db
@pytest.mark.parametrize(
    "tasks, platforms",
    [
        # A hard-isolated 7B day service and a nightly 7B LoRA on 智星云 and AutoDL.
        ([{"name": "api", **SERVICE_7B}, {"name": "lora", **LORA_7B}], ["zhixingyun", "autodl"]),
        # The same across the whole catalogue.
        ([{"name": "api", **SERVICE_7B}, {"name": "lora", **LORA_7B}], []),
    ],
)
def test_a_split_that_costs_less_is_ranked_first(seed, tasks, platforms) -> None:
    """Two tasks at different times of day: the plan that splits them (the search's) ranks
    first when it costs less than running both on one offering; a plan's row is its legs'
    costs added."""
    scenario = {"tasks": tasks, "constraints": {"currency": "CNY", "platforms": platforms}}
    report = advise_scenario(scenario, now=NOW)
    holds_first(report)
    assert report.advice is not None
    for rec in report.advice.recommendations:
        if rec.legs:
            assert rec.cost == sum(leg.cost for leg in rec.legs)
            assert rec.monthly_cost == sum(leg.monthly_cost for leg in rec.legs)


@pytest.mark.django_db
def test_the_mixed_preset_serves_by_day_off_any_eight_gpu_machine(seed) -> None:
    """The seed article's "training + inference mixed": #1 was CoreWeave's 8× H200 spot machine
    held 365 h a month to serve one 8B model on one card (51,544.09 CNY a month); now #1 is a
    plan whose day service runs on an instance of its own size, no dearer than any plan shown."""
    report = advise_scenario(PRESETS["training-inference"].named_scenario(), now=NOW)
    holds_first(report)
    assert report.advice is not None
    first = report.advice.recommendations[0]
    assert first.cost < Decimal("51544.09") / 10
    serving = [leg for leg in first.legs or () if "daytime inference" in leg.tasks]
    assert serving and all(leg.instances * leg.gpus_per_instance < 8 for leg in serving)
