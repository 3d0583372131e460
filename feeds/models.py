"""Price feeds (a catalog file at a URL, fetched on a schedule), the record of each run, and the
admin's background import jobs.

A feed run is one FeedRun however many attempts it takes: its counts are those of the attempt that
ended it, `attempt_log` lists every attempt. A run either applied its file whole or wrote nothing
(the importer works in one transaction, and the run's outcome is saved in that same transaction).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from platforms.importers import FORMAT_LABELS
from platforms.importers.rates import RATE_FORMAT_LABELS
from platforms.importers.registry import PLATFORM_PER_ROW
from platforms.models import Offering, Platform

from . import messages, schedule

FEED_NAME = RegexValidator(
    r"^[A-Za-z0-9][A-Za-z0-9._-]*$",
    _("Letters, digits, '.', '-' and '_' only, starting with a letter or digit."),
)


# What a feed can read: a catalog of offers and prices, or exchange rates (which name no platform).
FEED_FORMATS = {**FORMAT_LABELS, **RATE_FORMAT_LABELS}
NO_PLATFORM = PLATFORM_PER_ROW | frozenset(RATE_FORMAT_LABELS)


# Bad rows kept with a feed's run or an import job (FeedRun.problems, ImportJob.problems).
PROBLEMS_KEPT = 50


class RunStatus(models.TextChoices):
    RUNNING = "running", _("running")
    RETRYING = "retrying", _("waiting to retry")
    SUCCEEDED = "succeeded", _("succeeded")
    FAILED = "failed", _("failed")


class Trigger(models.TextChoices):
    SCHEDULE = "schedule", _("schedule")
    ADMIN = "admin", _("admin")
    COMMAND = "command", _("command")


class Feed(models.Model):
    name = models.CharField(_("name"), max_length=100, unique=True, validators=[FEED_NAME])
    platform = models.ForeignKey(
        Platform,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="feeds",
        verbose_name=_("platform"),
        help_text=_("Required except for native CSV and JSON feeds, whose rows may name it."),
    )
    url = models.URLField(_("URL"), max_length=500)
    format = models.CharField(
        _("format"), max_length=20, choices=sorted(FEED_FORMATS.items(), key=lambda f: f[0])
    )
    schedule = models.CharField(
        _("schedule"),
        max_length=100,
        default="1d",
        help_text=_(
            "An interval (30m, 6h, 1d) or a crontab: minute hour day-of-month month "
            "day-of-week, e.g. '0 3 * * *' for 03:00 every day (site time zone)."
        ),
    )
    enabled = models.BooleanField(_("enabled"), default=True)
    strict = models.BooleanField(
        _("unknown accelerators are errors"),
        default=False,
        help_text=_("Unticked, rows with an unknown accelerator are skipped and listed."),
    )
    next_run_at = models.DateTimeField(
        _("next run at"), null=True, blank=True, help_text=_("Empty: due now.")
    )
    consecutive_failures = models.PositiveIntegerField(_("failures in a row"), default=0)
    last_run_at = models.DateTimeField(_("last run at"), null=True, blank=True, editable=False)
    last_status = models.CharField(
        _("last status"), max_length=10, choices=RunStatus.choices, blank=True, editable=False
    )
    last_success_at = models.DateTimeField(
        _("last success at"), null=True, blank=True, editable=False
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("price feed")
        verbose_name_plural = _("price feeds")

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        errors: dict[str, Any] = {}
        try:
            schedule.parse(self.schedule)
        except schedule.ScheduleError as exc:
            errors["schedule"] = str(exc)
        if self.format and self.format not in NO_PLATFORM and self.platform_id is None:
            errors["platform"] = _("Choose the platform this catalog lists.")
        if self.format in RATE_FORMAT_LABELS and self.platform_id is not None:
            errors["platform"] = _("Exchange rates belong to no platform: leave it empty.")
        if self.url and not self.url.lower().startswith(("http://", "https://")):
            errors["url"] = _("Only http and https addresses can be fetched.")
        if errors:
            raise ValidationError(errors)

    @property
    def is_flagged(self) -> bool:
        """Failed FEED_FAILURES_BEFORE_FLAG runs in a row: its prices may be out of date."""
        return self.consecutive_failures >= settings.FEED_FAILURES_BEFORE_FLAG

    @property
    def format_label(self) -> str:
        return FEED_FORMATS.get(self.format, self.format)

    @property
    def reads_rates(self) -> bool:
        return self.format in RATE_FORMAT_LABELS


class FeedRun(models.Model):
    feed = models.ForeignKey(
        Feed, on_delete=models.CASCADE, related_name="runs", verbose_name=_("feed")
    )
    trigger = models.CharField(_("trigger"), max_length=10, choices=Trigger.choices)
    status = models.CharField(_("status"), max_length=10, choices=RunStatus.choices)
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=1)
    started_at = models.DateTimeField(_("started at"))
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    http_status = models.PositiveSmallIntegerField(_("HTTP status"), null=True, blank=True)
    bytes = models.PositiveBigIntegerField(_("bytes"), default=0)
    rows = models.PositiveIntegerField(_("rows"), default=0)
    created = models.PositiveIntegerField(_("created"), default=0)
    updated = models.PositiveIntegerField(_("updated"), default=0)
    unchanged = models.PositiveIntegerField(_("unchanged"), default=0)
    skipped = models.PositiveIntegerField(_("skipped rows"), default=0)
    prices_added = models.PositiveIntegerField(_("prices added"), default=0)
    prices_seen = models.PositiveIntegerField(_("prices re-seen"), default=0)
    errors = models.PositiveIntegerField(_("errors"), default=0)
    error_code = models.CharField(_("error"), max_length=30, blank=True)
    error_params = models.JSONField(_("error details"), default=dict, blank=True)
    # The importer's bad rows ("line 3: Price is not a number"), the first PROBLEMS_KEPT.
    problems = models.JSONField(_("bad rows"), default=list, blank=True)
    summary = models.JSONField(_("summary"), default=list, blank=True)
    # One entry per attempt: {"at", "http_status", "error"}.
    attempt_log = models.JSONField(_("attempts"), default=list, blank=True)

    class Meta:
        ordering = ["-started_at", "-pk"]
        verbose_name = _("feed run")
        verbose_name_plural = _("feed runs")
        indexes = [
            models.Index(fields=["feed", "-started_at"], name="feedrun_feed_latest"),
            models.Index(fields=["status", "started_at"], name="feedrun_status_started"),
        ]

    def __str__(self) -> str:
        return f"{self.feed} {self.started_at:%Y-%m-%d %H:%M} {self.status}"

    @property
    def error_text(self) -> str:
        return messages.render(self.error_code, self.error_params) if self.error_code else ""

    @property
    def finished(self) -> bool:
        return self.status in (RunStatus.SUCCEEDED, RunStatus.FAILED)


class FeedListing(models.Model):
    """An offering a feed's file lists, or listed: when a run last found it there, and since when
    it is gone. An offering that leaves every feed listing it is not deleted: it is unlisted
    (`Offering.is_active` off) from `unlisted_at`, with its prices kept as history, and listed
    again when a later run finds it (feeds.services.listings_update)."""

    feed = models.ForeignKey(
        Feed, on_delete=models.CASCADE, related_name="listings", verbose_name=_("feed")
    )
    offering = models.ForeignKey(
        Offering, on_delete=models.CASCADE, related_name="feed_listings", verbose_name=_("offering")
    )
    last_listed_at = models.DateTimeField(_("last listed at"))
    unlisted_at = models.DateTimeField(
        _("gone from the feed since"),
        null=True,
        blank=True,
        help_text=_("Empty while the feed's file lists it."),
    )

    class Meta:
        verbose_name = _("offering a feed lists")
        verbose_name_plural = _("offerings feeds list")
        constraints = [
            models.UniqueConstraint(fields=["feed", "offering"], name="feedlisting_one_per_feed")
        ]

    def __str__(self) -> str:
        return f"{self.feed} {self.offering_id}"


class JobStatus(models.TextChoices):
    # The uploaded file, checked by a worker (a dry run): nothing is written.
    CHECK_QUEUED = "check_queued", _("waiting for a worker to check the file")
    CHECKING = "checking", _("checking the file")
    CHECKED = "checked", _("checked: waiting for your confirmation")
    REFUSED = "refused", _("checked: bad rows, nothing to import")
    EXPIRED = "expired", _("not confirmed in time")
    # Confirmed: written by a worker, whole or not at all.
    QUEUED = "queued", _("waiting for a worker")
    RUNNING = "running", _("running")
    SUCCEEDED = "succeeded", _("succeeded")
    FAILED = "failed", _("failed")


# A worker is busy with the job, or will be: the page polls until it is not.
UNDER_WAY = (JobStatus.CHECK_QUEUED, JobStatus.CHECKING, JobStatus.QUEUED, JobStatus.RUNNING)
# Nothing will happen to the job any more; its file is gone.
DONE = (JobStatus.REFUSED, JobStatus.EXPIRED, JobStatus.SUCCEEDED, JobStatus.FAILED)


class ImportJob(models.Model):
    """A file uploaded in the admin's "Import offers": checked by a worker (the preview), then,
    once staff confirm it, applied by a worker; the page polls its status.

    The file itself is kept server-side in ImportJobChunks from the upload until the job is done
    (refused, expired, applied or failed), so the confirmation carries no copy of it and every
    web and worker process reads the same file from the database.
    """

    status = models.CharField(
        _("status"), max_length=20, choices=JobStatus.choices, default=JobStatus.CHECK_QUEUED
    )
    format = models.CharField(_("format"), max_length=20)
    filename = models.CharField(_("file"), max_length=255)
    platform = models.ForeignKey(
        Platform,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("platform"),
    )
    observed_at = models.DateTimeField(_("observed at"))
    source_url = models.URLField(_("source URL"), max_length=500, blank=True)
    strict = models.BooleanField(_("unknown accelerators are errors"), default=False)
    size = models.PositiveBigIntegerField(_("bytes"), default=0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("started by"),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    checked_at = models.DateTimeField(_("checked at"), null=True, blank=True)
    confirmed_at = models.DateTimeField(_("confirmed at"), null=True, blank=True)
    # When its waiting step's task reached the broker; null while it has not (the broker was
    # down): beat sends it again (feeds.jobs.jobs_resend).
    sent_at = models.DateTimeField(_("sent to a worker at"), null=True, blank=True)
    started_at = models.DateTimeField(_("started at"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    rows = models.PositiveIntegerField(_("rows"), default=0)
    created = models.PositiveIntegerField(_("created"), default=0)
    updated = models.PositiveIntegerField(_("updated"), default=0)
    unchanged = models.PositiveIntegerField(_("unchanged"), default=0)
    skipped = models.PositiveIntegerField(_("skipped rows"), default=0)
    errors = models.PositiveIntegerField(_("errors"), default=0)
    error_code = models.CharField(_("error"), max_length=30, blank=True)
    error_params = models.JSONField(_("error details"), default=dict, blank=True)
    problems = models.JSONField(_("bad rows"), default=list, blank=True)
    summary = models.JSONField(_("summary"), default=list, blank=True)
    # What the check found, for the preview page: skipped rows by reason and the first changes.
    preview = models.JSONField(_("preview"), default=dict, blank=True, editable=False)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("import job")
        verbose_name_plural = _("import jobs")

    def __str__(self) -> str:
        return f"{self.filename} ({self.created_at:%Y-%m-%d %H:%M})"

    @property
    def under_way(self) -> bool:
        return self.status in UNDER_WAY

    @property
    def finished(self) -> bool:
        return self.status in DONE

    @property
    def confirmed(self) -> bool:
        """Past the preview: queued to be written, written, or failed."""
        return self.confirmed_at is not None

    @property
    def error_text(self) -> str:
        return messages.render(self.error_code, self.error_params) if self.error_code else ""

    @property
    def format_label(self) -> str:
        return FORMAT_LABELS.get(self.format, self.format)


class ImportJobChunk(models.Model):
    """A piece of an import job's file, in upload order: the file, streamed in from the upload and
    out to the importer without ever being whole in memory, and readable by any worker."""

    job = models.ForeignKey(ImportJob, on_delete=models.CASCADE, related_name="chunks")
    index = models.PositiveIntegerField()
    data = models.BinaryField()

    class Meta:
        constraints = [
            # Also the index of "the job's file, in order" (feeds.uploads).
            models.UniqueConstraint(fields=["job", "index"], name="importjobchunk_one_per_index")
        ]

    def __str__(self) -> str:
        return f"{self.job_id}/{self.index}"
