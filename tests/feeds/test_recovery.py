"""Jobs that recover: an import step whose task could not be sent (the broker down at upload or at
confirmation) stays waiting and is sent again by beat; a step or feed run whose worker was lost is
failed within minutes (its heartbeat gone), the job keeps its file and can be retried from the
admin, and the feed is free for its next run.

The broker that is down is a real Celery app pointed at a closed port; the heartbeats live in the
real Redis (ops.cache.FallbackRedisCache), skipped without it except in CI."""

from __future__ import annotations

import logging
import os
import uuid
from datetime import timedelta

import pytest
import redis
from celery import Celery, current_app
from django.contrib.auth.models import Permission, User
from django.core.cache import caches
from django.test import Client
from django.utils import timezone

from feeds import jobs, liveness, services
from feeds.models import FeedRun, ImportJob, ImportJobChunk
from feeds.tasks import run_due_feeds
from ops import cache as ops_cache
from platforms.models import Offering

from .conftest import LAMBDA, make_feed, sample

REDIS = os.environ.get("OPS_TEST_REDIS_URL", "redis://127.0.0.1:6379/12")


@pytest.fixture
def uploader(db) -> User:
    user = User.objects.create_user("importer", password="pw", is_staff=True)
    user.user_permissions.add(
        *Permission.objects.filter(
            content_type__app_label="platforms",
            codename__in=["add_offering", "add_priceobservation", "view_offering"],
        ),
        *Permission.objects.filter(content_type__app_label="feeds", codename="view_importjob"),
    )
    return user


def upload(platform, uploader) -> ImportJob:
    data = sample(LAMBDA).encode()
    return jobs.job_create(
        pieces=(data[i : i + 4096] for i in range(0, len(data), 4096)),
        max_bytes=20 * 1024 * 1024,
        fmt="skypilot",
        filename="vms.csv",
        platform=platform,
        observed_at=timezone.now(),
        source_url="",
        strict=False,
        created_by=uploader,
    )


@pytest.fixture
def broker_down():
    """Tasks go to a broker that refuses connections (a closed port), as with Redis stopped."""
    app = Celery("broker-down", set_as_current=False)
    app.config_from_object("django.conf:settings", namespace="CELERY")
    app.conf.update(
        broker_url="redis://127.0.0.1:1/0",
        task_always_eager=False,
        task_publish_retry_policy={"max_retries": 1, "interval_start": 0, "interval_step": 0.1},
        broker_connection_timeout=1,
    )
    previous = current_app._get_current_object()
    app.set_current()
    app.set_default()
    yield app
    previous.set_current()
    previous.set_default()


def _sent_later(job: ImportJob) -> None:
    """Past the grace a step's task has to reach the broker after its commit."""
    ImportJob.objects.filter(pk=job.pk).update(
        created_at=timezone.now() - jobs.SEND_GRACE - timedelta(seconds=1),
        confirmed_at=None if job.confirmed_at is None else timezone.now() - jobs.SEND_GRACE * 2,
    )


def test_a_broker_down_at_upload_leaves_a_job_that_runs_once_it_is_back(
    lambda_cloud, uploader, broker_down, django_capture_on_commit_callbacks, caplog
):
    """Before: the upload answered 500 and the job stayed check_queued for ever."""
    with caplog.at_level(logging.WARNING), django_capture_on_commit_callbacks(execute=True):
        job = upload(lambda_cloud, uploader)  # no exception: the page shows the waiting job
    job.refresh_from_db()
    assert (job.status, job.sent_at) == ("check_queued", None)
    assert any(getattr(r, "event", "") == "task_not_sent" for r in caplog.records)
    _sent_later(job)
    assert jobs.jobs_resend() == 0  # the broker is still down: still waiting

    broker_down.conf.task_always_eager = True  # the broker is back (tasks run here)
    run_due_feeds.delay()  # beat's tick sends it again

    job.refresh_from_db()
    assert job.status == "checked"


def test_a_broker_down_at_confirmation_leaves_a_job_that_runs_once_it_is_back(
    lambda_cloud, uploader, broker_down, django_capture_on_commit_callbacks
):
    """Before: Confirm answered 500, the button was gone and the job stayed queued."""
    broker_down.conf.task_always_eager = True
    with django_capture_on_commit_callbacks(execute=True):
        job = upload(lambda_cloud, uploader)
    job.refresh_from_db()
    assert job.status == "checked"
    broker_down.conf.task_always_eager = False
    with django_capture_on_commit_callbacks(execute=True):
        assert jobs.job_confirm(job, by=uploader)
    job.refresh_from_db()
    assert (job.status, job.sent_at) == ("queued", None)

    broker_down.conf.task_always_eager = True
    _sent_later(job)
    assert jobs.jobs_resend() == 1
    job.refresh_from_db()
    assert job.status == "succeeded"
    assert Offering.objects.filter(platform=lambda_cloud).exists()


def test_a_step_no_worker_took_is_sent_again_only_after_a_while(
    lambda_cloud, uploader, settings, monkeypatch, django_capture_on_commit_callbacks
):
    sent = []
    monkeypatch.setattr(jobs, "send", lambda task, **kwargs: sent.append(kwargs) or True)
    with django_capture_on_commit_callbacks(execute=False):
        job = upload(lambda_cloud, uploader)
    long_ago = timezone.now() - timedelta(seconds=settings.JOB_RESEND_AFTER_S + 1)
    ImportJob.objects.filter(pk=job.pk).update(sent_at=timezone.now(), created_at=long_ago)
    assert jobs.jobs_resend() == 0  # sent a moment ago: a worker may be about to take it
    ImportJob.objects.filter(pk=job.pk).update(sent_at=long_ago)
    assert jobs.jobs_resend() == 1
    assert sent == [{"job_id": job.pk}]


# --- a worker lost ------------------------------------------------------------------------------


@pytest.fixture
def shared_cache(settings):
    """The default cache on the real Redis, as in production (heartbeats are seen across
    processes)."""
    try:
        redis.Redis.from_url(REDIS, socket_connect_timeout=2).ping()
    except redis.exceptions.RedisError as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"Redis at {REDIS} is unreachable in CI ({exc})")
        pytest.skip(f"Redis at {REDIS} is unreachable ({exc})")
    settings.CACHES = {
        "default": {
            "BACKEND": "ops.cache.FallbackRedisCache",
            "LOCATION": REDIS,
            "KEY_PREFIX": f"recovery-{uuid.uuid4().hex}",
        }
    }
    yield caches["default"]
    ops_cache._breakers.clear()


def _started(seconds_ago: float):
    return timezone.now() - timedelta(seconds=seconds_ago)


def test_a_job_whose_worker_was_lost_fails_within_minutes_and_can_be_retried(
    lambda_cloud, uploader, settings, shared_cache, django_capture_on_commit_callbacks
):
    """Before: a worker killed mid-import left the job "running 40 %" for an hour."""
    with django_capture_on_commit_callbacks(execute=True):
        job = upload(lambda_cloud, uploader)
    with django_capture_on_commit_callbacks(execute=True):
        jobs.job_confirm(job, by=uploader)
    job.refresh_from_db()
    assert job.status == "succeeded"  # eager: it ran; now one as a killed worker leaves it
    with django_capture_on_commit_callbacks(execute=False):
        lost = upload(lambda_cloud, uploader)
    ImportJob.objects.filter(pk=lost.pk).update(
        status="running",
        started_at=_started(settings.WORKER_LOST_AFTER_S + 1),
        confirmed_at=timezone.now(),
        checked_at=timezone.now(),
    )
    alive = upload(lambda_cloud, uploader)
    ImportJob.objects.filter(pk=alive.pk).update(
        status="checking", started_at=_started(settings.WORKER_LOST_AFTER_S + 1)
    )

    with liveness.beating(jobs.ALIVE_KEY.format(pk=alive.pk)):
        run_due_feeds.delay()  # beat, every minute
        lost.refresh_from_db()
        alive.refresh_from_db()
        assert (lost.status, lost.error_code) == ("failed", "abandoned")
        assert alive.status == "checking"  # its worker's heartbeat is alive
    assert settings.WORKER_LOST_AFTER_S + settings.FEED_CHECK_INTERVAL_S <= 5 * 60
    assert ImportJobChunk.objects.filter(job=lost).exists()  # the file is kept
    assert jobs.job_retryable(lost)

    client = Client()
    client.force_login(uploader)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/admin/feeds/importjob/",
            {"action": "retry", "_selected_action": [lost.pk, job.pk]},
            follow=True,
        )
    assert response.status_code == 200
    text = response.content.decode()
    assert "1 job sent to a worker again." in text
    assert "1 job cannot be retried" in text
    lost.refresh_from_db()
    assert lost.status == "succeeded"
    assert not ImportJobChunk.objects.filter(job=lost).exists()


def test_without_a_shared_cache_only_the_long_limit_applies(lambda_cloud, uploader, settings):
    """A per-process cache cannot see another process's heartbeat: nothing is failed early."""
    job = upload(lambda_cloud, uploader)
    ImportJob.objects.filter(pk=job.pk).update(
        status="running", started_at=_started(settings.WORKER_LOST_AFTER_S + 1)
    )
    services.abandon_stale()
    job.refresh_from_db()
    assert job.status == "running"


def test_a_feed_whose_worker_was_lost_is_free_again_within_minutes(
    feed_server, lambda_cloud, settings, shared_cache
):
    """Before: "a run is already under way" for an hour after its worker died."""
    feed = make_feed(feed_server.serve_sample("/vms.csv", LAMBDA), lambda_cloud, enabled=False)
    run = services.run_start(feed, "schedule")
    assert run is not None
    FeedRun.objects.filter(pk=run.pk).update(started_at=_started(settings.WORKER_LOST_AFTER_S + 1))
    assert services.run_start(feed, "admin") is None  # still under way

    run_due_feeds.delay()

    run.refresh_from_db()
    assert (run.status, run.error_code) == ("failed", "abandoned")
    assert services.run_start(feed, "admin") is not None


def test_a_run_writes_its_heartbeat_while_it_works(
    feed_server, lambda_cloud, settings, shared_cache, monkeypatch
):
    feed = make_feed(feed_server.serve_sample("/vms.csv", LAMBDA), lambda_cloud, enabled=False)
    run = services.run_start(feed, "schedule")
    assert run is not None
    seen = []
    original = services._attempt

    def attempt(run):
        seen.append(liveness.heard(services.ALIVE_KEY.format(pk=run.pk)))
        return original(run)

    monkeypatch.setattr(services, "_attempt", attempt)
    assert services.run_attempt(run).ok
    assert seen == [True]
    assert liveness.heard(services.ALIVE_KEY.format(pk=run.pk)) is False
