"""The article's own pick against the advisor's answer, for a workload.

The seed article recommends an offering (or, in its tip 4, a plan of two) for each of its
scenarios. `pick_pool` finds that offering in the catalogue (a platform, the accelerators, GPU
count, sharing and billing units the article names); plans.price_legs prices it for the
scenario as the advisor prices anything; `judge` compares it with the advisor's answer on the
scenario's objective and says so in one message:

* the article's pick is the advisor's answer, or within ranking.TIE_FRACTION of it: it wins;
* else what the answer saves (cost objective; balanced when the answer is cheaper) or how many
  times faster it is (time objective; balanced when only faster), and why: fewer GPUs billed, a
  cheaper GPU-hour, another billing unit, faster cards, or the tasks split between platforms;
* the pick cannot run the workload (with the closest miss), has no current price, or nothing
  in the catalogue runs it at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from decimal import Decimal

from advisor.engine.billing import cents
from advisor.engine.messages import Code, Message, Money, Param, fraction, hours, msg
from advisor.engine.plans import Leg, Plan
from advisor.engine.ranking import TIE_FRACTION
from advisor.engine.types import OfferingSpec
from advisor.engine.vocab import BillingUnit, CostBasis, Objective

_TIE = Decimal(str(TIE_FRACTION))


@dataclass(frozen=True)
class PickLeg:
    """One offering the article names: its platform, and what narrows it down there."""

    platform: str  # a slug; "" for any platform (the article names a card, not where)
    accelerators: tuple[str, ...] = ()
    gpu_count: int | None = None
    sharing: str | None = None
    units: tuple[str, ...] = ()  # billing units the article names (its "包月" is month)
    tasks: tuple[str, ...] = ()  # the tasks this leg runs (every task when empty)


@dataclass(frozen=True)
class Verdict:
    message: Message
    # True: the article's pick is the answer or within the tie band; False: another plan beats
    # it; None: they cannot be compared (the pick cannot run, has no price, nothing runs).
    pick_wins: bool | None
    pick: Plan | None = None
    best: Plan | None = None
    saving: Decimal | None = None  # pick cost - best cost, on the ranked basis
    speedup: float | None = None  # pick time / best time
    # When part of the pick has no price: the legs that have one, priced (a lower bound).
    priced_part: Plan | None = None


def pick_pool(leg: PickLeg, offerings: Sequence[OfferingSpec]) -> list[OfferingSpec]:
    """The catalogue's offerings that are the article's pick (with only the units it names)."""
    out = []
    for off in offerings:
        if leg.platform and off.platform != leg.platform:
            continue
        if leg.accelerators and off.accelerator.slug not in leg.accelerators:
            continue
        if leg.gpu_count is not None and off.gpu_count != leg.gpu_count:
            continue
        if leg.sharing is not None and off.sharing != leg.sharing:
            continue
        if leg.units:
            off = replace(off, prices=tuple(p for p in off.prices if p.unit in leg.units))
        out.append(off)
    return out


def judge(
    pick_label: str,
    pick: Plan | None,
    best: Plan | None,
    objective: str,
    *,
    why_not: Message | None = None,
    unpriced: str = "",
    priced_part: Plan | None = None,
) -> Verdict:
    """The verdict on the article's pick (module docstring). `why_not`: why the pick cannot run
    (the closest miss); `unpriced`: what of the pick has no current price, and `priced_part`
    the legs of it that have one."""
    if best is None:
        return Verdict(msg(Code.VERDICT_NOTHING_RUNS, pick=pick_label), None)
    if pick is None:
        if unpriced:
            message = msg(Code.VERDICT_PICK_UNPRICED, pick=pick_label, what=unpriced)
            if priced_part is not None and priced_part.cost >= best.cost:
                # The legs with a price already cost more than the whole answer: the pick loses
                # whatever the rest costs.
                per = BillingUnit.MONTH if best.basis is CostBasis.MONTH else ""
                message = msg(
                    Code.VERDICT_PART_COSTS_MORE,
                    pick=pick_label,
                    what=unpriced,
                    part=priced_part.label(),
                    part_cost=_money(priced_part.cost, best.currency, per),
                    best=best.label(),
                    best_cost=_money(best.cost, best.currency, per),
                )
                return Verdict(message, False, None, best, priced_part=priced_part)
        else:
            reason: Param = why_not if why_not is not None else msg(Code.REJECT_DOES_NOT_FIT)
            message = msg(Code.VERDICT_PICK_CANNOT_RUN, pick=pick_label, reason=reason)
        return Verdict(message, None, None, best, priced_part=priced_part)
    per = BillingUnit.MONTH if best.basis is CostBasis.MONTH else ""
    ccy = best.currency
    saving = pick.cost - best.cost
    speedup = _speedup(pick, best)
    if set(pick.offering_ids) == set(best.offering_ids):
        message = msg(Code.VERDICT_PICK_WINS, pick=pick_label, cost=_money(pick.cost, ccy, per))
        return Verdict(message, True, pick, best, saving, speedup)
    by_time = objective == Objective.TIME and speedup is not None
    if objective == Objective.BALANCED and saving <= 0 and speedup is not None:
        by_time = True
    if by_time and speedup is not None and speedup > 1 + TIE_FRACTION:
        assert pick.time_hours is not None and best.time_hours is not None
        message = msg(
            Code.VERDICT_OTHER_FASTER,
            pick=pick_label,
            pick_time=hours(pick.time_hours),
            best=best.label(),
            ratio=round(speedup, 1),
            best_time=hours(best.time_hours),
            because=_because(best, pick, by_time=True),
        )
        return Verdict(message, False, pick, best, saving, speedup)
    if not by_time and saving > best.cost * _TIE:
        message = msg(
            Code.VERDICT_OTHER_CHEAPER,
            pick=pick_label,
            pick_cost=_money(pick.cost, ccy, per),
            best=best.label(),
            saving=_money(saving, ccy, per),
            best_cost=_money(best.cost, ccy, per),
            because=_because(best, pick, by_time=False),
        )
        return Verdict(message, False, pick, best, saving, speedup)
    message = msg(
        Code.VERDICT_PICK_CLOSE,
        pick=pick_label,
        pick_cost=_money(pick.cost, ccy, per),
        limit=fraction(TIE_FRACTION),
        best=best.label(),
        best_cost=_money(best.cost, ccy, per),
    )
    return Verdict(message, True, pick, best, saving, speedup)


def _speedup(pick: Plan, best: Plan) -> float | None:
    if pick.time_hours is None or best.time_hours is None or best.time_hours <= 0:
        return None
    return pick.time_hours / best.time_hours


def _because(best: Plan, pick: Plan, *, by_time: bool) -> tuple[Message, ...]:
    """Why the answer beats the pick: the first differences that explain it."""
    out: list[Message] = []
    if len(best.legs) > 1 and best.across_platforms:
        out.append(msg(Code.BECAUSE_SPLIT, platforms=best.platforms))
    elif len(pick.legs) > 1:
        out.append(msg(Code.BECAUSE_ONE_LEG))
    gpus, pick_gpus = _gpus(best.legs), _gpus(pick.legs)
    if by_time:
        a, b = best.legs[0], pick.legs[0]
        out.append(
            msg(
                Code.BECAUSE_FASTER_GPUS,
                gpus=gpus,
                accelerator=a.accelerator_name,
                pick_gpus=pick_gpus,
                pick_accelerator=b.accelerator_name,
            )
        )
        return tuple(out)
    if gpus < pick_gpus:
        out.append(msg(Code.BECAUSE_FEWER_GPUS, gpus=gpus, pick_gpus=pick_gpus))
    price, pick_price = _gpu_hour(best), _gpu_hour(pick)
    if price is not None and pick_price is not None and price < pick_price:
        ccy = best.currency
        out.append(
            msg(
                Code.BECAUSE_CHEAPER_GPU_HOUR,
                price=Money(price, ccy),
                pick_price=Money(pick_price, ccy),
            )
        )
    units, pick_units = _units(best), _units(pick)
    if units != pick_units and len(best.legs) == 1 and len(pick.legs) == 1:
        out.append(msg(Code.BECAUSE_BILLING_UNIT, unit=units[0], pick_unit=pick_units[0]))
    return tuple(out) or (msg(Code.BECAUSE_CHEAPER_PLAN),)


def _gpus(legs: Sequence[Leg]) -> int:
    return sum(leg.gpus for leg in legs)


def _gpu_hour(plan: Plan) -> Decimal | None:
    """What a busy GPU-hour costs in the busiest month: the plans' charges (storage left out) over
    the GPU-hours used."""
    used = sum(leg.gpu_hours for leg in plan.legs)
    if used <= 0:
        return None
    charged = sum((leg.plan.converted_monthly for leg in plan.legs), Decimal(0))
    return (charged / Decimal(repr(used))).quantize(Decimal("0.01"))


def _units(plan: Plan) -> tuple[BillingUnit | str, ...]:
    return tuple(
        leg.plan.unit if leg.plan.unit == "mixed" else BillingUnit(leg.plan.unit)
        for leg in plan.legs
    )


def _money(amount: Decimal, currency: str, per: str = "") -> Money:
    return Money(cents(amount), currency, per=per)


__all__ = ["PickLeg", "Verdict", "judge", "pick_pool"]
