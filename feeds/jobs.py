"""The admin's import, applied in the background: the confirmed file becomes an ImportJob that a
worker applies through `offers_import`, while the page polls its status and progress.

The job's outcome is saved in the transaction that applies the file, so the page never says
"failed" about an import that was written. Live progress (rows checked, rows written) cannot be
read from that transaction by another connection, so it goes to Django's cache: shared between
the web and the worker when the cache is Redis (REDIS_URL), and in-process otherwise, as with
`make run`, where the job runs in the request that confirms it.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.core.cache import cache
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from platforms.importers import offers_import
from platforms.importers.service import Progress
from platforms.models import Platform

from .models import ImportJob, JobStatus
from .services import PROBLEMS_KEPT

if TYPE_CHECKING:
    from django.contrib.auth.models import User

logger = logging.getLogger(__name__)

PROGRESS_KEY = "feeds:import-job:{pk}:progress"
PROGRESS_TTL_S = 24 * 60 * 60
# Write progress at most this often (the last row of a phase always).
PROGRESS_EVERY_S = 0.5


def job_create(
    *,
    text: str,
    fmt: str,
    filename: str,
    platform: Platform | None,
    observed_at: datetime,
    source_url: str,
    strict: bool,
    created_by: User | None,
) -> ImportJob:
    """Save the job and hand it to a worker once the job is committed."""
    from .tasks import apply_import_job

    job = ImportJob.objects.create(
        format=fmt,
        filename=filename[:255],
        platform=platform,
        observed_at=observed_at,
        source_url=source_url,
        strict=strict,
        text=text,
        size=len(text.encode()),
        created_by=created_by,
    )
    transaction.on_commit(lambda: apply_import_job.delay(job_id=job.pk))
    return job


def job_run(job_id: int) -> ImportJob | None:
    """Apply a queued job; None when there is none (already taken, or gone)."""
    taken = ImportJob.objects.filter(pk=job_id, status=JobStatus.QUEUED).update(
        status=JobStatus.RUNNING, started_at=timezone.now()
    )
    if not taken:
        return None
    job = ImportJob.objects.select_related("platform", "created_by").get(pk=job_id)
    progress_write = _progress_writer(job.pk)
    try:
        with transaction.atomic():
            report = offers_import(
                text=job.text,
                fmt=job.format,
                filename=job.filename,
                observed_at=job.observed_at,
                platform=job.platform,
                source_url=job.source_url,
                strict=job.strict,
                created_by=job.created_by,
                progress=progress_write,
            )
            job.rows = report.total_rows
            job.created, job.updated, job.unchanged = (
                report.created,
                report.updated,
                report.unchanged,
            )
            job.skipped, job.errors = report.skipped_rows, len(report.errors)
            job.problems = [str(problem) for problem in report.errors[:PROBLEMS_KEPT]]
            job.summary = report.summary_lines()
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
        job.status = JobStatus.FAILED
        job.error_code, job.error_params = "internal", {"error": f"{type(exc).__name__}: {exc}"}
        _finish(job)
    return job


def _finish(job: ImportJob) -> None:
    job.finished_at = timezone.now()
    job.text = ""  # up to 20 MB: not kept once applied or refused
    job.save()
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


@dataclass(frozen=True)
class JobProgress:
    phase: str  # "" (not started), "checking", "writing"
    done: int
    total: int

    @property
    def percent(self) -> int:
        """Checking is the first half, writing the second."""
        if not self.total:
            return 0
        share = min(self.done, self.total) * 50 // self.total
        return share + (50 if self.phase == "writing" else 0)

    @property
    def text(self) -> str:
        numbers = {"done": self.done, "total": self.total}
        if self.phase == "checking":
            return gettext("checking rows: %(done)s of %(total)s") % numbers
        if self.phase == "writing":
            return gettext("writing rows: %(done)s of %(total)s") % numbers
        return ""


def job_progress(job: ImportJob) -> JobProgress:
    if job.status == JobStatus.SUCCEEDED:
        return JobProgress("writing", job.rows, job.rows)
    if job.status != JobStatus.RUNNING:
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
