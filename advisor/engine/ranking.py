"""The advisor: which offerings can run a scenario, what each costs and takes, ranked and explained.

For every offering that passes the scenario's constraints: place the tasks (placement.py), estimate
training time (timing.py), work out how long each instance is used (usage.py: one-off jobs for
their run, services and recurring jobs for a month), price every billing unit it has for that use
(billing.py) and keep the cheapest plan, or a mixed plan when reserving some instances and paying
others by the hour is cheaper. Then filter by budget and deadline, rank by the objective, fold the
same offer in several regions into one, and mark the Pareto front of (cost, time).

Ranking (docs/advisor-rules.md, "Ranking"):
* What is ranked is what the user pays for what they asked (usage.basis): the whole run of a
  scenario of one-off jobs, a month when anything recurs. Storage is part of it: the platform's
  price, or, where the platform has none, the median of the known ones, flagged as assumed.
* cost: that cost, then stale prices after fresh ones, then time.
* time: training time, then cost.
* balanced: the sum of cost and time, each divided by its best value among the fitting
  offerings (so 1 + 1 = 2 is an offering that is both cheapest and fastest). A sum, not a product,
  so that a free offering cannot win on cost alone. Without training tasks this is the cost order.
* Each recommendation after the first states its difference to the first; within TIE_FRACTION on
  the objective the two are tied, with what else tells them apart.
* Interruptible (spot) offerings (docs/advisor-rules.md, "Spot"): left out for every task when
  `allow_interruptible` is false; when it is not given, left out where a task is user-facing (an
  inference task, a fixed task with a service's hours) and used by jobs; true allows them for all.
  A job on spot takes its expected time with restarts (restarts.py), which its cost is billed
  for; under a deadline it is held to, and ranked by, its time at the pessimistic rate.

Speed (target, docs/advisor-rules.md: 5 tasks × 10,000 offerings in ≤ 100 ms): memory is computed
once per task (it does not depend on the accelerator); placement once per placement signature (a
placement.PlacementCache, per call or kept by the caller), worked out once per card layout (cards
of one memory size share it, placement.layout); time and usage once per offering
kind; offerings are grouped by that kind (prune.OfferingIndex, kept with the catalogue), so a kind
that cannot hold the tasks is rejected whole and only offerings of kinds that fit are priced; the
ranking sorts none of them all (prune.select). Full Recommendation objects are built only for the
offerings shown (`limit`) and the Pareto front. bench/bench_advise.py measures it.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from decimal import Decimal
from typing import Any

from advisor.engine import hosts, idle, needs, restarts, stacks, timing, usage, vocab
from advisor.engine.billing import (
    PREPAID_UNITS,
    ZERO,
    apply_rate,
    break_even_hours,
    cents,
    find_rate,
    job_cost,
    storage_cost,
)
from advisor.engine.errors import AdvisorError, ClosestMiss
from advisor.engine.estimate import slice_spec
from advisor.engine.hardware import resolve_accelerator
from advisor.engine.idle import IdleTime
from advisor.engine.legs import BillingChoice, Leg, TaskServing
from advisor.engine.memory import holds_engine_pool, task_memory
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
from advisor.engine.placement import (
    Assignment,
    Placement,
    PlacementCache,
    PureResults,
    TaskNeed,
)
from advisor.engine.pricing import charges
from advisor.engine.pricing.kind import Metering
from advisor.engine.pricing.terms import PricingTerms
from advisor.engine.serving import (
    NetworkLink,
    ServingEstimate,
    per_sequence_bytes,
    serving_estimate,
)
from advisor.engine.types import (
    AcceleratorSpec,
    Constraints,
    ExchangeRateSpec,
    OfferingSpec,
    PriceSpec,
    Scenario,
    StoragePriceSpec,
    Task,
)
from advisor.engine.usage import TaskUsage, Usage
from advisor.engine.vocab import (
    TRAINING_KINDS,
    BillingUnit,
    CostBasis,
    Currency,
    Interconnect,
    Objective,
    PlacementMode,
    When,
)

# PCIe scaling and MFU above 60 % are flagged by timing.training_time (its warnings are passed on).
DEFAULT_LIMIT = 20
# Two recommendations within 2 % of each other on the objective are called tied: closer than
# that, the estimate's own spread (time ranges, rounding, a price seen a week ago) decides.
TIE_FRACTION = 0.02
INF = float("inf")
# What ranks a candidate after another at equal cost (ranking_key), each a flag: a stale price, a
# price that is a competitor's claim (vocab.PriceBasis.CLAIM), a training task with almost no
# memory headroom (placement.Placement.tight; docs/advisor-rules.md). The least and the greatest
# such flags, for the bounds of a key (prune._bound_key).
SURE = (False, False, False)
DOUBTFUL = (True, True, True)
BEST_BY = {
    Objective.COST: Code.REASON_BEST_BY_COST,
    Objective.TIME: Code.REASON_BEST_BY_TIME,
    Objective.BALANCED: Code.REASON_BEST_BY_BALANCED,
}


@dataclass(frozen=True)
class Comparison:
    """A recommendation against the first: what it costs and takes more (negative: less)."""

    cost: Decimal  # in the target currency, on the ranked basis
    time_hours: float | None
    tied: bool  # within TIE_FRACTION of the first on the objective


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
    cost: Decimal  # what is ranked: plan + storage over `cost_basis`, in the target currency
    cost_basis: CostBasis
    months: int  # months the costed run spans (1 for a monthly basis)
    monthly_cost: Decimal  # plan + storage in the busiest month, target currency
    storage_cost: Decimal | None  # over `cost_basis`
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
    # Each inference task's decode upper bound per stream (serving.decode_tokens_per_s).
    decode_tokens_per_s: tuple[tuple[str, float], ...] = ()
    # Facts or prices of this offering come from its platform's own marketing.
    vendor_claim: bool = False
    stale: bool = False  # one of its chosen prices is stale
    storage_assumed: bool = False  # the platform has no storage price: the median is assumed
    regions: tuple[str, ...] = ()  # where the same offer is sold at the same price
    vs_first: Comparison | None = None
    # Busy hours of each instance in the busiest month, busiest first (the order of plan.units).
    instance_hours: tuple[float, ...] = ()
    # Each inference task's serving figures here and its cost per million output tokens.
    serving: tuple[TaskServing, ...] = ()
    # The range of the training time (timing.TimeEstimate.low_hours/high_hours of the longest
    # task) and of the job cost that follows it: the same plan priced for those hours.
    time_low_hours: float | None = None
    time_high_hours: float | None = None
    job_cost_low: Decimal | None = None
    job_cost_high: Decimal | None = None
    # The time between runs: how it is spent (stopped, kept in the no-GPU mode, released, paid by
    # a prepaid plan), what it and the billed start-ups cost (idle.py); None: never idle.
    idle: IdleTime | None = None
    # A plan of several legs (plans.ranked_plans): every leg, the first of which the offering
    # fields above describe; cost, time and warnings are the whole plan's. (): the offering
    # alone, a plan of one leg (plans.leg_of).
    legs: tuple[Leg, ...] = ()
    # The card's name, for sentences (`accelerator` is its slug, for data).
    accelerator_name: str = ""
    # Where to book it (OfferingSpec.url); a plan's first leg's, each leg has its own.
    offering_url: str = ""


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
    cost_basis: CostBasis = CostBasis.MONTH
    # Platforms in scope with no current price at all, as (slug, name): not ranked, and said so.
    unpriced_platforms: tuple[tuple[str, str], ...] = ()
    # How fresh the answer is: when the oldest price the shown recommendations use was seen.
    oldest_price_at: datetime | None = None
    # Platforms a task spanning GPUs can rent one card per instance of only (hosts.py), said.
    one_card_platforms: tuple[tuple[str, str], ...] = ()

    @property
    def oldest_price_age_days(self) -> int | None:
        return None if self.oldest_price_at is None else (self.as_of - self.oldest_price_at).days

    @property
    def unpriced_message(self) -> Message | None:
        return unpriced_message(self.unpriced_platforms)

    @property
    def one_card_message(self) -> Message | None:
        return hosts.one_card_message(self.one_card_platforms)


def unpriced_message(platforms: Sequence[tuple[str, str]]) -> Message | None:
    """The note that names the platforms nothing could be priced on (PLATFORMS_NOT_PRICED)."""
    if not platforms:
        return None
    return msg(
        Code.PLATFORMS_NOT_PRICED,
        count=len(platforms),
        platforms=tuple(name for _slug, name in platforms),
    )


@dataclass
class Bill:
    """(usage, instances) groups of one offering kind, with their billed units per price kind."""

    groups: tuple[tuple[Usage, int], ...]
    # The group of each instance (by instance index): which price and usage bill it.
    instance_groups: tuple[int, ...] = ()
    units: dict[Metering, tuple[tuple[Decimal, ...], Decimal]] = field(default_factory=dict)
    float_units: dict[Metering, tuple[tuple[float, ...], float]] = field(default_factory=dict)
    storage: dict[str, tuple[Decimal | None, bool]] = field(default_factory=dict)
    # The scenario's start-up time per run, billed where the price's platform bills it (idle.py).
    startup_minutes: float = 0.0
    # What the caller keeps across bills and calls (its PlacementCache's results: `units`);
    # None: each bill works out its own.
    kept: PureResults | None = field(default=None, compare=False, repr=False)

    def units_for(self, price: PriceSpec) -> tuple[tuple[Decimal, ...], Decimal]:
        """Units charged per instance of each group and in all on `price` (`metering_units`)."""
        return self.metering_units(price.kind.metering)

    def metering_units(self, metering: Metering) -> tuple[tuple[Decimal, ...], Decimal]:
        """Units charged per instance of each group and in all: each run metered on its own,
        with its billed start-up time (pricing.charges.run_units), the same for every price of
        one metering (pricing.kind.Metering)."""
        found = self.units.get(metering)
        if found is None:
            startup = metering.startup_seconds(self.startup_minutes)
            per_group = tuple(self._run_units(metering, u, startup) for u, _ in self.groups)
            total = sum((x * n for x, (_, n) in zip(per_group, self.groups, strict=True)), ZERO)
            found = self.units[metering] = (per_group, total)
        return found

    def _run_units(self, metering: Metering, use: Usage, startup: float) -> Decimal:
        if self.kept is None:
            return charges.run_units(metering, use, startup)
        return self.kept.units(
            (metering, use, startup), lambda: charges.run_units(metering, use, startup)
        )

    def units_for_each(self, prices: Sequence[PriceSpec]) -> tuple[Decimal, ...]:
        """Units per instance of each group on its own price (a plan: one price per group)."""
        return tuple(self.units_for(p)[0][g] for g, p in enumerate(prices))

    def float_units_for(self, price: PriceSpec) -> tuple[tuple[float, ...], float]:
        """units_for as floats, for ranking only (exact Decimal money is kept for what is shown)."""
        return self.float_metering_units(price.kind.metering)

    def float_metering_units(self, metering: Metering) -> tuple[tuple[float, ...], float]:
        """metering_units as floats, for ranking only."""
        found = self.float_units.get(metering)
        if found is None:
            per_group, total = self.metering_units(metering)
            found = self.float_units[metering] = (
                tuple(float(u) for u in per_group),
                float(total),
            )
        return found

    @property
    def busiest(self) -> Usage:
        return self.groups[0][0]

    @property
    def instances(self) -> int:
        """Instances billed: the placement's, and the copies that run recurring runs beyond one
        instance's window side by side (_bills)."""
        return sum(n for _, n in self.groups)


@dataclass(frozen=True)
class Fit:
    """What is shared by every offering with the same placement signature."""

    placement: Placement
    bill: Bill | None  # the costed period (None when the tasks do not fit)
    month: Bill | None  # the busiest month (`bill` itself on a monthly basis)
    time: float | None
    efficiency: float | None
    time_warnings: tuple[Message, ...]
    months: int = 1
    task_month_hours: tuple[float, ...] = ()  # each task's busy hours in the busiest month
    time_low: float | None = None  # the range of `time`
    time_high: float | None = None
    # Each task's (low, high) hours, None for a task without a time: to price the range.
    task_ranges: tuple[tuple[float, float] | None, ...] = ()
    # A task that gets a time on a card (_is_timed) has no estimate here: whether it meets a
    # deadline cannot be told (misses_deadline).
    untimed: bool = False
    # Spot capacity: each job's time with restarts (restarts.py), already in `time` and the
    # bills; None on on-demand capacity or without a timed job.
    spot: restarts.SpotFit | None = None


@dataclass(slots=True)
class Candidate:
    """An offering that fits. Its cost is ranked as a float; the exact Decimal total is computed
    only for the recommendations shown (`exact_costs`)."""

    time: float | None
    offering: OfferingSpec
    fit: Fit
    bill: Bill
    prices: tuple[PriceSpec, ...]  # per usage group
    storage: Decimal | None
    storage_assumed: bool
    stale: bool
    cost_key: float = 0.0  # ranked cost in the target currency, for ranking only
    time_key: float = INF  # time or infinity, for sorting only
    score: float = 0.0  # the objective's figure (cost, time or the balanced sum)
    regions: list[str] = field(default_factory=list)
    # Keeping the instance on between runs so that its platform does not release it (idle.py),
    # in `cost_key`; 0.0 when it is stopped or prepaid.
    keep: float = 0.0
    # What ranks it after another at equal cost (`doubts`, set once it is priced).
    doubt: tuple[bool, bool, bool] = SURE


class Context:
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
        self.basis = usage.basis(scenario.tasks)
        self.now = now
        self.rates = rates
        # The rates usable at `now`: billing.find_rate reads no other, so what is kept across
        # calls after converting money is kept under these, never under `rates`, and a rate
        # dated later applies once its date comes.
        self.usable_rates = tuple(r for r in rates if r.as_of <= now)
        self.storage_prices = storage_prices
        self.storage_platforms = tuple(dict.fromkeys(s.platform for s in storage_prices))
        self.stale_before = vocab.stale_before(now, stale_after_days)
        self.needs = tuple(_need(t) for t in scenario.tasks)
        self.placements = PlacementCache() if placements is None else placements
        self.placer = self.placements.placer(self.needs)
        self.on_slugs = _on_slugs(scenario.tasks, accelerators)
        # Fixed tasks: what the card must have, and the cards their times are scaled from.
        self.card_needs = needs.needs_of(scenario.tasks)
        self.references = needs.references(scenario.tasks, accelerators)
        # Why spot capacity is left out (spot_refusal), None where it may be used.
        self.no_interruptible = spot_refusal(self.c.allow_interruptible, scenario.tasks)
        # Software (stacks.py): what the tasks need of a card's compute stack, whether a port
        # may run it (domestic_only implies so), and each card's verdict.
        self.stack_needs = stacks.needs_of(scenario.tasks)
        self.allow_ports = self.c.allow_ports or self.c.domestic_only
        self.stack_misses: dict[AcceleratorSpec, Code | None] = {}
        self._fits: dict[tuple[Any, ...], Fit] | None = None
        self.accelerators = accelerators
        # (bill, busiest month's bill, usage warnings, each task's busy hours in that month) by
        # where the tasks run and for how long (_compute_fit).
        self.bills: dict[
            tuple[Any, ...], tuple[Bill, Bill, tuple[Message, ...], tuple[float, ...]]
        ] = {}
        self.times: dict[tuple[Any, ...], timing.TimeEstimate | AdvisorError] = {}
        # Fits by placement and what timing reads of the offering (_compute_fit).
        self.placed_fits: dict[tuple[Any, ...], Fit] = {}
        # The tasks that get a time on a card (_training_times): none, and a fit is its
        # placement's alone.
        self.timed = any(_is_timed(self, i, t) for i, t in enumerate(scenario.tasks))
        self.rate_of: dict[str, ExchangeRateSpec | None] = {}
        self.float_rate_of: dict[str, float] = {}
        budget = self.c.budget_per_month
        self.budget = None if budget is None else float(budget)
        self.storing = self.c.storage_gb > 0
        self.storage_of: dict[tuple[str, Usage], Decimal | None] = {}
        self.assumed_of: dict[Usage, Decimal | None] = {}
        self.filtering = bool(
            self.c.platforms
            or self.c.domestic_only
            or self.c.require_nvlink
            or self.c.physically_exclusive
            or self.on_slugs
            or self.no_interruptible is not None
            or self.card_needs is not None
            or not self.c.include_market_statistics
            or bool(self.stack_needs.needs)
            or renting_filters(self.c)
        )
        self.rejected: Counter[Code] = Counter()
        self.misses: dict[Code, tuple[float, Message, OfferingSpec]] = {}
        self.sequence_bytes: dict[int, int] = {}

    @property
    def fits(self) -> dict[tuple[Any, ...], Fit]:
        """Fits by shape (fit_key), kept by the placement cache across calls under everything a
        fit is made of (the tasks, the cost basis, start-ups; storage terms, prices and the rates
        usable at `now` for the storage its bills remember, converted; the accelerator specs), so
        that a scenario asked again, or with other constraints, skips placement, timing and usage
        per shape. Taken on first use: a caller may set the cost basis before (plans.py)."""
        if self._fits is None:
            key = self.terms.fits()
            # A term that cannot be hashed: kept for this call only.
            self._fits = {} if key is None else self.placements.kept(key)
        return self._fits

    @property
    def terms(self) -> PricingTerms:
        """Everything pricing reads besides the offerings (pricing.terms), at the cost basis
        set now (a caller may set it before pricing: plans.py)."""
        return PricingTerms.of(
            self.scenario, self.basis, self.usable_rates, self.storage_prices, self.accelerators
        )

    def per_sequence(self, index: int, task: Task) -> int:
        """Bytes per GPU each further sequence of task `index` needs (memory does not depend on
        the accelerator, so once per task)."""
        found = self.sequence_bytes.get(index)
        if found is None:
            found = self.sequence_bytes[index] = per_sequence_bytes(task)
        return found

    def reject(
        self,
        reason: Code,
        closeness: float = INF,
        offering: OfferingSpec | None = None,
        detail: Param | Callable[[], Param] = None,
    ) -> None:
        """Count a rejection; remember the closest miss per reason (smaller `closeness`)."""
        self.rejected[reason] += 1
        known = self.misses.get(reason)
        if offering is not None and (known is None or closeness < known[0]):
            value = detail() if callable(detail) else detail
            self.misses[reason] = (closeness, _label(offering, value), offering)

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


def unpriced_platforms_of(
    ctx: Context, offerings: Sequence[OfferingSpec], platforms: Mapping[str, str]
) -> tuple[tuple[str, str], ...]:
    """Platforms in scope (the chosen ones, else all) none of whose offerings has a current price
    (with `fresh_only`, a price that is not stale), by name."""
    names = dict(platforms)
    priced: set[str] = set()
    for off in offerings:
        names.setdefault(off.platform, off.platform_name)
        if off.platform not in priced and (
            current_prices(ctx, off.prices) if ctx.c.fresh_only else off.prices
        ):
            priced.add(off.platform)
    chosen = set(ctx.c.platforms)
    missing = [
        (slug, name)
        for slug, name in names.items()
        if slug not in priced and (not chosen or slug in chosen)
    ]
    return tuple(sorted(missing, key=lambda item: (item[1], item[0])))


# ------------------------------------------------------------------------------------ per offering


def evaluate_offering(ctx: Context, off: OfferingSpec) -> Candidate | None:
    if ctx.filtering:
        reason = constraint_miss(ctx, off)
        if reason is not None:
            ctx.reject(reason)
            return None
    prices = current_prices(ctx, off.prices) if ctx.c.fresh_only else off.prices
    if not prices:
        ctx.reject(Code.REJECT_NO_CURRENT_PRICE)
        return None
    fit = shape_fit(ctx, off)
    if fit.bill is None or fit.month is None:
        shortfall = fit.placement.shortfall_bytes
        ctx.reject(
            Code.REJECT_DOES_NOT_FIT,
            INF if shortfall is None else shortfall,
            off,
            fit.placement.reason,
        )
        return None
    late = misses_deadline(ctx, fit)
    if late is Code.REJECT_NO_TIME_ESTIMATE:
        ctx.reject(late)
        return None
    if late is not None:
        time = deadline_time(ctx, fit)
        assert time is not None
        ctx.reject(late, time, off, lambda: hours(time))
        return None
    plan_total, chosen = _cheapest(ctx, prices, fit.bill)
    keep = 0.0
    if ctx.storing and may_release(off):
        plan_total, chosen, keep = _cheapest_kept(ctx, off, prices, fit.bill, plan_total, chosen)
    storage, assumed = bill_storage(ctx, off.platform, fit.bill) if ctx.storing else (None, False)
    total = plan_total if storage is None else plan_total + float(storage)
    total += keep
    ranked_time = deadline_time(ctx, fit)
    time_key = INF if ranked_time is None else ranked_time
    stale = False
    for p in chosen:
        if p.stale or p.observed_at < ctx.stale_before:
            stale = True
            break
    candidate = Candidate(
        fit.time, off, fit, fit.bill, chosen, storage, assumed, stale, total, time_key
    )
    candidate.keep = keep
    candidate.doubt = doubts(candidate)
    if ctx.budget is not None and _over_budget(ctx, candidate):
        return None
    return candidate


def _over_budget(ctx: Context, c: Candidate) -> bool:
    """The budget is per month: the cost of the busiest month. Floats decide clear cases; within a
    cent of the budget the exact Decimal total decides."""
    budget, exact_budget = ctx.budget, ctx.c.budget_per_month
    assert budget is not None and exact_budget is not None
    month = c.fit.month
    assert month is not None
    if month is c.bill:
        total = c.cost_key
    else:
        storage = bill_storage(ctx, c.offering.platform, month)[0]
        total = _plan_cost(ctx, c.prices, month) + float(storage or 0)
        if c.keep:
            total += _keep_float(ctx, c.offering, c.prices, month)
    if total <= budget - 0.01:
        return False
    if total <= budget + 0.01 and exact_costs(ctx, c)[1] <= exact_budget:
        return False
    ccy = ctx.c.currency
    ctx.reject(
        Code.REJECT_OVER_BUDGET,
        total,
        c.offering,
        lambda: Money(Decimal(f"{total:.2f}"), ccy, per=BillingUnit.MONTH),
    )
    return True


def current_prices(ctx: Context, prices: tuple[PriceSpec, ...]) -> tuple[PriceSpec, ...]:
    for p in prices:
        if _stale(ctx, p):
            return tuple(p for p in prices if not _stale(ctx, p))
    return prices


def constraint_miss(ctx: Context, off: OfferingSpec) -> Code | None:
    c = ctx.c
    if c.platforms and off.platform not in c.platforms:
        return Code.REJECT_NOT_ON_PLATFORMS
    if c.domestic_only and not off.accelerator.domestic:
        return Code.REJECT_NOT_DOMESTIC
    if c.require_nvlink and off.interconnect != "nvlink":
        return Code.REJECT_NO_NVLINK
    if c.physically_exclusive and not off.physically_exclusive:
        # Unknown is not "no": the renter can ask the platform (shown as unknown, not as no).
        if off.physically_exclusive is None:
            return Code.REJECT_EXCLUSIVE_UNKNOWN
        return Code.REJECT_NOT_EXCLUSIVE
    if ctx.on_slugs and off.accelerator.slug not in ctx.on_slugs:
        return Code.REJECT_NOT_REQUESTED_HARDWARE
    if ctx.no_interruptible is not None and off.interruptible:
        return ctx.no_interruptible
    # Market floors and statistics are not offers one can book (vocab.PriceBasis).
    if off.market_figure and not c.include_market_statistics:
        return Code.REJECT_MARKET_FIGURE
    if renting_filters(c):
        missed = renting_miss(c, off)
        if missed is not None:
            return missed
    if ctx.card_needs is not None:
        unmet = needs.unmet(ctx.card_needs, off.accelerator)
        if unmet is not None:
            return unmet
    return stack_miss(ctx, off.accelerator)


def stack_miss(ctx: Context, accel: AcceleratorSpec) -> Code | None:
    """Why the tasks' software does not run on `accel` (stacks.blocked), once per card."""
    if accel not in ctx.stack_misses:
        ctx.stack_misses[accel] = stacks.blocked(
            stacks.DEFAULT_TABLE, ctx.stack_needs, accel, ctx.allow_ports
        )
    return ctx.stack_misses[accel]


# ---- renters' filters: location, delivery form, host resources, who may rent


def renting_filters(c: Constraints) -> bool:
    """Whether any of the renters' filters is set (renting_miss reads them)."""
    return bool(
        c.countries
        or c.regions
        or c.delivery_forms
        or c.min_vcpus_per_gpu
        or c.min_ram_gib_per_gpu
        or c.min_disk_gb_per_gpu
        or c.foreign_renter
    )


def renting_miss(c: Constraints, off: OfferingSpec) -> Code | None:
    """The first renters' filter `off` fails; a fact the offering does not state fails with a
    reason of its own (an unknown is never read as zero or as a yes)."""
    facts = off.rental
    if c.countries:
        if not facts.country:
            return Code.REJECT_COUNTRY_UNKNOWN
        if facts.country not in c.countries:
            return Code.REJECT_NOT_IN_COUNTRIES
    if c.regions:
        if not off.region:
            return Code.REJECT_REGION_UNKNOWN
        if off.region.lower() not in c.regions:
            return Code.REJECT_NOT_IN_REGIONS
    if c.delivery_forms:
        if not facts.delivery_forms:
            return Code.REJECT_DELIVERY_FORM_UNKNOWN
        if not set(facts.delivery_forms) & set(c.delivery_forms):
            return Code.REJECT_NOT_DELIVERY_FORM
    per_gpu = (
        (c.min_vcpus_per_gpu, facts.vcpus, Code.REJECT_VCPUS_UNKNOWN, Code.REJECT_FEW_VCPUS),
        (c.min_ram_gib_per_gpu, facts.ram_gib, Code.REJECT_RAM_UNKNOWN, Code.REJECT_LITTLE_RAM),
        (c.min_disk_gb_per_gpu, facts.disk_gb, Code.REJECT_DISK_UNKNOWN, Code.REJECT_LITTLE_DISK),
    )
    for least, stated, unknown, short in per_gpu:
        if least:
            if stated is None:
                return unknown
            # Within float rounding: 8 vCPUs on 3 GPUs meet a minimum of 8 / 3 per GPU.
            if stated / off.gpu_count < least - 1e-9:
                return short
    if c.foreign_renter:
        if facts.cn_identity_required:
            return Code.REJECT_CN_IDENTITY_REQUIRED
        if facts.foreign_cards is False:
            return Code.REJECT_NO_FOREIGN_CARDS
        if facts.cn_identity_required is None or facts.foreign_cards is None:
            return Code.REJECT_RENTER_UNKNOWN
    return None


def constraint_terms(ctx: Context) -> tuple[Any, ...]:
    """Everything of `ctx` that constraint_miss reads: contexts alike in it leave the same
    offerings out."""
    c = ctx.c
    return (
        c.platforms,
        c.domestic_only,
        c.require_nvlink,
        c.physically_exclusive,
        ctx.on_slugs,
        ctx.no_interruptible,
        ctx.card_needs,
        c.include_market_statistics,
        ctx.stack_needs,
        ctx.allow_ports,
        # renting_miss
        c.countries,
        c.regions,
        c.delivery_forms,
        c.min_vcpus_per_gpu,
        c.min_ram_gib_per_gpu,
        c.min_disk_gb_per_gpu,
        c.foreign_renter,
    )


# ------------------------------------------------------------------------- spot (restarts.py)


def user_facing(task: Task) -> bool:
    """A task people wait on: an inference task, or a fixed task with a service's hours (no
    frames to finish), whatever its `when`."""
    if task.kind == vocab.TaskKind.INFERENCE:
        return True
    return task.kind == vocab.TaskKind.FIXED and not usage.is_job(task)


def spot_refusal(allow: bool | None, tasks: Sequence[Task]) -> Code | None:
    """Why interruptible capacity is left out for `tasks`: the renter said no
    (`allow_interruptible` false), or a task is user-facing and the renter did not allow it;
    None where it may be used."""
    if allow is False:
        return Code.REJECT_INTERRUPTIBLE_NOT_ALLOWED
    if allow is None and any(user_facing(t) for t in tasks):
        return Code.REJECT_INTERRUPTIBLE_SERVICE
    return None


def _spot_fit(
    ctx: Context,
    off: OfferingSpec,
    per_task: list[float | None],
    ranges: list[tuple[float, float] | None],
) -> restarts.SpotFit | None:
    """On spot capacity, each timed job's time with restarts (restarts.with_restarts), written
    into `per_task` (expected) and `ranges` (low: no interruption; high: its high time at the
    pessimistic rate); None on on-demand capacity or without a timed job."""
    rate = restarts.interruption_rate(off)
    if rate is None:
        return None
    checkpoint = ctx.c.checkpoint_minutes / 60
    restart = ctx.c.restart_minutes / 60
    high_rate = rate * restarts.HIGH_FACTOR
    jobs = []
    for i, (t, work) in enumerate(zip(ctx.tasks, per_task, strict=True)):
        if work is None or not usage.is_job(t):
            continue
        expected = restarts.with_restarts(work, rate, checkpoint, restart)
        high = restarts.with_restarts(work, high_rate, checkpoint, restart)
        per_task[i] = expected.hours
        span = ranges[i]
        if span is not None:
            top = restarts.with_restarts(span[1], high_rate, checkpoint, restart).hours
            ranges[i] = (span[0], max(top, expected.hours))
        jobs.append(restarts.SpotJob(i, work, expected, high))
    if not jobs:
        return None
    return restarts.SpotFit(rate * 24, tuple(jobs))


def deadline_time(ctx: Context, fit: Fit) -> float | None:
    """The time a deadline holds `fit` to, and ranks it by: a job on spot at the pessimistic
    rate of interruptions (restarts.SpotFit.high_hours), anything else its expected time."""
    if fit.spot is not None and ctx.c.deadline_hours is not None and fit.time is not None:
        return max(fit.time, fit.spot.high_hours)
    return fit.time


def _spot_warnings(ctx: Context, c: Candidate) -> list[Message]:
    """What restarts do to each job on spot: interruptions, time and cost with them, the
    pessimistic end; the assumed rate; the deadline held at that end."""
    spot = c.fit.spot
    if spot is None:
        return []
    out: list[Message] = []
    per_day = Quantity(spot.per_day, Unit.COUNT, 2)
    cost_more = _restart_cost(ctx, c)
    for job in spot.jobs:
        figures = msg(
            Code.WARN_SPOT_RESTARTS,
            interruptions=Quantity(job.expected.interruptions, Unit.COUNT, 1),
            per_day=per_day,
            checkpoint=Quantity(ctx.c.checkpoint_minutes, Unit.COUNT, 0),
            restart=Quantity(ctx.c.restart_minutes, Unit.COUNT, 0),
            work=hours(job.work_hours),
            hours=hours(job.expected.hours),
            high=hours(job.high.hours),
            factor=Quantity(restarts.HIGH_FACTOR, Unit.COUNT, 0),
        )
        out.append(msg(Code.WARN_TASK, task=ctx.tasks[job.task].name, message=figures))
    if cost_more is not None and cost_more > 0:
        out.append(msg(Code.WARN_SPOT_RESTART_COST, cost=Money(cents(cost_more), ctx.c.currency)))
    # The fit is shared by offerings of one rate: whether it is assumed is the offering's.
    if restarts.rate_assumed(c.offering):
        default = Quantity(restarts.DEFAULT_INTERRUPTIONS_PER_DAY, Unit.COUNT, 0)
        out.append(
            msg(Code.WARN_SPOT_RATE_ASSUMED, platform=c.offering.platform_name, rate=default)
        )
    deadline = ctx.c.deadline_hours
    if deadline is not None:
        out.append(
            msg(
                Code.WARN_SPOT_DEADLINE,
                deadline=hours(deadline),
                high=hours(spot.high_hours),
                factor=Quantity(restarts.HIGH_FACTOR, Unit.COUNT, 0),
            )
        )
    return out


def _restart_cost(ctx: Context, c: Candidate) -> Decimal | None:
    """What the restarts add to the longest job's run (_job_cost at its time with them and
    at its work alone), in the target currency."""
    spot = c.fit.spot
    if spot is None or c.time is None:
        return None
    longest = max(spot.jobs, key=lambda j: j.expected.hours)
    with_them = _job_cost(ctx, c, longest.expected.hours)
    without = _job_cost(ctx, c, longest.work_hours)
    if with_them is None or without is None:
        return None
    return with_them - without


def _stale(ctx: Context, price: PriceSpec) -> bool:
    """The staleness rule (vocab.is_stale), or the flag the loader set with the same rule."""
    return price.stale or price.observed_at < ctx.stale_before


def fit_key(off: OfferingSpec) -> tuple[Any, ...]:
    """What placement, timing and usage see of an offering: offerings alike in it share one Fit
    (and one group of prune.OfferingIndex). The network between instances counts for a task
    placed over several of them (its time and its warning)."""
    return (
        off.accelerator.slug,
        off.gpu_count,
        off.sharing,
        off.multi_task,
        off.mig_profile,
        off.pooled_vram_gib,
        off.interconnect,
        off.network,
        off.network_gbps,
        restarts.interruption_rate(off),  # spot: a job's time with restarts (_spot_fit)
    )


def shape_fit(ctx: Context, off: OfferingSpec) -> Fit:
    # A cheap exact key first; offerings that differ only in what placement ignores (e.g. the
    # platform's granularity on a card without MIG) then share one placement (PlacementCache).
    key = fit_key(off)
    fit = ctx.fits.get(key)
    if fit is None:
        fit = ctx.fits[key] = _compute_fit(ctx, off)
    return fit


def _compute_fit(ctx: Context, off: OfferingSpec) -> Fit:
    placement = ctx.placer.place(off)
    # Shapes that place alike (PlacementCache shares one placement between them) and that timing
    # sees alike share the fit: _training_times reads the card, its interconnect, cards per
    # machine, network and MIG slice, and nothing else of the offering (a task over several
    # instances reads the network for its warning too). The key holds the placement by
    # identity; the fit kept under it holds the placement, so no other takes its id.
    if not placement.fits or not (ctx.timed or placement.spans_machines):
        key: tuple[Any, ...] = (id(placement),)
    else:
        key = (
            id(placement),
            id(off.accelerator),
            off.interconnect,
            off.gpu_count,
            off.network,
            off.network_gbps,
            off.mig_profile,
            restarts.interruption_rate(off),
        )
    fit = ctx.placed_fits.get(key)
    if fit is None:
        fit = ctx.placed_fits[key] = _placed_fit(ctx, off, placement)
    return fit


def _placed_fit(ctx: Context, off: OfferingSpec, placement: Placement) -> Fit:
    if not placement.fits:
        return Fit(placement, None, None, None, None, ())
    per_task, ranges, efficiency, warnings = _training_times(ctx, off, placement)
    spot = _spot_fit(ctx, off, per_task, ranges)
    if placement.spans_machines:
        warnings = _machine_warnings(ctx, off, placement) + warnings
    timed = [h for h in per_task if h is not None]
    spans = [r for r in ranges if r is not None]
    # Usage and bills follow from where each task runs and for how long: shapes alike in both
    # share them (and the bills' units and storage, remembered on them).
    where = tuple((a.instance, a.machines) for a in placement.assignments)
    key = (placement.instances, where, tuple(per_task))
    found = ctx.bills.get(key)
    if found is None:
        uses = [usage.task_usage(t, h) for t, h in zip(ctx.tasks, per_task, strict=True)]
        bill, month = _bills(
            ctx.tasks, placement, uses, ctx.basis, ctx.c.startup_minutes, ctx.placements.results
        )
        month_hours = tuple(u.month_hours for u in uses)
        found = ctx.bills[key] = (bill, month, _usage_warnings(ctx.tasks, uses), month_hours)
    bill, month, usage_warnings, month_hours = found
    return Fit(
        placement,
        bill,
        month,
        max(timed) if timed else None,
        efficiency,
        warnings + usage_warnings,
        months=bill.busiest.months,
        task_month_hours=month_hours,
        time_low=max(r[0] for r in spans) if spans else None,
        time_high=max(r[1] for r in spans) if spans else None,
        task_ranges=tuple(ranges),
        untimed=any(
            h is None and _is_timed(ctx, i, t)
            for i, (t, h) in enumerate(zip(ctx.tasks, per_task, strict=True))
        ),
        spot=spot,
    )


def misses_deadline(ctx: Context, fit: Fit) -> Code | None:
    """Why `fit` cannot be kept under the scenario's deadline: its time is past it, or a task
    that gets a time on a card has none here (no figure to estimate it from), so that it cannot
    be said to meet it; None without a deadline or when it meets it. The lazy path
    (prune.py) asks the same."""
    deadline = ctx.c.deadline_hours
    if deadline is None:
        return None
    if fit.untimed:
        return Code.REJECT_NO_TIME_ESTIMATE
    held = deadline_time(ctx, fit)
    if held is not None and held > deadline:
        return Code.REJECT_MISSES_DEADLINE
    return None


def _bills(
    tasks: Sequence[Task],
    placement: Placement,
    uses: Sequence[TaskUsage],
    basis: CostBasis,
    startup_minutes: float = 0.0,
    cache: PureResults | None = None,
) -> tuple[Bill, Bill]:
    """(costed period, busiest month) bills: each instance's usage, grouped alike in both, so
    that a plan chosen per group of one prices the same instances in the other; their units
    kept in `cache` (Bill.kept)."""
    slots: list[list[tuple[When, TaskUsage]]] = [[] for _ in range(placement.instances)]
    for t, a, u in zip(tasks, placement.assignments, uses, strict=True):
        for n in a.instance_range:  # a task over several instances runs on each of them
            slots[n].append((When(t.when), u))
    # Recurring runs beyond one instance's window run on copies of their instance, after the
    # placement's own (usage.TaskUsage.parallel): copy j holds the tasks with more than j.
    for s in list(slots):
        for j in range(1, max((u.parallel for _, u in s), default=1)):
            slots.append([(w, u) for w, u in s if u.parallel > j])
    keys = []
    for s in slots:
        over, busiest = usage.instance_usage(s, basis)
        kept = kept_on(over, startup_minutes)
        keys.append((kept, kept if busiest is over else kept_on(busiest, startup_minutes)))
    counted = Counter(keys)
    groups = sorted(
        counted.items(), key=lambda g: (g[0][0].hours, g[0][0].held_hours), reverse=True
    )
    index = {key: i for i, (key, _) in enumerate(groups)}
    of = tuple(index[k] for k in keys)
    period = Bill(
        tuple((p, n) for (p, _), n in groups), of, startup_minutes=startup_minutes, kept=cache
    )
    if basis is CostBasis.MONTH:
        return period, period
    month = Bill(
        tuple((m, n) for (_, m), n in groups), of, startup_minutes=startup_minutes, kept=cache
    )
    return period, month


def kept_on(use: Usage, startup_minutes: float) -> Usage:
    """`use`, or, when the time between its runs is shorter than a start-up, the instance kept on
    for all its held hours in one run: stopped between runs it could not start again before its
    next busy hour (a service busy 719 h of a 720 h month is idle 2 minutes a day)."""
    if startup_minutes <= 0 or use.runs <= 1 or use.hours <= 0:
        return use
    if idle.idle_hours(use) / use.runs * 60 >= startup_minutes:
        return use
    return replace(use, hours=max(use.held_hours, use.hours), runs=1.0)


def _usage_warnings(tasks: Sequence[Task], uses: Sequence[TaskUsage]) -> tuple[Message, ...]:
    out = []
    for t, u in zip(tasks, uses, strict=True):
        if not u.over_window:
            continue
        window = hours(usage.window(t))
        if t.jobs_per_month is None:
            spans = msg(
                Code.WARN_JOB_SPANS_MONTHS,
                hours=hours(u.total_hours),
                window=window,
                months=u.months,
            )
        else:
            spans = msg(
                Code.WARN_JOBS_ON_PARALLEL_INSTANCES,
                jobs=Quantity(t.jobs_per_month, Unit.COUNT),
                hours=hours(u.total_hours * u.parallel),
                window=window,
                instances=Quantity(u.parallel, Unit.COUNT),
            )
        out.append(msg(Code.WARN_TASK, task=t.name, message=spans))
    return tuple(out)


def _machine_warnings(ctx: Context, off: OfferingSpec, placement: Placement) -> tuple[Message, ...]:
    """For each task over several instances: the network between them, as the platform states
    it or as assumed (timing.default_network), with the bus bandwidth timing takes from it; and
    the GPUs of its instances left idle but billed."""
    out: list[Message] = []
    per_machine = off.gpu_count
    for t, a in zip(ctx.tasks, placement.assignments, strict=True):
        if a.machines <= 1:
            continue
        common = {"machines": a.machines, "per_machine": per_machine, "gpus": a.gpu_count}
        if off.network is not None and off.network_gbps is not None:
            network, gbps = off.network, off.network_gbps
            busbw = Quantity(timing.network_busbw(network, gbps), Unit.COUNT, 1)
            gbps_q = Quantity(gbps, Unit.COUNT, 0)
            spans = msg(
                Code.WARN_SPANS_MACHINES_STATED, network=network, gbps=gbps_q, busbw=busbw, **common
            )
        else:
            kind, assumed, why = timing.default_network(off.accelerator, per_machine)
            network, gbps = off.network or kind, off.network_gbps or assumed
            spans = msg(
                Code.WARN_SPANS_MACHINES_ASSUMED,
                network=network,
                gbps=Quantity(gbps, Unit.COUNT, 0),
                busbw=Quantity(timing.network_busbw(network, gbps), Unit.COUNT, 1),
                source=why,
                **common,
            )
        out.append(msg(Code.WARN_TASK, task=t.name, message=spans))
        idle = a.machines * per_machine - a.gpu_count
        if idle:
            idle_gpus = msg(Code.WARN_IDLE_MACHINE_GPUS, idle=idle, **common)
            out.append(msg(Code.WARN_TASK, task=t.name, message=idle_gpus))
    return tuple(out)


def _training_times(
    ctx: Context, off: OfferingSpec, placement: Placement
) -> tuple[list[float | None], list[tuple[float, float] | None], float | None, tuple[Message, ...]]:
    """Each training task's time on this offering (None: not a timed job, or no estimate) and
    its (low, high) range; the scaling efficiency of the longest; the time warnings."""
    out: list[float | None] = []
    ranges: list[tuple[float, float] | None] = []
    worst: float | None = None
    efficiency: float | None = None
    warnings: list[Message] = []
    for i, (t, a) in enumerate(zip(ctx.tasks, placement.assignments, strict=True)):
        if not _is_timed(ctx, i, t):
            out.append(None)
            ranges.append(None)
            continue
        try:
            est: timing.TimeEstimate | timing.FixedTimeEstimate
            if i in ctx.references:
                est = timing.fixed_task_time(t, off.accelerator, ctx.references[i], a.gpu_count)
            else:
                est = _task_time(ctx, i, t, off, a.gpu_count)
        except AdvisorError as e:
            # The error is kept (ctx.times) and raised again for every shape of its card: without
            # its traceback, whose frames hold this context, it is freed with the context.
            e.__traceback__ = None
            no_time = msg(
                Code.WARN_NO_TIME_ESTIMATE, accelerator=off.accelerator.name, reason=e.detail
            )
            warnings.append(msg(Code.WARN_TASK, task=t.name, message=no_time))
            out.append(None)
            ranges.append(None)
            continue
        share = _compute_share(off, a)
        task_hours = est.hours * share
        out.append(task_hours)
        ranges.append((est.low_hours * share, est.high_hours * share))
        warnings.extend(msg(Code.WARN_TASK, task=t.name, message=w) for w in est.warnings)
        if a.mode in (PlacementMode.POOLED, PlacementMode.SHARED):
            shared = msg(Code.WARN_SHARED_COMPUTE)
            warnings.append(msg(Code.WARN_TASK, task=t.name, message=shared))
        if worst is None or task_hours > worst:
            worst, efficiency = task_hours, est.scaling_efficiency
    return out, ranges, efficiency, tuple(warnings)


def _is_timed(ctx: Context, index: int, task: Task) -> bool:
    """Whether task `index` gets a time on a card: a training job with tokens, or a fixed task
    with frames (its time scaled from its reference card)."""
    return index in ctx.references or (task.kind in TRAINING_KINDS and bool(task.tokens))


def _task_time(
    ctx: Context, index: int, task: Task, off: OfferingSpec, gpus: int
) -> timing.TimeEstimate:
    """training_time, once per (task, card, GPU count, interconnect, machine and network): many
    offerings share them. A machine is the offering's instance: a task over more GPUs than one
    holds crosses the network between instances (placement gives it several)."""
    accel = off.accelerator
    key = (index, accel.slug, gpus, off.interconnect, off.gpu_count, off.network, off.network_gbps)
    found = ctx.times.get(key)
    if found is None:
        mfu = task.on.mfu if task.on is not None else None

        def compute() -> timing.TimeEstimate:
            return timing.training_time(
                task,
                accel,
                gpus,
                off.interconnect,
                mfu=mfu,
                gpus_per_node=off.gpu_count,
                network=off.network,
                network_gbps=off.network_gbps,
            )

        args = (task, accel, gpus, off.interconnect, mfu, off.gpu_count, off.network)
        kept = (*args, off.network_gbps)
        try:
            hash(kept)
        except TypeError:  # a field that cannot be hashed: worked out, not kept
            kept_by_cache = False
        else:
            kept_by_cache = True
        try:
            # A pure function of frozen values: kept by the caller's cache across calls, so a
            # scenario asked again (a reload, a preset, the same API call) skips it.
            found = ctx.placements.time(kept, compute) if kept_by_cache else compute()
        except AdvisorError as error:
            # Kept without its traceback: its frames hold this context, which keeps it.
            found = error.with_traceback(None)
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
    ctx: Context, prices: Sequence[PriceSpec], bill: Bill
) -> tuple[float, tuple[PriceSpec, ...]]:
    """Cheapest plan (converted, as a float for ranking): one unit for all instances, or the best
    unit per usage group. Of equal costs the fresh price wins."""
    groups = len(bill.groups)
    if len(prices) == 1:
        return price_cost(ctx, prices[0], bill), (prices[0],) * groups
    if groups == 1:  # the common case: one usage group, the cheapest single price wins
        best_cost, best_price = INF, prices[0]
        for p in prices:
            cost = price_cost(ctx, p, bill)
            if cost < best_cost or (cost == best_cost and _stale(ctx, best_price)):
                best_cost, best_price = cost, p
        return best_cost, (best_price,)
    # Metered prices are all linear in the busy hours, so the cheapest is cheapest for every
    # group; only a prepaid plan next to another plan can make a mixed plan worth it.
    if not any(p.unit in PREPAID_UNITS for p in prices):
        totals = [price_cost(ctx, p, bill) for p in prices]
        best = min(range(len(prices)), key=totals.__getitem__)
        return totals[best], (prices[best],) * groups
    costs = [_group_costs(ctx, p, bill) for p in prices]
    totals = [sum(row) for row in costs]
    best = min(range(len(prices)), key=totals.__getitem__)
    per_group = [min(range(len(prices)), key=lambda i: costs[i][g]) for g in range(groups)]
    mixed = sum(costs[i][g] for g, i in enumerate(per_group))
    if mixed < totals[best]:
        return mixed, tuple(prices[i] for i in per_group)
    return totals[best], (prices[best],) * groups


def price_cost(ctx: Context, price: PriceSpec, bill: Bill) -> float:
    """One plan for every instance, converted, as a float (pricing.charges.fast_cost)."""
    units, total = bill.float_units_for(price)
    return charges.fast_cost(price, units, total, bill.groups, ctx.float_rate(price.currency))


def _group_costs(ctx: Context, price: PriceSpec, bill: Bill) -> list[float]:
    """Each group's cost on `price`, converted (pricing.charges.fast_group_costs)."""
    units = bill.float_units_for(price)[0]
    return charges.fast_group_costs(price, units, bill.groups, ctx.float_rate(price.currency))


def _plan_cost(ctx: Context, prices: Sequence[PriceSpec], bill: Bill) -> float:
    """A chosen plan (one price per group) priced for `bill`'s usage, as a float: each group's
    cost from _group_costs, which reads the bill's cached units."""
    return sum(_group_costs(ctx, p, bill)[g] for g, p in enumerate(prices))


def _exact_plan(
    ctx: Context, prices: Sequence[PriceSpec], bill: Bill
) -> list[tuple[PriceSpec, Decimal, int]]:
    """(price, its charge per instance in its own currency, instances) per group, exactly: each
    run metered on its own, with its billed start-up time (pricing.charges: run_units,
    run_charge)."""
    return [
        (p, charges.run_charge(p, bill.units_for(p)[0][g], u.runs), n)
        for g, (p, (u, n)) in enumerate(zip(prices, bill.groups, strict=True))
    ]


def exact_costs(ctx: Context, c: Candidate) -> tuple[Decimal, Decimal]:
    """(ranked cost, busiest month's cost) of the chosen plan in exact money, storage included."""
    month = c.fit.month
    assert month is not None

    def converted(bill: Bill) -> Decimal:
        plan = _exact_plan(ctx, c.prices, bill)
        return sum((ctx.convert(amount, p.currency) * n for p, amount, n in plan), ZERO)

    period = converted(c.bill) + (c.storage or ZERO) + _keep(ctx, c, c.bill)
    if month is c.bill:
        return period, period
    storage = _storage(ctx, c.offering.platform, month.busiest)[0] or ZERO
    return period, converted(month) + storage + _keep(ctx, c, month)


def bill_storage(ctx: Context, platform: str, bill: Bill) -> tuple[Decimal | None, bool]:
    """_storage for the busiest instance of `bill`, remembered on the bill (offerings of one kind
    share it), so that the usage is not hashed again for every offering."""
    found = bill.storage.get(platform)
    if found is None:
        found = bill.storage[platform] = _storage(ctx, platform, bill.busiest)
    return found


def _storage(ctx: Context, platform: str, use: Usage) -> tuple[Decimal | None, bool]:
    """Storage for the scenario's data while the busiest instance is used (`use`): the platform's
    cheapest storage price, or, when it has none, the median of the platforms that have one
    (flagged as assumed). None when no platform has a storage price or no data is kept."""
    if ctx.c.storage_gb <= 0:
        return None, False
    known = _platform_storage(ctx, platform, use)
    if known is not None:
        return known, False
    if use not in ctx.assumed_of:
        costs = [
            cost
            for other in ctx.storage_platforms
            if (cost := _platform_storage(ctx, other, use)) is not None
        ]
        ctx.assumed_of[use] = statistics.median(costs) if costs else None
    assumed = ctx.assumed_of[use]
    return assumed, assumed is not None


def _platform_storage(ctx: Context, platform: str, use: Usage) -> Decimal | None:
    key = (platform, use)
    if key not in ctx.storage_of:
        options = [
            ctx.convert(storage_cost(s, ctx.c.storage_gb, use.hours, use.held_hours), s.currency)
            for s in ctx.storage_prices
            if s.platform == platform
        ]
        ctx.storage_of[key] = min(options, default=None)
    return ctx.storage_of[key]


# --------------------------------------------------------------------------- time between runs


def may_release(off: OfferingSpec) -> bool:
    """The offering's platform releases an instance stopped for some days (idle.py)."""
    rules = off.billing_rules
    return rules is not None and rules.release_after_stopped_days is not None


def _keep_float(ctx: Context, off: OfferingSpec, prices: Sequence[PriceSpec], bill: Bill) -> float:
    """What keeping `bill`'s instances on past their platform's release window costs, converted,
    as a float for ranking: only when the scenario keeps data on the platform (idle.keep_cost)."""
    if not ctx.storing or not may_release(off):
        return 0.0
    rules, minutes = off.billing_rules, ctx.c.startup_minutes
    rate = ctx.float_rate
    return sum(
        idle.keep_cost_float(p, u, rules, rate, p.kind.metering.startup_seconds(minutes)) * n
        for p, (u, n) in zip(prices, bill.groups, strict=True)
    )


def _cheapest_kept(
    ctx: Context,
    off: OfferingSpec,
    prices: Sequence[PriceSpec],
    bill: Bill,
    plan_total: float,
    chosen: tuple[PriceSpec, ...],
) -> tuple[float, tuple[PriceSpec, ...], float]:
    """(plan cost, plan, cost of keeping its instances from release): _cheapest's plan, unless
    keeping its metered instances on makes a prepaid plan (which keeps them anyway) cheaper."""
    keep = _keep_float(ctx, off, chosen, bill)
    if keep <= 0:
        return plan_total, chosen, 0.0
    prepaid = [p for p in prices if p.unit in PREPAID_UNITS]
    if prepaid:
        other_total, other = _cheapest(ctx, prepaid, bill)
        if other_total < plan_total + keep:
            return other_total, other, 0.0
    return plan_total, chosen, keep


def _keep_cost(
    ctx: Context, off: OfferingSpec, price: PriceSpec, use: Usage
) -> tuple[vocab.IdleWay, Decimal, float]:
    startup = price.kind.metering.startup_seconds(ctx.c.startup_minutes)
    return idle.keep_cost(price, use, off.billing_rules, ctx.convert, ctx.float_rate, startup)


def _keep(ctx: Context, c: Candidate, bill: Bill) -> Decimal:
    """The cost of keeping `c`'s instances from release over `bill`, exactly (0 unless the
    ranking counted one)."""
    if not ctx.storing or not may_release(c.offering):
        return ZERO
    return sum(
        (
            _keep_cost(ctx, c.offering, p, u)[1] * n
            for p, (u, n) in zip(c.prices, bill.groups, strict=True)
        ),
        ZERO,
    )


def _gap(gap_hours: float) -> Quantity:
    """A time between runs as it reads: hours under two days, else days."""
    return hours(gap_hours) if gap_hours < 48 else Quantity(gap_hours / 24, Unit.DAYS)


def _count(n: float) -> Quantity:
    return Quantity(n, Unit.COUNT, 0 if float(n).is_integer() else 1)


def _idle_time(ctx: Context, c: Candidate) -> tuple[idle.IdleTime | None, tuple[Message, ...]]:
    """The recommendation's time between runs (idle.IdleTime: how it is spent, what it costs, the
    start-ups billed) and its warnings: runs further apart than the platform keeps a stopped
    instance, and the release of a prepaid instance after its plan expires."""
    off, rules, ccy = c.offering, c.offering.billing_rules, ctx.c.currency
    minutes = ctx.c.startup_minutes
    warnings: list[Message] = []
    expiry = None if rules is None else rules.release_after_expiry_days
    if expiry is not None and any(p.unit in PREPAID_UNITS for p in c.prices):
        after = Quantity(expiry, Unit.DAYS)
        platform = off.platform_name
        warnings.append(msg(Code.WARN_RELEASED_AFTER_EXPIRY, platform=platform, days=after))
    groups = [
        (p, u, n, p.kind.metering.startup_seconds(minutes))
        for p, (u, n) in zip(c.prices, c.bill.groups, strict=True)
    ]
    idle_groups = [g for g in groups if idle.idle_hours(g[1], g[3]) > 0]
    if not idle_groups:
        return None, tuple(warnings)
    total = sum(idle.idle_hours(u, st) * n for _p, u, n, st in idle_groups)
    metered = [g for g in idle_groups if g[0].unit not in PREPAID_UNITS]
    longest = max(metered or idle_groups, key=lambda g: idle.gap_hours(g[1], g[3]))
    price, use, _n, startup = longest
    gap = idle.gap_hours(use, startup)
    common: dict[str, Param] = {"hours": hours(total), "runs": _count(use.runs), "gap": _gap(gap)}
    if not metered:
        message = msg(Code.IDLE_PREPAID, hours=hours(total))
        return (
            idle.IdleTime(
                vocab.IdleWay.PREPAID, total, use.runs, gap, 0.0, ZERO, None, 0.0, ZERO, message
            ),
            tuple(warnings),
        )
    way, cost, kept = vocab.IdleWay.STOPPED, ZERO, 0.0
    for p, u, n, st in metered:
        if ctx.storing:
            w, k, h = _keep_cost(ctx, off, p, u)
        else:
            released = idle.released_between_runs(p, u, rules, st)
            w, k, h = (vocab.IdleWay.RELEASED if released else vocab.IdleWay.STOPPED), ZERO, 0.0
        cost, kept = cost + k * n, kept + h * n
        if p is price and u is use:
            way = w
    startup_hours, startup_cost = _startups(ctx, c, groups)
    stopped = None
    if c.storage is not None and way is not vocab.IdleWay.RELEASED:
        busiest = c.bill.busiest
        running = _storage(ctx, off.platform, replace(busiest, held_hours=busiest.hours))[0]
        stopped = max(c.storage - (running or ZERO), ZERO)
    release = None if rules is None else rules.release_after_stopped_days
    days = None if release is None else Quantity(release, Unit.DAYS)
    money = Money(cents(cost), ccy)
    if way is vocab.IdleWay.STOPPED:
        if stopped:
            storage = Money(cents(stopped), ccy)
            message = msg(Code.IDLE_STOPPED_STORAGE, storage=storage, **common)
        else:
            message = msg(Code.IDLE_STOPPED, **common)
    elif way is vocab.IdleWay.RELEASED:
        message = msg(Code.IDLE_RELEASED, days=days, **common)
    else:
        mode = way is vocab.IdleWay.IDLE_MODE
        code = Code.IDLE_KEPT_IDLE_MODE if mode else Code.IDLE_KEPT_RUNNING
        message = msg(code, days=days, kept=hours(kept), cost=money, **common)
    if release is not None and idle.released_between_runs(price, use, rules, startup):
        where: dict[str, Param] = {
            "platform": off.platform_name,
            "gap": Quantity(gap / 24, Unit.DAYS),
            "days": days,
        }
        if way is vocab.IdleWay.RELEASED:
            warnings.append(msg(Code.WARN_RELEASED_BETWEEN_RUNS, **where))
        else:
            warnings.append(msg(Code.WARN_KEPT_FROM_RELEASE, cost=money, **where))
    notes = _startup_notes(ctx, c, groups, startup_hours, startup_cost)
    return (
        idle.IdleTime(
            way,
            total,
            use.runs,
            gap,
            kept,
            cost,
            stopped,
            startup_hours,
            startup_cost,
            message,
            notes,
        ),
        tuple(warnings),
    )


_Group = tuple[PriceSpec, Usage, int, float]  # price, usage, instances, start-up seconds per run


def _startups(ctx: Context, c: Candidate, groups: Sequence[_Group]) -> tuple[float, Decimal]:
    """(start-up hours billed, what they add to the plan, converted) over the costed period."""
    total_hours, total = 0.0, ZERO
    for p, u, n, startup in groups:
        if not startup or u.hours <= 0:
            continue
        metering = p.kind.metering
        with_startup = charges.run_charge(p, charges.run_units(metering, u, startup), u.runs)
        without = charges.run_charge(p, charges.run_units(metering, u), u.runs)
        total_hours += u.runs * startup / 3600 * n
        total += ctx.convert(max(with_startup - without, ZERO), p.currency) * n
    return total_hours, total


def _startup_notes(
    ctx: Context,
    c: Candidate,
    groups: Sequence[_Group],
    startup_hours: float,
    startup_cost: Decimal,
) -> tuple[Message, ...]:
    """What the advice says of start-up time: billed and counted, assumed billed, free, or billed
    and not given."""
    platform = c.offering.platform_name
    metered = [p for p, u, _n, _s in groups if p.unit not in PREPAID_UNITS and u.hours > 0]
    if not metered:
        return ()
    if ctx.c.startup_minutes <= 0:
        if any(p.startup_billed for p in metered):
            return (msg(Code.IDLE_STARTUP_NOT_GIVEN, platform=platform),)
        return ()
    if startup_hours <= 0:
        return (msg(Code.IDLE_STARTUP_FREE, platform=platform),)
    runs = max(u.runs for p, u, _n, _s in groups if p.unit not in PREPAID_UNITS)
    out = [
        msg(
            Code.IDLE_STARTUP_BILLED,
            hours=hours(startup_hours, 2),
            runs=_count(runs),
            cost=Money(cents(startup_cost), ctx.c.currency),
        )
    ]
    if any(p.startup_billed is None for p in metered):
        out.append(msg(Code.IDLE_STARTUP_ASSUMED, platform=platform))
    return tuple(out)


# ---------------------------------------------------------------------------------- rank and front


def _rank(candidates: list[Candidate], objective: str) -> list[Candidate]:
    """Order by the objective (ranking_key); a stable sort, so equals keep the catalogue's order."""
    return sorted(candidates, key=ranking_key(candidates, objective))


def ranking_key(
    candidates: Sequence[Candidate],
    objective: str,
    stats: tuple[Sequence[float], float] | None = None,
) -> Callable[[Candidate], tuple[Any, ...]]:
    """The objective's sort key (module docstring), once each candidate's `score` keeps its
    objective figure. Costs compare to the cent, so that stale prices rank after fresh ones at
    equal cost. Within one Fit (one time) the key never decreases as the cost grows.

    `stats`: (the finite times, the least cost) of all the candidates when `candidates` are only
    some of them (prune.rank); else they are read from `candidates`."""
    if stats is None:
        times: Sequence[float] = [c.time_key for c in candidates if c.time_key < INF]
    else:
        times = stats[0]
    if objective == "time" and times:
        for c in candidates:
            c.score = c.time_key
        return lambda c: (c.time_key, round(c.cost_key, 2), c.doubt)
    if objective != "balanced" or not times:
        for c in candidates:
            c.score = c.cost_key
        return lambda c: (round(c.cost_key, 2), c.doubt, c.time_key)
    best_cost = min(c.cost_key for c in candidates) if stats is None else stats[1]
    best_time = min(times) or 1e-9
    # An offering without a time estimate counts as the slowest one that has one.
    slowest = max(times) / best_time
    cost_scale = 1 / best_cost if best_cost > 0 else 1.0
    for c in candidates:
        t = c.time_key / best_time if c.time_key < INF else slowest
        c.score = c.cost_key * cost_scale + t
    return lambda c: (c.score, c.doubt, c.cost_key)


def doubts(c: Candidate) -> tuple[bool, bool, bool]:
    """What ranks `c` after another candidate at equal cost (`Candidate.doubt`)."""
    return (c.stale, c.offering.claimed, c.fit.placement.tight)


def regional_offer(off: OfferingSpec) -> tuple[Any, ...]:
    """What fold_regions compares of a regional offering besides its plan and the figures priced
    from it: the same offer sold in another region is alike in all of it."""
    return (
        off.platform,
        off.name.replace(off.region, ""),
        off.accelerator.slug,
        off.gpu_count,
        off.sharing,
        off.mig_profile,
        off.pooled_vram_gib,
        off.interconnect,
        off.interruptible,
        off.physically_exclusive,
    )


def fold_regions(ordered: list[Candidate]) -> list[Candidate]:
    """The same offer (platform, instance, price) sold in several regions: one candidate, the
    first in rank order, listing the regions. Catalogues name regional offers after their
    region ("p5.48xlarge (us-east-1)"), so names compare without it."""
    leads: dict[tuple[Any, ...], Candidate] = {}
    out = []
    for c in ordered:
        off = c.offering
        if not off.region:
            out.append(c)
            continue
        key = (
            *regional_offer(off),
            tuple((p.unit, p.amount, p.currency, p.granularity_seconds) for p in c.prices),
            c.cost_key,
            c.time_key,
        )
        lead = leads.get(key)
        if lead is None:
            leads[key] = c
            c.regions = [off.region]
            out.append(c)
        elif off.region not in lead.regions:
            lead.regions.append(off.region)
    return out


def pareto_ids(ordered: Sequence[Candidate]) -> set[int]:
    """ids of the candidates on the cost/time front (vocab.pareto_front); of exact duplicates the
    first in rank order is kept (the sort is stable)."""
    front = vocab.pareto_front(ordered, lambda c: c.cost_key, lambda c: c.time_key)
    return {id(c) for c in front}


def _tied(c: Candidate, first: Candidate) -> bool:
    return tied(c.score, first.score)


def tied(a: float, b: float) -> bool:
    """Whether the objective's figure `a` is within TIE_FRACTION of #1's `b`."""
    if a == b:
        return True
    if b in (INF, 0.0) or a == INF:
        return False
    return abs(a - b) <= TIE_FRACTION * abs(b)


# ------------------------------------------------------------------------------ recommendation


def recommend(
    ctx: Context,
    c: Candidate,
    rank: int,
    on_front: bool,
    ordered: Sequence[Candidate],
    first_cost: Decimal,
    fitting: int,
) -> Recommendation:
    off, placement = c.offering, c.fit.placement
    cost, monthly = exact_costs(ctx, c)
    plan = billing_choice(ctx, c, cost, monthly)
    oldest = min(c.prices, key=lambda p: p.observed_at)
    first = ordered[0]
    vs_first = None
    if rank > 1:
        delta_time = None if c.time is None or first.time is None else c.time - first.time
        vs_first = Comparison(cost - first_cost, delta_time, _tied(c, first))
    isolation = tuple(dict.fromkeys(PlacementMode(a.mode) for a in placement.assignments))
    serving = task_serving(ctx, c)
    job, job_low, job_high = job_costs(ctx, c, cost)
    between, idle_warnings = _idle_time(ctx, c)
    return Recommendation(
        rank=rank,
        offering_id=off.id,
        offering_name=off.name,
        platform=off.platform,
        platform_name=off.platform_name,
        accelerator=off.accelerator.slug,
        accelerator_name=off.accelerator.name,
        offering_url=off.url,
        instances=c.bill.instances,
        gpus_per_instance=off.gpu_count,
        plan=plan,
        cost=cost,
        cost_basis=ctx.basis,
        months=c.fit.months,
        monthly_cost=monthly,
        storage_cost=c.storage,
        job_cost=job,
        time_hours=c.time,
        placement=placement,
        headroom_bytes=placement.min_headroom_bytes,
        isolation=isolation,
        price_age_days=(ctx.now - oldest.observed_at).days,
        price_source=oldest.source,
        price_source_kind=oldest.source_kind,
        pareto=on_front,
        reasons=_reasons(ctx, c, rank, on_front, plan, fitting, vs_first, isolation),
        warnings=tuple(dict.fromkeys(rec_warnings(ctx, c) + idle_warnings)),
        decode_tokens_per_s=tuple((s.task, s.estimate.stream_tokens_per_s) for s in serving),
        vendor_claim=is_vendor_claim(c),
        stale=c.stale,
        storage_assumed=c.storage_assumed,
        regions=tuple(sorted(c.regions)),
        vs_first=vs_first,
        instance_hours=tuple(u.hours for u, n in c.fit.month.groups for _ in range(n))
        if c.fit.month is not None
        else (),
        serving=serving,
        time_low_hours=c.fit.time_low,
        time_high_hours=c.fit.time_high,
        job_cost_low=job_low,
        job_cost_high=job_high,
        idle=between,
    )


def is_vendor_claim(c: Candidate) -> bool:
    return c.offering.vendor_claim or any(p.source_kind == "vendor_claim" for p in c.prices)


def billing_choice(ctx: Context, c: Candidate, cost: Decimal, monthly: Decimal) -> BillingChoice:
    first = c.prices[0]
    mixed = len({p.unit for p in c.prices}) > 1
    month = c.fit.month
    assert month is not None

    def own(bill: Bill) -> Decimal:
        return sum((amount * n for _, amount, n in _exact_plan(ctx, c.prices, bill)), ZERO)

    one_currency = len({p.currency for p in c.prices}) == 1
    rate = ctx.rate(first.currency) if one_currency else None
    converted = cost - (c.storage or ZERO) - _keep(ctx, c, c.bill)
    month_storage = _storage(ctx, c.offering.platform, month.busiest)[0] or ZERO
    converted_monthly = monthly - month_storage - _keep(ctx, c, month)
    return BillingChoice(
        unit="mixed" if mixed else first.unit,
        units=tuple(
            p.unit for p, (_, n) in zip(c.prices, c.bill.groups, strict=True) for _ in range(n)
        ),
        price=None if mixed else first.amount,
        basis=ctx.basis,
        cost=own(c.bill) if one_currency else converted,
        monthly=own(month) if one_currency else converted_monthly,
        currency=first.currency if one_currency else ctx.c.currency,
        converted=converted,
        converted_monthly=converted_monthly,
        target_currency=ctx.c.currency,
        rate=rate.rate if rate else None,
        rate_date=rate.as_of if rate else None,
        rate_source=rate.source if rate else "",
    )


def job_costs(
    ctx: Context, c: Candidate, cost: Decimal
) -> tuple[Decimal | None, Decimal | None, Decimal | None]:
    """(job cost, its low, its high) as a recommendation states them, `cost` being its ranked
    cost: on a job basis the cost less storage, on a monthly basis the training run to
    completion (_job_cost); the range from the time's (_job_cost_range)."""
    low, high = _job_cost_range(ctx, c, cost)
    if ctx.basis is CostBasis.JOB:
        return cost - (c.storage or ZERO), low, high
    return _job_cost(ctx, c), low, high


def _job_cost_range(
    ctx: Context, c: Candidate, cost: Decimal
) -> tuple[Decimal | None, Decimal | None]:
    """(job_cost_low, job_cost_high): the job cost at the low and high ends of the time range,
    priced the way the job cost is (the chosen plan for the run's usage on a job basis, the
    cheapest price for the longest run on a monthly basis), never outside the expected cost."""
    if c.time is None or c.fit.time_low is None or c.fit.time_high is None:
        return None, None
    if ctx.basis is CostBasis.JOB:
        expected: Decimal | None = cost - (c.storage or ZERO)
        low, high = (_plan_at(ctx, c, end) for end in (0, 1))
    else:
        expected = _job_cost(ctx, c)
        low, high = _job_cost(ctx, c, c.fit.time_low), _job_cost(ctx, c, c.fit.time_high)
    if expected is None or low is None or high is None:
        return None, None
    return min(low, expected), max(high, expected)


def _plan_at(ctx: Context, c: Candidate, end: int) -> Decimal | None:
    """The chosen plan priced for the run with every task at one end of its time range (0: low,
    1: high), converted, storage left out."""
    ranges = c.fit.task_ranges
    if len(ranges) != len(ctx.tasks):
        return None
    uses = [
        usage.task_usage(t, None if r is None else r[end])
        for t, r in zip(ctx.tasks, ranges, strict=True)
    ]
    bill, _month = _bills(
        ctx.tasks, c.fit.placement, uses, ctx.basis, ctx.c.startup_minutes, ctx.placements.results
    )
    if len(bill.groups) != len(c.prices):  # the instances group differently: one price for all
        prices: Sequence[PriceSpec] = (_cheapest(ctx, c.prices, bill)[1][0],) * len(bill.groups)
    else:
        prices = c.prices
    plan = _exact_plan(ctx, prices, bill)
    return sum((ctx.convert(amount, p.currency) * n for p, amount, n in plan), ZERO)


def _job_cost(ctx: Context, c: Candidate, time: float | None = None) -> Decimal | None:
    """Training run to completion on a monthly basis: the instances that host training tasks,
    for the longest run (`time`, default the expected one), at the cheapest price for that run."""
    time = c.time if time is None else time
    if time is None:
        return None
    hosts = {
        n
        for t, a in zip(ctx.tasks, c.fit.placement.assignments, strict=True)
        if usage.is_job(t)
        for n in a.instance_range
    }
    minutes = ctx.c.startup_minutes
    per_instance = min(
        ctx.convert(job_cost(p, time * 3600 + p.kind.metering.startup_seconds(minutes)), p.currency)
        for p in c.offering.prices
        if not ctx.c.fresh_only or not _stale(ctx, p)
    )
    return per_instance * len(hosts)


def task_serving(ctx: Context, c: Candidate) -> tuple[TaskServing, ...]:
    """Each inference task's serving figures where the placement put it (a MIG slice sees its
    share of the card; a task over several instances runs tensor parallel over the network
    between them) and its cost per million tokens (TaskServing)."""
    off, placement = c.offering, c.fit.placement
    out = []
    for index, (t, a) in enumerate(zip(ctx.tasks, placement.assignments, strict=True)):
        if t.kind != "inference" or t.arch is None or t.arch.family == "diffusion":
            continue
        accel = off.accelerator
        profile = a.mig_profile or off.mig_profile
        if profile is not None:
            accel = slice_spec(accel, mig_profile(accel, profile))
        gpus = max(a.gpu_count, 1)
        link = None
        if a.machines > 1:
            network, gbps = off.network, off.network_gbps
            if network is None or gbps is None:
                kind, assumed, _ = timing.default_network(off.accelerator, off.gpu_count)
                network, gbps = network or kind, gbps or assumed
            link = NetworkLink(a.machines, network, gbps)
        try:
            est = serving_estimate(
                t,
                accel,
                gpus,
                Interconnect(off.interconnect) if gpus > 1 else Interconnect.NONE,
                headroom_bytes=a.headroom_bytes,
                per_sequence=ctx.per_sequence(index, t),
                link=link,
            )
        except AdvisorError:
            continue  # no bandwidth figure: no speed to show
        out.append(_task_cost(ctx, c, index, est))
    return tuple(out)


def _task_cost(ctx: Context, c: Candidate, index: int, est: ServingEstimate) -> TaskServing:
    """The task's serving figures with their cost per million tokens (_instance_charge over
    the tokens of its busy hours), at the expected output rate and at the ends of its range."""
    task = ctx.tasks[index]
    charged, shared = _instance_charge(ctx, c, index)
    rate = est.output_tokens_per_s
    hours = _task_hours(ctx, c)[index]
    if charged is None or rate is None or hours <= 0:
        return TaskServing(task.name, est, None, ctx.c.currency, shared)

    def per_million(tokens_per_s: float, share: float = 1.0) -> Decimal | None:
        tokens = tokens_per_s * 3600 * hours
        if tokens <= 0 or charged is None:
            return None
        return charged * Decimal(repr(share)) / Decimal(repr(tokens / 1e6))

    input_rate = rate.expected * est.prompt_tokens / max(est.output_tokens, 1)
    return TaskServing(
        task.name,
        est,
        per_million(rate.expected),
        ctx.c.currency,
        shared,
        cost_low=per_million(rate.high),
        cost_high=per_million(rate.low),
        input_cost_per_million=per_million(input_rate, est.prefill_share),
        output_cost_per_million=per_million(rate.expected, 1 - est.prefill_share),
    )


def _task_hours(ctx: Context, c: Candidate) -> tuple[float, ...]:
    return c.fit.task_month_hours or tuple(usage.task_usage(t, None).month_hours for t in ctx.tasks)


def _instance_charge(ctx: Context, c: Candidate, index: int) -> tuple[Decimal | None, bool]:
    """(the busiest month's charge of task `index`'s instances, whether other tasks share them).

    The charge is split among the instance's tasks by GPU-hours (GPUs × busy hours) when it has
    several; a task over several instances pays all of them."""
    month = c.fit.month
    assert month is not None
    assignments = c.fit.placement.assignments
    hours = _task_hours(ctx, c)
    instance = assignments[index].instance
    gpu_hours = {
        j: len(a.gpus) * hours[j] for j, a in enumerate(assignments) if a.instance == instance
    }
    shared = len(gpu_hours) > 1
    total = sum(gpu_hours.values())
    charged = Decimal(0)
    for inst in assignments[index].instance_range:
        if total <= 0 or inst >= len(month.instance_groups):
            return None, shared
        group = month.instance_groups[inst]
        price = c.prices[group]
        units = month.units_for(price)[0][group]
        runs = month.groups[group][0].runs
        charged += ctx.convert(charges.run_charge(price, units, runs), price.currency)
    share = Decimal(repr(gpu_hours[index] / total))
    return charged * share, shared


def _reasons(
    ctx: Context,
    c: Candidate,
    rank: int,
    on_front: bool,
    plan: BillingChoice,
    n: int,
    vs_first: Comparison | None,
    isolation: tuple[PlacementMode, ...],
) -> tuple[Message, ...]:
    off, p = c.offering, c.fit.placement
    modes = tuple(m for m in PlacementMode if m in isolation)
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
    on_host = hosts.host_reason(off)
    if on_host is not None:
        out.append(on_host)
    objective = Objective(ctx.scenario.objective)
    if rank == 1:
        out.append(msg(BEST_BY[objective], fitting=n, basis=ctx.basis))
        if is_vendor_claim(c):
            out.append(msg(Code.REASON_RESTS_ON_VENDOR_CLAIM, platform=off.platform_name))
    if vs_first is not None:
        out.append(_versus_first(ctx, c, vs_first))
    if on_front:
        out.append(msg(Code.REASON_PARETO))
    ccy = plan.target_currency
    if ctx.basis is CostBasis.JOB:
        cost = Money(cents(plan.converted), ccy)
        if plan.unit == "mixed":
            out.append(msg(Code.REASON_CHEAPEST_BILLING_JOB_MIXED, cost=cost))
        else:
            unit = BillingUnit(plan.unit)
            out.append(msg(Code.REASON_CHEAPEST_BILLING_JOB, unit=unit, cost=cost))
    else:
        monthly = Money(cents(plan.converted), ccy, per=BillingUnit.MONTH)
        if plan.unit == "mixed":
            out.append(msg(Code.REASON_CHEAPEST_BILLING_MIXED, monthly=monthly))
        else:
            unit = BillingUnit(plan.unit)
            out.append(msg(Code.REASON_CHEAPEST_BILLING, unit=unit, monthly=monthly))
    out.extend(_break_even_reason(c))
    if c.time is not None:
        span = {
            "low": hours(c.fit.time_low if c.fit.time_low is not None else c.time),
            "high": hours(c.fit.time_high if c.fit.time_high is not None else c.time),
        }
        if c.fit.efficiency:
            out.append(
                msg(
                    Code.REASON_TRAINING_TIME_SCALING,
                    hours=hours(c.time),
                    efficiency=fraction(c.fit.efficiency),
                    **span,
                )
            )
        else:
            out.append(msg(Code.REASON_TRAINING_TIME, hours=hours(c.time), **span))
    if len(c.regions) > 1:
        out.append(msg(Code.REASON_REGIONS, regions=tuple(sorted(c.regions))))
    return tuple(out)


def _versus_first(ctx: Context, c: Candidate, vs: Comparison) -> Message:
    """The difference to #1 in cost and time; a tie names what else tells them apart."""
    return versus_first(vs, ctx.c.currency, ctx.basis, _apart(c))


def versus_first(
    vs: Comparison, currency: str, basis: CostBasis, apart: tuple[Message, ...]
) -> Message:
    """A recommendation against #1: what it costs and takes more or less, on `basis`; when the
    two are tied, with `apart`, what else tells them apart."""
    per = BillingUnit.MONTH if basis is CostBasis.MONTH else ""
    parts: list[Message] = []
    money = Money(cents(abs(vs.cost)), currency, per=per)
    if vs.cost > 0:
        parts.append(msg(Code.DIFF_COSTS_MORE, amount=money))
    elif vs.cost < 0:
        parts.append(msg(Code.DIFF_COSTS_LESS, amount=money))
    else:
        parts.append(msg(Code.DIFF_SAME_COST))
    if vs.time_hours is not None and abs(vs.time_hours) >= 0.05:
        code = Code.DIFF_SLOWER if vs.time_hours > 0 else Code.DIFF_FASTER
        parts.append(msg(code, hours=hours(abs(vs.time_hours))))
    if not vs.tied:
        return msg(Code.REASON_VERSUS_FIRST, differences=tuple(parts))
    return msg(
        Code.REASON_TIED_WITH_FIRST,
        limit=fraction(TIE_FRACTION),
        differences=tuple(parts) + apart,
    )


def _apart(c: Candidate) -> tuple[Message, ...]:
    """What else may decide between tied recommendations: who states the price, its age."""
    out = []
    if is_vendor_claim(c):
        out.append(msg(Code.DIFF_VENDOR_CLAIM))
    if c.offering.competitor_claim_by:
        out.append(msg(Code.DIFF_COMPETITOR_CLAIM))
    if c.stale:
        out.append(msg(Code.DIFF_STALE_PRICE))
    out.extend(_basis_apart(c))
    return tuple(out)


def _basis_apart(c: Candidate) -> tuple[Message, ...]:
    """What of the price's basis and the headroom rule tells tied recommendations apart."""
    out = []
    if c.offering.claimed:
        out.append(msg(Code.DIFF_CLAIMED_PRICE))
    if c.fit.placement.tight:
        out.append(msg(Code.DIFF_TIGHT_HEADROOM))
    return tuple(out)


def basis_warnings(c: Candidate) -> tuple[Message, ...]:
    """A price that is not a bookable offer, said (vocab.PriceBasis): a market figure ranked
    because the scenario asked for them, a competitor's claim with whose it is."""
    out = []
    for p in c.prices:
        if p.basis in (vocab.PriceBasis.FLOOR, vocab.PriceBasis.STATISTIC):
            out.append(msg(Code.WARN_MARKET_FIGURE, basis=p.basis))
        elif p.basis == vocab.PriceBasis.CLAIM:
            out.append(msg(Code.WARN_CLAIMED_PRICE, source=p.source))
    return tuple(dict.fromkeys(out))


def _break_even_reason(c: Candidate) -> list[Message]:
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
                        hours=hours(float(busy), places=0),
                    )
                )
    return out


def renter_warnings(c: Constraints, off: OfferingSpec) -> tuple[Message, ...]:
    """Who may rent a platform in mainland China, told to a renter who pays in USD and has not
    asked for `foreign_renter` (which leaves out every platform no source speaks for): what the
    platform's sources say of its real-name verification and the cards it takes, or that none
    says anything. Nothing where a source says it takes a renter from abroad."""
    if c.foreign_renter or c.currency != Currency.USD or off.rental.country != "CN":
        return ()
    facts = off.rental
    if facts.cn_identity_required:
        return (msg(Code.WARN_RENTER_NEEDS_CN_IDENTITY, platform=off.platform_name),)
    if facts.cn_identity_required is None:
        return (msg(Code.WARN_RENTER_ABROAD_UNKNOWN, platform=off.platform_name),)
    if facts.foreign_cards is not True:
        return (msg(Code.WARN_RENTER_CARDS_UNVERIFIED, platform=off.platform_name),)
    return ()


def rec_warnings(ctx: Context, c: Candidate) -> tuple[Message, ...]:
    off = c.offering
    out = list(c.fit.placement.warnings)
    if is_vendor_claim(c):
        out.append(msg(Code.WARN_VENDOR_CLAIM))
    if off.competitor_claim_by:
        out.append(msg(Code.WARN_COMPETITOR_CLAIM, speaker=off.competitor_claim_by))
    out.extend(basis_warnings(c))
    for p in c.prices:
        if _stale(ctx, p):
            age = (ctx.now - p.observed_at).days
            out.append(
                msg(Code.WARN_STALE_PRICE, unit=BillingUnit(p.unit), age=Quantity(age, Unit.DAYS))
            )
    out.extend(renter_warnings(ctx.c, off))
    if off.retention_after_expiry is False:
        out.append(msg(Code.WARN_NO_RETENTION))
    if off.interruptible:
        out.append(msg(Code.WARN_INTERRUPTIBLE))
        out.extend(_spot_warnings(ctx, c))
    if ctx.c.storage_gb > 0 and c.storage is None:
        out.append(msg(Code.WARN_NO_STORAGE_PRICE, platform=off.platform_name))
    if c.storage_assumed and c.storage is not None:
        per = BillingUnit.MONTH if ctx.basis is CostBasis.MONTH else ""
        out.append(
            msg(
                Code.WARN_STORAGE_ASSUMED,
                platform=off.platform_name,
                cost=Money(cents(c.storage), ctx.c.currency, per=per),
                platforms=len(ctx.storage_platforms),
            )
        )
    more = _metering_assumed_extra(ctx, c)
    if more is not None:
        per = BillingUnit.MONTH if ctx.basis is CostBasis.MONTH else ""
        out.append(
            msg(
                Code.WARN_METERING_ASSUMED,
                platform=off.platform_name,
                more=Money(cents(more), ctx.c.currency, per=per),
            )
        )
    out.extend(c.fit.time_warnings)
    out.extend(needs.unstated(ctx.card_needs, off.accelerator))
    out.extend(stacks.warnings(stacks.DEFAULT_TABLE, ctx.stack_needs, off.accelerator))
    return tuple(dict.fromkeys(out))


def _metering_assumed_extra(ctx: Context, c: Candidate) -> Decimal | None:
    """Where a chosen pay-as-you-go price's platform does not state its metering step (no
    `granularity_seconds`: billed per second, billing.DEFAULT_GRANULARITY_SECONDS,
    docs/billing-rules.md), what the plan's billed time would cost more, in the target currency
    on the ranked basis, were each run billed per started hour instead; None where no chosen
    price assumes its metering, or the assumption changes nothing (whole hours)."""
    extra = ZERO
    assumed = False
    for p, (use, n), units in zip(
        c.prices, c.bill.groups, c.bill.units_for_each(c.prices), strict=True
    ):
        if p.unit not in vocab.METERED_UNITS or p.granularity_seconds is not None:
            continue
        assumed = True
        startup = p.kind.metering.startup_seconds(ctx.c.startup_minutes)
        hourly = charges.run_units(p.kind.metering._replace(step=3600), use, startup)
        if hourly > units:
            more = charges.run_charge(p, hourly, use.runs) - charges.run_charge(p, units, use.runs)
            extra += ctx.convert(more, p.currency) * n
    return extra if assumed and extra > 0 else None


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
        engine_pool=holds_engine_pool(task),
        trains=task.kind in TRAINING_KINDS,
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


def no_fit_message(ctx: Context, total: int) -> Message:
    if not ctx.rejected:
        return msg(Code.NO_FIT_NO_OFFERINGS, total=total)
    counts = tuple(
        msg(Code.REJECT_COUNT, reason=msg(reason), count=n)
        for reason, n in ctx.rejected.most_common()
    )
    head = msg(Code.NO_FIT, total=total, counts=counts)
    closest = closest_miss(ctx)
    if closest is not None:
        return msg(Code.NO_FIT_CLOSEST, head=head, reason=msg(closest.reason), miss=closest.label)
    return head


def closest_miss(ctx: Context) -> ClosestMiss | None:
    """The nearest miss of the first reason that has one: over budget, misses the deadline,
    does not fit (the order a renter relaxes them in)."""
    for reason in (Code.REJECT_OVER_BUDGET, Code.REJECT_MISSES_DEADLINE, Code.REJECT_DOES_NOT_FIT):
        if reason in ctx.misses:
            closeness, label, off = ctx.misses[reason]
            return ClosestMiss(
                reason,
                off.id,
                off.platform,
                off.accelerator.slug,
                closeness,
                label,
                off.gpu_count,
            )
    return None


__all__ = ["TIE_FRACTION", "Advice", "BillingChoice", "Comparison", "Recommendation"]
