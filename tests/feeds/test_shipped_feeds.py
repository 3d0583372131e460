"""The feeds a fresh install ships (fixtures/feeds.json): defined by the seed, inert where
FEEDS_ENABLED is off (`make run`, the tests), and each refreshing the catalogue from its recorded
response (tests/feeds/data, README.md there) served by the local feed server.

The expected figures are read from the recorded files themselves: SkyPilot's `Price` is USD per
instance-hour for all its GPUs; zones of one instance type and region fold into one offering at
the lowest price (the spot price of p3.2xlarge in ap-northeast-1 is the lower of its two zones,
1.4909); GCP's A100 offering is its a2 host VM's price plus the GPUs' (SkyPilot's
sky/catalog/gcp_catalog.py joins them so). The ECB's file of 2025-05-09 gives 1 EUR = 1.1252 USD
and 8.1470 CNY, so 1 USD = 8.1470 / 1.1252 = 7.240491 CNY (six places).
"""

from __future__ import annotations

import csv
import json
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.management import call_command
from django.urls import reverse

from feeds.models import Feed, FeedListing, FeedRun
from feeds.tasks import run_due_feeds
from platforms.models import ExchangeRate, Offering, Platform, PriceObservation

DATA = Path(__file__).resolve().parent / "data"
SHIPPED = json.loads((Path(django_settings.BASE_DIR) / "fixtures" / "feeds.json").read_text())
# Each shipped feed's recorded response (tests/feeds/data/README.md says where each comes from).
RECORDED = {
    "skypilot-aws": "skypilot-v8-aws-vms.csv",
    "skypilot-gcp": "skypilot-v8-gcp-vms.csv",
    "skypilot-azure": "skypilot-v8-azure-vms.csv",
    "skypilot-lambda": "skypilot-v8-lambda-vms.csv",
    "skypilot-runpod": "skypilot-v8-runpod-vms.csv",
    "skypilot-nebius": "skypilot-v8-nebius-vms.csv",
    "skypilot-vast": "skypilot-v8-vast-vms.csv",
    "ecb-rates": "ecb-eurofxref-daily.xml",
}
# One offering per cloud and its on-demand price, copied from the recorded file's row.
SPOT_CHECKS = {
    "skypilot-aws": ("aws", "p3.2xlarge@ap-northeast-1", 1, "4.194"),
    "skypilot-azure": ("azure", "Standard_NC24ads_A100_v4@eastus", 1, "3.673"),
    "skypilot-lambda": ("lambda", "gpu_4x_a100@europe-central-1", 4, "7.96"),
    "skypilot-runpod": ("runpod", "2x_A100-80GB_SECURE@CA", 2, "3.28"),
    "skypilot-nebius": ("nebius", "gpu-h100-sxm_8gpu-128vcpu-1600gb@eu-north1", 8, "23.60"),
    "skypilot-vast": ("vastai", "1x-H100_SXM-32-65536@France, FR, EU", 1, "1.93"),
}

pytestmark = pytest.mark.django_db


@pytest.fixture
def seeded(db):
    from platforms.seed import load_seed

    return load_seed()


def recorded_rows(name: str) -> list[dict[str, str]]:
    with open(DATA / name, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def serve_recorded(server, names=None) -> None:
    """Point the shipped feeds at the local server, each serving its recorded response."""
    for feed in Feed.objects.filter(name__in=names or RECORDED):
        data = (DATA / RECORDED[feed.name]).read_bytes()
        feed.url = server.serve(f"/{feed.name}", data)
        feed.save(update_fields=["url"])


def current_hourly(platform: str, external_id: str) -> PriceObservation:
    return PriceObservation.objects.current().get(
        offering__platform__slug=platform, offering__external_id=external_id, unit="hour"
    )


def test_a_fresh_seed_defines_the_shipped_feeds(seeded, capsys):
    platforms = set(Platform.objects.values_list("slug", flat=True))
    expected = {
        row["name"]
        for row in SHIPPED["feeds"]
        if not row["platform"] or row["platform"] in platforms
    }
    assert set(RECORDED) <= expected  # every cloud the seed has, and the rates
    assert set(Feed.objects.values_list("name", flat=True)) == expected
    assert seeded.created["price feeds"] == len(expected)
    for row in SHIPPED["feeds"]:
        if row["name"] in expected:
            feed = Feed.objects.get(name=row["name"])
            platform = feed.platform.slug if feed.platform else None
            assert (feed.url, feed.format, platform, feed.schedule, feed.enabled) == (
                row["url"],
                row["format"],
                row["platform"],
                row["schedule"],
                True,
            )
            assert row["cadence"]  # every schedule names the cadence it follows

    call_command("feeds", "list")

    out = capsys.readouterr().out
    assert "no feeds" not in out
    for name in expected:
        assert f"{name}  " in out


def test_the_seed_again_keeps_the_feeds_as_staff_left_them(seeded):
    from platforms.seed import load_seed

    Feed.objects.filter(name="skypilot-aws").update(schedule="1d", enabled=False)
    count = Feed.objects.count()

    assert "price feeds" not in load_seed().created

    assert Feed.objects.count() == count
    assert Feed.objects.filter(name="skypilot-aws", schedule="1d", enabled=False).exists()


def test_skypilot_urls_are_the_catalogs_skypilot_reads():
    """SkyPilot reads its hosted catalogs from
    https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/v8/<cloud>/vms.csv
    (skypilot-org/skypilot sky/skylet/constants.py, HOSTED_CATALOG_DIR_URL, schema v8)."""
    base = "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/v8/"
    for row in SHIPPED["feeds"]:
        if row["format"] == "skypilot":
            cloud = row["url"].removeprefix(base).removesuffix("/vms.csv")
            assert "/" not in cloud and row["url"] == f"{base}{cloud}/vms.csv", row["name"]


def test_nothing_is_fetched_where_feeds_are_off(seeded, feed_server, settings, capsys):
    serve_recorded(feed_server)
    settings.FEEDS_ENABLED = False  # as `make run` and the test settings have it

    assert run_due_feeds.delay().get() == 0
    call_command("feeds", "run")
    call_command("feeds", "run", "--all")

    assert FeedRun.objects.count() == 0 and sum(feed_server.hits.values()) == 0
    assert "FEEDS_ENABLED is false" in capsys.readouterr().out


def test_feeds_are_off_in_development_and_tests_and_on_in_production(monkeypatch):
    """config.settings.dev (`make run`) and .test leave FEEDS_ENABLED off; prod turns it on."""
    import importlib

    import config.settings.dev as dev

    monkeypatch.delenv("FEEDS_ENABLED", raising=False)
    assert importlib.reload(dev).FEEDS_ENABLED is False
    assert django_settings.FEEDS_ENABLED is False
    prod = (Path(django_settings.BASE_DIR) / "config" / "settings" / "prod.py").read_text()
    assert 'FEEDS_ENABLED = envbool("FEEDS_ENABLED", True)' in prod


def test_beat_runs_every_shipped_feed_where_feeds_are_on(seeded, feed_server):
    serve_recorded(feed_server)
    feeds = Feed.objects.count()

    assert run_due_feeds.delay().get() == feeds

    runs = FeedRun.objects.all()
    assert sorted(run.status for run in runs) == ["succeeded"] * feeds, [
        (run.feed.name, run.error_text, run.problems[:3]) for run in runs
    ]
    assert all(feed_server.hits[f"/{name}"] == 1 for name in RECORDED)


@pytest.mark.parametrize("name", sorted(SPOT_CHECKS))
def test_each_skypilot_feed_refreshes_its_platform(seeded, feed_server, name):
    slug, external_id, gpus, price = SPOT_CHECKS[name]
    serve_recorded(feed_server, [name])

    call_command("feeds", "run", name)

    run = FeedRun.objects.get(feed__name=name)
    assert (run.status, run.errors, run.rows) == (
        "succeeded",
        0,
        len(recorded_rows(RECORDED[name])),
    )
    assert run.created + run.updated + run.unchanged > 0
    assert run.prices_added + run.prices_seen > 0
    current = current_hourly(slug, external_id)
    assert (current.offering.gpu_count, current.amount, current.currency) == (
        gpus,
        Decimal(price),
        "USD",
    )
    # Whether new or re-seen, the price was seen by this run.
    assert current.last_seen_at >= run.started_at
    assert FeedListing.objects.filter(feed=run.feed, offering=current.offering).exists()


def test_the_aws_feed_keeps_the_lowest_zone_for_spot(seeded, feed_server):
    serve_recorded(feed_server, ["skypilot-aws"])

    call_command("feeds", "run", "skypilot-aws")

    spot = current_hourly("aws", "p3.2xlarge@ap-northeast-1:spot")
    assert spot.amount == Decimal("1.4909") and spot.offering.interruptible


def test_the_gcp_feed_prices_a_host_with_its_gpus(seeded, feed_server):
    rows = recorded_rows(RECORDED["skypilot-gcp"])
    host = min(
        Decimal(r["Price"])
        for r in rows
        if r["InstanceType"] == "a2-highgpu-1g" and r["Region"] == "us-central1"
    )
    gpu = min(
        Decimal(r["Price"])
        for r in rows
        if not r["InstanceType"]
        and r["AcceleratorName"] == "A100"
        and r["AcceleratorCount"] == "1"
        and r["Region"] == "us-central1"
    )
    serve_recorded(feed_server, ["skypilot-gcp"])

    call_command("feeds", "run", "skypilot-gcp")

    current = current_hourly("gcp", "a2-highgpu-1g@us-central1")
    assert current.amount == host + gpu
    assert (current.offering.accelerator.slug, current.offering.gpu_count) == ("a100-40gb", 1)


def test_offerings_gone_from_a_feed_are_unlisted_with_the_date_never_deleted(
    seeded, feed_server, admin_client
):
    feed = Feed.objects.get(name="skypilot-lambda")
    full = (DATA / RECORDED[feed.name]).read_bytes()
    kept = b"".join(
        line for line in full.splitlines(keepends=True) if not line.startswith(b"gpu_4x_a100,")
    )
    feed.url = feed_server.serve("/lambda", full)
    feed.save(update_fields=["url"])
    call_command("feeds", "run", feed.name)
    gone = Offering.objects.filter(platform__slug="lambda", external_id__startswith="gpu_4x_a100@")
    assert list(gone.values_list("is_active", flat=True)) == [True] * 17  # 17 regions
    prices = PriceObservation.objects.filter(offering__in=gone).count()

    feed_server.serve("/lambda", kept)
    call_command("feeds", "run", feed.name)

    second = FeedRun.objects.filter(feed=feed).latest("started_at")
    assert second.status == "succeeded"
    assert list(gone.values_list("is_active", flat=True)) == [False] * 17
    listings = FeedListing.objects.filter(feed=feed, offering__in=gone)
    feed.refresh_from_db()
    assert {listing.unlisted_at for listing in listings} == {feed.last_success_at}
    assert PriceObservation.objects.filter(offering__in=gone).count() == prices
    assert any("unlisted 17" in line for line in second.summary)
    page = admin_client.get(
        reverse("admin:feeds_feedlisting_changelist"), {"unlisted_at__isempty": "0"}
    ).content.decode()
    assert page.count("gpu_4x_a100 (") == 17 and "gpu_8x_a100 (" not in page
    # What is still in the file stays listed.
    assert Offering.objects.get(
        platform__slug="lambda", external_id="gpu_8x_a100@europe-central-1"
    ).is_active

    feed_server.serve("/lambda", full)
    call_command("feeds", "run", feed.name)

    assert list(gone.values_list("is_active", flat=True)) == [True] * 17
    assert not FeedListing.objects.filter(feed=feed, unlisted_at__isnull=False).exists()


def test_a_file_that_lists_no_offering_unlists_nothing(seeded, feed_server):
    feed = Feed.objects.get(name="skypilot-lambda")
    full = (DATA / RECORDED[feed.name]).read_bytes()
    feed.url = feed_server.serve("/lambda", full)
    feed.save(update_fields=["url"])
    call_command("feeds", "run", feed.name)
    listed = Offering.objects.filter(platform__slug="lambda", is_active=True).count()

    feed_server.serve("/lambda", full.splitlines(keepends=True)[0])  # the header alone
    call_command("feeds", "run", feed.name)

    assert FeedRun.objects.filter(feed=feed).latest("started_at").status == "succeeded"
    assert Offering.objects.filter(platform__slug="lambda", is_active=True).count() == listed
    assert not FeedListing.objects.filter(feed=feed, unlisted_at__isnull=False).exists()


def test_the_rates_feed_writes_the_usd_cny_rate_of_its_day(seeded, feed_server):
    serve_recorded(feed_server, ["ecb-rates"])

    call_command("feeds", "run", "ecb-rates")

    run = FeedRun.objects.get(feed__name="ecb-rates")
    assert (run.status, run.rows, run.created) == ("succeeded", 30, 1)
    rate = ExchangeRate.objects.get(as_of=date(2025, 5, 9))
    assert (rate.base, rate.quote, rate.rate) == ("USD", "CNY", Decimal("7.240491"))
    assert (rate.source.publisher, rate.source.published_on, rate.source.kind) == (
        "European Central Bank",
        date(2025, 5, 9),
        "third_party",
    )

    call_command("feeds", "run", "ecb-rates")  # the same day again: nothing new

    again = FeedRun.objects.filter(feed__name="ecb-rates").latest("started_at")
    assert (again.status, again.created, again.unchanged) == ("succeeded", 0, 1)
    assert ExchangeRate.objects.filter(as_of=date(2025, 5, 9)).count() == 1


def test_a_rate_that_disagrees_with_the_stored_one_writes_nothing(seeded, feed_server):
    serve_recorded(feed_server, ["ecb-rates"])
    stored = ExchangeRate.objects.create(
        base="USD",
        quote="CNY",
        rate=Decimal("7.25"),
        as_of=date(2025, 5, 9),
        source=ExchangeRate.objects.first().source,
    )

    with pytest.raises(Exception):  # noqa: B017 (the command exits 1)
        call_command("feeds", "run", "ecb-rates")

    run = FeedRun.objects.get(feed__name="ecb-rates")
    assert run.status == "failed" and "conflicting rate" in run.problems[0]
    stored.refresh_from_db()
    assert stored.rate == Decimal("7.25")


@pytest.mark.parametrize(
    "body",
    [
        "<html>Service unavailable</html>",
        "<?xml version='1.0'?><!DOCTYPE x [<!ENTITY a 'b'>]><x>&a;</x>",
        (DATA / "ecb-eurofxref-daily.xml")
        .read_text()
        .replace("'CNY' rate='8.1470'", "'CNH' rate='8.1470'"),
    ],
    ids=["not-the-file", "entities", "no-cny"],
)
def test_a_rates_file_that_cannot_be_read_writes_nothing(seeded, feed_server, body):
    rates = ExchangeRate.objects.count()
    feed = Feed.objects.get(name="ecb-rates")
    feed.url = feed_server.serve("/rates", body)
    feed.save(update_fields=["url"])

    with pytest.raises(Exception):  # noqa: B017 (the command exits 1)
        call_command("feeds", "run", "ecb-rates")

    assert FeedRun.objects.get(feed=feed).status == "failed"
    assert ExchangeRate.objects.count() == rates
