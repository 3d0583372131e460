"""Against a real Celery worker on Redis: beat's task finds a due feed and the worker refreshes its
prices, retries wait for their backoff, and an admin import job is applied by the worker.

The worker is Celery's embedded test worker (celery.contrib.testing.worker.start_worker) in a
thread of this process, consuming a queue of its own on redis://127.0.0.1:6379/13
(FEEDS_TEST_BROKER_URL). Without Redis the tests are skipped, except in CI (CI=true), where they
fail: .ci/run starts Redis.
"""

from __future__ import annotations

import os
import queue
import uuid
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest
import redis
from celery import Celery, current_app
from celery.contrib.testing.worker import start_worker
from celery.signals import task_postrun
from django.db import connections
from django.utils import timezone

from feeds import jobs
from feeds.models import FeedRun, ImportJob, ImportJobChunk
from feeds.tasks import apply_import_job, run_due_feeds
from platforms.models import Offering

from .conftest import LAMBDA, make_feed, sample

BROKER = os.environ.get("FEEDS_TEST_BROKER_URL", "redis://127.0.0.1:6379/13")
WAIT_S = 60

pytestmark = [pytest.mark.celery_worker, pytest.mark.django_db(transaction=True)]


@pytest.fixture(scope="module")
def broker() -> str:
    try:
        redis.Redis.from_url(BROKER, socket_connect_timeout=2).ping()
    except redis.exceptions.RedisError as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"Redis at {BROKER} is unreachable in CI ({exc}); .ci/run starts it")
        pytest.skip(f"Redis at {BROKER} is unreachable ({exc})")
    return BROKER


class Finished:
    """Tasks the worker finished, as (task name, state), in order; waited for without touching
    the database while the worker writes (an in-memory SQLite test database locks tables)."""

    def __init__(self) -> None:
        self.events: queue.Queue[tuple[str, str]] = queue.Queue()

    def __call__(self, sender: Any = None, state: str = "", **kwargs: Any) -> None:
        if getattr(sender.request, "is_eager", False):
            return
        # The worker thread's connections end with each task, so the test database can be
        # flushed and dropped after the test.
        connections.close_all()
        self.events.put((sender.name, state))

    def wait(self, name: str, state: str = "SUCCESS") -> None:
        while True:
            try:
                event = self.events.get(timeout=WAIT_S)
            except queue.Empty:
                pytest.fail(f"the worker did not finish {name} ({state}) within {WAIT_S} s")
            if event == (name, state):
                return


@pytest.fixture(scope="module")
def worker(broker: str) -> Iterator[Finished]:
    app = Celery("feeds-worker-test", set_as_current=False)
    app.config_from_object("django.conf:settings", namespace="CELERY")
    app.conf.update(
        broker_url=broker,
        task_always_eager=False,
        # A queue of this run's own: nothing else on this Redis sees these tasks, nor we theirs.
        task_default_queue=f"feeds-test-{uuid.uuid4().hex}",
        worker_hijack_root_logger=False,
    )
    previous = current_app._get_current_object()
    finished = Finished()
    task_postrun.connect(finished, weak=False)
    try:
        with start_worker(app, perform_ping_check=False, loglevel="WARNING", shutdown_timeout=30):
            yield finished
    finally:
        task_postrun.disconnect(finished)
        previous.set_current()
        previous.set_default()
        client = redis.Redis.from_url(broker)
        name = app.conf.task_default_queue
        client.delete(name, f"_kombu.binding.{name}")


def test_beat_s_task_has_a_worker_refresh_a_due_feed(
    worker, feed_server, lambda_cloud, lambda_sample
):
    feed = make_feed(feed_server.serve_sample("/vms.csv", LAMBDA), lambda_cloud)

    run_due_feeds.delay()  # what beat sends every FEED_CHECK_INTERVAL_S
    worker.wait("feeds.tasks.run_due_feeds")
    worker.wait("feeds.tasks.run_feed")

    run = FeedRun.objects.get(feed=feed)
    assert (run.status, run.trigger, run.attempts, run.http_status) == (
        "succeeded",
        "schedule",
        1,
        200,
    )
    assert run.created == lambda_sample.offerings
    assert Offering.objects.filter(platform=lambda_cloud).count() == lambda_sample.offerings
    feed.refresh_from_db()
    assert feed.next_run_at is not None and feed.next_run_at > timezone.now()


def test_a_real_worker_retries_after_its_backoff(worker, feed_server, lambda_cloud, settings):
    settings.FEED_RETRY_BACKOFF_S = 1
    feed = make_feed(feed_server.serve_sample("/flaky.csv", LAMBDA, fail_first=1), lambda_cloud)

    run_due_feeds.delay()
    worker.wait("feeds.tasks.run_feed", "RETRY")
    worker.wait("feeds.tasks.run_feed")

    run = FeedRun.objects.get(feed=feed)
    assert (run.status, run.attempts) == ("succeeded", 2)
    first, second = (datetime.fromisoformat(entry["at"]) for entry in run.attempt_log)
    assert (second - first).total_seconds() >= 1
    assert [entry["http_status"] for entry in run.attempt_log] == [500, 200]


def test_an_admin_import_job_is_checked_then_applied_by_the_worker(
    worker, lambda_cloud, lambda_sample
):
    data = sample(LAMBDA).encode()
    job = jobs.job_create(
        pieces=[data],
        max_bytes=len(data),
        fmt="skypilot",
        filename="vms.csv",
        platform=lambda_cloud,
        observed_at=timezone.now(),
        source_url="",
        strict=False,
        created_by=None,
    )  # committed at once here, so its check goes to the worker at once

    worker.wait("feeds.tasks.check_import_job")
    job.refresh_from_db()
    assert job.status == "checked"
    ImportJob.objects.filter(pk=job.pk).update(status="queued", confirmed_at=timezone.now())
    apply_import_job.delay(job_id=job.pk)
    worker.wait("feeds.tasks.apply_import_job")

    job.refresh_from_db()
    assert (job.status, job.created) == ("succeeded", lambda_sample.offerings)
    assert not ImportJobChunk.objects.exists()
    assert ImportJob.objects.count() == 1
