"""`manage.py feeds add|list|run`: exit status 2 for a usage mistake, 1 when a run failed."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from feeds.models import Feed, FeedRun

from .conftest import LAMBDA, make_feed

pytestmark = pytest.mark.usefixtures("fast_feeds")


def feeds(*args: str) -> None:
    call_command("feeds", *args)


def test_add_creates_a_feed_due_at_once(lambda_cloud, capsys):
    feeds(
        "add", "lambda", "--platform", "lambda", "--format", "skypilot",
        "--url", "https://example.com/vms.csv", "--schedule", "0 3 * * *",
    )  # fmt: skip

    feed = Feed.objects.get()
    assert (feed.name, feed.platform, feed.format, feed.schedule, feed.enabled) == (
        "lambda",
        lambda_cloud,
        "skypilot",
        "0 3 * * *",
        True,
    )
    assert feed.next_run_at is None
    assert capsys.readouterr().out == (
        "added feed lambda: SkyPilot catalog (vms.csv) from https://example.com/vms.csv, "
        "schedule 0 3 * * *\n"
    )


def test_a_json_or_native_feed_needs_no_platform(db):
    feeds("add", "scraper", "--format", "json", "--url", "https://example.com/p.json", "--disabled")

    assert Feed.objects.get().enabled is False


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--platform", "nowhere", "--format", "skypilot"], "No platform with slug 'nowhere'"),
        (["--format", "gpuhunt"], "platform: Choose the platform this catalog lists."),
        (["--format", "json", "--schedule", "often"], "schedule: A schedule is an interval"),
        (["--format", "json", "--url", "ftp://example.com/x"], "url: Only http and https"),
        (["--format", "json", "--url", "not a url"], "url: Enter a valid URL."),
    ],
)
def test_add_refuses_a_bad_feed_with_status_2(db, args, message):
    if "--url" not in args:
        args = [*args, "--url", "https://example.com/x.csv"]

    with pytest.raises(CommandError, match=message) as failure:
        feeds("add", "x", *args)

    assert failure.value.returncode == 2
    assert Feed.objects.count() == 0


def test_add_refuses_a_name_taken(db):
    feeds("add", "x", "--format", "json", "--url", "https://example.com/x.json")

    with pytest.raises(CommandError, match=r"name: Price feed with this Name already exists\."):
        feeds("add", "x", "--format", "json", "--url", "https://example.com/y.json")


def test_list_shows_each_feed_with_its_last_run(
    feed_server, lambda_cloud, capsys, settings, lambda_sample
):
    settings.FEED_MAX_RETRIES = 0
    ok = make_feed(feed_server.serve_sample("/vms.csv", LAMBDA), lambda_cloud, name="good")
    bad = make_feed(feed_server.serve("/500", "x", status=500), lambda_cloud, name="bad")
    make_feed(feed_server.base + "/never.csv", lambda_cloud, name="new", schedule_text="6h")
    with pytest.raises(CommandError):
        feeds("run", "bad")
    feeds("run", "good")
    capsys.readouterr()

    feeds("list")

    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"bad  lambda  skypilot  {bad.url}  every 1d  enabled  next due now")
    assert "FLAGGED" not in out[0]  # one failure is not yet a pattern
    assert out[1].startswith("  last run: failed ") and "HTTP 500" in out[1]
    assert out[1].endswith("HTTP 500 Internal Server Error")
    assert out[2].startswith(f"good  lambda  skypilot  {ok.url}")
    assert (
        out[3].startswith("  last run: succeeded ")
        and f"created {lambda_sample.offerings}, updated 0" in out[3]
    )
    assert out[4].startswith("new  lambda  skypilot") and out[5] == "  last run: never"


def test_list_flags_a_feed_that_failed_runs_in_a_row(feed_server, lambda_cloud, capsys, settings):
    settings.FEED_MAX_RETRIES = 0
    make_feed(feed_server.serve("/500", "x", status=500), lambda_cloud, name="bad")
    for _ in range(3):
        with pytest.raises(CommandError, match="1 feed run"):
            feeds("run", "bad")
    capsys.readouterr()

    feeds("list")

    assert "FLAGGED: 3 failed runs in a row" in capsys.readouterr().out.splitlines()[0]


def test_run_without_a_name_runs_the_feeds_that_are_due(feed_server, lambda_cloud, capsys):
    url = feed_server.serve_sample("/vms.csv", LAMBDA)
    due = make_feed(url, lambda_cloud, name="due")
    later = make_feed(url, lambda_cloud, name="later")
    Feed.objects.filter(pk=later.pk).update(next_run_at=timezone.now() + timedelta(hours=1))
    make_feed(url, lambda_cloud, name="off", enabled=False)

    feeds("run")

    assert list(FeedRun.objects.values_list("feed__name", flat=True)) == ["due"]
    due.refresh_from_db()
    assert due.next_run_at is not None and due.next_run_at > timezone.now()
    capsys.readouterr()
    feeds("run")
    assert capsys.readouterr().out == "no feed is due\n"

    feeds("run", "--all")
    assert sorted(FeedRun.objects.values_list("feed__name", flat=True)) == ["due", "due", "later"]


def test_run_retries_when_asked(feed_server, lambda_cloud):
    make_feed(feed_server.serve_sample("/flaky.csv", LAMBDA, fail_first=1), lambda_cloud)

    feeds("run", "lambda", "--retries", "2")

    assert FeedRun.objects.get().attempts == 2


def test_run_fails_with_status_1_and_lists_the_bad_rows(feed_server, lambda_cloud, capsys):
    text = (
        "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo\n"
        "gpu_1x_a10,A10,1,30,200,n/a,us-west-1,\n"
    )
    make_feed(feed_server.serve("/bad.csv", text), lambda_cloud)

    with pytest.raises(CommandError, match="1 feed run") as failure:
        feeds("run", "lambda")

    assert failure.value.returncode == 1
    assert "  error: line 2: bad value in Price" in capsys.readouterr().err


def test_run_names_an_unknown_feed_with_status_2(db):
    with pytest.raises(CommandError, match="No feed named 'nope'") as failure:
        feeds("run", "nope")

    assert failure.value.returncode == 2
