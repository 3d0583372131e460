"""The import service: a catalog file is parsed, planned against the catalogue, and written in one
transaction only when no row has an error. The command and the admin's "Import offers" page call
`offers_import`. Every import's outcome is logged (logger platforms.importers, event "import").
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from platforms import services
from platforms.models import Platform

from .apply import Writer
from .plan import plan, plan_platform_prices
from .registry import rows_for
from .report import ImportReport
from .rows import RowError, RowProblem, Text, url_value

if TYPE_CHECKING:
    from django.contrib.auth.models import User

Progress = Callable[[str, int, int], None]

logger = logging.getLogger("platforms.importers")


def offers_import(
    *,
    text: Text,
    fmt: str,
    filename: str,
    observed_at: datetime,
    platform: Platform | None = None,
    source_url: str = "",
    dry_run: bool = False,
    strict: bool = False,
    created_by: User | None = None,
    progress: Progress | None = None,
    untrusted: bool = False,
) -> ImportReport:
    """Import a catalog file (`_offers_import`) and log its outcome: applied, refused (with its
    first error) or checked (a dry run), with its counts and the milliseconds it took. An
    `untrusted` file (a price feed's download) is never quoted in the log: its first error is
    given by line and kind only (RowProblem.located)."""
    started = time.perf_counter()
    report = _offers_import(
        text=text,
        fmt=fmt,
        filename=filename,
        observed_at=observed_at,
        platform=platform,
        source_url=source_url,
        dry_run=dry_run,
        strict=strict,
        created_by=created_by,
        progress=progress,
    )
    outcome = "dry_run" if dry_run and report.ok else "applied" if report.applied else "refused"
    fields = {
        "event": "import",
        "outcome": outcome,
        "format": fmt,
        "file": filename,
        "rows": report.total_rows,
        "offerings_created": report.created,
        "offerings_updated": report.updated,
        "offerings_unchanged": report.unchanged,
        "skipped": report.skipped_rows,
        "errors": len(report.errors),
        "prices_added": report.prices_added,
        "duration_ms": round((time.perf_counter() - started) * 1000, 1),
    }
    first = ""
    if report.errors:
        problem = report.errors[0]
        first = f"; first error: {problem.located() if untrusted else problem}"
    logger.log(
        logging.WARNING if outcome == "refused" else logging.INFO,
        "import %s of %s (%s): %s rows, %s created, %s updated, %s errors%s",
        outcome,
        filename,
        fmt,
        report.total_rows,
        report.created,
        report.updated,
        len(report.errors),
        first,
        extra=fields,
    )
    return report


def _offers_import(
    *,
    text: Text,
    fmt: str,
    filename: str,
    observed_at: datetime,
    platform: Platform | None = None,
    source_url: str = "",
    dry_run: bool = False,
    strict: bool = False,
    created_by: User | None = None,
    progress: Progress | None = None,
) -> ImportReport:
    """Import a catalog file. Nothing is written when `dry_run` or when any row has an error.

    `text` is the file's text, or a seekable text stream opened with newline="" (an uploaded
    file, read as it is parsed: feeds.uploads). It is read twice (rows_for): first to count its
    rows, find the bad ones and note where each offering's rows end, then to plan (and write)
    its offerings a batch at a time, so that memory follows the offerings, not the rows.

    `observed_at` dates every price whose row gives no date of its own. `platform` applies to every
    row that does not name one (native CSV may). Rows that cannot be used but are not wrong
    (CPU-only instances, no on-demand price, an accelerator the catalogue does not know) are
    skipped and reported with their lines; `strict` makes an unknown or ambiguous accelerator an
    error instead. `progress(phase, done, total)` is called as rows are done (after each batch),
    in one phase: "writing" when the file is written (each batch of rows as soon as it is
    checked), "checking" for a dry run or a file with bad rows.
    """
    report = ImportReport(fmt=fmt, filename=filename, dry_run=dry_run)
    try:
        source_url = url_value(source_url)
    except RowError as exc:
        report.errors.append(RowProblem(0, "bad source URL", str(exc)))
        return report
    try:
        services.price_date_check(moment=observed_at)
    except ValidationError as exc:
        # One error for the file, not one per row that takes the import's date.
        reason = "date in the future" if observed_at > timezone.now() else "date too early"
        report.errors.append(RowProblem(0, reason, " ".join(exc.messages)))
        return report
    # The first pass: rows counted, bad and skipped rows found, each offering's last row noted.
    source = rows_for(fmt, text, platform.slug if platform is not None else "")
    parsed = source.scan()
    report.total_rows = parsed.total
    report.skipped += parsed.skipped
    report.errors += parsed.errors
    # A dry run checks; an import writes each batch as soon as it is checked, while no row has
    # an error (after one, it only checks, to report every bad row, and writes nothing).
    phase = "checking" if dry_run or report.errors else "writing"
    counter = _Counter(progress, phase, parsed.total, done=lambda: source.rows_read)
    writer = Writer(fmt=fmt, filename=filename, source_url=source_url, created_by=created_by)

    with transaction.atomic():
        try:
            # The second pass: the offerings, merged, planned (and written) a batch at a time.
            for batch in plan(
                source.offerings(report.errors),
                report=report,
                platform=platform,
                observed_at=observed_at,
                strict=strict,
            ):
                if not (dry_run or report.errors):
                    writer.write(batch)
                counter.tick()
            report.merged = source.merged
            platform_prices = plan_platform_prices(
                parsed.storage,
                parsed.idle_modes,
                report=report,
                platform=platform,
                observed_at=observed_at,
            )
            if not (dry_run or report.errors):
                writer.write_platform_prices(platform_prices)
        except (IntegrityError, ValidationError) as exc:
            # Someone wrote the same offerings between our reads and our writes. The whole
            # transaction is rolled back, so running the import again is safe.
            transaction.set_rollback(True)
            report.errors.append(
                RowProblem(0, "conflict", f"the catalogue changed while importing ({exc}); retry")
            )
            return report
        counter.finish()
        report.errors.sort(key=lambda problem: problem.line)
        report.skipped.sort(key=lambda problem: problem.line)
        if dry_run or report.errors:
            # A row found bad after earlier batches were written: none of them stays.
            transaction.set_rollback(True)
            return report
    report.sources = writer.sources
    report.applied = True
    return report


class _Counter:
    """Reports the data rows done in one phase: those read up to the last offering planned (and,
    when writing, written), whether they made an offering, were merged, skipped or refused."""

    def __init__(
        self, progress: Progress | None, phase: str, total: int, *, done: Callable[[], int]
    ) -> None:
        self.progress, self.phase, self.total, self.done = progress, phase, total, done
        if progress is not None:
            progress(phase, 0, total)

    def tick(self) -> None:
        if self.progress is not None:
            self.progress(self.phase, min(self.done(), self.total), self.total)

    def finish(self) -> None:
        if self.progress is not None:
            self.progress(self.phase, self.total, self.total)
