"""The catalog formats an import reads: each format's name, its label and its parser.

The format modules know nothing of this list (they import only `rows`), so adding a format is one
entry here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from . import gpuhunt, jsonfeed, native, skypilot
from .rows import MergedRows, Parsed, Reader, Text


@dataclass(frozen=True)
class Format:
    label: str
    # The whole file at once (merged in memory), and row by row (what an import reads, merged
    # by MergedRows as `same_unit` says).
    parse: Callable[[Text], Parsed]
    read: Reader
    same_unit: str
    # Rows (or offers) may name their platform, so the import needs none of its own.
    platform_per_row: bool = False
    # A text file of lines: a body that does not end with a line break was cut short.
    line_based: bool = True
    # Each cloud writes the format its own way: the reader for the import's platform.
    reader_for: Callable[[str], Reader] | None = None


FORMATS: dict[str, Format] = {
    "skypilot": Format(
        "SkyPilot catalog (vms.csv)",
        skypilot.parse,
        skypilot.read,
        skypilot.SAME_UNIT,
        reader_for=skypilot.reader_for,
    ),
    "gpuhunt": Format("gpuhunt catalog (v2 CSV)", gpuhunt.parse, gpuhunt.read, gpuhunt.SAME_UNIT),
    "native": Format(
        "native CSV", native.parse, native.read, native.SAME_UNIT, platform_per_row=True
    ),
    "json": Format(
        "JSON feed",
        jsonfeed.parse,
        jsonfeed.read,
        jsonfeed.SAME_UNIT,
        platform_per_row=True,
        line_based=False,
    ),
}
FORMAT_LABELS = {name: fmt.label for name, fmt in FORMATS.items()}
# Formats whose rows may name the platform: every other format needs the import's platform.
PLATFORM_PER_ROW = frozenset(name for name, fmt in FORMATS.items() if fmt.platform_per_row)


def format_for(fmt: str) -> Format:
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    return FORMATS[fmt]


def parser_for(fmt: str) -> Callable[[Text], Parsed]:
    """The format's whole-file parser (`Parsed.rows` merged, in memory)."""
    return format_for(fmt).parse


def rows_for(fmt: str, text: Text, platform: str = "") -> MergedRows:
    """The file's offerings as an import reads them: in two passes, one offering at a time.

    `platform` is the slug of the import's platform: a format whose clouds write it differently
    (SkyPilot) reads the file in that platform's dialect.
    """
    found = format_for(fmt)
    read = found.reader_for(platform) if found.reader_for is not None else found.read
    return MergedRows(text, read, same_unit=found.same_unit)
