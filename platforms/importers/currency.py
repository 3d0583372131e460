"""Converting prices between currencies at the rate of a stated date.

A CNY price and a USD price are only compared after converting one of them with a recorded
ExchangeRate, and the result says which rate, of which date, from which source: "at 6.7351 CNY per
USD on 2026-09-30". The rate used is the latest on or before the date asked for (never a later one:
a comparison as of September must not use October's rate). Only one direction of a pair needs to be
recorded; the other is its inverse.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal

from django.utils import timezone

from platforms.models import ExchangeRate, Source

AMOUNT_PLACES = Decimal("0.0001")


class NoExchangeRate(LookupError):
    """No rate for the pair on or before the date: add one in the admin (Exchange rates)."""


@dataclass(frozen=True)
class Conversion:
    amount: Decimal
    currency: str
    original_amount: Decimal
    original_currency: str
    rate: Decimal  # units of `currency` per unit of `original_currency`
    rate_date: date | None  # None only when no conversion was needed
    source: Source | None
    inverted: bool = False  # the rate is 1 / the recorded rate of the opposite pair

    def __str__(self) -> str:
        if self.rate_date is None:
            return f"{self.amount:f} {self.currency}"
        return (
            f"{self.original_amount:f} {self.original_currency} = {self.amount:f} {self.currency} "
            f"{self.describe_rate()}"
        )

    def describe_rate(self) -> str:
        if self.rate_date is None:
            return "(same currency)"
        # Quote the rate the way it is recorded (CNY per USD), whichever way we converted.
        if self.inverted:
            shown, per, quote = 1 / self.rate, self.currency, self.original_currency
        else:
            shown, per, quote = self.rate, self.original_currency, self.currency
        source = f", {self.source.title}" if self.source else ""
        return (
            f"at {shown.quantize(Decimal('0.000001')).normalize():f} {quote} per {per} "
            f"on {self.rate_date.isoformat()}{source}"
        )


def _day(as_of: date | datetime) -> date:
    if isinstance(as_of, datetime):
        return timezone.localtime(as_of).date() if timezone.is_aware(as_of) else as_of.date()
    return as_of


def latest_rate(base: str, quote: str, *, as_of: date | datetime) -> ExchangeRate | None:
    return (
        ExchangeRate.objects.filter(base=base, quote=quote, as_of__lte=_day(as_of))
        .select_related("source")
        .order_by("-as_of")
        .first()
    )


def convert(amount: Decimal, from_ccy: str, to_ccy: str, *, as_of: date | datetime) -> Conversion:
    """`amount` in `from_ccy` expressed in `to_ccy` at the latest rate on or before `as_of`.

    The direct pair and the opposite pair are both looked up; the more recent rate wins (the
    direct one on a tie). Raises NoExchangeRate when neither has a rate on or before the date.
    """
    amount = Decimal(amount)
    if from_ccy == to_ccy:
        return Conversion(amount, to_ccy, amount, from_ccy, Decimal(1), None, None)
    day = _day(as_of)
    direct = latest_rate(from_ccy, to_ccy, as_of=day)
    opposite = latest_rate(to_ccy, from_ccy, as_of=day)
    if direct is None and opposite is None:
        raise NoExchangeRate(
            f"No {from_ccy}/{to_ccy} exchange rate on or before {day.isoformat()}: "
            "add one under Exchange rates in the admin."
        )
    if direct is not None and (opposite is None or direct.as_of >= opposite.as_of):
        rate, used, inverted = direct.rate, direct, False
    else:
        assert opposite is not None
        rate, used, inverted = 1 / opposite.rate, opposite, True
    converted = (amount * rate).quantize(AMOUNT_PLACES)
    return Conversion(converted, to_ccy, amount, from_ccy, rate, used.as_of, used.source, inverted)
