"""The admin's import, in the background: an uploaded file becomes an ImportJob whose file is kept
server-side (feeds.uploads); a worker checks it (the preview, a dry run of `offers_import`), staff
confirm what they saw, and a worker applies the same file. The page polls the job's status and
progress throughout, so neither a large file nor a slow import holds a web request.

    upload -> check_queued -> checking -> checked --confirm--> queued -> running -> succeeded
                                       \\-> refused            \\-> expired           \\-> failed

A step whose task could not be sent (the broker was down) stays waiting and beat sends it again
(`jobs_resend`); a step whose worker was lost is failed within minutes (feeds.liveness) with its
file kept, and staff can retry it (`job_retry`, the admin's "Retry" action).

Each outcome is saved in the transaction that produced it, so the page never says "failed" about
an import that was written. Live progress (rows checked, rows written) cannot be read from that
transaction by another connection, so it goes to Django's cache: shared between the web and the
worker when the cache is Redis (REDIS_URL), and in-process otherwise, as with `make run`, where
each step runs in the request that starts it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from celery import shared_task
from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext

from platforms.importers import ImportReport, offers_import
from platforms.importers.report import line_ranges
from platforms.importers.service import Progress
from platforms.models import Platform

from .liveness import beating, heard, send
from .models import PROBLEMS_KEPT, ImportJob, ImportJobChunk, JobStatus
from .uploads import job_file_drop, job_file_open, job_file_save

if TYPE_CHECKING:
    from django.contrib.auth.models import User

logger = logging.getLogger(__name__)

PROGRESS_KEY = "feeds:import-job:{pk}:progress"
ALIVE_KEY = "feeds:import-job:{pk}:alive"
# A step's task is sent once its transaction commits; a job left unsent this long is sent by beat.
SEND_GRACE = timedelta(seconds=10)
PROGRESS_TTL_S = 24 * 60 * 60
# Write progress at most this often (the last row of a phase always).
PROGRESS_EVERY_S = 0.5
# A preview not confirmed within this long expires and its file is dropped: the catalogue it was
# checked against may have moved on.
CONFIRM_WITHIN = timedelta(hours=1)
# The preview lists at most this many offerings; its counts always cover the whole file.
PREVIEW_CHANGES = 1000


def job_create(
    *,
    pieces: Iterable[bytes],
    max_bytes: int,
    fmt: str,
    filename: str,
    platform: Platform | None,
    observed_at: datetime,
    source_url: str,
    strict: bool,
    created_by: User | None,
) -> ImportJob:
    """Save the job with its file (`pieces`, streamed into the database) and hand it to a worker
    to check once committed. Raises uploads.FileRefused (nothing saved) for a file over
    `max_bytes` or not UTF-8."""
    with transaction.atomic():
        job = ImportJob.objects.create(
            status=JobStatus.CHECK_QUEUED,
            format=fmt,
            filename=filename[:255],
            platform=platform,
            observed_at=observed_at,
            source_url=source_url,
            strict=strict,
            created_by=created_by,
        )
        job.size = job_file_save(job, pieces, max_bytes=max_bytes)
        job.save(update_fields=["size"])
        transaction.on_commit(lambda: _send(check_import_job, job.pk))
    return job


def _send(task: Any, job_id: int) -> bool:
    """Hand the job's waiting step to a worker; when the broker is down the job stays waiting
    (unsent) for beat to send again."""
    sent_at = timezone.now()
    if not send(task, job_id=job_id):
        return False
    # Eager (no broker): the step already ran; only a job still waiting is marked.
    ImportJob.objects.filter(
        pk=job_id, status__in=[JobStatus.CHECK_QUEUED, JobStatus.QUEUED]
    ).update(sent_at=sent_at)
    return True


def _take(job_id: int, waiting: str, working: str) -> ImportJob | None:
    """The job, moved from `waiting` to `working` by this worker alone; None when another took
    it, or it is gone."""
    taken = ImportJob.objects.filter(pk=job_id, status=waiting).update(
        status=working, started_at=timezone.now()
    )
    if not taken:
        return None
    return ImportJob.objects.select_related("platform", "created_by").get(pk=job_id)


def _import(job: ImportJob, *, dry_run: bool) -> ImportReport:
    with beating(ALIVE_KEY.format(pk=job.pk)), job_file_open(job) as text:
        return offers_import(
            text=text,
            fmt=job.format,
            filename=job.filename,
            observed_at=job.observed_at,
            platform=job.platform,
            source_url=job.source_url,
            strict=job.strict,
            dry_run=dry_run,
            created_by=job.created_by,
            progress=_progress_writer(job.pk),
        )


def _record(job: ImportJob, report: ImportReport) -> None:
    job.rows = report.total_rows
    job.created, job.updated, job.unchanged = report.created, report.updated, report.unchanged
    job.skipped, job.errors = report.skipped_rows, len(report.errors)
    job.problems = [str(problem) for problem in report.errors[:PROBLEMS_KEPT]]
    job.summary = report.summary_lines()


def job_check(job_id: int) -> ImportJob | None:
    """The preview: check a queued upload against the catalogue and keep what the page shows (the
    summary, skipped rows by reason, the first PREVIEW_CHANGES offerings, the bad rows). A file
    with a bad row is refused and dropped; one without waits for its confirmation."""
    job = _take(job_id, JobStatus.CHECK_QUEUED, JobStatus.CHECKING)
    if job is None:
        return None
    try:
        report = _import(job, dry_run=True)
    except Exception as exc:
        logger.exception("import job %s: the check failed", job_id)
        return _fail(job, exc)
    _record(job, report)
    job.preview = {
        "skipped": [list(item) for item in report.skipped_by_reason()],
        "offerings": report.offerings,
        "changes": [
            {
                "action": change.action,
                "platform": change.platform,
                "key": change.external_id,
                "lines": line_ranges(change.lines),
                "details": "; ".join(change.details),
            }
            for change in report.changes[:PREVIEW_CHANGES]
        ],
    }
    job.checked_at = timezone.now()
    if report.ok:
        job.status = JobStatus.CHECKED
        job.save()
        cache.delete(PROGRESS_KEY.format(pk=job.pk))
    else:
        job.status = JobStatus.REFUSED
        job.error_code = "rows"
        job.error_params = {"count": len(report.errors), "first": str(report.errors[0])}
        _finish(job)
    return job


def confirm_deadline(job: ImportJob) -> datetime | None:
    return None if job.checked_at is None else job.checked_at + CONFIRM_WITHIN


def job_confirm(job: ImportJob, *, by: User) -> bool:
    """Queue a checked job to be written, by the person who uploaded it, within CONFIRM_WITHIN of
    its check; an expired one is marked so (and its file dropped). Returns whether it was queued."""
    job.refresh_from_db()
    deadline = confirm_deadline(job)
    if job.status != JobStatus.CHECKED or job.created_by_id != by.pk or deadline is None:
        return False
    if timezone.now() > deadline:
        _expire(job)
        return False
    with transaction.atomic():
        confirmed = ImportJob.objects.filter(pk=job.pk, status=JobStatus.CHECKED).update(
            status=JobStatus.QUEUED, confirmed_at=timezone.now(), sent_at=None
        )
        if confirmed:
            transaction.on_commit(lambda: _send(apply_import_job, job.pk))
    job.refresh_from_db()
    return bool(confirmed)


def job_run(job_id: int) -> ImportJob | None:
    """Apply a confirmed job; None when there is none (already taken, or gone)."""
    job = _take(job_id, JobStatus.QUEUED, JobStatus.RUNNING)
    if job is None:
        return None
    try:
        with transaction.atomic():
            report = _import(job, dry_run=False)
            _record(job, report)
            if report.applied:
                job.status = JobStatus.SUCCEEDED
            else:
                job.status = JobStatus.FAILED
                conflict = any(problem.reason == "conflict" for problem in report.errors)
                job.error_code = "conflict" if conflict else "rows"
                job.error_params = {
                    "count": len(report.errors),
                    "first": str(report.errors[0]) if report.errors else "",
                }
            _finish(job)
    except Exception as exc:
        logger.exception("import job %s failed", job_id)
        _fail(job, exc)
    return job


def job_retry(job: ImportJob) -> bool:
    """Put a job whose worker was lost (failed, "abandoned", its file kept) back to the step it
    was on, and send it. Returns whether it was."""

    if not job_retryable(job):
        return False
    step = JobStatus.QUEUED if job.confirmed_at is not None else JobStatus.CHECK_QUEUED
    with transaction.atomic():
        retried = ImportJob.objects.filter(
            pk=job.pk, status=JobStatus.FAILED, error_code="abandoned"
        ).update(
            status=step,
            error_code="",
            error_params={},
            started_at=None,
            finished_at=None,
            sent_at=None,
        )
        if retried:
            task = apply_import_job if step == JobStatus.QUEUED else check_import_job
            transaction.on_commit(lambda: _send(task, job.pk))
    job.refresh_from_db()
    return bool(retried)


def job_retryable(job: ImportJob) -> bool:
    return (
        job.status == JobStatus.FAILED
        and job.error_code == "abandoned"
        and ImportJobChunk.objects.filter(job=job).exists()
    )


def jobs_resend(now: datetime | None = None) -> int:
    """Send again the waiting steps whose task never reached the broker, or that no worker took
    within JOB_RESEND_AFTER_S (a broker restarted without its queue). A step is taken by one
    worker only (`_take`), so one sent twice runs once. Returns how many were sent."""

    now = now or timezone.now()
    lost = now - timedelta(seconds=settings.JOB_RESEND_AFTER_S)
    unsent = Q(sent_at__isnull=True) | Q(sent_at__lt=lost)
    count = 0
    for status, since, task in (
        (JobStatus.CHECK_QUEUED, "created_at", check_import_job),
        (JobStatus.QUEUED, "confirmed_at", apply_import_job),
    ):
        waiting = ImportJob.objects.filter(
            unsent, status=status, **{f"{since}__lt": now - SEND_GRACE}
        )
        for pk in waiting.values_list("pk", flat=True):
            count += _send(task, pk)
    return count


def _fail(job: ImportJob, exc: Exception) -> ImportJob:
    job.status = JobStatus.FAILED
    job.error_code, job.error_params = "internal", {"error": f"{type(exc).__name__}: {exc}"}
    _finish(job)
    return job


def _expire(job: ImportJob) -> None:
    job.status = JobStatus.EXPIRED
    job.error_code, job.error_params = "expired", {}
    _finish(job)


def _finish(job: ImportJob, *, keep_file: bool = False) -> None:
    """Save the job's outcome; its file (up to 20 MB) is not kept once the job is done, unless
    it is to be retried (`keep_file`)."""
    job.finished_at = timezone.now()
    job.save()
    if not keep_file:
        job_file_drop(job)
    cache.delete(PROGRESS_KEY.format(pk=job.pk))
    ok = job.status == JobStatus.SUCCEEDED
    logger.log(
        logging.INFO if ok else logging.WARNING,
        "import job %s (%s): %s%s",
        job.pk,
        job.filename,
        job.status,
        f", {job.error_code}" if job.error_code else "",
        extra={
            "event": "import_job",
            "job": job.pk,
            "file": job.filename,
            "outcome": job.status,
            "rows": job.rows,
            "offerings_created": job.created,
            "offerings_updated": job.updated,
            "errors": job.errors,
            "error_code": job.error_code,
        },
    )


def jobs_tidy(*, now: datetime, stale_before: datetime) -> int:
    """Jobs left behind, marked: checks and imports under way whose worker was lost (their
    heartbeat gone for WORKER_LOST_AFTER_S, or started before `stale_before`; as an outcome is
    saved with what it wrote, nothing was written), failed with their file kept for a retry; and
    previews not confirmed in time, their files dropped. Returns how many."""
    count = 0
    lost_before = now - timedelta(seconds=settings.WORKER_LOST_AFTER_S)
    under_way = ImportJob.objects.filter(status__in=[JobStatus.CHECKING, JobStatus.RUNNING])
    for job in under_way.filter(started_at__lt=lost_before):
        stale = job.started_at is not None and job.started_at < stale_before
        if not stale and heard(ALIVE_KEY.format(pk=job.pk)) is not False:
            continue
        job.status, job.error_code, job.error_params = JobStatus.FAILED, "abandoned", {}
        _finish(job, keep_file=True)
        count += 1
    for job in ImportJob.objects.filter(
        status=JobStatus.CHECKED, checked_at__lt=now - CONFIRM_WITHIN
    ):
        _expire(job)
        count += 1
    return count


@dataclass(frozen=True)
class JobProgress:
    phase: str  # "" (not started), "checking", "writing"
    done: int
    total: int

    @property
    def percent(self) -> int:
        if not self.total:
            return 0
        return min(self.done, self.total) * 100 // self.total

    @property
    def text(self) -> str:
        numbers = {"done": self.done, "total": self.total}
        if self.phase == "checking":
            return gettext("checking rows: %(done)s of %(total)s") % numbers
        if self.phase == "writing":
            return gettext("writing rows: %(done)s of %(total)s") % numbers
        return ""


def job_progress(job: ImportJob) -> JobProgress:
    """Rows done in the job's current step: the check, then (confirmed) the import."""
    if job.status == JobStatus.SUCCEEDED:
        return JobProgress("writing", job.rows, job.rows)
    if job.status in (JobStatus.CHECKED, JobStatus.REFUSED):
        return JobProgress("checking", job.rows, job.rows)
    if job.status not in (JobStatus.CHECKING, JobStatus.RUNNING):
        return JobProgress("", 0, 0)
    value: Any = cache.get(PROGRESS_KEY.format(pk=job.pk))
    if not isinstance(value, dict):
        return JobProgress("", 0, 0)
    return JobProgress(str(value["phase"]), int(value["done"]), int(value["total"]))


def _progress_writer(pk: int) -> Progress:
    key = PROGRESS_KEY.format(pk=pk)
    last: dict[str, Any] = {"phase": "", "time": 0.0}

    def write(phase: str, done: int, total: int) -> None:
        now = time.monotonic()
        due = phase != last["phase"] or done >= total or now - last["time"] >= PROGRESS_EVERY_S
        if not due:
            return
        last.update(phase=phase, time=now)
        cache.set(key, {"phase": phase, "done": done, "total": total}, PROGRESS_TTL_S)

    return write


# The import's Celery tasks, here with what they run, so that queueing one (job_create,
# job_confirm) needs no import of feeds.tasks, which imports this module; feeds.tasks exports them
# under their registered names, which stay "feeds.tasks.*".
@shared_task(name="feeds.tasks.check_import_job", ignore_result=True)
def check_import_job(job_id: int) -> str:
    """The admin import's preview: check the uploaded file (a dry run)."""
    job = job_check(job_id)
    return job.status if job is not None else "not queued"


@shared_task(name="feeds.tasks.apply_import_job", ignore_result=True)
def apply_import_job(job_id: int) -> str:
    """The admin import, confirmed: write the checked file."""
    job = job_run(job_id)
    return job.status if job is not None else "not queued"
