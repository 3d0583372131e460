"""Writing a checked import plan through the catalogue's write services (platforms.services).

The plan was checked row by row; the services check the same rules again as they write, in bulk,
and the database's constraints have the last word on anything that changed in between.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from datetime import date, datetime
from typing import TYPE_CHECKING

from django.utils import timezone

from platforms import services
from platforms.models import PriceObservation, Source

from .plan import PlannedOffering, PlannedPlatformPrice
from .registry import FORMAT_LABELS

if TYPE_CHECKING:
    from django.contrib.auth.models import User

# Rows written per statement: bulk inserts keep a 10,000-row catalog to seconds, not minutes.
WRITE_BATCH = 500


def apply(
    plan: list[PlannedOffering],
    *,
    fmt: str,
    filename: str,
    source_url: str,
    created_by: User | None,
    tick: Callable[[list[int]], None],
    platform_prices: Sequence[PlannedPlatformPrice] = (),
) -> list[Source]:
    """Write a checked plan inside the caller's transaction; returns the sources it recorded.

    `platform_prices`: storage and no-GPU-mode prices (native CSV), written after the offerings.

    Raises IntegrityError or ValidationError when the catalogue changed since the plan was made.
    """
    label = FORMAT_LABELS.get(fmt, fmt)
    sources: dict[tuple[str, date], Source] = {}

    def source_for(url: str, when: datetime) -> Source:
        day = timezone.localtime(when).date()
        key = (url or source_url, day)
        if key not in sources:
            sources[key] = services.import_source(
                label=label, filename=filename, url=key[0], day=day
            )
        return sources[key]

    for start in range(0, len(plan), WRITE_BATCH):
        batch = plan[start : start + WRITE_BATCH]
        new = [planned for planned in batch if planned.is_new]
        for planned in new:
            first = min(planned.prices, key=lambda item: item.observed_at, default=None)
            planned.offering.source = (
                source_for(first.price.source_url, first.observed_at)
                if first is not None
                else source_for("", timezone.now())
            )
        services.offerings_create(offerings=[planned.offering for planned in new])
        for planned in batch:
            if not planned.is_new and planned.changed_fields:
                services.offering_update(offering=planned.offering, fields=planned.changed_fields)

        observations = []
        seen: dict[datetime, list[PriceObservation]] = defaultdict(list)
        for planned in batch:
            for item in planned.prices:
                if not item.is_new:
                    seen[item.observed_at].append(item.observation)
                    continue
                observation = item.observation
                observation.offering = planned.offering
                observation.source = source_for(item.price.source_url, item.observed_at)
                observation.created_by = created_by
                observations.append(observation)
        services.price_observations_create(observations=observations)
        for seen_at, seen_again in seen.items():
            services.price_observations_seen(observations=seen_again, seen_at=seen_at)
        tick([line for planned in batch for line in planned.row.lines])
    if platform_prices:
        for platform_price in platform_prices:
            platform_price.price.source = source_for(
                platform_price.source_url, platform_price.price.observed_at
            )
        services.platform_prices_create(prices=[p.price for p in platform_prices])
        tick([p.line for p in platform_prices])
    return list(sources.values())
