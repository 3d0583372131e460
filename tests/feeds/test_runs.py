"""Feed runs against a local HTTP server: a good file refreshes prices; HTTP errors, timeouts and
cut-off downloads are retried and write nothing; a file cut mid-row or with changed columns is
refused at once; each run is recorded with its counts."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from django.core.management import call_command
from django.utils import timezone

from feeds import services
from feeds.models import Feed, FeedRun
from feeds.tasks import run_due_feeds, run_feed
from platforms.models import Offering, PriceObservation, Source

from .conftest import (
    LAMBDA,
    LAMBDA_ROWS,
    make_feed,
    make_platform,
    sample,
)

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "feeds-example.json"

pytestmark = pytest.mark.usefixtures("fast_feeds")


def nothing_written() -> bool:
    return Offering.objects.count() == 0 and PriceObservation.objects.count() == 0


def run_task(feed: Feed) -> FeedRun:
    run_feed.delay(feed_id=feed.pk, trigger="admin")
    return FeedRun.objects.get(feed=feed)


def test_a_feed_refreshes_prices_through_celery(feed_server, lambda_cloud, lambda_sample):
    url = feed_server.serve_sample("/lambda/vms.csv", LAMBDA)
    feed = make_feed(url, lambda_cloud)

    run = run_task(feed)

    assert (run.status, run.trigger, run.attempts, run.http_status) == (
        "succeeded",
        "admin",
        1,
        200,
    )
    assert run.bytes == len((feed_server.routes["/lambda/vms.csv"]).body)
    assert (run.rows, run.created, run.updated, run.unchanged, run.skipped, run.errors) == (
        LAMBDA_ROWS,
        lambda_sample.offerings,
        0,
        0,
        lambda_sample.skipped,
        0,
    )
    assert run.prices_added == lambda_sample.offerings and run.finished_at >= run.started_at
    assert Offering.objects.filter(platform=lambda_cloud).count() == lambda_sample.offerings
    source = Source.objects.get(kind="import")
    day = timezone.localdate().isoformat()
    assert (source.url, source.title) == (
        url,
        f"Import of lambda (SkyPilot catalog (vms.csv)), {day}",
    )
    feed.refresh_from_db()
    assert (feed.consecutive_failures, feed.last_status) == (0, "succeeded")
    # The prices were seen when they were fetched.
    seen = PriceObservation.objects.values_list("last_seen_at", flat=True).distinct()
    assert list(seen) == [feed.last_success_at]


def test_the_same_file_again_only_sees_the_prices_again(feed_server, lambda_cloud, lambda_sample):
    feed = make_feed(feed_server.serve_sample("/vms.csv", LAMBDA), lambda_cloud)
    run_task(feed)

    run_feed.delay(feed_id=feed.pk)

    second = FeedRun.objects.filter(feed=feed).first()
    assert second is not None and second.trigger == "schedule"
    assert (second.created, second.unchanged, second.prices_added, second.prices_seen) == (
        0,
        lambda_sample.offerings,
        0,
        lambda_sample.offerings,
    )
    assert PriceObservation.objects.count() == lambda_sample.offerings


def test_a_changed_price_adds_an_observation(feed_server, lambda_cloud):
    text = sample(LAMBDA)
    feed = make_feed(feed_server.serve("/vms.csv", text), lambda_cloud)
    run_task(feed)
    assert ",1.29,us-east-1," in text  # gpu_1x_a10 in us-east-1
    feed_server.serve("/vms.csv", text.replace(",1.29,us-east-1,", ",1.49,us-east-1,"))

    run_feed.delay(feed_id=feed.pk)

    run = FeedRun.objects.filter(feed=feed).first()
    assert run is not None and (run.updated, run.prices_added) == (1, 1)
    prices = PriceObservation.objects.filter(offering__external_id="gpu_1x_a10@us-east-1")
    assert sorted(str(p.amount) for p in prices) == ["1.290000", "1.490000"]


def test_http_500_is_retried_then_the_run_fails_and_writes_nothing(feed_server, lambda_cloud):
    url = feed_server.serve("/down.csv", "x", status=500)
    feed = make_feed(url, lambda_cloud)

    run = run_task(feed)

    assert feed_server.hits["/down.csv"] == 4  # the first attempt and FEED_MAX_RETRIES = 3
    assert (run.status, run.attempts, run.http_status, run.error_code) == ("failed", 4, 500, "http")
    assert run.error_text == "HTTP 500 Internal Server Error"
    assert [entry["http_status"] for entry in run.attempt_log] == [500] * 4
    assert nothing_written()
    feed.refresh_from_db()
    assert (feed.consecutive_failures, feed.is_flagged, feed.last_status) == (1, False, "failed")


def test_a_server_that_recovers_succeeds_on_a_later_attempt(
    feed_server, lambda_cloud, lambda_sample
):
    feed = make_feed(feed_server.serve_sample("/flaky.csv", LAMBDA, fail_first=1), lambda_cloud)

    run = run_task(feed)

    assert (run.status, run.attempts, run.created) == ("succeeded", 2, lambda_sample.offerings)
    assert [(e["http_status"], e["error"]) for e in run.attempt_log] == [
        (500, "HTTP 500 Internal Server Error"),
        (200, ""),
    ]


def test_the_retries_wait_longer_each_time(feed_server, lambda_cloud, settings, monkeypatch):
    settings.FEED_RETRY_BACKOFF_S, settings.FEED_RETRY_BACKOFF_MAX_S = 60, 200
    delays = []
    original = services.retry_delay
    monkeypatch.setattr(
        services, "retry_delay", lambda attempts: delays.append(original(attempts)) or 0
    )
    feed = make_feed(feed_server.serve("/down.csv", "x", status=503), lambda_cloud)

    run_task(feed)

    assert delays == [60, 120, 200]  # doubling, capped at FEED_RETRY_BACKOFF_MAX_S


def test_a_timeout_is_retried_and_fails(feed_server, lambda_cloud, settings):
    settings.FEED_TIMEOUT_S, settings.FEED_MAX_RETRIES = 0.3, 1
    feed = make_feed(feed_server.serve_sample("/slow.csv", LAMBDA, delay=2), lambda_cloud)

    run = run_task(feed)

    assert (run.status, run.attempts, run.error_code, run.http_status) == (
        "failed",
        2,
        "timeout",
        None,
    )
    assert run.error_text == "No answer within 0.3 s (FEED_TIMEOUT_S)."
    assert nothing_written()


def test_a_download_cut_short_is_retried_and_writes_nothing(feed_server, lambda_cloud):
    body = sample(LAMBDA).encode()
    feed = make_feed(feed_server.serve("/cut.csv", body, cut_at=len(body) // 2), lambda_cloud)

    run = run_task(feed)

    assert (run.status, run.attempts, run.error_code) == ("failed", 4, "cut_short")
    assert run.error_params == {"received": len(body) // 2, "expected": len(body)}
    assert run.bytes == len(body) // 2
    assert nothing_written()


def test_a_file_cut_mid_row_is_refused_at_once(feed_server, lambda_cloud):
    """Served whole (its Content-Length agrees) but cut off by whoever published it: the last row
    could still parse, with a wrong price, so the file is refused."""
    text = sample(LAMBDA)
    cut = text[: text.rindex(",1.29,") + len(",1.2")]  # a price "1.2" for "1.29"
    feed = make_feed(feed_server.serve("/cut-row.csv", cut), lambda_cloud)

    run = run_task(feed)

    assert (run.status, run.attempts, run.error_code) == ("failed", 1, "no_line_break")
    assert "does not end with a line break" in run.error_text
    assert nothing_written()


def test_changed_columns_are_refused_at_once_and_write_nothing(feed_server, lambda_cloud):
    renamed = sample(LAMBDA).replace("Price,Region", "OnDemandPrice,Region", 1)
    feed = make_feed(feed_server.serve("/renamed.csv", renamed), lambda_cloud)

    run = run_task(feed)

    assert (run.status, run.attempts, run.http_status, run.error_code) == (
        "failed",
        1,
        200,
        "rows",
    )
    assert run.problems == ["line 1: missing column(s): Price"]
    assert run.error_text == (
        "1 bad row(s), nothing was written; the first: line 1: missing column(s): Price"
    )
    assert nothing_written()


def test_one_bad_row_writes_nothing_of_the_file(feed_server, lambda_cloud, lambda_sample):
    bad = sample(LAMBDA) + "gpu_1x_a10,A10,1,30,200,n/a,us-west-9,,\n"
    feed = make_feed(feed_server.serve("/bad.csv", bad), lambda_cloud)

    run = run_task(feed)

    assert (run.status, run.errors, run.created) == ("failed", 1, lambda_sample.offerings)
    # The line and the column, not the value: the file is whatever the feed's server sent.
    assert run.problems == [f"line {LAMBDA_ROWS + 2}: bad value in Price"]
    assert nothing_written()


def test_a_missing_file_is_not_retried(feed_server, lambda_cloud):
    feed = make_feed(feed_server.base + "/nothing-here.csv", lambda_cloud)

    run = run_task(feed)

    assert (run.status, run.attempts, run.http_status) == ("failed", 1, 404)


def test_a_feed_that_keeps_failing_is_flagged_and_a_success_clears_it(
    feed_server, lambda_cloud, settings
):
    settings.FEED_MAX_RETRIES = 0
    url = feed_server.serve("/vms.csv", "x", status=500)
    feed = make_feed(url, lambda_cloud)
    for _ in range(3):
        run_feed.delay(feed_id=feed.pk)
    feed.refresh_from_db()
    assert (feed.consecutive_failures, feed.is_flagged) == (3, True)

    feed_server.serve_sample("/vms.csv", LAMBDA)
    run_feed.delay(feed_id=feed.pk)

    feed.refresh_from_db()
    assert (feed.consecutive_failures, feed.is_flagged, feed.last_status) == (0, False, "succeeded")


def test_a_json_feed_refreshes_prices(feed_server, accelerators):
    autodl = make_platform("autodl", "AutoDL", ["cloud_container"])
    url = feed_server.serve("/prices.json", EXAMPLE.read_bytes(), content_type="application/json")
    feed = make_feed(url, None, name="autodl-json", fmt="json")

    run = run_task(feed)

    assert (run.status, run.errors, run.skipped) == ("succeeded", 0, 0)
    assert run.created == Offering.objects.filter(platform=autodl).count() == 3
    monthly = PriceObservation.objects.get(offering__external_id="rtx4090-24g", unit="month")
    assert str(monthly.amount) == "1052.000000"


def test_a_run_under_way_is_not_started_twice(feed_server, lambda_cloud):
    feed = make_feed(feed_server.serve_sample("/vms.csv", LAMBDA), lambda_cloud)
    first = services.run_start(feed, "command")

    assert first is not None
    assert services.run_start(feed, "command") is None
    assert run_feed.delay(feed_id=feed.pk) is not None
    assert FeedRun.objects.count() == 1 and feed_server.hits["/vms.csv"] == 0


def test_runs_whose_worker_stopped_are_marked_failed(feed_server, lambda_cloud, settings):
    feed = make_feed(feed_server.serve_sample("/vms.csv", LAMBDA), lambda_cloud, enabled=False)
    run = services.run_start(feed, "schedule")
    assert run is not None
    FeedRun.objects.filter(pk=run.pk).update(
        started_at=timezone.now() - timedelta(seconds=settings.FEED_RUN_STALE_S + 1)
    )

    run_due_feeds.delay()

    run.refresh_from_db()
    feed.refresh_from_db()
    assert (run.status, run.error_code, feed.consecutive_failures) == ("failed", "abandoned", 1)
    assert "nothing was written" in run.error_text


def test_feeds_run_runs_a_feed_synchronously(feed_server, lambda_cloud, capsys, lambda_sample):
    feed = make_feed(feed_server.serve_sample("/vms.csv", LAMBDA), lambda_cloud)

    call_command("feeds", "run", "lambda")

    out = capsys.readouterr().out
    run = FeedRun.objects.get(feed=feed)
    assert (run.status, run.trigger, run.created) == (
        "succeeded",
        "command",
        lambda_sample.offerings,
    )
    assert out.startswith("lambda: succeeded ")
    expected = lambda_sample
    assert (
        f"created {expected.offerings}, updated 0, unchanged 0, skipped {expected.skipped}" in out
    )
    assert f"  offerings created {lambda_sample.offerings}, updated 0, unchanged 0" in out


def test_a_feed_task_has_soft_and_hard_time_limits(settings):
    """Before: no Celery time limit, so a slow feed held a worker and starved the imports."""
    assert run_feed.soft_time_limit == settings.FEED_TASK_TIME_LIMIT_S == 600
    assert run_feed.time_limit == settings.FEED_TASK_HARD_TIME_LIMIT_S == 660


def test_a_run_past_its_soft_time_limit_fails_and_frees_the_feed(
    feed_server, lambda_cloud, monkeypatch
):
    from celery.exceptions import SoftTimeLimitExceeded

    feed = make_feed(feed_server.serve_sample("/vms.csv", LAMBDA), lambda_cloud)

    def too_slow(run):
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr(services, "run_attempt", too_slow)
    run = run_task(feed)
    assert (run.status, run.error_code) == ("failed", "time_limit")
    assert "time limit" in run.error_text
    assert nothing_written()
    monkeypatch.undo()
    assert services.run_start(feed, "admin") is not None  # the feed can run again at once
