"""Idle time between runs and the charges each run brings, by the platform's billing rules.

An instance that is not busy all month (a job run `jobs_per_month` times, a windowed one-off job,
a service busy fewer than 720 hours; usage.py counts its runs) is idle between its runs. On a
metered plan that time is priced the cheapest way the platform allows that keeps what the
scenario keeps (docs/billing-rules.md, "Idle time between runs"):

* **stopped**: a stopped instance costs nothing but the storage billed while it is stopped, where
  the platform bills it (AutoDL's paid data disk, RunPod's volumes; not 恒源云's /hy-tmp). That
  storage is part of the recommendation's storage cost (ranking._storage prices the data for every
  hour it is held when its price is billed while stopped); `IdleTime.stopped_storage` says how much
  of it the idle time is.
* a platform that **releases** an instance stopped for N days with its data (AutoDL: 15
  consecutive days shut down, autodl.com/docs/instance_data) releases it between runs more than N
  days apart. When the scenario keeps data on the platform (`storage_gb`), the cheapest way to keep
  it is to stop the instance for the N days and keep it powered on from then until the next run:
  in the **no-GPU mode** at its price (AutoDL ¥0.10 an hour), or **running** at its own metered
  price when that is cheaper and the platform does not stop idle sessions itself
  (`idle_shutdown_seconds`). Without data to keep, or with no way to keep it, the instance is
  **released** between runs: the data must live elsewhere and the instance be re-created. Either
  way the advice warns, with the number of days.
* **prepaid** plans (包日/包周/包月) already pay for the idle time; a platform that releases a
  prepaid instance N days after the plan expires is warned of.

Each run is metered on its own: rounded up to the metering step, never below the minimum charge
(per run, not per month), plus the start-up time where the platform bills it
(`PriceSpec.startup_billed`: AutoDL and RunPod bill from power-on, 矩池云 only from "running"; not
stated counts as billed). The start-up time is the scenario's (`Constraints.startup_minutes`): it
depends on the image and the model loaded, so no platform's figure stands for it.

Money is Decimal; `*_float` twins serve the ranking only, as in ranking.py. What a run itself
charges (its units, start-up and minimum charge) is the pricing model's (pricing.charges,
pricing.kind.Metering.startup_seconds).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import ROUND_CEILING, Context, Decimal

from advisor.engine.billing import ZERO, billed_steps, billed_units, granularity
from advisor.engine.messages import Message
from advisor.engine.pricing.charges import runs_decimal
from advisor.engine.types import BILLING_UNIT_SECONDS, BillingRulesSpec, PriceSpec
from advisor.engine.usage import Usage
from advisor.engine.vocab import METERED_UNITS, IdleWay

_EPS = 1e-9
_CEIL = Context(prec=28, rounding=ROUND_CEILING)  # charges round up, as in billing.py


@dataclass(frozen=True)
class IdleTime:
    """A recommendation's time between runs over its cost basis, and what it costs."""

    way: IdleWay  # of the instance with the longest gap between runs
    hours: float  # hours held but not busy, all instances
    runs: float  # runs of that instance
    gap_hours: float  # its time between two runs
    kept_hours: float  # hours kept powered on past the release window, all instances
    cost: Decimal  # what keeping them on adds to the ranked cost, target currency
    # Of the storage cost, the part billed while the instances are stopped (None: no storage).
    stopped_storage: Decimal | None
    startup_hours: float  # start-up time billed, all instances
    startup_cost: Decimal  # what it adds to the plan, target currency
    message: Message
    notes: tuple[Message, ...] = ()


def idle_hours(use: Usage, startup: float = 0.0) -> float:
    """Hours of `use`'s period its instance is neither busy nor starting up."""
    if use.hours <= 0:
        return 0.0
    return max(use.idle_hours - use.runs * startup / 3600, 0.0)


def gap_hours(use: Usage, startup: float = 0.0) -> float:
    """The time between two runs of `use`, its idle hours split evenly among its runs."""
    idle = idle_hours(use, startup)
    return idle / use.runs if idle > 0 and use.runs > 0 else 0.0


def off_seconds(plan: PriceSpec, use: Usage, startup: float = 0.0) -> float:
    """Seconds an instance on metered `plan` is powered off between two runs: its held time per
    run less the time each run is billed for (rounded up to the metering step, with its
    start-up), so that a run billed longer leaves less to keep."""
    if use.runs <= 0 or use.hours <= 0:
        return 0.0
    gran = granularity(plan)
    busy = billed_steps(gran, use.hours * 3600 / use.runs + startup) * gran
    return max(use.held_hours * 3600 / use.runs - busy, 0.0)


def released_between_runs(
    plan: PriceSpec, use: Usage, rules: BillingRulesSpec | None, startup: float = 0.0
) -> bool:
    """Runs further apart than the days after which the platform releases a stopped instance."""
    days = None if rules is None else rules.release_after_stopped_days
    return days is not None and off_seconds(plan, use, startup) > days * 86400 + _EPS


def keep_seconds(
    plan: PriceSpec, use: Usage, rules: BillingRulesSpec | None, startup: float = 0.0
) -> float:
    """Seconds per run its instance must stay powered on so that the platform does not release
    it: past the release window, until the next run (module docstring)."""
    if not released_between_runs(plan, use, rules, startup):
        return 0.0
    assert rules is not None and rules.release_after_stopped_days is not None
    return off_seconds(plan, use, startup) - rules.release_after_stopped_days * 86400


def keep_hours(
    plan: PriceSpec, use: Usage, rules: BillingRulesSpec | None, startup: float = 0.0
) -> float:
    """keep_seconds over all of `use`'s runs, in hours."""
    return keep_seconds(plan, use, rules, startup) * use.runs / 3600


@dataclass(frozen=True)
class KeepPrice:
    """A metered price that keeps an instance powered on: its no-GPU mode, or its own plan."""

    unit: str
    amount: Decimal
    currency: str
    granularity_seconds: int
    min_charge: Decimal = ZERO

    @property
    def per_hour_float(self) -> float:
        return float(self.amount) * 3600 / BILLING_UNIT_SECONDS[self.unit]

    def charge(self, seconds_per_run: float, runs: float) -> Decimal:
        """`runs` sessions of `seconds_per_run`, each metered on its own (its step, its minimum
        charge)."""
        if seconds_per_run <= 0 or runs <= 0:
            return ZERO
        per_run = billed_units(self.unit, self.granularity_seconds, seconds_per_run)
        cost = max(_CEIL.multiply(self.amount, per_run), self.min_charge)
        return cost * runs_decimal(runs)


def idle_mode_price(rules: BillingRulesSpec | None) -> KeepPrice | None:
    """The no-GPU mode's price, metered as the platform meters (its step and, in the price's
    currency, its minimum charge); None where the platform has none or states no price."""
    if rules is None or rules.idle_mode is False or rules.idle_mode_price is None:
        return None
    if rules.idle_mode_unit not in METERED_UNITS or not rules.idle_mode_currency:
        return None
    floor = ZERO
    if rules.min_charge is not None and rules.min_charge_currency == rules.idle_mode_currency:
        floor = rules.min_charge
    return KeepPrice(
        rules.idle_mode_unit,
        rules.idle_mode_price,
        rules.idle_mode_currency,
        rules.metering_seconds or 1,
        floor,
    )


def plan_keep_price(plan: PriceSpec) -> KeepPrice:
    """The instance's own metered price, as a price that keeps it running."""
    return KeepPrice(plan.unit, plan.amount, plan.currency, granularity(plan), plan.min_charge)


def can_keep_running(
    plan: PriceSpec, use: Usage, rules: BillingRulesSpec | None, startup: float = 0.0
) -> bool:
    """Keeping an instance running idle is allowed unless the platform stops idle sessions
    sooner than it would have to stay on (趋动云: after 3600 s)."""
    if rules is None or rules.idle_shutdown_seconds is None:
        return True
    return keep_seconds(plan, use, rules, startup) <= rules.idle_shutdown_seconds


Rate = Callable[[str], float]


def keep_way(
    plan: PriceSpec, use: Usage, rules: BillingRulesSpec | None, rate: Rate, startup: float = 0.0
) -> tuple[IdleWay, KeepPrice | None]:
    """How an instance on metered `plan` keeps its data past the release window: the no-GPU mode
    or the instance itself, whichever costs less an hour in the target currency (`rate`; the
    no-GPU mode at equal cost), with the price that keeps it; (RELEASED, None) when neither
    may."""
    options: list[tuple[float, int, IdleWay, KeepPrice]] = []
    idle = idle_mode_price(rules)
    if idle is not None:
        options.append((idle.per_hour_float * rate(idle.currency), 0, IdleWay.IDLE_MODE, idle))
    if can_keep_running(plan, use, rules, startup):
        own = plan_keep_price(plan)
        options.append((own.per_hour_float * rate(own.currency), 1, IdleWay.KEPT_RUNNING, own))
    if not options:
        return IdleWay.RELEASED, None
    _cost, _order, way, price = min(options, key=lambda o: (o[0], o[1]))
    return way, price


def keep_cost(
    plan: PriceSpec,
    use: Usage,
    rules: BillingRulesSpec | None,
    convert: Callable[[Decimal, str], Decimal],
    rate: Rate,
    startup: float = 0.0,
) -> tuple[IdleWay, Decimal, float]:
    """(way, cost in the target currency, hours kept on) of `use`'s idle time on `plan` when the
    scenario keeps data on the platform: STOPPED at no cost inside the release window, else kept
    on past it (keep_way), or RELEASED. Prepaid plans: PREPAID, nothing more to pay."""
    if plan.unit not in METERED_UNITS:
        return IdleWay.PREPAID, ZERO, 0.0
    seconds = keep_seconds(plan, use, rules, startup)
    if seconds <= 0:
        return IdleWay.STOPPED, ZERO, 0.0
    way, price = keep_way(plan, use, rules, rate, startup)
    if price is None:
        return way, ZERO, 0.0
    cost = convert(price.charge(seconds, use.runs), price.currency)
    return way, cost, seconds * use.runs / 3600


def keep_cost_float(
    plan: PriceSpec, use: Usage, rules: BillingRulesSpec | None, rate: Rate, startup: float = 0.0
) -> float:
    """keep_cost's cost as a float, for ranking: the keeping price an hour × the hours kept on,
    never below its minimum charge per run."""
    if plan.unit not in METERED_UNITS:
        return 0.0
    seconds = keep_seconds(plan, use, rules, startup)
    if seconds <= 0:
        return 0.0
    _way, price = keep_way(plan, use, rules, rate, startup)
    if price is None:
        return 0.0
    per_run = max(price.per_hour_float * seconds / 3600, float(price.min_charge))
    return per_run * use.runs * rate(price.currency)


__all__ = [
    "IdleTime",
    "KeepPrice",
    "can_keep_running",
    "gap_hours",
    "idle_hours",
    "idle_mode_price",
    "keep_cost",
    "keep_cost_float",
    "keep_hours",
    "keep_seconds",
    "keep_way",
    "off_seconds",
    "plan_keep_price",
    "released_between_runs",
]
