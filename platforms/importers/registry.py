"""The catalog formats an import reads: each format's name, its label and its parser.

The format modules know nothing of this list (they import only `rows`), so adding a format is one
entry here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from . import gpuhunt, native, skypilot
from .rows import Parsed


@dataclass(frozen=True)
class Format:
    label: str
    parse: Callable[[str], Parsed]


FORMATS: dict[str, Format] = {
    "skypilot": Format("SkyPilot catalog (vms.csv)", skypilot.parse),
    "gpuhunt": Format("gpuhunt catalog (v2 CSV)", gpuhunt.parse),
    "native": Format("native CSV", native.parse),
}
FORMAT_LABELS = {name: fmt.label for name, fmt in FORMATS.items()}


def parser_for(fmt: str) -> Callable[[str], Parsed]:
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    return FORMATS[fmt].parse
