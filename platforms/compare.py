"""Two to four offerings side by side: specs, every current price per unit and per GPU-hour in
one currency, the platform's storage prices and billing rules, and where each fact came from with
its age. The page (/offerings/compare/?ids=12&ids=31) and the API (/api/v1/offerings/compare/)
both read `compare_offerings`; with a scenario, advisor.services.scenario_on_offerings adds each
offering's fit, time, cost and placement.

Queries, whatever the catalogue holds: the offerings with platform, accelerator, sources and
billing rules (1), their current prices with sources (Offering.objects.for_catalog(): 1), the
platforms' latest storage prices (1), and the exchange rates of the display currency (one per
other currency).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.utils.translation import gettext_lazy as _

from advisor.engine import vocab

from .models import BillingRules, Offering, PriceObservation, StoragePrice
from .selectors import Conversion, current_prices_by_unit, display_conversion

MIN_OFFERINGS = 2
MAX_OFFERINGS = 4
MONEY_PLACES = Decimal("0.0001")


class CompareError(ValueError):
    """The ids do not name two to four listed offerings: the message says what is wrong."""


@dataclass(frozen=True)
class ComparedPrice:
    price: PriceObservation
    converted: Decimal | None  # in the display currency; None without an exchange rate
    per_gpu_hour: Decimal | None  # converted, spread over the unit's hours and the GPUs
    age_days: int


@dataclass(frozen=True)
class ComparedOffering:
    offering: Offering
    prices: list[ComparedPrice]
    storage: list[StoragePrice]
    rules: BillingRules | None
    source_age_days: int | None  # of the offering's own source, by its date

    @property
    def cheapest_gpu_hour(self) -> Decimal | None:
        known = [p.per_gpu_hour for p in self.prices if p.per_gpu_hour is not None]
        return min(known, default=None)


@dataclass(frozen=True)
class Comparison:
    offerings: list[ComparedOffering]
    conversion: Conversion


def parse_ids(values: Sequence[str]) -> list[int]:
    """The `ids` of the query: two to four distinct whole numbers, in the order given."""
    ids: list[int] = []
    for value in values:
        for part in str(value).split(","):
            part = part.strip()
            if not part:
                continue
            if not part.isdigit():
                raise CompareError(
                    _("Offering ids are whole numbers: %(value)s is not.") % {"value": part}
                )
            if int(part) not in ids:
                ids.append(int(part))
    if not MIN_OFFERINGS <= len(ids) <= MAX_OFFERINGS:
        raise CompareError(
            _("Pick %(low)s to %(high)s offerings to compare; %(n)s given.")
            % {"low": MIN_OFFERINGS, "high": MAX_OFFERINGS, "n": len(ids)}
        )
    return ids


def compare_offerings(ids: Sequence[int], currency: str, *, now: datetime) -> Comparison:
    """The offerings `ids` (listed ones, in that order) side by side (module docstring)."""
    rows = (
        Offering.objects.for_catalog()
        .filter(pk__in=ids)
        .select_related(
            "platform__billing_rules__source__speaker",
            "platform__source__speaker",
            "source__speaker",
        )
    )
    found = {o.pk: o for o in rows}
    missing = [pk for pk in ids if pk not in found]
    if missing:
        raise CompareError(
            _("No listed offering has the id %(ids)s.")
            % {"ids": ", ".join(str(pk) for pk in missing)}
        )
    offerings = [found[pk] for pk in ids]
    platforms = {o.platform_id for o in offerings}
    storage: dict[int, list[StoragePrice]] = {pk: [] for pk in platforms}
    latest = StoragePrice.objects.latest_per_kind().filter(platform__in=platforms)
    for item in latest.select_related("source").order_by("kind"):
        storage[item.platform_id].append(item)
    conversion = display_conversion(currency)
    out = []
    for offering in offerings:
        prices = [
            _compared(p, offering.gpu_count, conversion, now)
            for p in current_prices_by_unit(offering)
        ]
        try:
            rules: BillingRules | None = offering.platform.billing_rules
        except BillingRules.DoesNotExist:
            rules = None
        date = offering.source.date
        age = None if date is None else (now.date() - date).days
        out.append(ComparedOffering(offering, prices, storage[offering.platform_id], rules, age))
    return Comparison(out, conversion)


def _compared(
    price: PriceObservation, gpus: int, conversion: Conversion, now: datetime
) -> ComparedPrice:
    converted = conversion.convert(price.amount, price.currency)
    per_gpu = None
    if converted is not None:
        per_gpu = vocab.price_per_gpu_hour(converted, price.unit, gpus).quantize(MONEY_PLACES)
    return ComparedPrice(price, converted, per_gpu, (now - price.last_seen_at).days)


__all__ = [
    "MAX_OFFERINGS",
    "MIN_OFFERINGS",
    "CompareError",
    "ComparedOffering",
    "ComparedPrice",
    "Comparison",
    "compare_offerings",
    "parse_ids",
]
