"""The home page's live facts: for the cards renters ask about first, the cheapest current price
per GPU-hour, where it is listed and how old it is, ranked as the offering explorer ranks them
(`selectors.explorer_offerings`, cheapest per GPU-hour first) and priced as its rows are
(`selectors.explorer_rows`)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal

from django.utils import timezone

from . import selectors
from .models import Currency, Offering, price_age_days

# The cards by family: the accelerator slugs each takes in (the RTX 4090's 48 GB rebuilds are
# another card, with another price).
CARDS: tuple[tuple[str, str], ...] = (
    ("RTX 4090", "rtx-4090-24gb"),
    ("A100", "a100-"),
    ("H100", "h100-"),
)


@dataclass(frozen=True)
class CheapestCard:
    family: str
    offering: Offering
    per_gpu_hour: Decimal
    currency: str
    seen: dt.datetime
    age_days: int
    accelerator_slug: str


def cheapest_cards(
    currency: str = Currency.CNY, now: dt.datetime | None = None
) -> list[CheapestCard]:
    """Each family of CARDS with a current price: its cheapest offering per GPU-hour in
    `currency`. Queries: the exchange rates, then two per family (the ranking, the prices)."""
    now = now or timezone.now()
    conversion = selectors.display_conversion(currency)
    # Whole cards only: a pooled share or a MIG slice of one is not "a 4090" at its price.
    ranked = selectors.explorer_offerings({"sort": "gpu_hour"}, conversion).filter(
        pooled_vram_gib__isnull=True, mig_profile=""
    )
    out = []
    for family, slug in CARDS:
        found = (
            ranked.filter(accelerator__slug__startswith=slug)
            if slug.endswith("-")
            else ranked.filter(accelerator__slug=slug)
        )
        first = list(found[:1])
        if not first:
            continue
        [row] = selectors.explorer_rows(first, conversion)
        if row.price is None or row.per_gpu_hour is None:
            continue
        out.append(
            CheapestCard(
                family=family,
                offering=row.offering,
                per_gpu_hour=row.per_gpu_hour,
                currency=conversion.display,
                seen=row.price.last_seen_at,
                age_days=price_age_days(row.price.last_seen_at, now),
                accelerator_slug=row.offering.accelerator.slug,
            )
        )
    return out
