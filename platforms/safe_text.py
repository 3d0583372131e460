"""Names from people and catalogues, made inert for the programs that read them after us.

Task names arrive in a shared URL; platform, offering and source names come from staff and
imported catalogues. Two readers would take them for instructions:

- **Plotly** reads a subset of HTML in every label, legend entry, hover and tick: `<a href>` makes
  a link, `<span style>` restyles text, `<br>` breaks lines (plotly.js `src/lib/svg_text_utils.js`,
  documented at https://plotly.com/chart-studio-help/adding-HTML-and-links-to-charts/). It decodes
  the entities `&lt;`, `&gt;` and `&amp;` back to the characters, so escaping these three shows a
  name exactly as written and never as markup. `figure_text_escaped` does it for every string a
  trace carries as data; templates (`hovertemplate`, `texttemplate`) and the layout are the code's
  own text, where markup is meant.
- **Spreadsheets** run a cell that starts with `=`, `+`, `-` or `@` as a formula, and tab or
  carriage return can lead one in (OWASP, "CSV Injection",
  https://owasp.org/www-community/attacks/CSV_Injection). `spreadsheet_cell` prefixes such a text
  cell with a single quote, OWASP's remedy, which spreadsheet programs read as "text"; numbers
  are left as numbers (a negative number is not a formula).
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable
from typing import Any

# Trace attributes Plotly shows as text (each may hold markup); a list or a list of lists
# (customdata) is escaped item by item. Numbers in x and y are not strings: they stay numbers.
TRACE_TEXT_KEYS = frozenset({"name", "text", "hovertext", "customdata", "x", "y", "labels"})
PLOTLY_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_PLOTLY_SPECIAL = re.compile("[&<>]")

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
# A plain number written as text (a signed amount such as "-0.20") is a number, not a formula.
_PLAIN_NUMBER = re.compile(r"[+-]?(\d[\d,]*(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def plotly_text(text: str) -> str:
    """`text` as Plotly shows it literally: `<`, `>` and `&` as entities."""
    return _PLOTLY_SPECIAL.sub(lambda match: PLOTLY_ENTITIES[match.group()], text)


def _escaped(value: Any) -> Any:
    if isinstance(value, str):
        return plotly_text(value)
    if isinstance(value, list | tuple):
        return [_escaped(item) for item in value]
    return value


def figure_text_escaped(figure: dict[str, Any]) -> dict[str, Any]:
    """The figure with every data string of its traces escaped for Plotly (in place, returned)."""
    for trace in figure.get("data", []):
        for key in TRACE_TEXT_KEYS & trace.keys():
            trace[key] = _escaped(trace[key])
    return figure


def spreadsheet_cell(value: Any) -> Any:
    """A CSV cell that no spreadsheet runs: text starting like a formula gets a leading `'`."""
    formula = isinstance(value, str) and value.startswith(FORMULA_START)
    if formula and not _PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


class SpreadsheetWriter:
    """csv.writer with every cell through `spreadsheet_cell`; every CSV export writes with it."""

    def __init__(self, file: Any, **options: Any) -> None:
        self._writer = csv.writer(file, **options)

    def writerow(self, row: Iterable[Any]) -> Any:
        return self._writer.writerow([spreadsheet_cell(value) for value in row])

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        for row in rows:
            self.writerow(row)
