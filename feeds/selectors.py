"""Reading feeds for pages: how fresh a platform's prices are and which feed or source saw them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import F, OuterRef, Q, Subquery

from platforms.models import Platform, PriceObservation, Source, SourceKind
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


# How a current price was last confirmed (the platform page and the staff's price desk): by a
# feed's run, by a member of staff (typed, or "still this price" on the price desk), or by an
# import of a file (the admin's "Import offers", the price desk's pasted table, import_offers, the
# seed).
FEED, STAFF, IMPORT = "feed", "staff", "import"


@dataclass(frozen=True)
class Confirmation:
    # When the price was last confirmed: its last sighting (PriceObservation.last_seen_at).
    at: datetime
    how: str  # FEED, STAFF or IMPORT
    # The staff user who recorded the observation, when one did and no later sighting moved it.
    by: str = ""
    feed: Feed | None = None


def price_confirmations(prices: Sequence[PriceObservation]) -> dict[int, Confirmation]:
    """How and when each of `prices` (with their sources and `created_by` read) was last
    confirmed, by observation pk: one query for the feeds whatever their number, and one more
    where users recorded prices from an import's source.

    A feed's prices point to a source with the feed's URL; a price a feed only saw again keeps its
    first source but was last seen when the feed's last successful run fetched it (as
    `platform_freshness` reads it). A price a user recorded and nothing saw again since was
    confirmed by that user: as staff, or by an import (its source is an import's) unless it repeats
    the price before it (`_repeats`: "still this price"). Any other price was confirmed by an import
    (the seed's, a command's, or one that saw it again: only imports and feeds see prices again)."""
    if not prices:
        return {}
    urls = {p.source.url for p in prices if p.source.url}
    seen = {p.last_seen_at for p in prices}
    feeds = list(Feed.objects.filter(Q(url__in=urls) | Q(last_success_at__in=seen)))
    by_url = {f.url: f for f in sorted(feeds, key=lambda f: f.name, reverse=True)}
    by_run = {f.last_success_at: f for f in feeds if f.last_success_at is not None}
    repeats = _repeats(
        [p for p in prices if p.created_by_id and p.source.kind == SourceKind.IMPORT]
    )
    found = {}
    for price in prices:
        feed = by_url.get(price.source.url) if price.source.url else None
        feed = feed or by_run.get(price.last_seen_at)
        user = price.created_by
        if user is not None and price.last_seen_at == price.observed_at:
            # Recorded by a user and not seen again since: that user confirmed it last.
            how = IMPORT if price.source.kind == SourceKind.IMPORT else STAFF
            how = STAFF if price.pk in repeats else how
            confirmation = Confirmation(price.last_seen_at, how, by=user.get_username())
        elif feed is not None:
            confirmation = Confirmation(price.last_seen_at, FEED, feed=feed)
        else:
            confirmation = Confirmation(price.last_seen_at, IMPORT)
        found[price.pk] = confirmation
    return found


def _repeats(prices: Sequence[PriceObservation]) -> set[int]:
    """Of `prices`, those that repeat the observation before them (same amount, currency and
    source): staff confirming a price ("still this price" on the price desk). An import never
    records the same price again, it moves the last one's `last_seen_at` (docs/native-csv.md,
    "What an import does"). One query, none without `prices`."""
    if not prices:
        return set()
    before = PriceObservation.objects.filter(
        offering=OuterRef("offering"),
        unit=OuterRef("unit"),
        tier=OuterRef("tier"),
        observed_at__lt=OuterRef("observed_at"),
    ).order_by("-observed_at")
    rows = (
        PriceObservation.objects.filter(pk__in=[p.pk for p in prices])
        .annotate(
            before_amount=Subquery(before.values("amount")[:1]),
            before_currency=Subquery(before.values("currency")[:1]),
            before_source=Subquery(before.values("source")[:1]),
        )
        .filter(before_amount=F("amount"), before_currency=F("currency"), before_source=F("source"))
    )
    return set(rows.values_list("pk", flat=True))
