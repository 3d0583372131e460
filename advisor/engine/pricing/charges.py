"""What a price charges for a use, in the three forms the advisor needs, side by side so that they
cannot drift apart:

* **exact** (Decimal: what is shown, the CSV and the API): `run_units`, the units a use is billed,
  each run metered on its own; `run_charge`, those units at the price, never below its minimum
  charge;
* **fast** (float: what ranks thousands of offerings): `fast_charge`, `fast_group_costs` and
  `fast_cost`, the same rule on the exact units converted to floats once per bill;
* **lower bound** (float: what orders offerings before they are priced, prune.py):
  `least_factor`, by which an amount times the units is the charge before its minimum charge,
  which only raises it.

Every form reads the price through its kind (pricing.kind: metering step, start-up billing,
minimum charge, currency), so a billing rule is written once, in the exact units or the exact
charge, and the other forms follow (the fast forms read the exact units; the bound is the
charge before its floors). tests/advisor/engine/test_pricing.py holds bound ≤ fast = exact on
every field of the kind.

Billing rules and their sources: docs/billing-rules.md; the metering itself: billing.py.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import ROUND_CEILING, Context, Decimal

from advisor.engine.billing import ZERO, billed_steps, billed_units, charge, period_units
from advisor.engine.pricing.kind import Metering
from advisor.engine.types import BILLING_UNIT_SECONDS, PriceSpec
from advisor.engine.usage import Usage
from advisor.engine.vocab import METERED_UNITS

_CEIL = Context(prec=28, rounding=ROUND_CEILING)  # charges round up, as in billing.py


def runs_decimal(runs: float) -> Decimal:
    return Decimal(repr(float(runs)))


# ------------------------------------------------------------------------------------------ exact


def run_units(metering: Metering, use: Usage, startup: float = 0.0) -> Decimal:
    """Units of `metering`'s unit charged for `use` over its period: on a metered price each of
    its runs is rounded up on its own to the metering step, with `startup` seconds billed per run
    (Metering.startup_seconds); prepaid plans as billing.period_units, covering the calendar its
    runs are held through. A rule of the metering is applied here, from the metering itself."""
    unit, granularity_seconds = metering.unit, metering.step
    if unit not in METERED_UNITS or (use.runs == 1 and not startup):
        return period_units(
            unit,
            granularity_seconds,
            use.hours,
            use.months,
            use.active_days,
            use.runs,
            use.held_hours,
        )
    if use.hours <= 0:
        return ZERO
    per_run = use.hours * 3600 / use.runs + startup
    if per_run < 0 or math.isnan(per_run):  # billed_units says why
        return billed_units(unit, granularity_seconds, per_run)
    seconds = billed_steps(granularity_seconds, per_run) * granularity_seconds
    # One division of the billed seconds of all runs: 30 runs of 13 h 20 min are 400 h exactly.
    return _CEIL.divide(
        Decimal(seconds) * runs_decimal(use.runs), Decimal(BILLING_UNIT_SECONDS[unit])
    )


def run_charge(price: PriceSpec, units: Decimal, runs: float) -> Decimal:
    """`units` of `price` over `runs` runs: a metered price never charges a run less than its
    minimum charge (billing.charge applies it once, to a prepaid plan)."""
    if units == 0:
        return ZERO
    if price.unit not in METERED_UNITS or runs == 1:
        return charge(price, units)
    floor = price.min_charge * runs_decimal(runs)
    return max(charge(price, units), floor)


# ------------------------------------------------------------------------------------------- fast


def fast_charge(price: PriceSpec, units: float, runs: float) -> float:
    """run_charge as a float, on the exact units as a float."""
    if not units:
        return 0.0
    floor = float(price.min_charge)
    if price.unit in METERED_UNITS:
        floor *= runs
    return max(price.amount_float * units, floor, 0.0)


def fast_group_costs(
    price: PriceSpec, units: Sequence[float], groups: Sequence[tuple[Usage, int]], rate: float
) -> list[float]:
    """Each usage group's cost on `price`, converted at `rate`: its `units` per instance (one
    per group), the minimum charge per run, times its instances."""
    return [
        fast_charge(price, u, use.runs) * rate * n
        for u, (use, n) in zip(units, groups, strict=True)
    ]


def fast_cost(
    price: PriceSpec,
    units: Sequence[float],
    total: float,
    groups: Sequence[tuple[Usage, int]],
    rate: float,
) -> float:
    """`price` for every instance of every group, converted at `rate`: without a minimum charge
    the cost is linear in the units, so one multiplication of the `total` units prices all."""
    if price.min_charge:
        return sum(fast_group_costs(price, units, groups, rate))
    return price.amount_float * total * rate if total else 0.0


# ------------------------------------------------------------------------------------ lower bound


def least_factor(units: float, instances: int, rate: float) -> float:
    """What turns an amount into a lower bound of what `instances` instances billed `units` each
    cost at that amount a unit, converted at `rate`: the charge before its minimum (which only
    raises it). Offerings of one kind on one bill share it: their bounds are `amount × factor`
    (prune.py sorts the amounts once per catalogue)."""
    return units * instances * rate
