"""`manage.py import_offers PATH --format FORMAT --platform SLUG`: import a price catalog file.

The file is checked as a whole first; with any bad row nothing is written, every bad row is listed
on stderr with its line, and the exit status is 1. Progress goes to stderr, the summary to stdout.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, TextIO

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from platforms.importers import FORMAT_LABELS, ImportReport, observed_at_value, offers_import
from platforms.importers.registry import PLATFORM_PER_ROW
from platforms.importers.rows import RowError
from platforms.importers.service import Progress
from platforms.models import Platform

# Report progress at most this often, and at least every this many rows.
PROGRESS_SECONDS = 1.0
PROGRESS_ROWS = 500
# A usage mistake (bad option, missing file), as opposed to a bad file (status 1).
USAGE_ERROR = 2


class Command(BaseCommand):
    help = (
        "Import offerings and prices from a SkyPilot vms.csv, a gpuhunt CSV, our native CSV or our "
        "JSON feed."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", help="the catalog file (CSV, or JSON for --format json)")
        parser.add_argument("--format", required=True, choices=sorted(FORMAT_LABELS))
        parser.add_argument(
            "--platform",
            help="slug of the platform the file lists (native CSV and JSON: optional, "
            "rows may name their own platform; SkyPilot: the file is read in that cloud's "
            "dialect, e.g. gcp, azure, vastai, verda)",
        )
        parser.add_argument(
            "--observed-at",
            help="date (YYYY-MM-DD) or ISO date-time the prices were observed; default today",
        )
        parser.add_argument(
            "--source", default="", help="URL the file came from (recorded on every price)"
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="check and report; write nothing"
        )
        parser.add_argument(
            "--strict",
            action="store_true",
            help="treat unknown or ambiguous accelerators as errors instead of skipping the rows",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(options["path"])
        fmt = options["format"]
        try:
            # Read as it is parsed, never whole (platforms.importers.rows.Text).
            text = path.open(encoding="utf-8-sig", newline="")
        except FileNotFoundError:
            raise CommandError(f"No such file: {path}", returncode=USAGE_ERROR) from None
        except OSError as exc:
            raise CommandError(f"Cannot read {path}: {exc}", returncode=USAGE_ERROR) from None
        with text:
            self._import(path, text, fmt, options)

    def _import(self, path: Path, text: TextIO, fmt: str, options: dict[str, Any]) -> None:
        platform = None
        if options["platform"]:
            platform = Platform.objects.filter(slug=options["platform"]).first()
            if platform is None:
                raise CommandError(
                    f"No platform with slug {options['platform']!r}; create it in the admin first.",
                    returncode=USAGE_ERROR,
                )
        elif fmt not in PLATFORM_PER_ROW:
            raise CommandError(f"--platform is required for --format {fmt}", returncode=USAGE_ERROR)

        try:
            observed_at = observed_at_value(options["observed_at"] or timezone.localdate())
        except RowError as exc:
            raise CommandError(f"--observed-at: {exc}", returncode=USAGE_ERROR) from None

        try:
            report = offers_import(
                text=text,
                fmt=fmt,
                filename=path.name,
                observed_at=observed_at,
                platform=platform,
                source_url=options["source"],
                dry_run=options["dry_run"],
                strict=options["strict"],
                progress=self._progress_printer(),
            )
        except UnicodeDecodeError as exc:
            # Met while the file is parsed, before anything is written.
            raise CommandError(f"Cannot read {path}: {exc}", returncode=USAGE_ERROR) from None
        self._print(report)
        if not report.ok:
            raise CommandError(
                f"{len(report.errors)} bad row(s) in {path.name}; nothing was written.",
                returncode=1,
            )

    def _progress_printer(self) -> Progress:
        last: dict[str, Any] = {"phase": "", "started": 0.0, "time": 0.0, "done": 0}

        def progress(phase: str, done: int, total: int) -> None:
            now = time.monotonic()
            if phase != last["phase"]:
                last.update(phase=phase, started=now, time=now, done=0)
            if done == 0:
                return
            due = (
                done - last["done"] >= PROGRESS_ROWS
                or now - last["time"] >= PROGRESS_SECONDS
                or (done == total and done != last["done"])
            )
            if not due:
                return
            rate = done / max(now - last["started"], 1e-3)
            self.stderr.write(f"{phase}: {done}/{total} rows ({rate:,.0f} rows/s)")
            last.update(time=now, done=done)

        return progress

    def _print(self, report: ImportReport) -> None:
        for line in report.summary_lines():
            self.stdout.write(line)
        for problem in report.errors:
            self.stderr.write(f"error: {problem}")
        if report.applied and report.sources:
            for source in report.sources:
                self.stdout.write(
                    f"source: {source.title}" + (f" <{source.url}>" if source.url else "")
                )
