"""Writing a checked import plan through the catalogue's write services (platforms.services).

The plan was checked row by row; the services check the same rules again as they write, in bulk,
and the database's constraints have the last word on anything that changed in between.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import date, datetime
from typing import TYPE_CHECKING

from django.utils import timezone

from platforms import services
from platforms.models import PriceObservation, Source

from .plan import PlannedOffering, PlannedPlatformPrice
from .registry import FORMAT_LABELS

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class Writer:
    """Writes checked batches of a plan inside the caller's transaction, then the platform
    prices; `sources` are the sources it recorded (one per URL and day, shared by the batches).

    Each batch is written in bulk (one insert per kind of row): a 100,000-row catalog is 200
    batches of 500, a few statements each. Raises IntegrityError or ValidationError when the
    catalogue changed since the batch was planned.
    """

    def __init__(
        self,
        *,
        fmt: str,
        filename: str,
        source_url: str,
        created_by: User | None,
    ) -> None:
        self.label = FORMAT_LABELS.get(fmt, fmt)
        self.filename, self.source_url, self.created_by = filename, source_url, created_by
        self._sources: dict[tuple[str, date], Source] = {}

    @property
    def sources(self) -> list[Source]:
        return list(self._sources.values())

    def source_for(self, url: str, when: datetime) -> Source:
        day = timezone.localtime(when).date()
        key = (url or self.source_url, day)
        if key not in self._sources:
            self._sources[key] = services.import_source(
                label=self.label, filename=self.filename, url=key[0], day=day
            )
        return self._sources[key]

    def write(self, batch: list[PlannedOffering]) -> None:
        new = [planned for planned in batch if planned.is_new]
        for planned in new:
            first = min(planned.prices, key=lambda item: item.observed_at, default=None)
            planned.offering.source = (
                self.source_for(first.price.source_url, first.observed_at)
                if first is not None
                else self.source_for("", timezone.now())
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
                observation.source = self.source_for(item.price.source_url, item.observed_at)
                observation.created_by = self.created_by
                observations.append(observation)
        services.price_observations_create(observations=observations)
        for seen_at, seen_again in seen.items():
            services.price_observations_seen(observations=seen_again, seen_at=seen_at)

    def write_platform_prices(self, platform_prices: Sequence[PlannedPlatformPrice]) -> None:
        """Storage and no-GPU-mode prices (native CSV), written after the offerings."""
        if not platform_prices:
            return
        for platform_price in platform_prices:
            platform_price.price.source = self.source_for(
                platform_price.source_url, platform_price.price.observed_at
            )
        services.platform_prices_create(prices=[p.price for p in platform_prices])
