"""The catalog formats an import reads: each format's name, its label and its parser.

The format modules know nothing of this list (they import only `rows`), so adding a format is one
entry here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from . import gpuhunt, jsonfeed, native, skypilot
from .rows import Parsed, Text


@dataclass(frozen=True)
class Format:
    label: str
    parse: Callable[[Text], Parsed]
    # Rows (or offers) may name their platform, so the import needs none of its own.
    platform_per_row: bool = False
    # A text file of lines: a body that does not end with a line break was cut short.
    line_based: bool = True


FORMATS: dict[str, Format] = {
    "skypilot": Format("SkyPilot catalog (vms.csv)", skypilot.parse),
    "gpuhunt": Format("gpuhunt catalog (v2 CSV)", gpuhunt.parse),
    "native": Format("native CSV", native.parse, platform_per_row=True),
    "json": Format("JSON feed", jsonfeed.parse, platform_per_row=True, line_based=False),
}
FORMAT_LABELS = {name: fmt.label for name, fmt in FORMATS.items()}
# Formats whose rows may name the platform: every other format needs the import's platform.
PLATFORM_PER_ROW = frozenset(name for name, fmt in FORMATS.items() if fmt.platform_per_row)


def parser_for(fmt: str) -> Callable[[Text], Parsed]:
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    return FORMATS[fmt].parse
