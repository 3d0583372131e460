"""Reading a catalog file into rows: the row model every format parses into and the readers of CSV
cells that format modules share.

A format module (skypilot, gpuhunt, native, jsonfeed) has a `read` that yields the file's
`OfferRow`s one at a time, putting the rows it skipped or could not read (each with its line
number) into a `Parsed`, and a `parse` that keeps them all, merged, for tests. An import reads a
file through `MergedRows`: two passes, one offering held at a time. Nothing here touches the
database: the offerings are checked against the catalogue by `plan`.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date, datetime, time
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from functools import cache
from typing import Any, Literal, TextIO, overload

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import models
from django.utils import timezone

from platforms.models import PriceBasis, PriceObservation, PriceTier, normalise_alias

# Prices keep the places PriceObservation.amount stores (six: a per-second $0.000164 is exact);
# catalogs print more digits (AWS spot "13.0206000") that are almost always trailing zeros.
PRICE_PLACES = Decimal(1).scaleb(-PriceObservation._meta.get_field("amount").decimal_places)
RAM_PLACES = Decimal("0.1")


class RowError(ValueError):
    """A value in a row that cannot be read; the message names the column."""


class Skip(Exception):
    """A row that is fine but not an offering we keep (CPU-only, no on-demand price).

    `reason` groups rows in the summary; `message`, when given, says more about this row.
    """

    def __init__(self, reason: str, message: str = "") -> None:
        super().__init__(message or reason)
        self.reason = reason
        self.message = message


# json.JSONDecodeError's "... line 3 column 7 (char 40)".
_JSON_POSITION = re.compile(r"line (\d+) column (\d+)")
# The column or field a value problem starts with ("Price is not a number: ...", "amount: ...").
_COLUMN = re.compile(r"^([A-Za-z_][A-Za-z0-9_]{0,39})(?=:| is | must | has )")
_VALUE_REASONS = {"bad value", "invalid price", "invalid offering"}


@dataclass(frozen=True, slots=True)
class RowProblem:
    """A skipped or rejected row. `reason` groups rows in the summary; `message` is per row.

    Both are kept (a job's problems, a feed run's errors) in databases that refuse a NUL
    character (PostgreSQL's text), so one quoted from a file is written as `\\x00`.
    """

    line: int
    reason: str
    message: str = ""

    def __post_init__(self) -> None:
        for name in ("reason", "message"):
            value = getattr(self, name)
            if "\x00" in value:
                object.__setattr__(self, name, value.replace("\x00", "\\x00"))

    def __str__(self) -> str:
        # Line 0: a problem with the import as a whole (its source URL or date, a concurrent write).
        where = f"line {self.line}: " if self.line else ""
        return f"{where}{self.message or self.reason}"

    def located(self) -> str:
        """The problem without a word of the file: its line, its kind (our own words) and, for a
        value, the column (or field) it is in; a JSON syntax error's line and column. For files
        fetched from elsewhere (price feeds), whose content is not ours to repeat."""
        where = f"line {self.line}: " if self.line else ""
        if self.reason == "missing columns":
            return f"{where}{self.message}"  # the names the format requires, not the file's
        if self.reason == "not JSON":
            found = _JSON_POSITION.search(self.message)
            at = f": line {found[1]} column {found[2]}" if found else ""
            return f"not a JSON document{at}"
        column = _COLUMN.match(self.message) if self.reason in _VALUE_REASONS else None
        return f"{where}{self.reason}" + (f" in {column[1]}" if column else "")


@dataclass(frozen=True, slots=True)
class PriceRow:
    unit: str
    amount: Decimal
    currency: str
    observed_at: datetime | None = None
    source_url: str = ""
    tier: str = PriceTier.LIST
    # What the price is (vocab.PriceBasis): a bookable offer unless the file says otherwise.
    basis: str = PriceBasis.OFFER

    @property
    def key(self) -> tuple[str, str, datetime | None]:
        """What one file may state only once per offering: a unit's price for a tier on a date
        (several dates make a series, kept as history)."""
        return (self.unit, self.tier, self.observed_at)


@dataclass(frozen=True, slots=True)
class StorageRow:
    """A platform's storage price, from a native CSV row with `record` = storage."""

    line: int
    platform_slug: str
    kind: str
    unit: str
    amount: Decimal
    currency: str
    free_gb: int | None = None
    billed_when_stopped: bool | None = None
    notes: str = ""
    notes_zh: str = ""
    observed_at: datetime | None = None
    source_url: str = ""


@dataclass(frozen=True, slots=True)
class IdleModeRow:
    """A platform's no-GPU (idle) mode price, from a native CSV row with `record` = no_gpu_mode."""

    line: int
    platform_slug: str
    unit: str
    amount: Decimal
    currency: str
    description: str = ""
    description_zh: str = ""
    observed_at: datetime | None = None
    source_url: str = ""


@dataclass(slots=True)
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
    # NVLink GB/s per GPU (bidirectional) from the interconnect table. Not stored: Offering has no
    # such field (the advisor reads the accelerator's figure); kept for reports and tests.
    interconnect_bandwidth_gbps: float | None = None
    pooled_vram_gib: Decimal | None = None
    mig_profile: str | None = None
    name_zh: str | None = None  # the name on Chinese pages; None: not stated
    # Other names of the hardware (instance type, the GPU string in GpuInfo): only used to tell
    # form factors apart when name and memory leave more than one accelerator.
    hint: str = ""

    @property
    def line(self) -> int:
        return self.lines[0]

    def hardware(self) -> tuple[object, ...]:
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
    # Platform-level prices a native CSV may carry besides offerings (a whole price page).
    storage: list[StorageRow] = field(default_factory=list)
    idle_modes: list[IdleModeRow] = field(default_factory=list)


# --- reading CSV cells --------------------------------------------------------------------------

# A file is given as its text or as a text stream (opened with newline="", as the csv module
# asks): an uploaded file is read as it is parsed, never whole.
Text = str | TextIO
# Python's csv module refuses a longer field (csv.field_size_limit(), 131,072 characters): no
# catalog value comes near it, and each is checked against its column's own limit later.
MAX_FIELD_CHARS = csv.field_size_limit()
# Longer values are cut in messages: a message quotes enough of a value to find it.
SHOWN_CHARS = 40


# A line and its end (\r\n, \r or \n, as a stream opened with newline="" splits them), or the
# last line without one.
LINE = re.compile(r"[^\r\n]*(?:\r\n?|\n)|[^\r\n]+")


def text_lines(text: Text) -> Iterable[str]:
    """The lines of a file given as its text or as a stream. A text's lines are cut from it one
    at a time: a StringIO would hold a copy of four bytes per character."""
    if isinstance(text, str):
        return (match.group() for match in LINE.finditer(text))
    return text


def shown(value: str, *, quoted: bool = True) -> str:
    """A value as a message quotes it (repr, or as it is), cut to SHOWN_CHARS characters."""
    cut = value[:SHOWN_CHARS]
    text = repr(cut) if quoted else cut
    return text + (f"... ({len(value):,} characters)" if len(value) > SHOWN_CHARS else "")


def _records(reader: Any, problems: list[RowProblem]) -> Iterator[list[str]]:
    """The reader's records; a record the csv module cannot read (a field over
    MAX_FIELD_CHARS) is an error on its line, and reading goes on with the next line."""
    while True:
        try:
            yield next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            # The line it failed on (the last it read).
            line = reader.line_num
            if "field larger than field limit" in str(exc):
                message = f"a value is longer than {MAX_FIELD_CHARS:,} characters"
            else:
                message = f"not readable as CSV: {exc}"
            problems.append(RowProblem(line, "bad row", message))


def read_csv(
    text: Text,
    *,
    required: Iterable[str],
    parsed: Parsed,
    allowed: Iterable[str] | None = None,
) -> Iterator[tuple[int, dict[str, str]]]:
    """Rows as dicts keyed by column name, with the line each row ends on (the header is line 1),
    in one pass over the file; `parsed.total` counts the data rows (blank lines not counted).

    Columns are found by name: catalogs of one format order them differently per cloud. A missing
    column, or with `allowed` an unknown one, is one error at line 1 and no rows. A row with more
    values than the header, or a NUL character (which PostgreSQL cannot store), is an error on
    its line.
    """
    problems = parsed.errors
    reader = csv.reader(text_lines(text))
    header = [name.strip() for name in next(_records(reader, problems), [])]
    known = None if allowed is None else set(allowed)
    unknown = [] if known is None else [name for name in header if name and name not in known]
    missing = [name for name in required if name not in header]
    if unknown:
        problems.append(
            RowProblem(1, "unknown columns", "unknown column(s): " + ", ".join(unknown))
        )
    elif missing:
        problems.append(
            RowProblem(1, "missing columns", "missing column(s): " + ", ".join(sorted(missing)))
        )
    for record in _records(reader, problems):
        if not any(value.strip() for value in record):
            continue  # blank line
        parsed.total += 1
        if unknown or missing:
            continue  # counted, not read: the header is wrong
        line = reader.line_num
        if len(record) > len(header):
            problems.append(RowProblem(line, "bad row", "more values than the header has columns"))
            continue
        row = dict(zip(header, (value.strip() for value in record), strict=False))
        for name in header[len(record) :]:
            row.setdefault(name, "")
        nul = [name for name, value in row.items() if "\x00" in value]
        if nul:
            problems.append(
                RowProblem(line, "bad value", f"{nul[0]} contains a NUL character (\\x00)")
            )
            continue
        yield line, row


def offer_rows(
    text: Text,
    parsed: Parsed,
    *,
    required: Iterable[str],
    allowed: Iterable[str] | None = None,
    offers: Callable[[int, dict[str, str]], list[OfferRow]],
) -> Iterator[OfferRow]:
    """A format's row function over the file, one row at a time: its offers are yielded as they
    are read; skipped and bad rows go into `parsed`."""
    for line, row in read_csv(text, required=required, allowed=allowed, parsed=parsed):
        try:
            found = offers(line, row)
        except Skip as exc:
            parsed.skipped.append(RowProblem(line, exc.reason, exc.message))
            continue
        except RowError as exc:
            parsed.errors.append(RowProblem(line, "bad value", str(exc)))
            continue
        yield from found


# A format's reader: the file's offers in file order, one per row (not yet merged), with the
# rows it skipped or refused, its row count and any platform prices put into the `Parsed`.
Reader = Callable[[Text, Parsed], Iterator[OfferRow]]


def parse_all(text: Text, read: Reader, *, same_unit: str) -> Parsed:
    """The whole file parsed and merged in memory (`merge_duplicates`): for tests and small files.
    An import reads it as `MergedRows`, which holds one offering at a time."""
    parsed = Parsed(rows=[], total=0)
    parsed.rows = list(read(text, parsed))
    return merge_duplicates(parsed, same_unit=same_unit)


@cache
def choice_values(choices: type[models.TextChoices]) -> frozenset[str]:
    """The values of a closed set, computed once: Django builds the list anew at each `.values`,
    which costs more than the rest of a row's reading."""
    return frozenset(choices.values)


def choice_value(row: dict[str, str], column: str, choices: type[models.TextChoices]) -> str | None:
    raw = row.get(column, "")
    if raw == "":
        return None
    values = choice_values(choices)
    if raw.lower() in values:
        return raw.lower()
    if raw.upper() in values:
        return raw.upper()
    raise RowError(f"{column} must be one of {', '.join(choices.values)}, not {shown(raw)}")


# No catalog figure has more digits before the point than this: the largest, an amount, stores 8
# (PriceObservation.amount: 14 digits, 6 of them places), and counts and sizes fit in 64-bit
# integers (19 digits, below 10**19). A longer number, such as 1e400, is a mistake; rounding it to
# the places stored would also overflow Python's decimal context (28 digits).
MAX_INTEGER_DIGITS = 18


def number_value(raw: str, column: str) -> Decimal:
    """A finite, non-negative number of at most MAX_INTEGER_DIGITS digits before the point."""
    try:
        value = Decimal(raw)
    except InvalidOperation:
        raise RowError(f"{column} is not a number: {shown(raw)}") from None
    if not value.is_finite():
        raise RowError(f"{column} is not a finite number: {shown(raw)}")
    if value < 0:
        raise RowError(f"{column} is negative: {shown(raw, quoted=False)}")
    if value and value.adjusted() >= MAX_INTEGER_DIGITS:
        raise RowError(f"{column} is too large: {shown(raw)}")
    return value


@overload
def decimal_value(
    row: dict[str, str], column: str, *, required: Literal[True] = ...
) -> Decimal: ...
@overload
def decimal_value(row: dict[str, str], column: str, *, required: bool) -> Decimal | None: ...
def decimal_value(row: dict[str, str], column: str, *, required: bool = True) -> Decimal | None:
    raw = row.get(column, "")
    if raw == "":
        if required:
            raise RowError(f"{column} is empty")
        return None
    return number_value(raw, column)


@overload
def whole_number(row: dict[str, str], column: str, *, required: Literal[True] = ...) -> int: ...
@overload
def whole_number(row: dict[str, str], column: str, *, required: bool) -> int | None: ...
def whole_number(row: dict[str, str], column: str, *, required: bool = True) -> int | None:
    """An integer that catalogs may write as a float ("8.0")."""
    value = decimal_value(row, column, required=required)
    if value is None:
        return None
    if value != value.to_integral_value():
        raise RowError(f"{column} is not a whole number: {shown(row[column])}")
    return int(value)


def price_value(row: dict[str, str], column: str) -> Decimal:
    value = decimal_value(row, column)
    assert value is not None
    return price_amount(value, column)


def price_amount(value: Decimal, column: str) -> Decimal:
    """`value` to the places a price keeps (6); a price above 0 that would be kept as 0 is an
    error, not a free offering (before: 0.0000001 was stored as 0 without a word)."""
    amount = value.quantize(PRICE_PLACES, rounding=ROUND_HALF_EVEN)
    if value > 0 and amount == 0:
        raise RowError(f"{column} is above 0 but below {PRICE_PLACES}, the smallest price kept")
    return amount


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
    raise RowError(f"{column} must be true or false, not {shown(row[column])}")


def optional_bool_value(row: dict[str, str], column: str) -> bool | None:
    """True, False, or None when the cell is empty (not stated)."""
    return None if row.get(column, "") == "" else bool_value(row, column)


def observed_at_value(value: date | datetime | str) -> datetime:
    """A date means the start of that day in the site's time zone; a datetime without a zone too."""
    if isinstance(value, str):
        text = value.strip()
        try:
            value = datetime.fromisoformat(text) if len(text) > 10 else date.fromisoformat(text)
        except ValueError:
            raise RowError(
                f"not a date (YYYY-MM-DD) or a date and time (ISO 8601): {shown(text)}"
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
            raise RowError(f"not a web address (http or https): {shown(value)}") from None
        if len(value) > 500:
            raise RowError("source URL is longer than 500 characters")
    return value


# --- one offering per key -----------------------------------------------------------------------

OfferKey = tuple[str, str]


def offer_key(row: OfferRow) -> OfferKey:
    """What makes rows one offering: their platform and catalog key."""
    return (row.platform_slug, row.external_id)


class _Folder:
    """Folds rows into the first row of their offering (see `merge_duplicates`); a row that
    cannot be folded is an error in `errors`."""

    def __init__(self, same_unit: str, errors: list[RowProblem]) -> None:
        self.same_unit, self.errors = same_unit, errors
        # Per offering of several rows: the line each of its prices came from, for the
        # duplicate's message.
        self.price_lines: dict[OfferKey, dict[tuple[str, str, datetime | None], int]] = {}

    def fold(self, first: OfferRow, row: OfferRow) -> bool:
        """Fold `row` into `first`; whether its line became one of the offering's."""
        if first.hardware() != row.hardware() or (first.name, first.name_zh) != (
            row.name,
            row.name_zh,
        ):
            self.errors.append(
                RowProblem(
                    row.line,
                    "conflicting rows",
                    f"offering {row.external_id!r} is described differently on line {first.line}",
                )
            )
            return False
        prices = {price.key: i for i, price in enumerate(first.prices)}
        lines = self.price_lines.setdefault(offer_key(first), dict.fromkeys(prices, first.line))
        for price in row.prices:
            if price.key not in prices:
                prices[price.key] = len(first.prices)
                first.prices.append(price)
                lines[price.key] = row.line
                continue
            if self.same_unit == "error":
                what = price.unit if price.tier == PriceTier.LIST else f"{price.unit} {price.tier}"
                dated = "" if price.observed_at is None else f" dated {price.observed_at:%Y-%m-%d}"
                self.errors.append(
                    RowProblem(
                        row.line,
                        "duplicate price",
                        f"a {what} price{dated} for {row.external_id!r} is already on line "
                        f"{lines.get(price.key, first.line)}",
                    )
                )
                continue
            kept = first.prices[prices[price.key]]
            if (price.currency, price.amount) < (kept.currency, kept.amount):
                first.prices[prices[price.key]] = price
        if row.line not in first.lines:
            first.lines.append(row.line)
        return True

    def done(self, key: OfferKey) -> None:
        self.price_lines.pop(key, None)


def merge_duplicates(parsed: Parsed, *, same_unit: str) -> Parsed:
    """Fold rows with the same platform and key into one offering.

    `same_unit="lowest"` (catalogs listing one instance type per availability zone): the lowest
    price per billing unit wins and the folded rows are counted as merged. `same_unit="error"`
    (native CSV, one row per billing unit, tier and date): two prices for one unit, tier and date
    are an error; the same unit and tier on several dates is a series, kept as history. Rows whose
    hardware disagrees are an error either way: one key cannot be two offerings.
    """
    merged: dict[OfferKey, OfferRow] = {}
    folder = _Folder(same_unit, parsed.errors)
    for row in parsed.rows:
        key = offer_key(row)
        first = merged.get(key)
        if first is None:
            # The parsed rows are not read again: the first row of a key takes the others in.
            merged[key] = row
            continue
        folder.fold(first, row)
    parsed.rows = list(merged.values())
    if same_unit == "lowest":
        # Lines that made no offering of their own (one row can give an on-demand and a spot
        # offer, so count lines, not rows).
        first_lines = {row.line for row in parsed.rows}
        parsed.merged += len({line for row in parsed.rows for line in row.lines} - first_lines)
    return parsed


class MergedRows:
    """A file's offerings, merged as `merge_duplicates` merges them, read in two passes so that
    memory follows the offerings of the file, not its rows.

    `scan` (the first pass) reads every row and keeps, per offering, only the line of its last
    row (under the hash of its key: two ints), with the rows skipped or refused and the platform
    prices. `offerings` (the second pass) reads the file again and yields each offering as soon
    as its last row is read: an offering of one row at once, one of several (another zone, another
    billing unit) held only from its first row to its last. Offerings come in the order of their
    last rows. Two keys of one hash only make the first wait for the other's last row (or the end
    of the file): what is merged is decided by the keys themselves.

    `text` is read once per pass: a string, or a seekable text stream (read from its start).
    """

    def __init__(self, text: Text, read: Reader, *, same_unit: str) -> None:
        self.text, self.read, self.same_unit = text, read, same_unit
        self.last_lines: dict[int, int] = {}
        # Data rows the second pass has read (progress), and lines merged into an earlier one.
        self.rows_read = 0
        self.merged = 0
        self.scanned = False

    def _open(self) -> Text:
        if isinstance(self.text, str):
            return self.text
        self.text.seek(0)
        return self.text

    def scan(self) -> Parsed:
        """The first pass: the file's row count, its skipped and bad rows, its platform prices
        (`rows` stays empty)."""
        parsed = Parsed(rows=[], total=0)
        last = self.last_lines
        for row in self.read(self._open(), parsed):
            last[hash(offer_key(row))] = row.line
        self.scanned = True
        return parsed

    def offerings(self, errors: list[RowProblem]) -> Iterator[OfferRow]:
        """The second pass: the merged offerings; rows that cannot be merged go into `errors`.
        What the first pass found (bad rows, platform prices) is not reported again."""
        if not self.scanned:
            raise RuntimeError("MergedRows.offerings before scan: no row would wait for the next")
        scratch = Parsed(rows=[], total=0)
        folder = _Folder(self.same_unit, errors)
        held: dict[OfferKey, OfferRow] = {}
        # Per line: whether it started an offering, and whether any of its rows was folded in.
        line, starts, folded = 0, False, False
        for row in self.read(self._open(), scratch):
            self.rows_read = scratch.total
            if row.line != line:
                self._count(starts, folded)
                line, starts, folded = row.line, False, False
            key = offer_key(row)
            ends = row.line >= self.last_lines.get(hash(key), 0)
            first = held.get(key)
            if first is None:
                starts = True
                if ends:
                    yield row
                else:
                    held[key] = row
                continue
            folded = folder.fold(first, row) or folded
            if ends:
                del held[key]
                folder.done(key)
                yield first
        self._count(starts, folded)
        self.rows_read = scratch.total
        yield from held.values()

    def _count(self, starts: bool, folded: bool) -> None:
        if self.same_unit == "lowest" and folded and not starts:
            self.merged += 1
