"""The advisor: which offerings can run a scenario, what each costs and takes, ranked and explained.

For every offering that passes the scenario's constraints: place the tasks (placement.py), estimate
training time (timing.py), price every billing unit it has (billing.py) and keep the cheapest plan,
or a mixed plan when reserving some instances and paying others by the hour is cheaper. Then filter
by budget and deadline, rank by the objective and mark the Pareto front of (monthly cost, time).

Ranking (docs/advisor-rules.md, "Ranking"):
* cost: monthly cost, then time.
* time: training time, then monthly cost.
* balanced: the sum of monthly cost and time, each divided by its best value among the fitting
  offerings (so 1 + 1 = 2 is an offering that is both cheapest and fastest). A sum, not a product,
  so that a free offering cannot win on cost alone. Without training tasks this is the cost order.

Speed (target, docs/advisor-rules.md: 5 tasks × 10,000 offerings in ≤ 100 ms): memory is computed
once per task (it does not depend on the accelerator); placement once per placement signature (a
placement.PlacementCache, per call or kept by the caller); time and month units once per offering
kind; per offering only the price arithmetic remains. Full Recommendation objects are built only
for the offerings shown (`limit`) and the Pareto front. bench/bench_advise.py measures it.

Monthly busy hours of an instance: the longest of its "always"/"burst" tasks, or the longest "day"
task plus the longest "night" task if that is more (time-shifted tasks share the instance and the
bill); capped at the 720 h billing month.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from advisor.engine import timing, vocab
from advisor.engine.billing import (
    PREPAID_UNITS,
    ZERO,
    apply_rate,
    break_even_hours,
    cents,
    charge,
    find_rate,
    granularity,
    job_cost,
    month_units,
    storage_monthly_cost,
)
from advisor.engine.errors import AdvisorError, NoFit
from advisor.engine.hardware import resolve_accelerator
from advisor.engine.memory import task_memory
from advisor.engine.messages import (
    Code,
    Message,
    Money,
    Param,
    Quantity,
    Unit,
    fraction,
    hours,
    msg,
)
from advisor.engine.mig import max_compute
from advisor.engine.mig import profile as mig_profile
from advisor.engine.placement import Assignment, Placement, PlacementCache, TaskNeed
from advisor.engine.types import (
    AcceleratorSpec,
    ExchangeRateSpec,
    OfferingSpec,
    PriceSpec,
    Scenario,
    StoragePriceSpec,
    Task,
)
from advisor.engine.vocab import (
    TRAINING_KINDS,
    BillingUnit,
    Objective,
    PlacementMode,
    When,
)

# PCIe scaling and MFU above 60 % are flagged by timing.training_time (its warnings are passed on).
DEFAULT_LIMIT = 20
_INF = float("inf")
_BEST_BY = {
    Objective.COST: Code.REASON_BEST_BY_COST,
    Objective.TIME: Code.REASON_BEST_BY_TIME,
    Objective.BALANCED: Code.REASON_BEST_BY_BALANCED,
}


@dataclass(frozen=True)
class BillingChoice:
    """The cheapest way to pay for one month of the scenario on one offering."""

    unit: str  # a billing unit, or "mixed"
    units: tuple[str, ...]  # the unit each instance is billed by
    price: Decimal | None  # the unit price (None for a mixed plan)
    monthly: Decimal  # in `currency`
    currency: str
    converted: Decimal  # in `target_currency`
    target_currency: str
    rate: Decimal | None
    rate_date: datetime | None
    rate_source: str = ""


@dataclass(frozen=True)
class Recommendation:
    rank: int
    offering_id: int | str
    offering_name: str
    platform: str
    platform_name: str
    accelerator: str
    instances: int
    gpus_per_instance: int
    plan: BillingChoice
    monthly_cost: Decimal  # plan + storage, in the target currency
    storage_cost: Decimal | None
    job_cost: Decimal | None  # training tasks run to completion, target currency
    time_hours: float | None
    placement: Placement
    headroom_bytes: int | None
    isolation: tuple[PlacementMode, ...]
    price_age_days: int
    price_source: str
    price_source_kind: str
    pareto: bool
    reasons: tuple[Message, ...]
    warnings: tuple[Message, ...]
    decode_tokens_per_s: tuple[tuple[str, float], ...] = ()
    # Facts or prices of this offering come from its platform's own marketing.
    vendor_claim: bool = False
    stale: bool = False  # one of its chosen prices is stale


@dataclass(frozen=True)
class Advice:
    recommendations: tuple[Recommendation, ...]
    pareto: tuple[int | str, ...]
    rejected: dict[Code, int]  # offerings left out, by the reason's code
    considered: int
    fitting: int
    currency: str
    objective: str
    as_of: datetime


@dataclass(frozen=True)
class _Fit:
    """What is shared by every offering with the same placement signature."""

    placement: Placement
    busy: tuple[tuple[float, int], ...]  # (busy hours, instances) groups
    time: float | None
    efficiency: float | None
    time_warnings: tuple[Message, ...]
    # (unit, granularity) -> month units per busy group and their instance-weighted sum
    units: dict[tuple[str, int], tuple[tuple[Decimal, ...], Decimal]] = field(default_factory=dict)
    float_units: dict[tuple[str, int], tuple[tuple[float, ...], float]] = field(
        default_factory=dict
    )

    def units_for(self, price: PriceSpec) -> tuple[tuple[Decimal, ...], Decimal]:
        key = (price.unit, granularity(price))
        found = self.units.get(key)
        if found is None:
            per_group = tuple(month_units(key[0], key[1], h) for h, _ in self.busy)
            total = sum((u * n for u, (_, n) in zip(per_group, self.busy, strict=True)), ZERO)
            found = self.units[key] = (per_group, total)
        return found

    def float_units_for(self, price: PriceSpec) -> tuple[tuple[float, ...], float]:
        """units_for as floats, for ranking only (exact Decimal money is kept for what is shown)."""
        key = (price.unit, price.granularity_seconds or 0)
        found = self.float_units.get(key)
        if found is None:
            per_group, total = self.units_for(price)
            found = self.float_units[key] = (tuple(float(u) for u in per_group), float(total))
        return found


@dataclass(slots=True)
class _Candidate:
    """An offering that fits. Its cost is ranked as a float; the exact Decimal total is computed
    only for the recommendations shown (`_exact_total`)."""

    time: float | None
    offering: OfferingSpec
    fit: _Fit
    prices: tuple[PriceSpec, ...]  # per busy group
    storage: Decimal | None
    cost_key: float = 0.0  # monthly cost in the target currency, for ranking only
    time_key: float = _INF  # time or infinity, for sorting only


class _Context:
    """Per-call state: inputs, caches, counters."""

    def __init__(
        self,
        scenario: Scenario,
        accelerators: Mapping[str, AcceleratorSpec],
        now: datetime,
        rates: Sequence[ExchangeRateSpec],
        storage_prices: Sequence[StoragePriceSpec],
        stale_after_days: int,
        placements: PlacementCache | None = None,
    ) -> None:
        self.scenario = scenario
        self.tasks = scenario.tasks
        self.c = scenario.constraints
        self.now = now
        self.rates = rates
        self.storage_prices = storage_prices
        self.stale_before = vocab.stale_before(now, stale_after_days)
        self.needs = tuple(_need(t) for t in scenario.tasks)
        self.placements = PlacementCache() if placements is None else placements
        self.on_slugs = _on_slugs(scenario.tasks, accelerators)
        self.fits: dict[tuple[Any, ...], _Fit] = {}
        self.times: dict[tuple[Any, ...], timing.TimeEstimate | AdvisorError] = {}
        self.rate_of: dict[str, ExchangeRateSpec | None] = {}
        self.float_rate_of: dict[str, float] = {}
        budget = self.c.budget_per_month
        self.budget = None if budget is None else float(budget)
        self.storage_of: dict[tuple[str, float], Decimal | None] = {}
        self.filtering = bool(
            self.c.platforms
            or self.c.domestic_only
            or self.c.require_nvlink
            or self.c.physically_exclusive
            or self.on_slugs
        )
        self.rejected: Counter[Code] = Counter()
        self.misses: dict[Code, tuple[float, Message]] = {}

    def reject(
        self,
        reason: Code,
        closeness: float = _INF,
        offering: OfferingSpec | None = None,
        detail: Param | Callable[[], Param] = None,
    ) -> None:
        """Count a rejection; remember the closest miss per reason (smaller `closeness`)."""
        self.rejected[reason] += 1
        known = self.misses.get(reason)
        if offering is not None and (known is None or closeness < known[0]):
            value = detail() if callable(detail) else detail
            self.misses[reason] = (closeness, _label(offering, value))

    def rate(self, currency: str) -> ExchangeRateSpec | None:
        if currency not in self.rate_of:
            self.rate_of[currency] = find_rate(currency, self.c.currency, self.rates, self.now)
        return self.rate_of[currency]

    def convert(self, amount: Decimal, currency: str) -> Decimal:
        return apply_rate(amount, currency, self.rate(currency))

    def float_rate(self, currency: str) -> float:
        """Multiplier from `currency` to the target currency, as a float (ranking only)."""
        if currency == self.c.currency:
            return 1.0
        found = self.float_rate_of.get(currency)
        if found is None:
            found = self.float_rate_of[currency] = float(self.convert(Decimal(1), currency))
        return found


def advise(
    scenario: Scenario,
    offerings: Sequence[OfferingSpec],
    accelerators: Mapping[str, AcceleratorSpec],
    *,
    now: datetime,
    rates: Sequence[ExchangeRateSpec] = (),
    storage_prices: Sequence[StoragePriceSpec] = (),
    stale_after_days: int = 30,
    limit: int = DEFAULT_LIMIT,
    placements: PlacementCache | None = None,
) -> Advice:
    """Ranked recommendations for `scenario` over `offerings`; NoFit names the closest miss.

    `placements`: a cache the caller keeps across calls; without one, each call starts cold.
    """
    ctx = _Context(scenario, accelerators, now, rates, storage_prices, stale_after_days, placements)
    candidates = [c for off in offerings if (c := _evaluate(ctx, off)) is not None]
    if not candidates:
        raise NoFit(_no_fit_message(ctx, len(offerings)))
    ordered = _rank(candidates, scenario.objective)
    front = _pareto(ordered)
    shown = [(i, c) for i, c in enumerate(ordered) if i < limit or id(c) in front]
    recs = tuple(_recommend(ctx, c, i + 1, id(c) in front, ordered) for i, c in shown)
    return Advice(
        recommendations=recs,
        pareto=tuple(c.offering.id for c in ordered if id(c) in front),
        rejected=dict(ctx.rejected),
        considered=len(offerings),
        fitting=len(candidates),
        currency=ctx.c.currency,
        objective=scenario.objective,
        as_of=now,
    )


# ------------------------------------------------------------------------------------ per offering


def _evaluate(ctx: _Context, off: OfferingSpec) -> _Candidate | None:
    if ctx.filtering:
        reason = _constraint_miss(ctx, off)
        if reason is not None:
            ctx.reject(reason)
            return None
    prices = off.prices if ctx.c.include_stale else _current(ctx, off.prices)
    if not prices:
        ctx.reject(Code.REJECT_NO_CURRENT_PRICE)
        return None
    fit = _fit(ctx, off)
    if not fit.placement.fits:
        shortfall = fit.placement.shortfall_bytes
        ctx.reject(
            Code.REJECT_DOES_NOT_FIT,
            _INF if shortfall is None else shortfall,
            off,
            fit.placement.reason,
        )
        return None
    deadline = ctx.c.deadline_hours
    if deadline is not None and fit.time is not None and fit.time > deadline:
        time = fit.time
        ctx.reject(Code.REJECT_MISSES_DEADLINE, time, off, lambda: hours(time))
        return None
    plan_total, chosen = _cheapest(ctx, prices, fit)
    storage = _storage(ctx, off.platform, fit.busy) if ctx.c.storage_gb > 0 else None
    total = plan_total if storage is None else plan_total + float(storage)
    time_key = _INF if fit.time is None else fit.time
    candidate = _Candidate(fit.time, off, fit, chosen, storage, total, time_key)
    budget, exact_budget = ctx.budget, ctx.c.budget_per_month
    # Floats decide clear cases; within a cent of the budget the exact Decimal total decides.
    if (
        budget is not None
        and exact_budget is not None
        and total > budget - 0.01
        and (total > budget + 0.01 or _exact_total(ctx, candidate) > exact_budget)
    ):
        ccy = ctx.c.currency
        ctx.reject(
            Code.REJECT_OVER_BUDGET,
            total,
            off,
            lambda: Money(Decimal(f"{total:.2f}"), ccy, per=BillingUnit.MONTH),
        )
        return None
    return candidate


def _current(ctx: _Context, prices: tuple[PriceSpec, ...]) -> tuple[PriceSpec, ...]:
    for p in prices:
        if _stale(ctx, p):
            return tuple(p for p in prices if not _stale(ctx, p))
    return prices


def _constraint_miss(ctx: _Context, off: OfferingSpec) -> Code | None:
    c = ctx.c
    if c.platforms and off.platform not in c.platforms:
        return Code.REJECT_NOT_ON_PLATFORMS
    if c.domestic_only and not off.accelerator.domestic:
        return Code.REJECT_NOT_DOMESTIC
    if c.require_nvlink and off.interconnect != "nvlink":
        return Code.REJECT_NO_NVLINK
    if c.physically_exclusive and not off.physically_exclusive:
        return Code.REJECT_NOT_EXCLUSIVE
    if ctx.on_slugs and off.accelerator.slug not in ctx.on_slugs:
        return Code.REJECT_NOT_REQUESTED_HARDWARE
    return None


def _stale(ctx: _Context, price: PriceSpec) -> bool:
    """The staleness rule (vocab.is_stale), or the flag the loader set with the same rule."""
    return price.stale or price.observed_at < ctx.stale_before


def _fit(ctx: _Context, off: OfferingSpec) -> _Fit:
    # A cheap exact key first; offerings that differ only in what placement ignores (e.g. the
    # platform's granularity on a card without MIG) then share one placement (PlacementCache).
    key = (
        off.accelerator.slug,
        off.gpu_count,
        off.sharing,
        off.multi_task,
        off.mig_profile,
        off.pooled_vram_gib,
        off.interconnect,
    )
    fit = ctx.fits.get(key)
    if fit is None:
        fit = ctx.fits[key] = _compute_fit(ctx, off)
    return fit


def _compute_fit(ctx: _Context, off: OfferingSpec) -> _Fit:
    placement = ctx.placements.place(off, ctx.needs)
    if not placement.fits:
        return _Fit(placement, (), None, None, ())
    busy = _busy_groups(ctx.tasks, placement)
    time, efficiency, warnings = _training_time(ctx, off, placement)
    return _Fit(placement, busy, time, efficiency, warnings)


def _busy_groups(tasks: Sequence[Task], placement: Placement) -> tuple[tuple[float, int], ...]:
    """(busy hours, instances) groups: each instance's hours by the one busy-hours rule."""
    slots: list[list[tuple[When, float]]] = [[] for _ in range(placement.instances)]
    for t, a in zip(tasks, placement.assignments, strict=True):
        slots[a.instance].append((When(t.when), t.hours_per_month))
    per_instance = (vocab.busy_hours(s) for s in slots)
    return tuple(sorted(Counter(per_instance).items(), reverse=True))


def _training_time(
    ctx: _Context, off: OfferingSpec, placement: Placement
) -> tuple[float | None, float | None, tuple[Message, ...]]:
    """Longest training time of the scenario's training tasks on this offering (they overlap)."""
    worst: float | None = None
    efficiency: float | None = None
    warnings: list[Message] = []
    for i, (t, a) in enumerate(zip(ctx.tasks, placement.assignments, strict=True)):
        if t.kind not in TRAINING_KINDS or not t.tokens:
            continue
        try:
            est = _task_time(ctx, i, t, off.accelerator, len(a.gpus), off.interconnect)
        except AdvisorError as e:
            no_time = msg(
                Code.WARN_NO_TIME_ESTIMATE, accelerator=off.accelerator.name, reason=e.detail
            )
            warnings.append(msg(Code.WARN_TASK, task=t.name, message=no_time))
            continue
        task_hours = est.hours * _compute_share(off, a)
        warnings.extend(msg(Code.WARN_TASK, task=t.name, message=w) for w in est.warnings)
        if a.mode in (PlacementMode.POOLED, PlacementMode.SHARED):
            shared = msg(Code.WARN_SHARED_COMPUTE)
            warnings.append(msg(Code.WARN_TASK, task=t.name, message=shared))
        if worst is None or task_hours > worst:
            worst, efficiency = task_hours, est.scaling_efficiency
    return worst, efficiency, tuple(warnings)


def _task_time(
    ctx: _Context, index: int, task: Task, accel: AcceleratorSpec, gpus: int, interconnect: str
) -> timing.TimeEstimate:
    """training_time, once per (task, card, GPU count, interconnect): many offerings share them."""
    key = (index, accel.slug, gpus, interconnect)
    found = ctx.times.get(key)
    if found is None:
        mfu = task.on.mfu if task.on is not None else None
        try:
            found = timing.training_time(task, accel, gpus, interconnect, mfu=mfu)  # type: ignore[arg-type]
        except AdvisorError as error:
            found = error
        ctx.times[key] = found
    if isinstance(found, AdvisorError):
        raise found
    return found


def _compute_share(off: OfferingSpec, a: Assignment) -> float:
    """Time multiplier for a MIG slice: the card's compute slices over the slice's."""
    name = a.mig_profile or off.mig_profile
    if name is None:
        return 1.0
    accel = off.accelerator
    return max_compute(accel) / mig_profile(accel, name).compute_slices


def _cheapest(
    ctx: _Context, prices: Sequence[PriceSpec], fit: _Fit
) -> tuple[float, tuple[PriceSpec, ...]]:
    """Cheapest plan (converted, as a float for ranking): one unit for all instances, or the best
    unit per busy group."""
    groups = len(fit.busy)
    if len(prices) == 1:
        return _price_cost(ctx, prices[0], fit), (prices[0],) * groups
    if groups == 1:  # the common case: one busy group, the cheapest single price wins
        best_cost, best_price = _INF, prices[0]
        for p in prices:
            cost = _price_cost(ctx, p, fit)
            if cost < best_cost:
                best_cost, best_price = cost, p
        return best_cost, (best_price,)
    # Metered prices are all linear in the busy hours, so the cheapest is cheapest for every
    # group; only a prepaid plan next to another plan can make a mixed plan worth it.
    if not any(p.unit in PREPAID_UNITS for p in prices):
        totals = [_price_cost(ctx, p, fit) for p in prices]
        best = min(range(len(prices)), key=totals.__getitem__)
        return totals[best], (prices[best],) * groups
    costs = [_group_costs(ctx, p, fit) for p in prices]
    totals = [sum(row) for row in costs]
    best = min(range(len(prices)), key=totals.__getitem__)
    per_group = [min(range(len(prices)), key=lambda i: costs[i][g]) for g in range(groups)]
    mixed = sum(costs[i][g] for g, i in enumerate(per_group))
    if mixed < totals[best]:
        return mixed, tuple(prices[i] for i in per_group)
    return totals[best], (prices[best],) * groups


def _price_cost(ctx: _Context, price: PriceSpec, fit: _Fit) -> float:
    """One plan for every instance, converted. Without a minimum charge the cost is linear in the
    units, so one multiplication prices all instances."""
    if price.min_charge:
        return sum(_group_costs(ctx, price, fit))
    units = fit.float_units_for(price)[1]
    return price.amount_float * units * ctx.float_rate(price.currency) if units else 0.0


def _group_costs(ctx: _Context, price: PriceSpec, fit: _Fit) -> list[float]:
    amount, floor = price.amount_float, float(price.min_charge)
    rate = ctx.float_rate(price.currency)
    return [
        (max(amount * u, floor) if u else 0.0) * rate * n
        for u, (_, n) in zip(fit.float_units_for(price)[0], fit.busy, strict=True)
    ]


def _exact_total(ctx: _Context, c: _Candidate) -> Decimal:
    """The monthly cost of the chosen plan in exact Decimal money, storage included."""
    plan = sum(
        (
            ctx.convert(charge(p, month_units(p.unit, granularity(p), h)), p.currency) * n
            for p, (h, n) in _zip(c)
        ),
        ZERO,
    )
    return plan if c.storage is None else plan + c.storage


def _storage(ctx: _Context, platform: str, busy: Sequence[tuple[float, int]]) -> Decimal | None:
    """Cheapest storage price of the platform for the scenario's data, busy hours of the busiest
    instance (storage billed only while running follows the instance that holds the data)."""
    if ctx.c.storage_gb <= 0:
        return None
    key = (platform, busy[0][0])
    if key not in ctx.storage_of:
        options = [
            ctx.convert(storage_monthly_cost(s, ctx.c.storage_gb, busy[0][0]), s.currency)
            for s in ctx.storage_prices
            if s.platform == platform
        ]
        ctx.storage_of[key] = min(options, default=None)
    return ctx.storage_of[key]


# ---------------------------------------------------------------------------------- rank and front


def _rank(candidates: list[_Candidate], objective: str) -> list[_Candidate]:
    if objective == "cost":
        return sorted(candidates, key=lambda c: (c.cost_key, c.time_key))
    if objective == "time":
        return sorted(candidates, key=lambda c: (c.time_key, c.cost_key))
    best_cost = min(c.cost_key for c in candidates)
    times = [c.time_key for c in candidates if c.time_key < _INF]
    if not times:
        return sorted(candidates, key=lambda c: c.cost_key)
    best_time = min(times) or 1e-9
    # An offering without a time estimate counts as the slowest one that has one.
    slowest = max(times) / best_time
    cost_scale = 1 / best_cost if best_cost > 0 else 1.0

    def score(c: _Candidate) -> tuple[float, float]:
        t = c.time_key / best_time if c.time_key < _INF else slowest
        return (c.cost_key * cost_scale + t, c.cost_key)

    return sorted(candidates, key=score)


def _pareto(ordered: Sequence[_Candidate]) -> set[int]:
    """ids of the candidates on the cost/time front (vocab.pareto_front); of exact duplicates the
    first in rank order is kept (the sort is stable)."""
    front = vocab.pareto_front(ordered, lambda c: c.cost_key, lambda c: c.time_key)
    return {id(c) for c in front}


# ------------------------------------------------------------------------------ recommendation


def _recommend(
    ctx: _Context, c: _Candidate, rank: int, on_front: bool, ordered: Sequence[_Candidate]
) -> Recommendation:
    off, placement = c.offering, c.fit.placement
    total = _exact_total(ctx, c)
    plan = _billing_choice(ctx, c, total)
    oldest = min(c.prices, key=lambda p: p.observed_at)
    return Recommendation(
        rank=rank,
        offering_id=off.id,
        offering_name=off.name,
        platform=off.platform,
        platform_name=off.platform_name,
        accelerator=off.accelerator.slug,
        instances=placement.instances,
        gpus_per_instance=off.gpu_count,
        plan=plan,
        monthly_cost=total,
        storage_cost=c.storage,
        job_cost=_job_cost(ctx, c),
        time_hours=c.time,
        placement=placement,
        headroom_bytes=placement.min_headroom_bytes,
        isolation=tuple(dict.fromkeys(PlacementMode(a.mode) for a in placement.assignments)),
        price_age_days=(ctx.now - oldest.observed_at).days,
        price_source=oldest.source,
        price_source_kind=oldest.source_kind,
        pareto=on_front,
        reasons=_reasons(ctx, c, rank, on_front, plan, len(ordered)),
        warnings=_rec_warnings(ctx, c),
        decode_tokens_per_s=_decode(ctx, off),
        vendor_claim=_vendor_claim(c),
        stale=any(_stale(ctx, p) for p in c.prices),
    )


def _vendor_claim(c: _Candidate) -> bool:
    return c.offering.vendor_claim or any(p.source_kind == "vendor_claim" for p in c.prices)


def _billing_choice(ctx: _Context, c: _Candidate, total: Decimal) -> BillingChoice:
    first = c.prices[0]
    mixed = len({p.unit for p in c.prices}) > 1
    monthly = sum(
        (charge(p, month_units(p.unit, granularity(p), h)) * n for p, (h, n) in _zip(c)),
        Decimal(0),
    )
    one_currency = len({p.currency for p in c.prices}) == 1
    rate = ctx.rate(first.currency) if one_currency else None
    converted = total - (c.storage or 0)
    return BillingChoice(
        unit="mixed" if mixed else first.unit,
        units=tuple(p.unit for p, (_, n) in _zip(c) for _ in range(n)),
        price=None if mixed else first.amount,
        monthly=monthly if one_currency else converted,
        currency=first.currency if one_currency else ctx.c.currency,
        converted=converted,
        target_currency=ctx.c.currency,
        rate=rate.rate if rate else None,
        rate_date=rate.as_of if rate else None,
        rate_source=rate.source if rate else "",
    )


def _zip(c: _Candidate) -> list[tuple[PriceSpec, tuple[float, int]]]:
    return list(zip(c.prices, c.fit.busy, strict=True))


def _job_cost(ctx: _Context, c: _Candidate) -> Decimal | None:
    """Training run to completion: the instances that host training tasks, for the longest run."""
    if c.time is None:
        return None
    hosts = {
        a.instance
        for t, a in zip(ctx.tasks, c.fit.placement.assignments, strict=True)
        if t.kind in TRAINING_KINDS and t.tokens
    }
    per_instance = min(
        ctx.convert(job_cost(p, c.time * 3600), p.currency)
        for p in c.offering.prices
        if ctx.c.include_stale or not _stale(ctx, p)
    )
    return per_instance * len(hosts)


def _decode(ctx: _Context, off: OfferingSpec) -> tuple[tuple[str, float], ...]:
    out = []
    for t in ctx.tasks:
        if t.kind == "inference":
            try:
                out.append((t.name, timing.decode_tokens_per_s(t, off.accelerator, t.gpus)))
            except (AdvisorError, ValueError):
                continue  # no bandwidth figure or no architecture: no speed to show
    return tuple(out)


def _reasons(
    ctx: _Context, c: _Candidate, rank: int, on_front: bool, plan: BillingChoice, n: int
) -> tuple[Message, ...]:
    off, p = c.offering, c.fit.placement
    modes = tuple(m for m in PlacementMode if any(a.mode == m for a in p.assignments))
    out = [
        msg(
            Code.REASON_RUNS_ALL,
            tasks=len(ctx.tasks),
            instances=p.instances,
            gpus=off.gpu_count,
            accelerator=off.accelerator.name,
            modes=modes,
        )
    ]
    if rank == 1:
        out.append(msg(_BEST_BY[Objective(ctx.scenario.objective)], fitting=n))
    if on_front:
        out.append(msg(Code.REASON_PARETO))
    monthly = Money(cents(plan.converted), plan.target_currency, per=BillingUnit.MONTH)
    if plan.unit == "mixed":
        out.append(msg(Code.REASON_CHEAPEST_BILLING_MIXED, monthly=monthly))
    else:
        out.append(msg(Code.REASON_CHEAPEST_BILLING, unit=BillingUnit(plan.unit), monthly=monthly))
    out.extend(_break_even_reason(c))
    if c.time is not None:
        if c.fit.efficiency:
            out.append(
                msg(
                    Code.REASON_TRAINING_TIME_SCALING,
                    hours=hours(c.time),
                    efficiency=fraction(c.fit.efficiency),
                )
            )
        else:
            out.append(msg(Code.REASON_TRAINING_TIME, hours=hours(c.time)))
    return tuple(out)


def _break_even_reason(c: _Candidate) -> list[Message]:
    prepaid = [p for p in c.offering.prices if p.unit in PREPAID_UNITS]
    metered = [p for p in c.offering.prices if p.unit not in PREPAID_UNITS]
    out = []
    for pre in prepaid:
        for met in metered:
            if pre.currency != met.currency:
                continue
            busy = break_even_hours(met, pre)
            if busy is not None:
                out.append(
                    msg(
                        Code.REASON_BREAK_EVEN,
                        prepaid_unit=BillingUnit(pre.unit),
                        prepaid=Money(pre.amount, pre.currency),
                        metered=Money(met.amount, met.currency, per=BillingUnit(met.unit)),
                        hours=Quantity(float(busy), Unit.COUNT, places=1),
                    )
                )
    return out


def _rec_warnings(ctx: _Context, c: _Candidate) -> tuple[Message, ...]:
    off = c.offering
    out = list(c.fit.placement.warnings)
    if _vendor_claim(c):
        out.append(msg(Code.WARN_VENDOR_CLAIM))
    for p in c.prices:
        if _stale(ctx, p):
            age = (ctx.now - p.observed_at).days
            out.append(
                msg(Code.WARN_STALE_PRICE, unit=BillingUnit(p.unit), age=Quantity(age, Unit.DAYS))
            )
    if off.retention_after_expiry is False:
        out.append(msg(Code.WARN_NO_RETENTION))
    if off.interruptible:
        out.append(msg(Code.WARN_INTERRUPTIBLE))
    if ctx.c.storage_gb > 0 and c.storage is None:
        out.append(msg(Code.WARN_NO_STORAGE_PRICE, platform=off.platform_name))
    out.extend(c.fit.time_warnings)
    return tuple(dict.fromkeys(out))


# ----------------------------------------------------------------------------------- helpers


def _need(task: Task) -> TaskNeed:
    plan = task_memory(task)
    return TaskNeed(
        name=task.name,
        per_gpu_bytes=plan.per_gpu.total,
        gpus=plan.gpus,
        sharded=plan.sharded,
        when=task.when,
        isolation=task.isolation,
    )


def _on_slugs(tasks: Sequence[Task], accelerators: Mapping[str, AcceleratorSpec]) -> frozenset[str]:
    return frozenset(
        resolve_accelerator(t.on.accelerator, accelerators, field=f"tasks[{i}].on.accelerator").slug
        for i, t in enumerate(tasks)
        if t.on is not None
    )


def _label(off: OfferingSpec, detail: Param) -> Message:
    return msg(
        Code.OFFERING_ON_PLATFORM, offering=off.name, platform=off.platform_name, detail=detail
    )


def _no_fit_message(ctx: _Context, total: int) -> Message:
    if not ctx.rejected:
        return msg(Code.NO_FIT_NO_OFFERINGS, total=total)
    counts = tuple(
        msg(Code.REJECT_COUNT, reason=msg(reason), count=n)
        for reason, n in ctx.rejected.most_common()
    )
    head = msg(Code.NO_FIT, total=total, counts=counts)
    for reason in (Code.REJECT_OVER_BUDGET, Code.REJECT_MISSES_DEADLINE, Code.REJECT_DOES_NOT_FIT):
        if reason in ctx.misses:
            miss = ctx.misses[reason][1]
            return msg(Code.NO_FIT_CLOSEST, head=head, reason=msg(reason), miss=miss)
    return head


__all__ = ["Advice", "BillingChoice", "Recommendation", "advise"]
