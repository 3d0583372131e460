"""Running feeds: creating them, starting a run, one attempt (fetch, check, import, record), retries
and their backoff, the feeds that are due, and runs whose worker stopped.

A run's outcome is saved in the transaction that applies its file, so a run is never recorded as
failed after it wrote, nor as done when nothing was written. The Celery tasks (feeds.tasks) and
`manage.py feeds run` both go through here.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from platforms.importers import ImportReport, offers_import
from platforms.importers.rates import RatesReport, rates_import
from platforms.importers.registry import FORMATS
from platforms.models import Offering, Platform
from platforms.services import catalogue_changed

from . import schedule
from .fetch import FetchError, fetch
from .jobs import jobs_tidy
from .liveness import beating, heard
from .models import PROBLEMS_KEPT, Feed, FeedListing, FeedRun, RunStatus, Trigger

logger = logging.getLogger(__name__)

# Bad rows kept on a run or a job (the counts cover them all).
UNDER_WAY = (RunStatus.RUNNING, RunStatus.RETRYING)
ALIVE_KEY = "feeds:run:{pk}:alive"


def feed_create(
    *,
    name: str,
    url: str,
    fmt: str,
    platform: Platform | None = None,
    schedule_text: str = "1d",
    enabled: bool = True,
    strict: bool = False,
) -> Feed:
    """A checked, saved feed; due at once (its first run comes with beat's next tick)."""
    feed = Feed(
        name=name,
        url=url,
        format=fmt,
        platform=platform,
        schedule=schedule_text,
        enabled=enabled,
        strict=strict,
    )
    feed.full_clean()
    feed.save()
    return feed


# --- one run ----------------------------------------------------------------------------------


def run_start(feed: Feed, trigger: str) -> FeedRun | None:
    """A new run of `feed`, or None while another is under way (running or waiting to retry)."""
    now = timezone.now()
    stale = now - timedelta(seconds=settings.FEED_RUN_STALE_S)
    with transaction.atomic():
        locked = Feed.objects.select_for_update().get(pk=feed.pk)
        if locked.runs.filter(status__in=UNDER_WAY, started_at__gte=stale).exists():
            return None
        run = FeedRun.objects.create(
            feed=locked, trigger=trigger, status=RunStatus.RUNNING, started_at=now, attempts=0
        )
        Feed.objects.filter(pk=feed.pk).update(last_run_at=now, last_status=RunStatus.RUNNING)
    return run


@dataclass(frozen=True)
class Attempt:
    ok: bool
    # Failed in a way another attempt may fix: a timeout, HTTP 5xx, a cut-off download, a
    # concurrent write to the catalogue.
    transient: bool = False


def run_attempt(run: FeedRun) -> Attempt:
    """Fetch the feed and import it. A success finishes the run (in the import's transaction); a
    failure is recorded on the run, which the caller retries or finishes (`run_finish`)."""
    with beating(ALIVE_KEY.format(pk=run.pk)):
        return _attempt(run)


def _attempt(run: FeedRun) -> Attempt:
    feed = run.feed
    run.attempts += 1
    at = timezone.now()
    _reset_counts(run)
    try:
        fetched = fetch(feed.url)
    except FetchError as exc:
        run.http_status, run.bytes = exc.status, exc.received
        return _failed(run, at, exc.code, exc.params, transient=exc.transient)
    run.http_status, run.bytes = fetched.status, fetched.received
    try:
        text = fetched.body.decode("utf-8-sig")
    except UnicodeDecodeError:
        return _failed(run, at, "not_utf8")
    if not text.strip():
        return _failed(run, at, "empty")
    if feed.reads_rates:
        return _rates_attempt(run, at, text)
    if FORMATS[feed.format].line_based and not text.endswith(("\n", "\r")):
        # A CSV cut mid-row can still parse (a price "1.2" for "1.29"): a whole file ends its
        # last line.
        return _failed(run, at, "no_line_break")

    with transaction.atomic():
        report = offers_import(
            text=text,
            fmt=feed.format,
            filename=feed.name,
            # The prices were seen when they were fetched; rows may give their own dates.
            observed_at=at,
            platform=feed.platform,
            source_url=feed.url,
            strict=feed.strict,
            untrusted=True,
        )
        _record(run, report)
        if report.applied:
            unlisted, relisted = listings_update(feed, report.listed, at)
            run.summary += [
                f"offerings gone from the feed, unlisted {unlisted}; back in it, listed "
                f"again {relisted}"
            ]
            _log(run, at, "")
            run_finish(run, ok=True, seen_at=at)
            return Attempt(ok=True)
    conflict = any(problem.reason == "conflict" for problem in report.errors)
    if conflict:
        return _failed(run, at, "conflict", transient=True)
    first = report.errors[0].located() if report.errors else ""
    return _failed(run, at, "rows", {"count": len(report.errors), "first": first})


def _rates_attempt(run: FeedRun, at: datetime, text: str) -> Attempt:
    """A rate feed's file: its rates written whole (with the run's outcome) or not at all."""
    feed = run.feed
    with transaction.atomic():
        report = rates_import(text=text, fmt=feed.format, filename=feed.name, source_url=feed.url)
        _record(run, report)
        if report.applied:
            _log(run, at, "")
            run_finish(run, ok=True, seen_at=at)
            return Attempt(ok=True)
    first = report.errors[0].located() if report.errors else ""
    return _failed(run, at, "rows", {"count": len(report.errors), "first": first})


# Offerings looked up per query (a catalog lists thousands).
LOOKUP_BATCH = 500


def listings_update(feed: Feed, listed: set[tuple[str, str]], at: datetime) -> tuple[int, int]:
    """After a run that applied its file: the offerings it lists are listed by the feed as of
    `at`; those an earlier run listed and this one does not are gone from it since `at`, and are
    unlisted (never deleted) unless another feed still lists them; those gone before and back in
    the file are listed again. Returns (unlisted, listed again).

    A file that lists no offering at all (a catalog cut to its header upstream) unlists nothing:
    a cloud does not stop selling every GPU at once."""
    if not listed:
        return 0, 0
    wanted: dict[str, list[str]] = {}
    for slug, external_id in listed:
        wanted.setdefault(slug, []).append(external_id)
    now_listed: set[int] = set()
    for slug, external_ids in wanted.items():
        for start in range(0, len(external_ids), LOOKUP_BATCH):
            chunk = external_ids[start : start + LOOKUP_BATCH]
            now_listed.update(
                Offering.objects.filter(platform__slug=slug, external_id__in=chunk).values_list(
                    "pk", flat=True
                )
            )
    known = {row.offering_id: row for row in FeedListing.objects.filter(feed=feed)}
    FeedListing.objects.bulk_create(
        [
            FeedListing(feed=feed, offering_id=pk, last_listed_at=at)
            for pk in now_listed
            if pk not in known
        ]
    )
    back = [pk for pk in now_listed if pk in known and known[pk].unlisted_at is not None]
    gone = [pk for pk, row in known.items() if pk not in now_listed and row.unlisted_at is None]
    again = [pk for pk in now_listed if pk in known]
    for start in range(0, len(again), LOOKUP_BATCH):
        FeedListing.objects.filter(
            feed=feed, offering_id__in=again[start : start + LOOKUP_BATCH]
        ).update(last_listed_at=at, unlisted_at=None)
    for start in range(0, len(gone), LOOKUP_BATCH):
        FeedListing.objects.filter(
            feed=feed, offering_id__in=gone[start : start + LOOKUP_BATCH]
        ).update(unlisted_at=at)
    still_listed = set(
        FeedListing.objects.filter(offering_id__in=gone, unlisted_at__isnull=True)
        .exclude(feed=feed)
        .values_list("offering_id", flat=True)
    )
    unlisted = Offering.objects.filter(
        pk__in=[pk for pk in gone if pk not in still_listed], is_active=True
    ).update(is_active=False)
    relisted = Offering.objects.filter(pk__in=back, is_active=False).update(is_active=True)
    if unlisted or relisted:
        catalogue_changed()
    return unlisted, relisted


def run_retrying(run: FeedRun) -> None:
    run.status = RunStatus.RETRYING
    run.save()
    Feed.objects.filter(pk=run.feed_id).update(last_status=RunStatus.RETRYING)


def run_finish(run: FeedRun, *, ok: bool, seen_at: datetime | None = None) -> None:
    """End the run; a success resets the feed's failures, a failure adds one."""
    now = timezone.now()
    run.status = RunStatus.SUCCEEDED if ok else RunStatus.FAILED
    run.finished_at = now
    run.save()
    feeds = Feed.objects.filter(pk=run.feed_id)
    if ok:
        feeds.update(
            consecutive_failures=0,
            last_status=run.status,
            last_success_at=seen_at or now,
        )
    else:
        feeds.update(consecutive_failures=F("consecutive_failures") + 1, last_status=run.status)
    logger.log(
        logging.INFO if ok else logging.WARNING,
        "feed %s: run %s %s after %s attempt(s)%s",
        run.feed.name,
        run.pk,
        run.status,
        run.attempts,
        f": {run.error_text}" if not ok and run.error_code else "",
        extra={
            "event": "feed_run",
            "feed": run.feed.name,
            "run": run.pk,
            "outcome": run.status,
            "trigger": run.trigger,
            "attempts": run.attempts,
            "http_status": run.http_status,
            "bytes": run.bytes,
            "rows": run.rows,
            "offerings_created": run.created,
            "offerings_updated": run.updated,
            "prices_added": run.prices_added,
            "errors": run.errors,
            "error_code": run.error_code,
            "duration_ms": round((now - run.started_at).total_seconds() * 1000, 1),
        },
    )


def run_crashed(run: FeedRun, exc: BaseException) -> None:
    """An unexpected error: the run fails (and the error goes on to the log). The run keeps the
    error's type alone: its text may quote the download."""
    run.error_code, run.error_params = "internal", {"error": type(exc).__name__}
    run_finish(run, ok=False)


def run_stopped(run: FeedRun) -> None:
    """The run's task reached its time limit (FEED_TASK_TIME_LIMIT_S): the run fails."""
    run.error_code, run.error_params = "time_limit", {}
    run_finish(run, ok=False)


def retry_delay(attempts: int) -> float:
    """Seconds before the next attempt after `attempts` failed ones: doubling, capped."""
    delay = settings.FEED_RETRY_BACKOFF_S * 2 ** max(0, attempts - 1)
    return float(min(delay, settings.FEED_RETRY_BACKOFF_MAX_S))


def run_now(
    feed: Feed,
    *,
    trigger: str = Trigger.COMMAND,
    retries: int = 0,
    sleep: Callable[[float], None] = time.sleep,
) -> FeedRun | None:
    """Run `feed` here and now, retrying up to `retries` times with backoff; None when a run is
    already under way."""
    run = run_start(feed, trigger)
    if run is None:
        return None
    try:
        while True:
            attempt = run_attempt(run)
            if attempt.ok:
                return run
            if not attempt.transient or run.attempts > retries:
                run_finish(run, ok=False)
                return run
            sleep(retry_delay(run.attempts))
    except Exception as exc:
        run_crashed(run, exc)
        raise


def _reset_counts(run: FeedRun) -> None:
    run.http_status, run.bytes = None, 0
    run.rows = run.created = run.updated = run.unchanged = run.skipped = 0
    run.prices_added = run.prices_seen = run.errors = 0
    run.error_code, run.error_params, run.problems, run.summary = "", {}, [], []


def _record(run: FeedRun, report: ImportReport | RatesReport) -> None:
    run.rows = report.total_rows
    run.created, run.updated, run.unchanged = report.created, report.updated, report.unchanged
    run.skipped = report.skipped_rows
    run.prices_added, run.prices_seen = report.prices_added, report.prices_seen
    run.errors = len(report.errors)
    # By line and kind only: the file is whatever the feed's server sent (RowProblem.located).
    run.problems = [problem.located() for problem in report.errors[:PROBLEMS_KEPT]]
    run.summary = report.summary_lines()


def _failed(
    run: FeedRun,
    at: datetime,
    code: str,
    params: dict[str, Any] | None = None,
    *,
    transient: bool = False,
) -> Attempt:
    run.error_code, run.error_params = code, params or {}
    if not run.errors and code != "rows":
        run.errors = 1
    _log(run, at, run.error_text)
    run.save()
    return Attempt(ok=False, transient=transient)


def _log(run: FeedRun, at: datetime, error: str) -> None:
    run.attempt_log = [
        *run.attempt_log,
        {"at": at.isoformat(), "http_status": run.http_status, "error": error},
    ]


# --- the schedule -----------------------------------------------------------------------------


def feeds_claim_due(now: datetime | None = None) -> list[Feed]:
    """The enabled feeds that are due, each moved on to its next time; a feed claimed by another
    beat at the same moment is left to it."""
    now = now or timezone.now()
    due = Feed.objects.filter(enabled=True).filter(
        Q(next_run_at__isnull=True) | Q(next_run_at__lte=now)
    )
    claimed = []
    for feed in due:
        try:
            following = schedule.parse(feed.schedule).next_after(now)
        except schedule.ScheduleError:
            logger.error("feed %s: its schedule %r cannot be read", feed.name, feed.schedule)
            continue
        moved = Feed.objects.filter(pk=feed.pk, next_run_at=feed.next_run_at).update(
            next_run_at=following
        )
        if moved:
            claimed.append(feed)
    return claimed


def abandon_stale(now: datetime | None = None) -> int:
    """Runs and import jobs whose worker was lost: running with their heartbeat gone for
    WORKER_LOST_AFTER_S (feeds.liveness), or still under way after FEED_RUN_STALE_S. Since a
    result is saved with what it wrote, nothing was written. They are marked failed, which frees
    the feed for its next run."""
    now = now or timezone.now()
    before = now - timedelta(seconds=settings.FEED_RUN_STALE_S)
    lost_before = now - timedelta(seconds=settings.WORKER_LOST_AFTER_S)
    count = 0
    stale = Q(status__in=UNDER_WAY, started_at__lt=before)
    maybe_lost = Q(status=RunStatus.RUNNING, started_at__lt=lost_before)
    for run in FeedRun.objects.select_related("feed").filter(stale | maybe_lost):
        if run.started_at >= before and heard(ALIVE_KEY.format(pk=run.pk)) is not False:
            continue
        run.error_code, run.error_params = "abandoned", {}
        run_finish(run, ok=False)
        count += 1
    # Import jobs too, and previews not confirmed in time.
    return count + jobs_tidy(now=now, stale_before=before)
