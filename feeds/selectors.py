"""Reading feeds for pages: how fresh a platform's prices are and which feed or source saw them."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Q

from platforms.models import Platform, PriceObservation, Source

from .models import Feed


@dataclass
class Freshness:
    # The latest sighting of any of the platform's current prices, and the source of that price.
    last_seen_at: datetime | None
    source: Source | None
    # The feed that sighting came from, when one did.
    feed: Feed | None
    # Of the platform's feeds (and the one above), those that failed FEED_FAILURES_BEFORE_FLAG
    # runs in a row.
    flagged: list[Feed] = field(default_factory=list)


def platform_freshness(platform: Platform, latest: PriceObservation | None) -> Freshness:
    """From the platform's current price seen last (platforms.selectors.latest_seen_price, with
    its source) and one query."""
    source = latest.source if latest is not None else None
    # The platform's feeds, and a feed of rows that name their platforms (native CSV, JSON) when
    # it fetched that latest price or saw it last.
    wanted = Q(platform=platform)
    if source is not None and source.url:
        wanted |= Q(url=source.url)
    if latest is not None:
        wanted |= Q(last_success_at=latest.last_seen_at)
    feeds = list(Feed.objects.filter(wanted).order_by("name"))
    feed = None
    if latest is not None:
        # A feed's prices point to a source with its URL; prices it only saw again keep their
        # first source, but were last seen when its last successful run fetched them.
        feed = next(
            (
                f
                for f in feeds
                if (source is not None and source.url and f.url == source.url)
                or f.last_success_at == latest.last_seen_at
            ),
            None,
        )
    return Freshness(
        last_seen_at=latest.last_seen_at if latest is not None else None,
        source=source,
        feed=feed,
        flagged=[f for f in feeds if f.is_flagged],
    )
