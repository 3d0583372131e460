"""Reading feeds for pages: how fresh a platform's prices are and which feed or source saw them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Q

from platforms.models import Platform, PriceObservation, Source
from platforms.selectors import latest_seen_prices

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
    return _freshness(latest, list(Feed.objects.filter(_wanted(platform, latest))))


def platforms_freshness(platforms: Sequence[Platform]) -> dict[int, Freshness]:
    """platform_freshness of each of `platforms`, by pk, in three queries whatever their number
    (the comparison page): their latest-seen prices (platforms.selectors.latest_seen_prices) and
    every feed any of them may name."""
    latest = latest_seen_prices(platforms)
    wanted = Q(pk__in=[])
    for platform in platforms:
        wanted |= _wanted(platform, latest.get(platform.pk))
    feeds = list(Feed.objects.filter(wanted)) if platforms else []
    return {
        p.pk: _freshness(latest.get(p.pk), [f for f in feeds if _names(f, p, latest.get(p.pk))])
        for p in platforms
    }


def _wanted(platform: Platform, latest: PriceObservation | None) -> Q:
    """The platform's feeds, and a feed of rows that name their platforms (native CSV, JSON) when
    it fetched that latest price or saw it last."""
    source = latest.source if latest is not None else None
    wanted = Q(platform=platform)
    if source is not None and source.url:
        wanted |= Q(url=source.url)
    if latest is not None:
        wanted |= Q(last_success_at=latest.last_seen_at)
    return wanted


def _names(feed: Feed, platform: Platform, latest: PriceObservation | None) -> bool:
    """`feed` is one _wanted(platform, latest) selects."""
    if feed.platform_id == platform.pk:
        return True
    if latest is None:
        return False
    url = latest.source.url if latest.source is not None else ""
    return bool(url and feed.url == url) or feed.last_success_at == latest.last_seen_at


def _freshness(latest: PriceObservation | None, feeds: list[Feed]) -> Freshness:
    """A platform's Freshness from its latest-seen price and the feeds _wanted selects for it."""
    feeds = sorted(feeds, key=lambda f: f.name)
    source = latest.source if latest is not None else None
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
