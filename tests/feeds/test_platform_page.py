"""A platform's page says when its prices were last seen and by which feed or source, and warns
when a feed of it keeps failing."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import timezone

from feeds.tasks import run_feed
from platforms import services

from .conftest import LAMBDA, make_feed, make_platform

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "feeds-example.json"

pytestmark = pytest.mark.usefixtures("fast_feeds")


def page(client, platform) -> str:
    return client.get(reverse("platforms:detail", args=[platform.slug])).content.decode()


def test_the_page_names_the_feed_that_last_saw_the_prices(client, feed_server, lambda_cloud):
    feed = make_feed(feed_server.serve_sample("/vms.csv", LAMBDA), lambda_cloud)
    run_feed.delay(feed_id=feed.pk)
    feed.refresh_from_db()
    when = timezone.localtime(feed.last_success_at).strftime("%Y-%m-%d %H:%M")

    html = page(client, lambda_cloud)

    assert (
        f"Prices last seen {when} by the feed <strong>lambda</strong> (SkyPilot catalog (vms.csv))."
    ) in html
    assert "feed failing" not in html


def test_prices_seen_again_are_credited_to_the_feed(client, feed_server, lambda_cloud):
    """The second run only re-sees prices (their source is the first run's); the page still
    names the feed and the second run's time."""
    feed = make_feed(feed_server.serve_sample("/vms.csv", LAMBDA), lambda_cloud)
    run_feed.delay(feed_id=feed.pk)
    run_feed.delay(feed_id=feed.pk)
    feed.refresh_from_db()
    when = timezone.localtime(feed.last_success_at).strftime("%Y-%m-%d %H:%M")

    assert f"Prices last seen {when} by the feed <strong>lambda</strong>" in page(
        client, lambda_cloud
    )


def test_without_a_feed_the_page_names_the_source(client, platform, price_history):
    _old, new = price_history
    when = timezone.localtime(new.last_seen_at).strftime("%Y-%m-%d %H:%M")

    assert f"Prices last seen {when}, from Test price list." in page(client, platform)


def test_a_platform_without_prices_says_so(client, platform):
    assert "No prices seen yet." in page(client, platform)


def test_a_failing_feed_is_flagged_on_the_page(client, feed_server, lambda_cloud, settings):
    feed = make_feed(feed_server.serve_sample("/vms.csv", LAMBDA), lambda_cloud)
    run_feed.delay(feed_id=feed.pk)
    settings.FEED_MAX_RETRIES = 0
    feed_server.serve("/vms.csv", "x", status=500)
    for _ in range(3):
        run_feed.delay(feed_id=feed.pk)
    feed.refresh_from_db()
    when = timezone.localtime(feed.last_success_at).strftime("%Y-%m-%d %H:%M")

    html = page(client, lambda_cloud)

    assert '<span class="badge stale">feed failing</span>' in html
    assert (
        "The feed lambda failed its last 3 runs in a row; these prices may be out of date. "
        f"Last success: {when}."
    ) in html


def test_prices_whose_source_is_not_the_feed_are_still_credited_to_it(
    client, feed_server, accelerators
):
    """A JSON feed names the page its prices come from (its source); the page still names the
    feed that saw them, by the time it saw them."""
    autodl = make_platform("autodl", "AutoDL", ["cloud_container"])
    url = feed_server.serve("/autodl.json", EXAMPLE.read_bytes())
    feed = make_feed(url, None, name="autodl-json", fmt="json")
    run_feed.delay(feed_id=feed.pk)
    feed.refresh_from_db()
    when = timezone.localtime(feed.last_success_at).strftime("%Y-%m-%d %H:%M")

    assert (
        f"Prices last seen {when} by the feed <strong>autodl-json</strong> (JSON feed)."
    ) in page(client, autodl)


def test_a_price_seen_again_is_on_the_next_page(client, platform, price_history):
    """The price seen last is kept per catalogue version (platforms.views.SEEN_LAST): a sighting
    is a write, so the next page has it."""

    _old, new = price_history
    before = timezone.localtime(new.last_seen_at).strftime("%Y-%m-%d %H:%M")
    assert f"Prices last seen {before}, from Test price list." in page(client, platform)
    assert f"Prices last seen {before}" in page(client, platform)  # kept: the same answer

    seen = (timezone.now() - timedelta(minutes=1)).replace(second=0, microsecond=0)
    assert services.price_observation_seen(observation=new, seen_at=seen)
    after = timezone.localtime(seen).strftime("%Y-%m-%d %H:%M")
    assert after != before
    assert f"Prices last seen {after}, from Test price list." in page(client, platform)
