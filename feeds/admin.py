"""Feeds in the admin: add and edit them, run them now (in the background), see every run, with
failing feeds flagged; and the history of the import jobs confirmed on "Import offers"."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import admin, messages
from django.db import models, transaction
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from . import jobs, schedule
from .liveness import send
from .models import Feed, FeedListing, FeedRun, ImportJob, Trigger


class FlaggedFilter(admin.SimpleListFilter):
    title = _("failing")
    parameter_name = "flagged"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [("yes", _("flagged: failing runs in a row")), ("no", _("not flagged"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        limit = settings.FEED_FAILURES_BEFORE_FLAG
        if self.value() == "yes":
            return queryset.filter(consecutive_failures__gte=limit)
        if self.value() == "no":
            return queryset.filter(consecutive_failures__lt=limit)
        return queryset


def flag_html(feed: Feed) -> SafeString:
    """Failures in a row; flagged in red from FEED_FAILURES_BEFORE_FLAG on."""
    n = feed.consecutive_failures
    if not n:
        return format_html("{}", "—")
    text = ngettext("failed %(n)d run in a row", "failed %(n)d runs in a row", n) % {"n": n}
    if not feed.is_flagged:
        return format_html("{}", text)
    return format_html(
        '<strong class="feed-flagged" style="color: var(--error-fg, #ba2121)">⚠ {}</strong>', text
    )


@admin.register(Feed)
class FeedAdmin(admin.ModelAdmin[Feed]):
    list_display = [
        "name",
        "platform",
        "format",
        "schedule",
        "enabled",
        "last_status",
        "last_run_at",
        "last_success_at",
        "failures",
        "next_run_at",
        "runs_link",
    ]
    list_filter = [FlaggedFilter, "enabled", "format", "last_status", "platform"]
    search_fields = ["name", "url", "platform__name", "platform__slug"]
    list_select_related = ["platform"]
    autocomplete_fields = ["platform"]
    actions = ["run_now", "enable", "disable"]
    fields = [
        "name",
        "platform",
        "format",
        "url",
        "schedule",
        "enabled",
        "strict",
        "next_run_at",
        "consecutive_failures",
        "last_status",
        "last_run_at",
        "last_success_at",
    ]
    readonly_fields = ["consecutive_failures", "last_status", "last_run_at", "last_success_at"]
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}

    @admin.display(description=_("failures in a row"), ordering="consecutive_failures")
    def failures(self, feed: Feed) -> SafeString:
        return flag_html(feed)

    @admin.display(description=_("runs"))
    def runs_link(self, feed: Feed) -> SafeString:
        url = reverse("admin:feeds_feedrun_changelist") + f"?feed__id__exact={feed.pk}"
        return format_html('<a href="{}">{}</a>', url, gettext("runs"))

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> Any:
        feed = self.get_object(request, object_id)
        if feed is not None and feed.is_flagged and request.method == "GET":
            self.message_user(
                request,
                gettext(
                    "This feed failed %(n)d runs in a row: its platform's prices may be out of "
                    "date. See its runs."
                )
                % {"n": feed.consecutive_failures},
                messages.WARNING,
            )
        return super().change_view(request, object_id, form_url, extra_context)

    def save_model(self, request: HttpRequest, obj: Feed, form: Any, change: bool) -> None:
        if change and "schedule" in form.changed_data and "next_run_at" not in form.changed_data:
            # A new schedule counts from now (a new feed is due at once).
            obj.next_run_at = schedule.parse(obj.schedule).next_after(timezone.now())
        super().save_model(request, obj, form, change)

    @admin.action(description=_("Run the selected feeds now (in the background)"))
    def run_now(self, request: HttpRequest, queryset: QuerySet[Feed]) -> None:
        from .tasks import run_feed

        feeds = list(queryset)

        def start(pk: int) -> None:
            # A broker that is down is logged; the feed runs on its schedule once it is back.
            transaction.on_commit(lambda: send(run_feed, feed_id=pk, trigger=Trigger.ADMIN))

        for feed in feeds:
            start(feed.pk)
        self.message_user(
            request,
            ngettext(
                "%(n)d feed started; its run is listed under Feed runs.",
                "%(n)d feeds started; their runs are listed under Feed runs.",
                len(feeds),
            )
            % {"n": len(feeds)},
        )

    @admin.action(description=_("Enable the selected feeds"))
    def enable(self, request: HttpRequest, queryset: QuerySet[Feed]) -> None:
        queryset.update(enabled=True)

    @admin.action(description=_("Disable the selected feeds"))
    def disable(self, request: HttpRequest, queryset: QuerySet[Feed]) -> None:
        queryset.update(enabled=False)


class ReadOnlyAdmin:
    """Records of what happened: looked at, never written in the admin."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


RUN_FIELDS = (
    "feed",
    "status",
    "trigger",
    "started_at",
    "finished_at",
    "attempts",
    "http_status",
    "bytes",
    "rows",
    "created",
    "updated",
    "unchanged",
    "skipped",
    "prices_added",
    "prices_seen",
    "errors",
    "error_text",
    "problem_lines",
    "summary_lines",
    "attempt_lines",
)


@admin.register(FeedRun)
class FeedRunAdmin(ReadOnlyAdmin, admin.ModelAdmin[FeedRun]):
    list_display = [
        "feed",
        "status",
        "trigger",
        "started_at",
        "finished_at",
        "attempts",
        "http_status",
        "bytes",
        "rows",
        "created",
        "updated",
        "unchanged",
        "skipped",
        "errors",
        "error_text",
    ]
    list_filter = ["status", "trigger", "feed"]
    search_fields = ["feed__name"]
    list_select_related = ["feed"]
    date_hierarchy = "started_at"
    fields = readonly_fields = RUN_FIELDS

    @admin.display(description=_("error"))
    def error_text(self, run: FeedRun) -> str:
        return run.error_text

    @admin.display(description=_("bad rows"))
    def problem_lines(self, run: FeedRun) -> str:
        return "\n".join(run.problems)

    @admin.display(description=_("summary"))
    def summary_lines(self, run: FeedRun) -> str:
        return "\n".join(run.summary)

    @admin.display(description=_("attempts"))
    def attempt_lines(self, run: FeedRun) -> str:
        return "\n".join(
            f"{entry.get('at', '')}  HTTP {entry.get('http_status') or '-'}  "
            f"{entry.get('error') or gettext('ok')}"
            for entry in run.attempt_log
        )


@admin.register(FeedListing)
class FeedListingAdmin(ReadOnlyAdmin, admin.ModelAdmin[FeedListing]):
    """The offerings each feed lists, and since when those that left its file are gone (and
    unlisted): written by the feed's runs only."""

    list_display = ["offering", "feed", "last_listed_at", "unlisted_at"]
    list_filter = ["feed", ("unlisted_at", admin.EmptyFieldListFilter)]
    search_fields = ["offering__name", "offering__external_id", "feed__name"]
    list_select_related = ["feed", "offering", "offering__platform"]
    fields = readonly_fields = ("feed", "offering", "last_listed_at", "unlisted_at")


@admin.register(ImportJob)
class ImportJobAdmin(ReadOnlyAdmin, admin.ModelAdmin[ImportJob]):
    list_display = [
        "filename",
        "status",
        "format",
        "platform",
        "created_by",
        "created_at",
        "finished_at",
        "rows",
        "created",
        "updated",
        "unchanged",
        "skipped",
        "errors",
        "progress_link",
    ]
    list_filter = ["status", "format"]
    search_fields = ["filename"]
    list_select_related = ["platform", "created_by"]
    actions = ["retry"]

    def has_retry_permission(self, request: HttpRequest) -> bool:
        # As "Import offers" asks: adding offerings and prices.
        user = request.user
        return bool(
            user.has_perm("platforms.add_offering")
            and user.has_perm("platforms.add_priceobservation")
        )

    @admin.action(
        description=_("Retry the selected jobs whose worker was lost"), permissions=["retry"]
    )
    def retry(self, request: HttpRequest, queryset: QuerySet[ImportJob]) -> None:
        retried = sum(jobs.job_retry(job) for job in queryset)
        skipped = queryset.count() - retried
        if retried:
            self.message_user(
                request,
                ngettext(
                    "%(n)d job sent to a worker again.",
                    "%(n)d jobs sent to a worker again.",
                    retried,
                )
                % {"n": retried},
            )
        if skipped:
            self.message_user(
                request,
                ngettext(
                    "%(n)d job cannot be retried: only a job whose worker was lost, with its "
                    "file kept, can be.",
                    "%(n)d jobs cannot be retried: only a job whose worker was lost, with its "
                    "file kept, can be.",
                    skipped,
                )
                % {"n": skipped},
                level=messages.WARNING,
            )

    @admin.display(description=_("page"))
    def progress_link(self, job: ImportJob) -> SafeString:
        url = reverse("admin:platforms_offering_import_job", args=[job.pk])
        return format_html('<a href="{}">{}</a>', url, gettext("status"))
