"""Importing price catalogs: the row model every format parses into, accelerator resolution, and the
import service that checks a whole file before it writes any of it.

A format module (skypilot, gpuhunt, native) turns the file's text into `OfferRow`s plus the rows it
skipped or could not read, each with its line number. `offers_import` then resolves platforms and
accelerators, plans every change against the database without writing (the dry run stops there), and
writes the plan in one transaction only when no row has an error.

History is kept, never rewritten: per (offering, billing unit) a price that differs from the one
observed before gets a new observation; the same price seen again only moves that observation's
`last_seen_at` forward, so staleness is right without a row per sighting.
"""

from __future__ import annotations

import csv
import io
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import date, datetime, time
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import IntegrityError, models, transaction
from django.db.models import OuterRef, Subquery
from django.utils import timezone

from platforms.models import (
    Accelerator,
    AcceleratorAlias,
    DeliveryForm,
    Offering,
    Platform,
    PriceObservation,
    Source,
    SourceKind,
    normalise_alias,
)

FORMAT_LABELS = {
    "skypilot": "SkyPilot catalog (vms.csv)",
    "gpuhunt": "gpuhunt catalog (v2 CSV)",
    "native": "native CSV",
}

# Prices are stored to 4 decimal places (PriceObservation.amount); catalogs print more digits
# (AWS spot "13.020600") that are almost always trailing zeros.
PRICE_PLACES = Decimal("0.0001")
RAM_PLACES = Decimal("0.1")
# Per-GPU memory a catalog states and the accelerator's VRAM differ by rounding (B200: 183,359 MiB
# = 179.06 GiB against 180 GiB); 5 % tells 40 from 48 and 80 from 94 GB apart.
MEMORY_TOLERANCE = Decimal("0.05")
# Words in an instance type or GPU string that tell form factors of a GPU apart (H100 PCIe/SXM/NVL).
FORM_FACTOR_WORDS = ("pcie", "sxm", "nvl")


class RowError(ValueError):
    """A value in a row that cannot be read; the message names the column."""


class Unresolved(ValueError):
    """An accelerator name that matches no accelerator, or more than one."""


class Skip(Exception):
    """A row that is fine but not an offering we keep (CPU-only, no on-demand price)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class RowProblem:
    """A skipped or rejected row. `reason` groups rows in the summary; `message` is per row."""

    line: int
    reason: str
    message: str = ""

    def __str__(self) -> str:
        # Line 0: a problem with the import as a whole (its source URL, a concurrent write).
        where = f"line {self.line}: " if self.line else ""
        return f"{where}{self.message or self.reason}"


@dataclass(frozen=True)
class PriceRow:
    unit: str
    amount: Decimal
    currency: str
    observed_at: datetime | None = None
    source_url: str = ""


@dataclass
class OfferRow:
    """One offering as a catalog states it.

    None means "the catalog does not say": an existing offering keeps its stored value, a new one
    gets the model's default (delivery form: the platform's first).
    """

    lines: list[int]
    external_id: str
    name: str
    accelerator_name: str
    gpu_count: int
    prices: list[PriceRow]
    gpu_memory_gib: Decimal | None = None
    platform_slug: str = ""
    vcpus: int | None = None
    ram_gib: Decimal | None = None
    disk_gb: int | None = None
    region: str = ""
    interruptible: bool = False
    delivery_form: str | None = None
    sharing_mode: str | None = None
    interconnect: str | None = None
    pooled_vram_gib: Decimal | None = None
    mig_profile: str | None = None
    # Other names of the hardware (instance type, the GPU string in GpuInfo): only used to tell
    # form factors apart when name and memory leave more than one accelerator.
    hint: str = ""

    @property
    def line(self) -> int:
        return self.lines[0]

    def hardware(self) -> tuple:
        """What must agree between two rows that describe the same offering."""
        return (
            normalise_alias(self.accelerator_name),
            self.gpu_memory_gib,
            self.gpu_count,
            self.vcpus,
            self.ram_gib,
            self.disk_gb,
            self.interruptible,
            self.delivery_form,
            self.sharing_mode,
            self.interconnect,
            self.pooled_vram_gib,
            self.mig_profile,
        )


@dataclass
class Parsed:
    rows: list[OfferRow]
    total: int
    skipped: list[RowProblem] = field(default_factory=list)
    errors: list[RowProblem] = field(default_factory=list)
    merged: int = 0


# --- reading CSV values ------------------------------------------------------------------------


def read_csv(
    text: str, *, required: Iterable[str], problems: list[RowProblem]
) -> Iterator[tuple[int, dict[str, str]]]:
    """Rows as dicts keyed by column name, with the line each row ends on (the header is line 1).

    Columns are found by name: catalogs of one format order them differently per cloud. A missing
    column is one error at line 1 and no rows.
    """
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = [name.strip() for name in (reader.fieldnames or [])]
    missing = [name for name in required if name not in header]
    if missing:
        problems.append(
            RowProblem(1, "missing columns", "missing column(s): " + ", ".join(sorted(missing)))
        )
        return
    reader.fieldnames = header
    for row in reader:
        if None in row:
            problems.append(
                RowProblem(reader.line_num, "bad row", "more values than the header has columns")
            )
            continue
        if not any((value or "").strip() for value in row.values()):
            continue  # blank line
        yield reader.line_num, {key: (value or "").strip() for key, value in row.items()}


def count_rows(text: str) -> int:
    """Data rows in the file (blank lines and the header not counted), for progress."""
    records = csv.reader(io.StringIO(text, newline=""))
    return max(0, sum(1 for record in records if any(cell.strip() for cell in record)) - 1)


def parse_rows(
    text: str,
    *,
    required: Iterable[str],
    allowed: Iterable[str] | None = None,
    offers: Callable[[int, dict[str, str]], list[OfferRow]],
) -> Parsed:
    """Run a format's row function over the file, sorting rows into offers, skipped and errors."""
    parsed = Parsed(rows=[], total=count_rows(text))
    if allowed is not None:
        header = next(csv.reader(io.StringIO(text, newline="")), [])
        unknown = [name for name in header if name.strip() and name.strip() not in set(allowed)]
        if unknown:
            parsed.errors.append(
                RowProblem(1, "unknown columns", "unknown column(s): " + ", ".join(unknown))
            )
            return parsed
    for line, row in read_csv(text, required=required, problems=parsed.errors):
        try:
            parsed.rows += offers(line, row)
        except Skip as exc:
            parsed.skipped.append(RowProblem(line, exc.reason))
        except RowError as exc:
            parsed.errors.append(RowProblem(line, "bad value", str(exc)))
    return parsed


def choice_value(row: dict[str, str], column: str, choices: type[models.TextChoices]) -> str | None:
    raw = row.get(column, "")
    if raw == "":
        return None
    if raw.lower() in choices.values:
        return raw.lower()
    if raw.upper() in choices.values:
        return raw.upper()
    raise RowError(f"{column} must be one of {', '.join(choices.values)}, not {raw!r}")


def decimal_value(row: dict[str, str], column: str, *, required: bool = True) -> Decimal | None:
    raw = row.get(column, "")
    if raw == "":
        if required:
            raise RowError(f"{column} is empty")
        return None
    try:
        value = Decimal(raw)
    except InvalidOperation:
        raise RowError(f"{column} is not a number: {raw!r}") from None
    if not value.is_finite():
        raise RowError(f"{column} is not a finite number: {raw!r}")
    if value < 0:
        raise RowError(f"{column} is negative: {raw}")
    return value


def whole_number(row: dict[str, str], column: str, *, required: bool = True) -> int | None:
    """An integer that catalogs may write as a float ("8.0")."""
    value = decimal_value(row, column, required=required)
    if value is None:
        return None
    if value != value.to_integral_value():
        raise RowError(f"{column} is not a whole number: {row[column]}")
    return int(value)


def price_value(row: dict[str, str], column: str) -> Decimal:
    value = decimal_value(row, column)
    assert value is not None
    return value.quantize(PRICE_PLACES, rounding=ROUND_HALF_EVEN)


def ram_value(value: Decimal | None) -> Decimal | None:
    return None if value is None else value.quantize(RAM_PLACES, rounding=ROUND_HALF_EVEN)


TRUE_WORDS = {"true", "yes", "1", "y"}
FALSE_WORDS = {"false", "no", "0", "n", ""}


def bool_value(row: dict[str, str], column: str) -> bool:
    raw = row.get(column, "").lower()
    if raw in TRUE_WORDS:
        return True
    if raw in FALSE_WORDS:
        return False
    raise RowError(f"{column} must be true or false, not {row[column]!r}")


def observed_at_value(value: date | datetime | str) -> datetime:
    """A date means the start of that day in the site's time zone; a datetime without a zone too."""
    if isinstance(value, str):
        text = value.strip()
        try:
            value = datetime.fromisoformat(text) if len(text) > 10 else date.fromisoformat(text)
        except ValueError:
            raise RowError(
                f"not a date (YYYY-MM-DD) or a date and time (ISO 8601): {text!r}"
            ) from None
    if not isinstance(value, datetime):
        value = datetime.combine(value, time.min)
    if timezone.is_naive(value):
        value = timezone.make_aware(value)
    return value


def url_value(value: str) -> str:
    """A source URL as Source.url accepts it (http, https, ftp), or empty."""
    if value:
        try:
            URLValidator()(value)
        except ValidationError:
            raise RowError(f"not a web address (http or https): {value!r}") from None
        if len(value) > 500:
            raise RowError("source URL is longer than 500 characters")
    return value


def merge_duplicates(parsed: Parsed, *, same_unit: str) -> Parsed:
    """Fold rows with the same platform and key into one offering.

    `same_unit="lowest"` (catalogs listing one instance type per availability zone): the lowest
    price per billing unit wins and the folded rows are counted as merged. `same_unit="error"`
    (native CSV, one row per billing unit): two prices for one unit are an error. Rows whose
    hardware disagrees are an error either way: one key cannot be two offerings.
    """
    merged: dict[tuple[str, str], OfferRow] = {}
    for row in parsed.rows:
        key = (row.platform_slug, row.external_id)
        first = merged.get(key)
        if first is None:
            merged[key] = replace(row, lines=list(row.lines), prices=list(row.prices))
            continue
        if first.hardware() != row.hardware() or first.name != row.name:
            parsed.errors.append(
                RowProblem(
                    row.line,
                    "conflicting rows",
                    f"offering {row.external_id!r} is described differently on line {first.line}",
                )
            )
            continue
        prices = {price.unit: i for i, price in enumerate(first.prices)}
        for price in row.prices:
            if price.unit not in prices:
                first.prices.append(price)
                continue
            if same_unit == "error":
                parsed.errors.append(
                    RowProblem(
                        row.line,
                        "duplicate price",
                        f"a {price.unit} price for {row.external_id!r} is already on line "
                        f"{first.line}",
                    )
                )
                continue
            kept = first.prices[prices[price.unit]]
            if (price.currency, price.amount) < (kept.currency, kept.amount):
                first.prices[prices[price.unit]] = price
        if row.line not in first.lines:
            first.lines.append(row.line)
    parsed.rows = list(merged.values())
    if same_unit == "lowest":
        # Lines that made no offering of their own (one row can give an on-demand and a spot
        # offer, so count lines, not rows).
        first_lines = {row.line for row in parsed.rows}
        parsed.merged += len({line for row in parsed.rows for line in row.lines} - first_lines)
    return parsed


# --- accelerators --------------------------------------------------------------------------------


def _memory_matches(accelerator: Accelerator, memory_gib: Decimal) -> bool:
    return abs(accelerator.vram_gib - memory_gib) <= accelerator.vram_gib * MEMORY_TOLERANCE


class AcceleratorResolver:
    """Turns a catalog's GPU name (and per-GPU memory, where stated) into an accelerator.

    The rule, in order:
    1. Candidates: accelerators with an alias that is the name, or starts with it followed by
       anything but a digit ("A100" finds "A100 80GB PCIe"; "A10" never finds "A100"), whose VRAM
       agrees with the stated memory (within 5 %).
    2. A form-factor word (pcie, sxm, nvl) in the instance type or GPU string that exactly one
       candidate's slug carries picks that one (Lambda's gpu_1x_h100_pcie is the PCIe H100).
    3. Else `<name>-<memory>gb` as an alias ("A100" with 40 GiB per GPU -> "A100-40GB"), else the
       name itself as an alias, when its VRAM agrees with the stated memory.
    4. Else the only candidate. Several (an 80 GB "H100" with no form factor) or none raise
       Unresolved naming the name and memory: nothing is guessed.
    """

    def __init__(self) -> None:
        self.by_alias: dict[str, Accelerator] = {
            alias.normalised: alias.accelerator
            for alias in AcceleratorAlias.objects.select_related("accelerator")
        }
        # A catalog repeats a few GPU names thousands of times.
        self._known: dict[tuple, Accelerator | str] = {}

    def resolve(self, name: str, memory_gib: Decimal | None = None, hint: str = "") -> Accelerator:
        words = tuple(word for word in FORM_FACTOR_WORDS if word in normalise_alias(hint))
        cache_key = (normalise_alias(name), memory_gib, words)
        if cache_key not in self._known:
            try:
                self._known[cache_key] = self._resolve(name, memory_gib, words)
            except Unresolved as exc:
                self._known[cache_key] = str(exc)
        found = self._known[cache_key]
        if isinstance(found, str):
            raise Unresolved(found)
        return found

    def _resolve(
        self, name: str, memory_gib: Decimal | None, words: tuple[str, ...]
    ) -> Accelerator:
        key = normalise_alias(name)
        if not key:
            raise Unresolved("no accelerator name")

        def fits(accelerator: Accelerator | None) -> bool:
            return accelerator is not None and (
                memory_gib is None or _memory_matches(accelerator, memory_gib)
            )

        candidates = {
            accelerator.pk: accelerator
            for alias, accelerator in self.by_alias.items()
            if alias.startswith(key)
            and not alias[len(key) : len(key) + 1].isdigit()
            and fits(accelerator)
        }
        by_form = [
            accelerator
            for accelerator in candidates.values()
            if any(word in accelerator.slug for word in words)
        ]
        if len(by_form) == 1:
            return by_form[0]
        if memory_gib is not None:
            sized = self.by_alias.get(f"{key}{int(memory_gib.to_integral_value())}gb")
            if fits(sized):
                return sized
        exact = self.by_alias.get(key)
        if fits(exact):
            return exact
        if len(candidates) == 1:
            return next(iter(candidates.values()))
        memory = "" if memory_gib is None else f" with {memory_gib.normalize():f} GiB per GPU"
        if candidates:
            slugs = ", ".join(sorted(acc.slug for acc in candidates.values()))
            raise Unresolved(f"ambiguous accelerator {name!r}{memory}: could be {slugs}")
        raise Unresolved(f"unknown accelerator {name!r}{memory}")


# --- the report ----------------------------------------------------------------------------------


@dataclass
class Change:
    """What the import does (or would do) to one offering."""

    action: str  # "created" | "updated" | "unchanged"
    platform: str
    external_id: str
    lines: list[int]
    details: list[str] = field(default_factory=list)


@dataclass
class ImportReport:
    fmt: str
    filename: str
    dry_run: bool
    total_rows: int = 0
    changes: list[Change] = field(default_factory=list)
    skipped: list[RowProblem] = field(default_factory=list)
    errors: list[RowProblem] = field(default_factory=list)
    merged: int = 0
    prices_added: int = 0
    prices_seen: int = 0
    applied: bool = False
    sources: list[Source] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors

    def count(self, action: str) -> int:
        return sum(1 for change in self.changes if change.action == action)

    @property
    def created(self) -> int:
        return self.count("created")

    @property
    def updated(self) -> int:
        return self.count("updated")

    @property
    def unchanged(self) -> int:
        return self.count("unchanged")

    @property
    def skipped_rows(self) -> int:
        return len({problem.line for problem in self.skipped})

    def skipped_by_reason(self) -> list[tuple[str, int, str]]:
        """(reason, rows, their lines as ranges), most frequent first."""
        lines: dict[str, list[int]] = defaultdict(list)
        for problem in self.skipped:
            lines[problem.reason].append(problem.line)
        counts = Counter({reason: len(found) for reason, found in lines.items()})
        return [(reason, n, line_ranges(lines[reason])) for reason, n in counts.most_common()]

    def summary_lines(self) -> list[str]:
        verb = "would be " if not self.applied else ""
        lines = [
            f"{FORMAT_LABELS.get(self.fmt, self.fmt)} {self.filename}: {self.total_rows} rows"
            + (" (dry run: nothing written)" if self.dry_run else ""),
            f"offerings {verb}created {self.created}, updated {self.updated}, "
            f"unchanged {self.unchanged}",
            f"prices {verb}added {self.prices_added}, re-seen {self.prices_seen}",
        ]
        if self.merged:
            lines.append(
                f"merged {self.merged} rows into an earlier row's offering "
                "(same instance and region, e.g. another zone: lowest price kept)"
            )
        lines.append(f"skipped {self.skipped_rows} rows")
        lines += [
            f"  {reason}: {n} (lines {ranges})" for reason, n, ranges in self.skipped_by_reason()
        ]
        nothing = "; nothing was written" if self.errors else ""
        lines.append(f"errors {len(self.errors)}{nothing}")
        return lines


def line_ranges(lines: Iterable[int]) -> str:
    """ "2-18, 40" for [2, 3, ..., 18, 40]."""
    ordered = sorted(set(lines))
    parts = []
    start = prev = None
    for line in [*ordered, None]:
        if start is not None and line == prev + 1:
            prev = line
            continue
        if start is not None:
            parts.append(str(start) if start == prev else f"{start}-{prev}")
        start = prev = line
    return ", ".join(parts)


# --- the service ---------------------------------------------------------------------------------


def parser_for(fmt: str) -> Callable[[str], Parsed]:
    from . import gpuhunt, native, skypilot

    parsers = {"skypilot": skypilot.parse, "gpuhunt": gpuhunt.parse, "native": native.parse}
    if fmt not in parsers:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(parsers)}")
    return parsers[fmt]


@dataclass
class _PlannedPrice:
    price: PriceRow
    observed_at: datetime
    seen: PriceObservation | None = None  # set: re-seen unchanged; unset: a new observation


@dataclass
class _Planned:
    row: OfferRow
    offering: Offering
    is_new: bool
    changed_fields: list[str]
    prices: list[_PlannedPrice]
    change: Change


# Written only when a row states them (name, accelerator, GPU count, region and spot always are):
# a catalog that says nothing about interconnect must not undo a correction made in the admin.
_WHEN_STATED = (
    "vcpus",
    "ram_gib",
    "disk_gb",
    "delivery_form",
    "sharing_mode",
    "interconnect",
    "pooled_vram_gib",
    "mig_profile",
)


def _default_delivery_form(platform: Platform) -> str:
    forms = [form for form in platform.delivery_forms or [] if form in DeliveryForm.values]
    return forms[0] if forms else DeliveryForm.CLOUD_VM


Progress = Callable[[str, int, int], None]


def offers_import(
    *,
    text: str,
    fmt: str,
    filename: str,
    observed_at: datetime,
    platform: Platform | None = None,
    source_url: str = "",
    dry_run: bool = False,
    strict: bool = False,
    created_by=None,
    progress: Progress | None = None,
) -> ImportReport:
    """Import a catalog file. Nothing is written when `dry_run` or when any row has an error.

    `platform` applies to every row that does not name one (native CSV may). Rows that cannot be
    used but are not wrong (CPU-only instances, no on-demand price, an accelerator the catalogue
    does not know) are skipped and reported with their lines; `strict` makes an unknown or
    ambiguous accelerator an error instead. `progress(phase, done, total)` is called per row in
    the phases "checking" and "writing".
    """
    report = ImportReport(fmt=fmt, filename=filename, dry_run=dry_run)
    try:
        source_url = url_value(source_url)
    except RowError as exc:
        report.errors.append(RowProblem(0, "bad source URL", str(exc)))
        return report
    parsed = parser_for(fmt)(text)
    report.total_rows = parsed.total
    report.skipped += parsed.skipped
    report.errors += parsed.errors
    report.merged = parsed.merged
    counter = _Counter(progress)
    counter.start("checking", parsed.total)
    # Rows the parser already settled (skipped or bad) count as checked.
    counter.tick("checking", [problem.line for problem in parsed.skipped + parsed.errors])

    with transaction.atomic():
        plan = _plan(
            parsed.rows,
            report=report,
            platform=platform,
            observed_at=observed_at,
            strict=strict,
            tick=lambda lines: counter.tick("checking", lines),
        )
        report.errors.sort(key=lambda problem: problem.line)
        report.skipped.sort(key=lambda problem: problem.line)
        if dry_run or report.errors:
            return report
        # Writing covers the lines that make offerings, not the skipped ones.
        counter.start("writing", len({line for planned in plan for line in planned.row.lines}))
        try:
            _apply(
                plan,
                report=report,
                fmt=fmt,
                filename=filename,
                source_url=source_url,
                created_by=created_by,
                tick=lambda lines: counter.tick("writing", lines),
            )
        except (IntegrityError, ValidationError) as exc:
            # Someone wrote the same offerings between our reads and our writes. The whole
            # transaction is rolled back, so running the import again is safe.
            transaction.set_rollback(True)
            report.errors.append(
                RowProblem(0, "conflict", f"the catalogue changed while importing ({exc}); retry")
            )
            report.sources = []
            return report
    report.applied = True
    return report


class _Counter:
    """Counts file lines done; one line can feed two offerings (on-demand and spot)."""

    def __init__(self, progress: Progress | None) -> None:
        self.progress, self.total, self.lines = progress, 0, set()

    def start(self, phase: str, total: int) -> None:
        self.total = total
        self.lines.clear()
        if self.progress is not None:
            self.progress(phase, 0, total)

    def tick(self, phase: str, lines: Iterable[int]) -> None:
        self.lines.update(lines)
        if self.progress is not None:
            self.progress(phase, min(len(self.lines), self.total), self.total)


def _plan(
    rows: list[OfferRow],
    *,
    report: ImportReport,
    platform: Platform | None,
    observed_at: datetime,
    strict: bool,
    tick: Callable[[list[int]], None],
) -> list[_Planned]:
    resolver = AcceleratorResolver()
    slugs = {row.platform_slug for row in rows if row.platform_slug}
    platforms = {p.slug: p for p in Platform.objects.filter(slug__in=slugs)}
    if platform is not None:
        platforms.setdefault(platform.slug, platform)

    ready: list[tuple[OfferRow, Platform, Accelerator]] = []
    skipped_lines: set[tuple[int, str]] = set()
    for row in rows:
        target = platforms.get(row.platform_slug) if row.platform_slug else platform
        if target is None:
            report.errors.append(
                RowProblem(
                    row.line,
                    "unknown platform",
                    f"no platform with slug {row.platform_slug!r}"
                    if row.platform_slug
                    else "no platform: give --platform or a platform column",
                )
            )
            tick(row.lines)
            continue
        try:
            accelerator = resolver.resolve(row.accelerator_name, row.gpu_memory_gib, row.hint)
        except Unresolved as exc:
            if strict:
                report.errors.append(RowProblem(row.line, "unresolved accelerator", str(exc)))
            else:
                # The on-demand and spot offers of one line fail alike: report the line once.
                report.skipped += [
                    RowProblem(line, str(exc))
                    for line in row.lines
                    if (line, str(exc)) not in skipped_lines
                ]
                skipped_lines.update((line, str(exc)) for line in row.lines)
            tick(row.lines)
            continue
        ready.append((row, target, accelerator))

    existing = _existing_offerings({(p.pk, row.external_id) for row, p, _ in ready})
    times = {
        (existing[(p.pk, row.external_id)].pk, price.unit, price.observed_at or observed_at)
        for row, p, _ in ready
        if (p.pk, row.external_id) in existing
        for price in row.prices
    }
    previous = _previous_observations(times)

    plan = []
    for row, target, accelerator in ready:
        offering = existing.get((target.pk, row.external_id))
        planned = _plan_offering(row, target, accelerator, offering, observed_at, previous, report)
        if planned is not None:
            plan.append(planned)
            report.changes.append(planned.change)
        tick(row.lines)
    return plan


def _existing_offerings(keys: set[tuple[int, str]]) -> dict[tuple[int, str], Offering]:
    found = {}
    by_platform: dict[int, list[str]] = defaultdict(list)
    for platform_id, external_id in keys:
        by_platform[platform_id].append(external_id)
    for platform_id, external_ids in by_platform.items():
        for start in range(0, len(external_ids), 500):
            chunk = external_ids[start : start + 500]
            for offering in Offering.objects.filter(
                platform_id=platform_id, external_id__in=chunk
            ).select_related("accelerator"):
                found[(platform_id, offering.external_id)] = offering
    return found


def _previous_observations(
    keys: set[tuple[int, str, datetime]],
) -> dict[tuple[int, str, datetime], PriceObservation]:
    """Per (offering, unit, time): the latest observation at or before that time.

    One query per distinct time in the file (a catalog snapshot has one), not per offering.
    """
    found = {}
    by_time: dict[datetime, set[int]] = defaultdict(set)
    for offering_id, _unit, when in keys:
        by_time[when].add(offering_id)
    for when, offering_ids in by_time.items():
        latest = (
            PriceObservation.objects.filter(
                offering=OuterRef("offering"), unit=OuterRef("unit"), observed_at__lte=when
            )
            .order_by("-observed_at")
            .values("observed_at")[:1]
        )
        ids = sorted(offering_ids)
        for start in range(0, len(ids), 500):
            for observation in PriceObservation.objects.filter(
                offering_id__in=ids[start : start + 500], observed_at=Subquery(latest)
            ):
                found[(observation.offering_id, observation.unit, when)] = observation
    return found


def _plan_offering(
    row: OfferRow,
    platform: Platform,
    accelerator: Accelerator,
    offering: Offering | None,
    observed_at: datetime,
    previous: dict[tuple[int, str, datetime], PriceObservation],
    report: ImportReport,
) -> _Planned | None:
    stated = {
        "name": row.name,
        "accelerator": accelerator,
        "gpu_count": row.gpu_count,
        "region": row.region,
        "interruptible": row.interruptible,
        **{name: getattr(row, name) for name in _WHEN_STATED if getattr(row, name) is not None},
    }
    is_new = offering is None
    changed: list[str] = []
    details: list[str] = []
    if offering is None:
        offering = Offering(platform=platform, external_id=row.external_id, **stated)
        if row.delivery_form is None:
            offering.delivery_form = _default_delivery_form(platform)
        details.append(f"new offering: {row.gpu_count}x {accelerator.slug}")
    else:
        for name, value in stated.items():
            current = getattr(offering, name)
            if current != value:
                changed.append(name)
                details.append(f"{name}: {_show(current)} -> {_show(value)}")
                setattr(offering, name, value)
    try:
        # Field checks only: uniqueness holds by construction (existing offerings were looked up
        # by key), platform and accelerator came from the database, and the check constraints
        # repeat the field checks at one query each, too slow for a catalog of thousands of rows.
        offering.full_clean(
            exclude=["source", "platform", "accelerator"],
            validate_unique=False,
            validate_constraints=False,
        )
    except ValidationError as exc:
        for field_name, messages in exc.message_dict.items():
            report.errors.append(
                RowProblem(row.line, "invalid offering", f"{field_name}: {' '.join(messages)}")
            )
        return None
    if row.gpu_count < 1:
        report.errors.append(RowProblem(row.line, "invalid offering", "gpu_count must be >= 1"))
        return None

    prices = []
    for price in row.prices:
        when = price.observed_at or observed_at
        prior = None if is_new else previous.get((offering.pk, price.unit, when))
        label = f"{price.amount:f} {price.currency}/{price.unit}"
        if prior is not None and (prior.amount, prior.currency) == (price.amount, price.currency):
            if when > prior.last_seen_at:
                prices.append(_PlannedPrice(price, when, seen=prior))
                details.append(f"{label} unchanged, seen again {when:%Y-%m-%d}")
            continue
        if prior is not None and prior.observed_at == when:
            report.errors.append(
                RowProblem(
                    row.line,
                    "conflicting price",
                    f"{row.external_id!r} already has {prior.amount:f} {prior.currency}/"
                    f"{price.unit} observed at {when:%Y-%m-%d %H:%M}; history is not rewritten",
                )
            )
            return None
        observation = PriceObservation(
            unit=price.unit,
            amount=price.amount,
            currency=price.currency,
            observed_at=when,
            last_seen_at=when,
        )
        try:
            # Offering and source are set when written; the constraints are the same checks.
            observation.clean_fields(exclude=["offering", "source", "created_by"])
        except ValidationError as exc:
            for field_name, messages in exc.message_dict.items():
                report.errors.append(
                    RowProblem(row.line, "invalid price", f"{field_name}: {' '.join(messages)}")
                )
            return None
        prices.append(_PlannedPrice(price, when))
        was = "" if prior is None else f" (was {prior.amount:f} {prior.currency})"
        details.append(f"price {label}{was}")

    added = [p for p in prices if p.seen is None]
    if is_new:
        action = "created"
    elif changed or added:
        action = "updated"
    else:
        action = "unchanged"
    report.prices_added += len(added)
    report.prices_seen += len(prices) - len(added)
    change = Change(action, platform.slug, row.external_id, list(row.lines), details)
    return _Planned(row, offering, is_new, changed, prices, change)


def _show(value) -> str:
    if isinstance(value, Accelerator):
        return value.slug
    if isinstance(value, Decimal):
        return f"{value.normalize():f}"
    return str(value)


# Rows written per statement: bulk inserts keep a 10,000-row catalog to seconds, not minutes.
WRITE_BATCH = 500


def _apply(
    plan: list[_Planned],
    *,
    report: ImportReport,
    fmt: str,
    filename: str,
    source_url: str,
    created_by,
    tick: Callable[[list[int]], None],
) -> None:
    """Write a checked plan. Runs inside the caller's transaction.

    Every value was validated while planning (fields of offerings and observations), so rows go
    in by bulk insert; the database constraints stay the last word on anything that changed since.
    """
    sources: dict[tuple[str, date], Source] = {}

    def source_for(url: str, when: datetime) -> Source:
        day = timezone.localtime(when).date()
        key = (url or source_url, day)
        if key not in sources:
            sources[key] = import_source(fmt=fmt, filename=filename, url=key[0], day=day)
        return sources[key]

    for start in range(0, len(plan), WRITE_BATCH):
        batch = plan[start : start + WRITE_BATCH]
        new = [planned for planned in batch if planned.is_new]
        for planned in new:
            first = min(planned.prices, key=lambda item: item.observed_at, default=None)
            planned.offering.source = (
                source_for(first.price.source_url, first.observed_at)
                if first is not None
                else source_for("", timezone.now())
            )
        Offering.objects.bulk_create([planned.offering for planned in new])
        for planned in batch:
            if not planned.is_new and planned.changed_fields:
                planned.offering.save(update_fields=planned.changed_fields)

        observations = []
        seen: dict[datetime, list[int]] = defaultdict(list)
        for planned in batch:
            for item in planned.prices:
                if item.seen is not None:
                    seen[item.observed_at].append(item.seen.pk)
                    continue
                observations.append(
                    PriceObservation(
                        offering=planned.offering,
                        unit=item.price.unit,
                        amount=item.price.amount,
                        currency=item.price.currency,
                        observed_at=item.observed_at,
                        last_seen_at=item.observed_at,
                        source=source_for(item.price.source_url, item.observed_at),
                        created_by=created_by,
                    )
                )
        PriceObservation.objects.bulk_create(observations)
        for seen_at, ids in seen.items():
            # As services.price_observation_seen: last_seen_at only ever moves forward.
            PriceObservation.objects.filter(pk__in=ids, last_seen_at__lt=seen_at).update(
                last_seen_at=seen_at
            )
        tick([line for planned in batch for line in planned.row.lines])
    report.sources = list(sources.values())


def import_source(*, fmt: str, filename: str, url: str, day: date) -> Source:
    """The Source every price of one import points to: one per (file or URL, date)."""
    label = FORMAT_LABELS.get(fmt, fmt)
    title = f"Import of {filename[-200:]} ({label}), {day.isoformat()}"
    source = Source.objects.filter(title=title, url=url).first()
    if source is None:
        source = Source(
            title=title,
            url=url,
            kind=SourceKind.IMPORT,
            publisher=label,
            retrieved_on=day,
            notes="Created by import_offers.",
        )
        source.full_clean()
        source.save()
    return source
