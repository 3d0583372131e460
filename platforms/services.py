"""Writes to the catalogue: keyword-only functions that validate, then save.

Prices are only ever added (`price_observation_create`); the history is never rewritten.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from .models import Offering, PriceObservation, Source

# Clocks of the machines that send prices differ a little; more than this ahead is a mistake.
FUTURE_TOLERANCE = timedelta(minutes=5)


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
    """Record a new observed price. Raises ValidationError with field messages on bad data.

    A price cannot be observed in the future: it would stay "current" until that moment passed.
    """
    now = timezone.now()
    observed_at = observed_at or now
    if observed_at > now + FUTURE_TOLERANCE:
        raise ValidationError({"observed_at": _("A price cannot be observed in the future.")})
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
