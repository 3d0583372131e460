"""The comparison page says, for each platform, when its prices were last seen and by which feed
or source, in the platform page's words (feeds.selectors.platform_freshness, batched as
platforms_freshness), and flags a failing feed; its queries do not grow with the platforms."""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from feeds.selectors import platform_freshness, platforms_freshness
from feeds.tasks import run_feed
from platforms import services
from platforms.models import Accelerator, Platform, PriceObservation
from platforms.selectors import latest_seen_price
from tests.conftest import NOW, make_offering
from tests.importers.conftest import make_platform

from .conftest import LAMBDA, make_feed

pytestmark = pytest.mark.usefixtures("fast_feeds")


def cell(html: str, index: int) -> str:
    """The comparison's "Prices last seen" cell of the `index`-th platform column."""
    row = re.search(r'<tr data-attribute="prices_seen">(.*?)</tr>', html, flags=re.S)
    assert row, "no freshness row"
    return re.findall(r"<td[^>]*>(.*?)</td>", row[1], flags=re.S)[index]


def compare(client, *platforms: Platform) -> str:
    query = [("platforms", p.slug) for p in platforms]
    url = reverse("platforms:comparison") + "?" + "&".join(f"{k}={v}" for k, v in query)
    return client.get(url).content.decode()


def priced(platform: Platform, source) -> PriceObservation:
    """A price of `platform` from `source`, with no feed: an RTX 4090 at 1.88 CNY an hour."""
    offering = make_offering(platform, Accelerator.objects.get(slug="rtx-4090-24gb"), source)
    return services.price_observation_create(
        offering=offering,
        unit="hour",
        amount=Decimal("1.88"),
        currency="CNY",
        source=source,
        observed_at=NOW - timedelta(days=1),
    )


def local(when) -> str:
    return timezone.localtime(when).strftime("%Y-%m-%d %H:%M")


def test_each_platform_says_which_feed_or_source_saw_its_prices_last(
    client, feed_server, lambda_cloud, platform, source
):
    feed = make_feed(feed_server.serve_sample("/vms.csv", LAMBDA), lambda_cloud)
    run_feed.delay(feed_id=feed.pk)
    feed.refresh_from_db()
    silent = make_platform("silent", "Silent", ["cloud_vm"])
    new = priced(platform, source)
    # Columns follow the platforms' English names: Lambda, Silent, Test Cloud.
    html = compare(client, lambda_cloud, platform, silent)

    by_feed = cell(html, 0)
    assert (
        f"Prices last seen {local(feed.last_success_at)} by the feed <strong>lambda</strong> "
        "(SkyPilot catalog (vms.csv))."
    ) in by_feed
    assert "No prices seen yet." in cell(html, 1)
    assert f"Prices last seen {local(new.last_seen_at)}, from Test price list." in cell(html, 2)
    assert "feed failing" not in html


def test_a_failing_feed_is_flagged_in_its_platform_s_column(
    client, feed_server, lambda_cloud, settings
):
    feed = make_feed(feed_server.serve_sample("/vms.csv", LAMBDA), lambda_cloud)
    run_feed.delay(feed_id=feed.pk)
    settings.FEED_MAX_RETRIES = 0
    feed_server.serve("/vms.csv", "x", status=500)
    for _ in range(3):
        run_feed.delay(feed_id=feed.pk)

    flagged = cell(compare(client, lambda_cloud), 0)

    assert "feed failing" in flagged and "failed its last 3 runs in a row" in flagged


def test_the_batch_is_the_platform_page_s_freshness(feed_server, lambda_cloud, platform, source):
    """platforms_freshness gives each platform what its page shows (platform_freshness)."""
    feed = make_feed(feed_server.serve_sample("/vms.csv", LAMBDA), lambda_cloud)
    run_feed.delay(feed_id=feed.pk)
    priced(platform, source)
    silent = make_platform("silent", "Silent", ["cloud_vm"])
    platforms = [lambda_cloud, platform, silent]
    batch = platforms_freshness(platforms)
    for p in platforms:
        one = platform_freshness(p, latest_seen_price(p))
        assert (batch[p.pk].last_seen_at, batch[p.pk].source, batch[p.pk].feed) == (
            one.last_seen_at,
            one.source,
            one.feed,
        )
        assert batch[p.pk].flagged == one.flagged
    assert batch[lambda_cloud.pk].feed == feed and batch[silent.pk].last_seen_at is None


def test_the_freshness_row_costs_three_queries_whatever_the_platforms(
    django_assert_num_queries, lambda_cloud, platform, source
):
    priced(platform, source)
    few = [lambda_cloud, platform]
    many = few + [make_platform(f"p{i}", f"P{i}", ["cloud_vm"]) for i in range(5)]
    for platforms in (few, many):
        with django_assert_num_queries(3):  # latest per platform, those prices, their feeds
            platforms_freshness(platforms)
