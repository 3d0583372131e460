"""What a price plan charges: rounding per billing unit, monthly and job cost, break-even, storage
and currency conversion. Mixed plans (a reserved base plus on-demand bursts) are chosen in ranking.

Billing rules (docs/billing-rules.md, with the platforms' billing pages they come from):
* Pay-as-you-go hourly prices on AutoDL, 恒源云 and the AutoDL clones are metered per second and
  settled hourly, with a minimum charge of ¥0.01; so an hourly price defaults to per-second
  metering where its platform states no step (an assumption the advice states,
  ranking: warn_metering_assumed). A platform that charges per started hour (智星云's
  "按小时计费") sets `PriceSpec.granularity_seconds = 3600`.
* 包日/包周/包月 plans are prepaid whole units that reserve the GPU for the calendar period,
  used or not (AutoDL's billing documentation; 恒源云's price page). A monthly plan costs one
  month whatever the hours; daily (weekly) plans must cover the calendar the instance is held
  through its runs (usage.py: a service busy fewer than 720 h runs once a day), not its busy
  hours packed together: a service busy 12 h a day for 30 days needs 30 day plans, or
  ceil(30 / 7) = 5 week plans (`prepaid_cover`).
* A month is 30 days (types.BILLING_UNIT_SECONDS, the 包月 convention).

Money is Decimal throughout. Charges are computed with ceiling rounding, so no rounding ever charges
less than the exact time; quantising to cents (`cents`) happens only at the edges (output).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime
from decimal import ROUND_CEILING, ROUND_HALF_UP, Context, Decimal

from advisor.engine import vocab
from advisor.engine.errors import InvalidWorkload, NoFit
from advisor.engine.messages import Code
from advisor.engine.types import (
    BILLING_UNIT_SECONDS,
    HOURS_PER_MONTH,
    ExchangeRateSpec,
    PriceSpec,
    StoragePriceSpec,
)

# Default metering step per unit (module docstring; AutoDL bills "duration in seconds").
DEFAULT_GRANULARITY_SECONDS: dict[str, int] = {
    unit.value: unit.default_granularity_seconds for unit in vocab.BillingUnit
}
METERED_UNITS = vocab.METERED_UNITS
PREPAID_UNITS = vocab.PREPAID_UNITS

# Storage rates per GB-hour. TB = 1000 GB: storage is sold in decimal units (the vendor article's
# "200元/T/月"; the platforms price disks per GB). A storage month is 720 h like a billing month.
_STORAGE_UNIT_HOURS: dict[str, tuple[int, int]] = {  # unit -> (GB per unit, hours per unit)
    unit.value: (unit.gb, unit.hours) for unit in vocab.StorageUnit
}

CENT = Decimal("0.01")
ZERO = Decimal(0)
# Charges round up at the last of 28 digits, so no arithmetic rounding undercharges either.
_CEIL = Context(prec=28, rounding=ROUND_CEILING)


def cents(amount: Decimal) -> Decimal:
    """Quantise to 0.01 for output (half up, as prices are shown)."""
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def granularity(price: PriceSpec) -> int:
    """The price's metering step in seconds (its kind's: pricing.kind.Metering)."""
    return price.kind.metering.step


def billed_units(unit: str, granularity_seconds: int, seconds: float) -> Decimal:
    """How many of `unit` a session of `seconds` is charged: rounded up to the metering step."""
    if seconds < 0 or math.isnan(seconds):
        raise InvalidWorkload(Code.TIME_NOT_NEGATIVE, "hours_per_month", seconds=seconds)
    if seconds == 0:
        return ZERO
    steps = billed_steps(granularity_seconds, seconds)
    return _CEIL.divide(Decimal(steps * granularity_seconds), Decimal(BILLING_UNIT_SECONDS[unit]))


def billed_steps(granularity_seconds: int, seconds: float) -> int:
    """Metering steps a session of `seconds` (>= 0) is charged: rounded up."""
    steps = math.ceil(seconds / granularity_seconds)
    # Float division can land a hair off an integer: correct it both ways, so that the billed
    # time is the smallest whole number of steps that is not shorter than `seconds`.
    if (steps - 1) * granularity_seconds >= seconds:
        steps -= 1
    if steps * granularity_seconds < seconds:
        steps += 1
    return steps


def charge(price: PriceSpec, units: Decimal) -> Decimal:
    """`units` of `price`, never below its minimum charge (for any use at all) or zero."""
    if units == 0:
        return ZERO
    return max(_CEIL.multiply(price.amount, units), price.min_charge, ZERO)


def job_cost(price: PriceSpec, seconds: float, *, sessions: int = 1) -> Decimal:
    """Cost of running `seconds` in `sessions` equal sessions, each rounded up separately."""
    if sessions < 1:
        raise InvalidWorkload(Code.SESSIONS_AT_LEAST_ONE, "sessions")
    per_session = billed_units(price.unit, granularity(price), seconds / sessions)
    return charge(price, per_session) * sessions


def month_units(
    unit: str,
    granularity_seconds: int,
    busy_hours: float,
    active_days: int | None = None,
    runs: float = 1.0,
) -> Decimal:
    """Units of `unit` charged for a month with `busy_hours` of use in `runs` runs spread over
    the month (module docstring)."""
    if not 0 <= busy_hours <= HOURS_PER_MONTH:
        raise InvalidWorkload(
            Code.BUSY_HOURS_RANGE, "hours_per_month", high=HOURS_PER_MONTH, hours=busy_hours
        )
    return period_units(
        unit, granularity_seconds, busy_hours, 1, active_days, runs, float(HOURS_PER_MONTH)
    )


def period_units(
    unit: str,
    granularity_seconds: int,
    busy_hours: float,
    months: int = 1,
    active_days: int | None = None,
    runs: float = 1.0,
    held_hours: float | None = None,
) -> Decimal:
    """Units of `unit` charged for `busy_hours` of use over a period of `months` months: a month
    (months=1, busy hours <= 720) or a one-off run over several (usage.py).

    Metered units: the busy time, rounded up to the metering step. A monthly plan: one per month
    the period spans. Daily and weekly plans: enough whole units to cover the calendar the busy
    hours are held through: `runs` runs spread evenly over `held_hours` (prepaid_cover), at least
    the busy hours packed into whole units, and at least the `active_days` they are spread over.
    """
    if busy_hours < 0 or math.isnan(busy_hours):
        raise InvalidWorkload(Code.TIME_NOT_NEGATIVE, "hours_per_month", seconds=busy_hours * 3600)
    if busy_hours == 0:
        return ZERO
    if unit in METERED_UNITS:
        return billed_units(unit, granularity_seconds, busy_hours * 3600)
    if unit == vocab.BillingUnit.MONTH:
        return Decimal(max(months, math.ceil(busy_hours / HOURS_PER_MONTH - 1e-9)))
    unit_hours = BILLING_UNIT_SECONDS[unit] // 3600
    # max(1, ...): a tiny busy time can underflow the division to 0; any use buys one unit
    units = max(1, math.ceil(busy_hours / unit_hours))
    if runs > 1 and held_hours is not None:
        units = max(units, prepaid_cover(unit_hours, busy_hours, runs, held_hours))
    if active_days is not None:
        units = max(units, math.ceil(active_days * 24 / unit_hours))
    return Decimal(units)


def prepaid_cover(unit_hours: int, busy_hours: float, runs: float, held_hours: float) -> int:
    """Prepaid periods of `unit_hours` that cover `runs` runs of equal length spread evenly over
    `held_hours` (usage.py: a service busy fewer than 720 h runs once a day of the 30-day month;
    a recurring job `jobs_per_month` times a month): a prepaid plan reserves the GPU for its
    calendar period, used or not, so every run must fall inside a bought period.

    Periods are bought back to back from the first run not yet covered, which is the fewest that
    cover them (a leftmost-point cover of intervals by segments of one length). A service busy
    12 h a day: runs 24 h apart, one day plan each, 30 a month; a week plan covers 7 of them,
    ceil(30 / 7) = 5 a month. Fractional runs count whole (a run is never split).
    """
    count = max(1, math.ceil(runs - 1e-9))
    gap = held_hours / runs
    length = busy_hours / runs
    covered = -math.inf
    units = 0
    for k in range(count):
        start = k * gap
        end = start + length
        if end <= covered + 1e-9:
            continue
        begin = max(start, covered)
        bought = max(1, math.ceil((end - begin) / unit_hours - 1e-9))
        covered = begin + bought * unit_hours
        units += bought
    return units


def monthly_cost(
    price: PriceSpec,
    busy_hours_per_month: float,
    *,
    sessions: int = 1,
    active_days: int | None = None,
) -> Decimal:
    """Cost of one instance busy `busy_hours_per_month` hours in a 30-day month (module docstring).

    `sessions`: metered use is rounded up per session (per-started-hour plans charge each start);
    daily and weekly plans cover the sessions spread evenly over the month (prepaid_cover).
    """
    units = month_units(
        price.unit, granularity(price), busy_hours_per_month, active_days, float(sessions)
    )
    if sessions > 1 and price.unit in METERED_UNITS:
        return job_cost(price, busy_hours_per_month * 3600, sessions=sessions)
    return charge(price, units)


def break_even_hours(price_a: PriceSpec, price_b: PriceSpec) -> Decimal | None:
    """Busy hours per period of the longer unit at which the two plans cost the same.

    The shorter-unit plan is taken as continuous (charged per hour of use); the longer-unit plan
    costs its amount per period. Below the result the shorter unit is cheaper, above it the longer.
    None when both have the same unit (one is then always cheaper) or the short plan is free.
    e.g. AutoDL 4090: ¥1052 per month against ¥1.98 per hour -> 531 h per month.
    """
    if price_a.currency != price_b.currency:
        raise InvalidWorkload(
            Code.BREAK_EVEN_ONE_CURRENCY, "currency", a=price_a.currency, b=price_b.currency
        )
    short, long = sorted((price_a, price_b), key=lambda p: BILLING_UNIT_SECONDS[p.unit])
    if short.unit == long.unit or short.amount <= 0:
        return None
    per_hour = short.amount * 3600 / BILLING_UNIT_SECONDS[short.unit]
    return long.amount / per_hour


def storage_monthly_cost(
    price: StoragePriceSpec, gb: float, busy_hours_per_month: float
) -> Decimal:
    """Monthly cost of keeping `gb` GB, above the free quota, billed per `price`'s rules."""
    return storage_cost(price, gb, min(busy_hours_per_month, HOURS_PER_MONTH), HOURS_PER_MONTH)


def storage_cost(
    price: StoragePriceSpec, gb: float, busy_hours: float, held_hours: float
) -> Decimal:
    """Cost of keeping `gb` GB, above the free quota, for `held_hours` of which the instance is
    busy `busy_hours`: storage billed while stopped costs every held hour, the rest only the busy
    ones (docs/billing-rules.md, "Storage")."""
    if gb < 0:
        raise InvalidWorkload(Code.STORAGE_NOT_NEGATIVE, "storage_gb")
    billable = Decimal(str(max(gb - price.free_gb, 0.0)))
    hours = held_hours if price.billed_while_stopped else min(busy_hours, held_hours)
    gb_per_unit, hours_per_unit = _STORAGE_UNIT_HOURS[price.unit]
    gb_hours = _CEIL.multiply(billable, Decimal(str(hours)))
    cost = _CEIL.divide(
        _CEIL.multiply(price.amount, gb_hours), Decimal(gb_per_unit * hours_per_unit)
    )
    return max(cost, ZERO)


def find_rate(
    from_ccy: str, to_ccy: str, rates: Sequence[ExchangeRateSpec], as_of: datetime | None = None
) -> ExchangeRateSpec | None:
    """The rate dated closest on or before `as_of` (latest if None) for the pair, either way round.

    None for the same currency; NoFit when no usable rate exists. A direct and an inverse rate
    with the same date: the direct one wins.
    """
    if from_ccy == to_ccy:
        return None
    usable = [
        r
        for r in rates
        if {r.base, r.quote} == {from_ccy, to_ccy} and (as_of is None or r.as_of <= as_of)
    ]
    if not usable:
        if as_of is None:
            raise NoFit(Code.NO_EXCHANGE_RATE_ANY, "currency", base=from_ccy, quote=to_ccy)
        date = f"{as_of:%Y-%m-%d}"
        raise NoFit(Code.NO_EXCHANGE_RATE, "currency", base=from_ccy, quote=to_ccy, date=date)
    return max(usable, key=lambda r: (r.as_of, r.base == from_ccy))


def apply_rate(amount: Decimal, from_ccy: str, rate: ExchangeRateSpec | None) -> Decimal:
    if rate is None:
        return amount
    return amount * rate.rate if rate.base == from_ccy else amount / rate.rate


def convert(
    amount: Decimal,
    from_ccy: str,
    to_ccy: str,
    rates: Sequence[ExchangeRateSpec],
    as_of: datetime | None = None,
) -> tuple[Decimal, ExchangeRateSpec | None]:
    """`amount` in `to_ccy`, and the rate used (None for the same currency)."""
    rate = find_rate(from_ccy, to_ccy, rates, as_of)
    return apply_rate(amount, from_ccy, rate), rate
