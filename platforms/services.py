"""Writes to the catalogue: keyword-only functions that validate, then save.

Prices are only ever added (`price_observation_create`); the history is never rewritten.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from django.db import transaction
from django.utils import timezone

from .models import Offering, PriceObservation, Source


@transaction.atomic
def price_observation_create(
    *,
    offering: Offering,
    unit: str,
    amount: Decimal,
    currency: str,
    source: Source,
    observed_at: datetime | None = None,
    created_by=None,
) -> PriceObservation:
    """Record a new observed price. Raises ValidationError with field messages on bad data."""
    observed_at = observed_at or timezone.now()
    observation = PriceObservation(
        offering=offering,
        unit=unit,
        amount=amount,
        currency=currency,
        source=source,
        observed_at=observed_at,
        last_seen_at=observed_at,
        created_by=created_by,
    )
    observation.full_clean()
    observation.save()
    return observation


def price_observation_seen(*, observation: PriceObservation, seen_at: datetime) -> bool:
    """Note that an unchanged price was still listed at `seen_at`; returns whether it moved."""
    if seen_at <= observation.last_seen_at:
        return False
    updated = PriceObservation.objects.filter(pk=observation.pk, last_seen_at__lt=seen_at).update(
        last_seen_at=seen_at
    )
    observation.last_seen_at = seen_at
    return bool(updated)


def manual_source() -> Source:
    """The source recorded for prices staff type into the admin without naming one."""
    title = "Entered in the admin"
    source, _ = Source.objects.get_or_create(
        title=title,
        url="",
        defaults={"kind": "manual", "publisher": "staff", "confidence": "secondary"},
    )
    return source
