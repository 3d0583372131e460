"""Plans of legs: a scenario's tasks split between two offerings, possibly on two platforms.

A recommendation is a plan of legs, each leg an offering with its billing plan and the tasks (or
the share of a task's hours, `TaskShare`) it runs; a single offering is a plan of one leg
(`single_plan`). `search_plans` looks for plans of
two legs across platforms and proposes one only when it beats the best single-platform plan by
more than SAVING_THRESHOLD, saying by how much and why.

How (docs/advisor-rules.md, "Plans across platforms"):

* Splits: the tasks that run in bursts against the steady ones (a prepaid base for the steady
  load, metered capacity for bursts: the seed article's tip 4), training against the rest
  (training on one platform, inference on another), and, with three tasks or fewer, every split
  in two.
* Share splits (`share_tasks`, `_share_plans`): in a scenario of one-off jobs only, of at most
  ALL_SPLITS_UP_TO tasks, a job's hours in two: a prepaid base of k whole periods of a prepaid
  unit (a period holds window × unit / month hours of the job, `period_hours`; k =
  floor(T / period) where the job takes T hours on the base's offering), the fraction
  f = k × period / T of its work (`task_share`: tokens or frames); the rest, 1 - f of the work,
  with the other tasks, metered (or however the ranking bills it cheapest) on the other leg. The
  SHARE_BASES cheapest bases of distinct platforms are tried; the rest on the base's platform is
  a single-platform plan, on another a plan across platforms. The shares run in turn: the plan's
  time adds them (`Plan.time_hours`).
* Each side of a split is priced as a scenario of its own tasks over the whole catalogue by
  ranking's own pricing (ranking.evaluate_offering: placement, time, usage, every billing unit,
  storage), on the whole scenario's cost basis so that the two sides add up. The budget is the
  plan's: it is checked on the sum of the legs' busiest months, not per leg.
* Storage: with `storage_gb`, each leg pays its own platform's storage, so the data is kept on
  both; moving it instead takes storage_gb × 8 / transfer_mbps seconds each way, stated with the
  link speed (constraints.transfer_mbps, else DEFAULT_TRANSFER_MBPS, an assumption said so).
* The best single-platform plan is the cheapest of one offering for every task and of two legs
  on one platform; the best plan across two platforms is proposed when it costs more than
  SAVING_THRESHOLD less. Costs compare on the ranked basis (a month, or the whole run of
  one-off jobs), in the scenario's currency, exactly (Decimal).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from decimal import Decimal
from typing import Any

from advisor.engine import prune, ranking, usage
from advisor.engine.billing import ZERO, cents
from advisor.engine.legs import Leg, TaskShare
from advisor.engine.messages import Code, Message, Money, Quantity, Unit, hours, msg
from advisor.engine.placement import PlacementCache
from advisor.engine.ranking import Advice, Comparison, Recommendation
from advisor.engine.types import (
    AcceleratorSpec,
    ExchangeRateSpec,
    OfferingSpec,
    Scenario,
    StoragePriceSpec,
    Task,
)
from advisor.engine.vocab import (
    TRAINING_KINDS,
    BillingUnit,
    CostBasis,
    Objective,
    PlacementMode,
    When,
    pareto_front,
)

# A plan across platforms is proposed only when it saves more than this against the best
# single-platform plan: below it, two accounts, two bills and data kept twice are not worth it
# (the product's rule, README "Plans across platforms").
SAVING_THRESHOLD = Decimal("0.05")
# Link speed assumed for moving the data between platforms when the scenario states none: a
# 100 Mbit/s line, the common business broadband tier; stated with every figure it gives.
DEFAULT_TRANSFER_MBPS = 100.0
# Every split in two is tried up to this many tasks (2^(n-1) - 1 splits); above it only the
# named splits (bursts, training), to keep the search a few passes over the catalogue.
ALL_SPLITS_UP_TO = 3
# Share splits (module docstring): base legs tried per task, on this many platforms (the
# cheapest by their prepaid price of the task's work); each costs one pass over the catalogue
# for the rest of the task's work.
SHARE_BASES = 3
# A remainder under this many hours is float noise, not hours left to meter.
_SHARE_EPS_HOURS = 1e-6


@dataclass(frozen=True)
class Plan:
    legs: tuple[Leg, ...]
    currency: str
    basis: CostBasis

    @property
    def cost(self) -> Decimal:
        return sum((leg.cost for leg in self.legs), ZERO)

    @property
    def monthly_cost(self) -> Decimal:
        return sum((leg.monthly_cost for leg in self.legs), ZERO)

    @property
    def time_hours(self) -> float | None:
        """The slowest leg's time; a task shared between legs runs its shares one after the
        other, so its shares' hours add up."""
        times = [leg.time_hours for leg in self.legs if leg.time_hours is not None]
        shared: dict[str, float] = {}
        for leg in self.legs:
            for share in leg.shares:
                shared[share.task] = shared.get(share.task, 0.0) + share.hours
        times.extend(shared.values())
        return max(times) if times else None

    @property
    def platforms(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(leg.platform_name for leg in self.legs))

    @property
    def across_platforms(self) -> bool:
        return len({leg.platform for leg in self.legs}) > 1

    @property
    def offering_ids(self) -> tuple[int | str, ...]:
        return tuple(leg.offering_id for leg in self.legs)

    def label(self) -> Message:
        """The plan in a few words: its legs, each offering on its platform and how billed."""
        label = _leg_label(self.legs[0])
        for leg in self.legs[1:]:
            label = msg(Code.PLAN_LEGS, first=label, second=_leg_label(leg))
        return label


@dataclass(frozen=True)
class PlanSearch:
    """What the search over two-leg plans found."""

    plan: Plan | None  # the plan across platforms proposed (beats `single` by the threshold)
    best_cross: Plan | None  # the cheapest plan across two platforms, proposed or not
    single: Plan | None  # the best single-platform plan
    saving: Decimal | None  # single.cost - best_cross.cost (negative: the cross plan costs more)
    saving_fraction: float | None
    splits: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]
    note: Message
    details: tuple[Message, ...] = ()


def leg_of(rec: Recommendation) -> Leg:
    """A recommendation as the one leg of its plan."""
    names = tuple(dict.fromkeys(a.task for a in rec.placement.assignments))
    return Leg(
        platform=rec.platform,
        platform_name=rec.platform_name,
        offering_id=rec.offering_id,
        offering_name=rec.offering_name,
        accelerator=rec.accelerator,
        accelerator_name=rec.accelerator_name,
        offering_url=rec.offering_url,
        instances=rec.instances,
        gpus_per_instance=rec.gpus_per_instance,
        plan=rec.plan,
        tasks=names,
        cost=rec.cost,
        monthly_cost=rec.monthly_cost,
        storage_cost=rec.storage_cost,
        time_hours=rec.time_hours,
        placement=rec.placement,
        price_source_kind=rec.price_source_kind,
        vendor_claim=rec.vendor_claim,
        gpu_hours=sum(rec.instance_hours) * rec.gpus_per_instance,
        instance_hours=rec.instance_hours,
        stale=rec.stale,
        price_age_days=rec.price_age_days,
        price_source=rec.price_source,
        warnings=rec.warnings,
        months=rec.months,
        time_low_hours=rec.time_low_hours,
        time_high_hours=rec.time_high_hours,
        serving=rec.serving,
        job_cost=rec.job_cost,
        job_cost_low=rec.job_cost_low,
        job_cost_high=rec.job_cost_high,
    )


def single_plan(rec: Recommendation, currency: str) -> Plan:
    """A recommendation as a plan: its legs, or, for a single offering, a plan of one leg."""
    return Plan(rec.legs or (leg_of(rec),), currency, rec.cost_basis)


def legs_of(rec: Recommendation) -> tuple[Leg, ...]:
    """Every leg of a recommendation: its plan's, or the offering alone."""
    return rec.legs or (leg_of(rec),)


# ------------------------------------------------------------------------------------- search


@dataclass(frozen=True)
class _Split:
    first: tuple[int, ...]
    second: tuple[int, ...]
    why: Message


def _names(tasks: Sequence[Task], indices: Sequence[int]) -> tuple[str, ...]:
    return tuple(tasks[i].name for i in indices)


def splits(tasks: Sequence[Task]) -> list[_Split]:
    """The splits in two that the search tries (module docstring), each once."""
    n = len(tasks)
    if n < 2:
        return []
    found: dict[frozenset[frozenset[int]], _Split] = {}

    def add(first: Sequence[int], why: Message) -> None:
        second = tuple(i for i in range(n) if i not in first)
        if first and second:
            key = frozenset({frozenset(first), frozenset(second)})
            found.setdefault(key, _Split(tuple(first), second, why))

    steady = [i for i, t in enumerate(tasks) if t.when != When.BURST]
    burst = [i for i, t in enumerate(tasks) if t.when == When.BURST]
    add(
        steady, msg(Code.PLAN_SPLIT_BURST, steady=_names(tasks, steady), burst=_names(tasks, burst))
    )
    training = [i for i, t in enumerate(tasks) if t.kind in TRAINING_KINDS]
    rest = [i for i in range(n) if i not in training]
    add(
        training,
        msg(Code.PLAN_SPLIT_KIND, training=_names(tasks, training), rest=_names(tasks, rest)),
    )
    if n <= ALL_SPLITS_UP_TO:
        for size in range(1, n // 2 + 1):
            for first in itertools.combinations(range(n), size):
                second = tuple(i for i in range(n) if i not in first)
                why = msg(
                    Code.PLAN_SPLIT_TASKS,
                    first=_names(tasks, first),
                    second=_names(tasks, second),
                )
                add(first, why)
    return list(found.values())


class _Pricer:
    """ranking's pricing for scenarios of some of the tasks, on the whole scenario's basis."""

    def __init__(
        self,
        scenario: Scenario,
        offerings: Sequence[OfferingSpec],
        accelerators: Mapping[str, AcceleratorSpec],
        *,
        now: datetime,
        rates: Sequence[ExchangeRateSpec],
        storage_prices: Sequence[StoragePriceSpec],
        stale_after_days: int,
        placements: PlacementCache | None,
        index: prune.OfferingIndex | None = None,
    ) -> None:
        self.scenario = scenario
        self.offerings = offerings
        self.accelerators = accelerators
        self.now = now
        self.rates = rates
        self.storage_prices = storage_prices
        self.stale_after_days = stale_after_days
        self.placements = PlacementCache() if placements is None else placements
        self.basis = usage.basis(scenario.tasks)
        if index is None or index.offerings is not offerings:
            index = prune.OfferingIndex(offerings)
        self.index = index
        self.bests: dict[tuple[int, ...], tuple[ranking.Context, dict[str, ranking.Candidate]]]
        self.bests = {}
        self.sides: dict[tuple[int, ...], tuple[ranking.Context, list[ranking.Candidate]]]
        self.sides = {}

    def context(self, tasks: tuple[Task, ...]) -> ranking.Context:
        """The pricing context of a scenario of `tasks` alone, without the budget (the plan's
        budget is checked on the sum of its legs), on the whole scenario's basis."""
        c = self.scenario.constraints
        sub = replace(
            self.scenario,
            tasks=tasks,
            constraints=replace(c, budget_per_month=None),
            preset=None,
        )
        ctx = ranking.Context(
            sub,
            self.accelerators,
            self.now,
            self.rates,
            self.storage_prices,
            self.stale_after_days,
            self.placements,
        )
        ctx.basis = self.basis  # the legs of one plan add up on one basis
        return ctx

    def _tasks(self, indices: tuple[int, ...]) -> tuple[Task, ...]:
        return tuple(self.scenario.tasks[i] for i in indices)

    def cheapest(
        self, indices: tuple[int, ...]
    ) -> tuple[ranking.Context, dict[str, ranking.Candidate]]:
        """The cheapest offering of each platform that can run the tasks `indices` alone, priced
        (prune.cheapest_per_platform: without pricing every offering); once per side."""
        found = self.bests.get(indices)
        if found is None:
            found = self.bests[indices] = self.tasks_cheapest(self._tasks(indices))
        return found

    def tasks_cheapest(
        self, tasks: tuple[Task, ...]
    ) -> tuple[ranking.Context, dict[str, ranking.Candidate]]:
        """`cheapest` for a side given by its tasks (a share of one, `task_share`); not kept."""
        ctx = self.context(tasks)
        return ctx, prune.cheapest_per_platform(ctx, self.index)

    def side(
        self, indices: tuple[int, ...], offerings: Sequence[OfferingSpec] | None = None
    ) -> tuple[ranking.Context, list[ranking.Candidate]]:
        """Every offering of `offerings` (None: the catalogue, kept once per side) that can run
        the tasks `indices` alone, priced."""
        if offerings is None:
            found = self.sides.get(indices)
            if found is None:
                found = self.sides[indices] = self.tasks_side(self._tasks(indices))
            return found
        return self.tasks_side(self._tasks(indices), offerings)

    def tasks_side(
        self, tasks: tuple[Task, ...], offerings: Sequence[OfferingSpec] | None = None
    ) -> tuple[ranking.Context, list[ranking.Candidate]]:
        """Every offering of `offerings` (None: the catalogue) that can run `tasks` alone, priced
        in group then catalogue order (prune.OfferingIndex)."""
        ctx = self.context(tasks)
        pool = self.index if offerings is None else prune.OfferingIndex(offerings)
        candidates = [
            cand
            for cells in pool.groups
            for i in sorted(i for cell in cells for i in cell.members)
            if (cand := ranking.evaluate_offering(ctx, pool.offerings[i])) is not None
        ]
        return ctx, candidates

    def leg(self, ctx: ranking.Context, c: ranking.Candidate) -> Leg:
        cost, monthly = ranking.exact_costs(ctx, c)
        job, job_low, job_high = ranking.job_costs(ctx, c, cost)
        off = c.offering
        month = c.fit.month
        busy = sum(u.hours * n for u, n in month.groups) if month is not None else 0.0
        oldest = min(c.prices, key=lambda p: p.observed_at)
        return Leg(
            platform=off.platform,
            platform_name=off.platform_name,
            offering_id=off.id,
            offering_name=off.name,
            accelerator=off.accelerator.slug,
            accelerator_name=off.accelerator.name,
            offering_url=off.url,
            instances=c.bill.instances,
            gpus_per_instance=off.gpu_count,
            plan=ranking.billing_choice(ctx, c, cost, monthly),
            tasks=tuple(t.name for t in ctx.tasks),
            cost=cost,
            monthly_cost=monthly,
            storage_cost=c.storage,
            time_hours=c.time,
            placement=c.fit.placement,
            price_source_kind=oldest.source_kind,
            vendor_claim=ranking.is_vendor_claim(c),
            gpu_hours=busy * off.gpu_count,
            instance_hours=tuple(u.hours for u, n in month.groups for _ in range(n))
            if month is not None
            else (),
            stale=c.stale,
            price_age_days=(ctx.now - oldest.observed_at).days,
            price_source=oldest.source,
            warnings=ranking.rec_warnings(ctx, c),
            months=c.fit.months,
            time_low_hours=c.fit.time_low,
            time_high_hours=c.fit.time_high,
            serving=ranking.task_serving(ctx, c),
            job_cost=job,
            job_cost_low=job_low,
            job_cost_high=job_high,
        )

    def plan(self, legs: Sequence[Leg]) -> Plan:
        return Plan(tuple(legs), self.scenario.constraints.currency, self.basis)


def search_plans(
    scenario: Scenario,
    offerings: Sequence[OfferingSpec],
    accelerators: Mapping[str, AcceleratorSpec],
    *,
    now: datetime,
    rates: Sequence[ExchangeRateSpec] = (),
    storage_prices: Sequence[StoragePriceSpec] = (),
    stale_after_days: int = 30,
    placements: PlacementCache | None = None,
    cheapest: Recommendation | None = None,
    index: prune.OfferingIndex | None = None,
) -> PlanSearch | None:
    """Two-leg plans for `scenario` (module docstring); None for a scenario of one task.

    `cheapest`: the scenario's cheapest single offering when the caller has ranked it already
    (the cheapest is always on the Pareto front, so it is among an Advice's recommendations);
    else the search finds it. `index`: `offerings` grouped by shape (prune.OfferingIndex), as
    advise takes it; built here without one."""
    tried = splits(scenario.tasks)
    shared = share_tasks(scenario)
    if not tried and not shared:
        return None
    pricer = _Pricer(
        scenario,
        offerings,
        accelerators,
        now=now,
        rates=rates,
        storage_prices=storage_prices,
        stale_after_days=stale_after_days,
        placements=placements,
        index=index,
    )
    if cheapest is not None:
        singles = [single_plan(cheapest, scenario.constraints.currency)]
    else:
        everything = tuple(range(len(scenario.tasks)))
        whole_ctx, whole = pricer.cheapest(everything)
        singles = [pricer.plan([pricer.leg(whole_ctx, c)]) for c in _top(whole.values())]
    same: list[tuple[Plan, _Split]] = []
    cross: list[tuple[Plan, _Split]] = []
    for split in tried:
        ctx_a, best_a = pricer.cheapest(split.first)
        ctx_b, best_b = pricer.cheapest(split.second)
        for p in best_a.keys() & best_b.keys():
            legs = [pricer.leg(ctx_a, best_a[p]), pricer.leg(ctx_b, best_b[p])]
            same.append((pricer.plan(legs), split))
        pair = _best_pair(best_a, best_b)
        if pair is not None:
            legs = [pricer.leg(ctx_a, pair[0]), pricer.leg(ctx_b, pair[1])]
            cross.append((pricer.plan(legs), split))
    names = tuple(
        (_names(scenario.tasks, s.first), _names(scenario.tasks, s.second)) for s in tried
    )
    for at in shared:
        share_same, share_cross = _share_plans(pricer, at)
        same.extend(share_same)
        cross.extend(share_cross)
        # A share split: the task on both sides, the other tasks with its rest.
        rest = tuple(t.name for i, t in enumerate(scenario.tasks) if i != at)
        names = (*names, ((scenario.tasks[at].name,), (scenario.tasks[at].name, *rest)))
    if not tried and not same and not cross:
        return None  # one job that no whole prepaid period holds a part of
    single_options = [*singles, *(p for p, _ in same)]
    single = min(single_options, key=lambda p: p.cost, default=None)
    c = scenario.constraints
    budget = c.budget_per_month
    within = [(p, s) for p, s in cross if budget is None or p.monthly_cost <= budget]
    if not cross:
        note = msg(Code.PLAN_NONE_FOUND, splits=tuple(_split_label(n) for n in names))
        return PlanSearch(None, None, single, None, None, names, note)
    best_cross, split = min(within or cross, key=lambda item: item[0].cost)
    details = _storage_details(scenario)
    if not within and budget is not None:
        over = msg(
            Code.PLAN_OVER_BUDGET,
            monthly=_money(best_cross.monthly_cost, c.currency, BillingUnit.MONTH),
            budget=_money(budget, c.currency, BillingUnit.MONTH),
        )
        details = (over, *details)
    if single is None:
        # Nothing runs every task on one platform: the plan across platforms is the answer.
        note = msg(
            Code.PLAN_MIXED_ONLY,
            platforms=best_cross.platforms,
            cost=_money(best_cross.cost, c.currency, _per(pricer.basis)),
            why=split.why,
        )
        proposed = best_cross if within else None
        return PlanSearch(proposed, best_cross, None, None, None, names, note, details)
    saving = single.cost - best_cross.cost
    share = float(saving / single.cost) if single.cost > 0 else 0.0
    wins = bool(within) and single.cost > 0 and saving > single.cost * SAVING_THRESHOLD
    per = _per(pricer.basis)
    if wins:
        note = msg(
            Code.PLAN_MIXED_WINS,
            platforms=best_cross.platforms,
            cost=_money(best_cross.cost, c.currency, per),
            saving=_money(saving, c.currency, per),
            fraction=Quantity(share, Unit.FRACTION, 1),
            single=single.label(),
            single_cost=_money(single.cost, c.currency, per),
            why=split.why,
        )
    else:
        difference = (
            msg(Code.DIFF_COSTS_LESS, amount=_money(saving, c.currency, per))
            if saving > 0
            else msg(Code.DIFF_COSTS_MORE, amount=_money(-saving, c.currency, per))
            if saving < 0
            else msg(Code.DIFF_SAME_COST)
        )
        note = msg(
            Code.PLAN_NONE_BEATS,
            single=single.label(),
            single_cost=_money(single.cost, c.currency, per),
            limit=Quantity(float(SAVING_THRESHOLD), Unit.FRACTION),
            legs=best_cross.label(),
            cost=_money(best_cross.cost, c.currency, per),
            difference=difference,
        )
    return PlanSearch(
        best_cross if wins else None,
        best_cross,
        single,
        saving,
        share,
        names,
        note,
        details,
    )


# ------------------------------------------------------------------------ plans in the ranking

# Reasons that say where a recommendation stands in the list: rebuilt when plans join it.
_RANK_CODES = frozenset(
    {
        Code.REASON_BEST_BY_COST,
        Code.REASON_BEST_BY_TIME,
        Code.REASON_BEST_BY_BALANCED,
        Code.REASON_RESTS_ON_VENDOR_CLAIM,
        Code.REASON_VERSUS_FIRST,
        Code.REASON_TIED_WITH_FIRST,
        Code.REASON_PARETO,
    }
)


def plan_options(search: PlanSearch | None, scenario: Scenario) -> list[Plan]:
    """The plans of several legs the search found, as a renter could book them: the best
    single-platform plan when it is a split, and the cheapest plan across platforms (proposed
    or not), each within the scenario's budget (the legs' busiest months together) and deadline
    (the plan's time), once each."""
    if search is None:
        return []
    c = scenario.constraints
    out: dict[tuple[tuple[int | str, tuple[str, ...]], ...], Plan] = {}
    for plan in (search.single, search.best_cross):
        if plan is None or len(plan.legs) < 2:
            continue
        if c.budget_per_month is not None and plan.monthly_cost > c.budget_per_month:
            continue
        time = plan.time_hours
        if c.deadline_hours is not None and (time is None or time > c.deadline_hours):
            continue
        out.setdefault(tuple((leg.offering_id, leg.tasks) for leg in plan.legs), plan)
    return list(out.values())


def plan_recommendation(plan: Plan) -> Recommendation:
    """A plan of several legs as one recommendation (rank and standing set by `ranked_plans`):
    its first leg's offering fields, the whole plan's cost, time, warnings and price age, and
    every leg in `legs`."""
    first = plan.legs[0]
    storage = [leg.storage_cost for leg in plan.legs]
    known = [s for s in storage if s is not None]
    headrooms = [
        leg.placement.min_headroom_bytes
        for leg in plan.legs
        if leg.placement.min_headroom_bytes is not None
    ]
    oldest = max(plan.legs, key=lambda leg: leg.price_age_days)
    stored = sum(known, ZERO) if known else None
    serving = tuple(s for leg in plan.legs for s in leg.serving)
    isolation = tuple(
        dict.fromkeys(PlacementMode(a.mode) for leg in plan.legs for a in leg.placement.assignments)
    )
    reasons = [
        msg(Code.REASON_PLAN_OF_LEGS, count=len(plan.legs), legs=plan.label()),
        *(
            msg(
                Code.REASON_PLAN_LEG,
                leg=_leg_label(leg),
                tasks=leg.task_labels(),
                cost=_money(leg.cost, plan.currency, _per(plan.basis)),
            )
            for leg in plan.legs
        ),
    ]
    time, low, high = plan.time_hours, _plan_time(plan, "low"), _plan_time(plan, "high")
    if time is not None:
        reasons.append(
            msg(
                Code.REASON_TRAINING_TIME,
                hours=hours(time),
                low=hours(low if low is not None else time),
                high=hours(high if high is not None else time),
            )
        )
    return Recommendation(
        rank=0,
        offering_id=first.offering_id,
        offering_name=first.offering_name,
        platform=first.platform,
        platform_name=first.platform_name,
        accelerator=first.accelerator,
        accelerator_name=first.accelerator_name,
        offering_url=first.offering_url,
        instances=first.instances,
        gpus_per_instance=first.gpus_per_instance,
        plan=first.plan,
        cost=plan.cost,
        cost_basis=plan.basis,
        # Shares of one job run one after the other, so their months add up; other legs run
        # side by side.
        months=(
            sum(leg.months for leg in plan.legs)
            if any(leg.shares for leg in plan.legs)
            else max(leg.months for leg in plan.legs)
        ),
        monthly_cost=plan.monthly_cost,
        storage_cost=stored,
        job_cost=_leg_sum(plan, "job_cost"),
        time_hours=plan.time_hours,
        placement=first.placement,
        headroom_bytes=min(headrooms) if headrooms else None,
        isolation=isolation,
        price_age_days=oldest.price_age_days,
        price_source=oldest.price_source,
        price_source_kind=oldest.price_source_kind,
        pareto=False,
        reasons=tuple(reasons),
        warnings=tuple(dict.fromkeys(w for leg in plan.legs for w in leg.warnings)),
        vendor_claim=any(leg.vendor_claim for leg in plan.legs),
        stale=any(leg.stale for leg in plan.legs),
        legs=plan.legs,
        serving=serving,
        decode_tokens_per_s=tuple((s.task, s.estimate.stream_tokens_per_s) for s in serving),
        time_low_hours=low,
        time_high_hours=high,
        job_cost_low=_leg_sum(plan, "job_cost_low"),
        job_cost_high=_leg_sum(plan, "job_cost_high"),
    )


def _leg_sum(plan: Plan, name: str) -> Decimal | None:
    """The legs' job costs (or an end of their range) added, over the legs that run a job; None
    when none does, or when one that does lacks the figure."""
    running = [leg for leg in plan.legs if leg.job_cost is not None]
    values = [getattr(leg, name) for leg in running]
    if not running or any(v is None for v in values):
        return None
    return sum(values, ZERO)


def _plan_time(plan: Plan, end: str) -> float | None:
    """The low or high end of a plan's time, as Plan.time_hours adds its legs: the slowest leg,
    a task's shares one after the other. None when a leg with a time has no range."""
    ends: list[float] = []
    shared: dict[str, float] = {}
    for leg in plan.legs:
        if leg.time_hours is None:
            continue
        value = leg.time_low_hours if end == "low" else leg.time_high_hours
        if value is None:
            return None
        ends.append(value)
        for share in leg.shares:
            # A share's hours scale with the leg's range as its whole time does.
            scaled = share.hours * value / leg.time_hours if leg.time_hours else 0.0
            shared[share.task] = shared.get(share.task, 0.0) + scaled
    ends.extend(shared.values())
    return max(ends) if ends else None


def ranked_plans(advice: Advice, search: PlanSearch | None, scenario: Scenario) -> Advice:
    """The advice's ranking with the plans of several legs the search found in it
    (`plan_options`), ordered by the objective over all of them, as ranking orders offerings:
    cost (to the cent), then fresh before stale, then time; time, then cost; balanced, the sum of
    cost and time each over its best value. Each recommendation's standing (its rank, the Pareto
    front of cost against time, the difference to #1, ties) is set anew over the whole list; #1
    is then never dearer (cost) or slower (time) than any plan the answer shows. Without such
    plans the advice is returned as it is."""
    extra = [plan_recommendation(p) for p in plan_options(search, scenario)]
    if not extra:
        return advice
    recs = [*advice.recommendations, *extra]
    objective = Objective(scenario.objective)
    order, score = _plan_order(recs, objective)
    ordered = sorted(recs, key=order)
    front = {id(r) for r in pareto_front(ordered, lambda r: float(r.cost), _time_key)}
    first = ordered[0]
    fitting = advice.fitting + len(extra)
    out = []
    for rank, rec in enumerate(ordered, start=1):
        vs = None
        if rank > 1:
            time = None
            if rec.time_hours is not None and first.time_hours is not None:
                time = rec.time_hours - first.time_hours
            vs = Comparison(rec.cost - first.cost, time, ranking.tied(score(rec), score(first)))
        on_front = id(rec) in front
        out.append(
            replace(
                rec,
                rank=rank,
                pareto=on_front,
                vs_first=vs,
                reasons=_standing(rec, rank, on_front, vs, objective, fitting, advice),
            )
        )
    return replace(
        advice,
        recommendations=tuple(out),
        pareto=tuple(r.offering_id for r in out if r.pareto),
        fitting=fitting,
    )


def _time_key(rec: Recommendation) -> float:
    return math.inf if rec.time_hours is None else rec.time_hours


def _plan_order(
    recs: Sequence[Recommendation], objective: Objective
) -> tuple[Callable[[Recommendation], tuple[Any, ...]], Callable[[Recommendation], float]]:
    """The sort key and the objective's figure of each recommendation (ranking's rules)."""
    times = [r.time_hours for r in recs if r.time_hours is not None]
    if objective is Objective.TIME and times:
        return (lambda r: (_time_key(r), cents(r.cost), r.stale)), _time_key
    if objective is not Objective.BALANCED or not times:
        return (lambda r: (cents(r.cost), r.stale, _time_key(r))), (lambda r: float(r.cost))
    best_cost = float(min(r.cost for r in recs))
    best_time = min(times) or 1e-9
    slowest = max(times) / best_time
    scale = 1 / best_cost if best_cost > 0 else 1.0

    def balanced(r: Recommendation) -> float:
        t = r.time_hours / best_time if r.time_hours is not None else slowest
        return float(r.cost) * scale + t

    return (lambda r: (balanced(r), r.stale, float(r.cost))), balanced


def _standing(
    rec: Recommendation,
    rank: int,
    on_front: bool,
    vs: Comparison | None,
    objective: Objective,
    fitting: int,
    advice: Advice,
) -> tuple[Message, ...]:
    """`rec`'s reasons with those that say where it stands (rank, #1, the front) set anew."""
    kept = [r for r in rec.reasons if r.code not in _RANK_CODES]
    standing: list[Message] = []
    if rank == 1:
        standing.append(msg(ranking.BEST_BY[objective], fitting=fitting, basis=advice.cost_basis))
        if rec.vendor_claim:
            standing.append(msg(Code.REASON_RESTS_ON_VENDOR_CLAIM, platform=rec.platform_name))
    if vs is not None:
        apart = []
        if rec.vendor_claim:
            apart.append(msg(Code.DIFF_VENDOR_CLAIM))
        if rec.stale:
            apart.append(msg(Code.DIFF_STALE_PRICE))
        standing.append(ranking.versus_first(vs, advice.currency, advice.cost_basis, tuple(apart)))
    if on_front:
        standing.append(msg(Code.REASON_PARETO))
    # After what the recommendation runs (its first reasons, up to the billing), as ranking
    # writes them.
    at = next(
        (i for i, r in enumerate(kept) if r.code not in _LEADING_CODES),
        len(kept),
    )
    return (*kept[:at], *standing, *kept[at:])


# The reasons a recommendation opens with, before those of its standing.
_LEADING_CODES = frozenset(
    {
        Code.REASON_RUNS_ALL,
        Code.REASON_CARDS_ON_ONE_HOST,
        Code.REASON_PLAN_OF_LEGS,
        Code.REASON_PLAN_LEG,
    }
)


def price_legs(
    scenario: Scenario,
    legs: Sequence[tuple[tuple[int, ...], Sequence[OfferingSpec]]],
    accelerators: Mapping[str, AcceleratorSpec],
    *,
    now: datetime,
    rates: Sequence[ExchangeRateSpec] = (),
    storage_prices: Sequence[StoragePriceSpec] = (),
    stale_after_days: int = 30,
    placements: PlacementCache | None = None,
) -> tuple[Plan | None, tuple[ranking.Context, ...]]:
    """A given plan: each leg's tasks (indices) on the cheapest of its offerings. None when a
    leg cannot run (its context says why: rejections and the closest miss)."""
    pricer = _Pricer(
        scenario,
        (),
        accelerators,
        now=now,
        rates=rates,
        storage_prices=storage_prices,
        stale_after_days=stale_after_days,
        placements=placements,
    )
    out: list[Leg] = []
    contexts = []
    for indices, pool in legs:
        ctx, candidates = pricer.side(indices, pool)
        contexts.append(ctx)
        if not candidates:
            return None, tuple(contexts)
        best = min(candidates, key=lambda c: (round(c.cost_key, 2), c.stale, c.time_key))
        out.append(pricer.leg(ctx, best))
    return pricer.plan(out), tuple(contexts)


def transfer_hours(storage_gb: float, mbps: float) -> float:
    """Hours to move `storage_gb` (1e9 B) over a link of `mbps` (1e6 bit/s): GB × 8000 / Mb/s
    seconds."""
    return storage_gb * 8000 / mbps / 3600


# ------------------------------------------------------------------------------ share splits


def share_tasks(scenario: Scenario) -> tuple[int, ...]:
    """The tasks a share split may divide (module docstring, "Share splits"): in a scenario of
    one-off jobs only (the job basis), of at most ALL_SPLITS_UP_TO tasks, each job that the
    catalogue times (not one evaluated on named hardware, `on`)."""
    tasks = scenario.tasks
    if usage.basis(tasks) is not CostBasis.JOB or len(tasks) > ALL_SPLITS_UP_TO:
        return ()
    return tuple(i for i, t in enumerate(tasks) if usage.is_job(t) and t.on is None)


def period_hours(task: Task, unit: BillingUnit) -> float:
    """Hours of `task`'s work one prepaid period of `unit` holds: its window's share of the
    unit's calendar time (a month holds the window, a week 7/30 of it, a day 1/30)."""
    return usage.window(task) * unit.seconds / BillingUnit.MONTH.seconds


def whole_periods(task_hours: float, period: float) -> int:
    """Whole periods of `period` hours that `task_hours` fill (float noise forgiven)."""
    return math.floor(task_hours / period + 1e-9)


def task_share(task: Task, fraction: float) -> Task:
    """`task` with `fraction` of its work: its tokens (training) or frames (fixed); its time on
    any offering is that fraction of the whole (timing: steps = tokens / tokens per step; a
    fixed task's time is frames × seconds per frame)."""
    if task.tokens is not None:
        return replace(task, tokens=task.tokens * fraction)
    assert task.frames is not None  # usage.is_job: a fixed job has frames
    return replace(task, frames=task.frames * fraction)


@dataclass(frozen=True)
class _ShareBase:
    """A base leg for task `index`: `periods` whole `unit` periods of its window on `candidate`'s
    offering, where the whole task takes `candidate.time` hours; `fraction` of the work."""

    index: int
    candidate: ranking.Candidate
    unit: BillingUnit
    periods: int
    fraction: float
    estimate: float  # the whole task's work at the prepaid rate: a ranking key only


def _share_bases(pricer: _Pricer, index: int) -> list[_ShareBase]:
    """The base legs tried for task `index`: on each platform, the offering and prepaid unit
    whose price per hour of the task's work (price × instances × task hours / period hours) is
    the lowest, where the task is longer than one whole period and not a whole number of them;
    the SHARE_BASES cheapest of those."""
    task = pricer.scenario.tasks[index]
    ctx, alone = pricer.side((index,))
    best: dict[str, _ShareBase] = {}
    for c in alone:
        if c.time is None:
            continue
        for price in c.offering.prices:
            unit = BillingUnit(price.unit)
            if not unit.prepaid:
                continue
            period = period_hours(task, unit)
            periods = whole_periods(c.time, period)
            if periods < 1 or c.time - periods * period <= _SHARE_EPS_HOURS:
                continue
            estimate = (
                price.amount_float
                * ctx.float_rate(price.currency)
                * c.fit.placement.instances
                * c.time
                / period
            )
            kept = best.get(c.offering.platform)
            if kept is None or estimate < kept.estimate:
                fraction = periods * period / c.time
                best[c.offering.platform] = _ShareBase(index, c, unit, periods, fraction, estimate)
    return sorted(best.values(), key=lambda b: b.estimate)[:SHARE_BASES]


def _share_plans(
    pricer: _Pricer, index: int
) -> tuple[list[tuple[Plan, _Split]], list[tuple[Plan, _Split]]]:
    """(plans on one platform, plans across two) that run task `index` in two shares: for each
    base of `_share_bases`, the base leg prices exactly its whole periods on its offering (kept
    only when the ranking bills them prepaid), and the rest of the work, with the scenario's
    other tasks, is priced over the whole catalogue: the cheapest on the base's platform and the
    cheapest on another."""
    scenario = pricer.scenario
    task = scenario.tasks[index]
    others = tuple(t for i, t in enumerate(scenario.tasks) if i != index)
    whole = {c.offering.id: c.time for c in pricer.side((index,))[1]}
    deadline = scenario.constraints.deadline_hours
    same: list[tuple[Plan, _Split]] = []
    cross: list[tuple[Plan, _Split]] = []
    for base in _share_bases(pricer, index):
        off = base.candidate.offering
        total = base.candidate.time or 0.0
        base_ctx, priced = pricer.tasks_side((task_share(task, base.fraction),), (off,))
        if not priced or not all(BillingUnit(p.unit).prepaid for p in priced[0].prices):
            continue  # metered time is as cheap for the whole periods: nothing to split
        base_leg = replace(
            pricer.leg(base_ctx, priced[0]),
            shares=(
                TaskShare(
                    task.name,
                    base.fraction,
                    base.fraction * total,
                    total,
                    base.unit,
                    base.periods,
                    base=True,
                ),
            ),
        )
        rest = 1.0 - base.fraction
        rest_ctx, by_platform = pricer.tasks_cheapest((task_share(task, rest), *others))
        why = msg(
            Code.PLAN_SPLIT_SHARE,
            task=task.name,
            periods=base.periods,
            unit=base.unit,
            hours=hours(base.fraction * total),
        )
        split = _Split((index,), tuple(range(len(scenario.tasks))), why)
        mine = by_platform.get(off.platform)
        theirs = min(
            (c for p, c in by_platform.items() if p != off.platform),
            key=lambda c: (round(c.cost_key, 2), c.stale, c.time_key),
            default=None,
        )
        for c, into in ((mine, same), (theirs, cross)):
            if c is None:
                continue
            of = whole.get(c.offering.id)
            if of is None:
                continue
            share = TaskShare(task.name, rest, rest * of, of, base.unit, 0, base=False)
            plan = pricer.plan([base_leg, replace(pricer.leg(rest_ctx, c), shares=(share,))])
            time = plan.time_hours
            if deadline is not None and time is not None and time > deadline:
                continue  # the shares run one after the other: past the deadline together
            into.append((plan, split))
    return same, cross


# ----------------------------------------------------------------------------------- helpers


def _top(candidates: Iterable[ranking.Candidate]) -> list[ranking.Candidate]:
    """The cheapest single offering (a list of one, or none)."""
    best = min(candidates, key=lambda c: (round(c.cost_key, 2), c.stale, c.time_key), default=None)
    return [] if best is None else [best]


def _best_pair(
    a: Mapping[str, ranking.Candidate], b: Mapping[str, ranking.Candidate]
) -> tuple[ranking.Candidate, ranking.Candidate] | None:
    """The cheapest (a, b) on two different platforms: the two cheapest of each side hold it."""

    def ordered(side: Mapping[str, ranking.Candidate]) -> list[ranking.Candidate]:
        return sorted(side.values(), key=lambda c: (round(c.cost_key, 2), c.stale))[:2]

    pairs = [
        (x, y) for x in ordered(a) for y in ordered(b) if x.offering.platform != y.offering.platform
    ]
    return min(pairs, key=lambda p: p[0].cost_key + p[1].cost_key, default=None)


def _storage_details(scenario: Scenario) -> tuple[Message, ...]:
    c = scenario.constraints
    if c.storage_gb <= 0:
        return ()
    mbps = c.transfer_mbps or DEFAULT_TRANSFER_MBPS
    return (
        msg(Code.PLAN_DATA_TWICE, size=Quantity(c.storage_gb, Unit.GB)),
        msg(
            Code.PLAN_TRANSFER,
            hours=hours(transfer_hours(c.storage_gb, mbps)),
            mbps=mbps,
            basis=msg(Code.PLAN_MBPS_STATED if c.transfer_mbps else Code.PLAN_MBPS_ASSUMED),
        ),
    )


def _leg_label(leg: Leg) -> Message:
    unit = leg.plan.unit
    if unit == "mixed":
        units = tuple(dict.fromkeys(BillingUnit(u) for u in leg.plan.units))
        return msg(
            Code.PLAN_LEG_LABEL, offering=leg.offering_name, platform=leg.platform_name, unit=units
        )
    return msg(
        Code.PLAN_LEG_LABEL,
        offering=leg.offering_name,
        platform=leg.platform_name,
        unit=BillingUnit(unit),
    )


def _split_label(names: tuple[tuple[str, ...], tuple[str, ...]]) -> Message:
    return msg(Code.PLAN_SPLIT_TASKS, first=names[0], second=names[1])


def _money(amount: Decimal, currency: str, per: str = "") -> Money:
    return Money(cents(amount), currency, per=per)


def _per(basis: CostBasis) -> str:
    return BillingUnit.MONTH if basis is CostBasis.MONTH else ""


__all__ = [
    "DEFAULT_TRANSFER_MBPS",
    "SAVING_THRESHOLD",
    "SHARE_BASES",
    "Leg",
    "Plan",
    "PlanSearch",
    "TaskShare",
    "leg_of",
    "legs_of",
    "period_hours",
    "plan_options",
    "plan_recommendation",
    "price_legs",
    "ranked_plans",
    "search_plans",
    "share_tasks",
    "single_plan",
    "splits",
    "task_share",
    "transfer_hours",
    "whole_periods",
]
