"""Feeds in the admin: listed with their state, failing ones flagged, runs listed read-only, a feed
run from the admin in the background; import jobs listed."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from feeds.models import Feed, FeedRun
from feeds.tasks import run_feed

from .conftest import LAMBDA, make_feed

pytestmark = pytest.mark.usefixtures("fast_feeds")


@pytest.fixture
def staff(client, db):
    user = User.objects.create_superuser("admin", password="pw")
    client.force_login(user)
    return user


@pytest.fixture
def failing(feed_server, lambda_cloud, settings) -> Feed:
    settings.FEED_MAX_RETRIES = 0
    feed = make_feed(feed_server.serve("/500", "x", status=500), lambda_cloud, name="failing")
    for _ in range(3):
        run_feed.delay(feed_id=feed.pk)
    feed.refresh_from_db()
    return feed


def test_the_feed_list_flags_a_failing_feed(client, staff, failing, feed_server, lambda_cloud):
    make_feed(feed_server.serve_sample("/vms.csv", LAMBDA), lambda_cloud, name="fine")

    page = client.get(reverse("admin:feeds_feed_changelist")).content.decode()
    flagged = client.get(reverse("admin:feeds_feed_changelist"), {"flagged": "yes"})

    assert "⚠ failed 3 runs in a row" in page
    assert page.count('class="feed-flagged"') == 1
    assert list(flagged.context["cl"].result_list) == [failing]


def test_a_failing_feed_warns_on_its_page(client, staff, failing):
    response = client.get(reverse("admin:feeds_feed_change", args=[failing.pk]))

    messages = [str(m) for m in response.context["messages"]]
    assert messages == [
        "This feed failed 3 runs in a row: its platform's prices may be out of date. See its runs."
    ]


def test_runs_are_listed_with_their_counts_and_errors(client, staff, failing):
    page = client.get(reverse("admin:feeds_feedrun_changelist")).content.decode()
    run = FeedRun.objects.filter(feed=failing).first()
    assert run is not None
    detail = client.get(reverse("admin:feeds_feedrun_change", args=[run.pk])).content.decode()

    assert page.count("HTTP 500 Internal Server Error") == 3
    assert "HTTP 500 Internal Server Error" in detail
    assert client.get(reverse("admin:feeds_feedrun_add")).status_code == 403


def test_a_feed_is_run_from_the_admin_in_the_background(
    client, staff, feed_server, lambda_cloud, django_capture_on_commit_callbacks, lambda_sample
):
    feed = make_feed(feed_server.serve_sample("/vms.csv", LAMBDA), lambda_cloud)

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("admin:feeds_feed_changelist"),
            {"action": "run_now", "_selected_action": [feed.pk]},
            follow=True,
        )

    run = FeedRun.objects.get()
    assert (run.trigger, run.status, run.created) == ("admin", "succeeded", lambda_sample.offerings)
    assert "1 feed started" in response.content.decode()


def test_a_feed_is_added_in_the_admin(client, staff, lambda_cloud):
    response = client.post(
        reverse("admin:feeds_feed_add"),
        {
            "name": "lambda",
            "platform": lambda_cloud.pk,
            "format": "skypilot",
            "url": "https://example.com/vms.csv",
            "schedule": "every day",
            "enabled": "on",
        },
    )

    assert response.status_code == 200
    assert response.context["adminform"].form.errors == {
        "schedule": [
            "A schedule is an interval (30m, 6h, 1d) or a crontab of five fields (minute hour "
            "day-of-month month day-of-week), not 'every day'."
        ]
    }


def test_changing_the_schedule_counts_from_now(client, staff, lambda_cloud):
    feed = make_feed("https://example.com/vms.csv", lambda_cloud)

    client.post(
        reverse("admin:feeds_feed_change", args=[feed.pk]),
        {
            "name": "lambda",
            "platform": lambda_cloud.pk,
            "format": "skypilot",
            "url": feed.url,
            "schedule": "6h",
            "enabled": "on",
        },
    )

    feed.refresh_from_db()
    assert feed.schedule == "6h" and feed.next_run_at is not None


def test_import_jobs_are_listed(client, staff):
    response = client.get(reverse("admin:feeds_importjob_changelist"))

    assert response.status_code == 200
