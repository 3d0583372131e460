"""`manage.py feeds add|list|run`: price feeds from the command line.

    feeds add NAME --format FORMAT --url URL [--platform SLUG] [--schedule 1d] [--disabled]
    feeds list                     every feed with its last run
    feeds run [NAME] [--all]       run here and now, without a worker (cron, tests): NAME (even
                                   when disabled, and with FEEDS_ENABLED off), else every enabled
                                   feed that is due (--all: every enabled feed), which needs
                                   FEEDS_ENABLED on

`run` exits 1 when a run failed, 2 on a usage mistake (unknown feed or platform, bad option).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from feeds import services
from feeds.models import FEED_FORMATS, Feed, FeedRun, RunStatus, Trigger
from platforms.models import Platform

USAGE_ERROR = 2


class Command(BaseCommand):
    help = "Add, list and run price feeds (SkyPilot, gpuhunt, native CSV or JSON at a URL)."

    def add_arguments(self, parser: CommandParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True)
        add = actions.add_parser("add", help="add a feed")
        add.add_argument("name", help="a name for the feed: letters, digits, '.', '-', '_'")
        add.add_argument("--format", required=True, choices=sorted(FEED_FORMATS))
        add.add_argument("--url", required=True, help="http(s) address of the file")
        add.add_argument(
            "--platform",
            help="slug of the platform the file lists (native CSV and JSON: optional; rates: none)",
        )
        add.add_argument(
            "--schedule", default="1d", help="30m, 6h, 1d or a crontab ('0 3 * * *'); default 1d"
        )
        add.add_argument("--disabled", action="store_true", help="add it switched off")
        add.add_argument(
            "--strict", action="store_true", help="unknown accelerators are errors, not skipped"
        )
        actions.add_parser("list", help="every feed with its last run")
        run = actions.add_parser("run", help="run feeds now, in this process")
        run.add_argument("name", nargs="?", help="the feed to run (default: those due)")
        run.add_argument(
            "--all", action="store_true", help="every enabled feed, due or not (without NAME)"
        )
        run.add_argument(
            "--retries",
            type=int,
            default=0,
            help="attempts after the first when a failure may pass (timeout, HTTP 5xx)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        action = options["action"]
        if action == "add":
            self._add(options)
        elif action == "list":
            self._list()
        else:
            self._run(options)

    def _add(self, options: dict[str, Any]) -> None:
        platform = None
        if options["platform"]:
            platform = Platform.objects.filter(slug=options["platform"]).first()
            if platform is None:
                raise CommandError(
                    f"No platform with slug {options['platform']!r}.", returncode=USAGE_ERROR
                )
        try:
            feed = services.feed_create(
                name=options["name"],
                url=options["url"],
                fmt=options["format"],
                platform=platform,
                schedule_text=options["schedule"],
                enabled=not options["disabled"],
                strict=options["strict"],
            )
        except ValidationError as exc:
            problems = "; ".join(
                f"{name}: {' '.join(str(m) for m in messages)}"
                for name, messages in exc.message_dict.items()
            )
            raise CommandError(problems, returncode=USAGE_ERROR) from None
        self.stdout.write(
            f"added feed {feed.name}: {feed.format_label} from {feed.url}, "
            f"schedule {feed.schedule}" + ("" if feed.enabled else " (disabled)")
        )

    def _list(self) -> None:
        feeds = list(Feed.objects.select_related("platform").order_by("name"))
        if not feeds:
            self.stdout.write("no feeds; add one with `manage.py feeds add`")
            return
        last_runs: dict[int, FeedRun] = {}
        for run in FeedRun.objects.filter(feed__in=feeds).order_by("feed_id", "-started_at", "-pk"):
            last_runs.setdefault(run.feed_id, run)
        for feed in feeds:
            state = "enabled" if feed.enabled else "disabled"
            flag = (
                f"  FLAGGED: {feed.consecutive_failures} failed runs in a row"
                if feed.is_flagged
                else ""
            )
            platform = (
                feed.platform.slug
                if feed.platform
                else "(exchange rates)"
                if feed.reads_rates
                else "(per row)"
            )
            next_run = _when(feed.next_run_at) if feed.next_run_at else "due now"
            self.stdout.write(
                f"{feed.name}  {platform}  {feed.format}  {feed.url}  every {feed.schedule}  "
                f"{state}  next {next_run}{flag}"
            )
            last = last_runs.get(feed.pk)
            self.stdout.write("  last run: " + (_describe(last) if last else "never"))

    def _run(self, options: dict[str, Any]) -> None:
        if options["retries"] < 0:
            raise CommandError("--retries cannot be negative.", returncode=USAGE_ERROR)
        if options["name"]:
            feed = Feed.objects.filter(name=options["name"]).first()
            if feed is None:
                raise CommandError(f"No feed named {options['name']!r}.", returncode=USAGE_ERROR)
            feeds = [feed]
        elif not settings.FEEDS_ENABLED:
            self.stdout.write(
                "feeds are off here (FEEDS_ENABLED is false): name a feed to run it anyway"
            )
            return
        elif options["all"]:
            feeds = list(Feed.objects.filter(enabled=True))
        else:
            feeds = services.feeds_claim_due()
        if not feeds:
            self.stdout.write("no feed is due")
            return
        failed = 0
        for feed in feeds:
            run = services.run_now(feed, trigger=Trigger.COMMAND, retries=options["retries"])
            if run is None:
                self.stdout.write(f"{feed.name}: a run is already under way; not started")
                continue
            self.stdout.write(f"{feed.name}: {_describe(run)}")
            for line in run.summary:
                self.stdout.write(f"  {line}")
            for problem in run.problems:
                self.stderr.write(f"  error: {problem}")
            if run.status != RunStatus.SUCCEEDED:
                failed += 1
        if failed:
            raise CommandError(f"{failed} feed run(s) failed.", returncode=1)


def _when(moment: Any) -> str:
    return str(timezone.localtime(moment).strftime("%Y-%m-%d %H:%M"))


def _describe(run: FeedRun) -> str:
    parts = [
        f"{run.status} {_when(run.started_at)}",
        f"attempts {run.attempts}",
        f"HTTP {run.http_status or '-'}",
        f"{run.bytes} bytes",
        f"{run.rows} rows",
        f"created {run.created}, updated {run.updated}, unchanged {run.unchanged}, "
        f"skipped {run.skipped}, errors {run.errors}",
    ]
    if run.error_code:
        parts.append(run.error_text)
    return " · ".join(parts)
