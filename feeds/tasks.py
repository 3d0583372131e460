"""Celery tasks: beat's `run_due_feeds` every FEED_CHECK_INTERVAL_S seconds (it also marks runs and
jobs whose worker was lost, and sends again the import steps that never reached a worker), one
`run_feed` per due feed (retried with backoff while its failures may pass; stopped past
FEED_TASK_TIME_LIMIT_S and killed past FEED_TASK_HARD_TIME_LIMIT_S), and for the admin's import
`check_import_job` (the preview) and `apply_import_job` (the confirmed file), defined in
feeds/jobs.py beside what they run and registered here, where the worker looks for tasks.

With no broker configured (CELERY_BROKER_URL unset) they run eagerly where they are called, and a
retry follows at once.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import Task, shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings

from . import jobs, services
from .jobs import apply_import_job, check_import_job
from .models import Feed, FeedRun, RunStatus, Trigger

__all__ = ["apply_import_job", "check_import_job", "run_due_feeds", "run_feed"]

logger = logging.getLogger(__name__)


@shared_task(name="feeds.tasks.run_due_feeds", ignore_result=True)
def run_due_feeds() -> int:
    """Start every enabled feed that is due; returns how many were started. With FEEDS_ENABLED
    off (`make run`, the tests) no feed is started; lost runs and import jobs are still tidied."""
    services.abandon_stale()
    jobs.jobs_resend()
    if not settings.FEEDS_ENABLED:
        return 0
    feeds = services.feeds_claim_due()
    for feed in feeds:
        run_feed.delay(feed_id=feed.pk, trigger=Trigger.SCHEDULE)
    return len(feeds)


@shared_task(
    bind=True,
    name="feeds.tasks.run_feed",
    ignore_result=True,
    max_retries=None,
    soft_time_limit=settings.FEED_TASK_TIME_LIMIT_S,
    time_limit=settings.FEED_TASK_HARD_TIME_LIMIT_S,
)
def run_feed(
    self: Task[Any, Any], feed_id: int, trigger: str = Trigger.SCHEDULE, run_id: int | None = None
) -> str:
    """One attempt of a feed's run; a failure that may pass is retried after `retry_delay`."""
    if run_id is None:
        feed = Feed.objects.filter(pk=feed_id).first()
        if feed is None:
            return "no such feed"
        run = services.run_start(feed, trigger)
        if run is None:
            logger.info("feed %s: a run is already under way", feed.name)
            return "busy"
    else:
        found = FeedRun.objects.select_related("feed").filter(pk=run_id, status=RunStatus.RETRYING)
        run = found.first()
        if run is None:
            return "no such run"
        run.status = RunStatus.RUNNING
        run.save(update_fields=["status"])
    try:
        attempt = services.run_attempt(run)
    except SoftTimeLimitExceeded:
        # What the attempt wrote was rolled back with its transaction.
        services.run_stopped(run)
        return RunStatus.FAILED
    except Exception as exc:
        services.run_crashed(run, exc)
        raise
    if attempt.ok:
        return RunStatus.SUCCEEDED
    if attempt.transient and run.attempts <= settings.FEED_MAX_RETRIES:
        services.run_retrying(run)
        raise self.retry(
            args=(),
            kwargs={"feed_id": feed_id, "trigger": trigger, "run_id": run.pk},
            countdown=services.retry_delay(run.attempts),
        )
    services.run_finish(run, ok=False)
    return RunStatus.FAILED
