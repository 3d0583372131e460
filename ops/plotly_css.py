"""static/css/plotly.css: the style rules plotly.js would otherwise insert as an inline <style>
element, which the Content-Security-Policy (style-src 'self') refuses.

plotly.js keeps them in one object literal ("X,X div": "direction:ltr;...", X standing for
".js-plotly-plot .plotly" and Y for ".plotly-notifier") and skips inserting them when the page
has an element with id "plotly.js-style-global" and class "no-inline-styles": our chart pages
link this file under that id (https://github.com/plotly/plotly.js/pull/7109). The file is made
from the installed plotly.min.js, and a test fails when it no longer matches (a plotly upgrade).
Its bundled maplibre inserts a stylesheet too, unless an element with its id exists
(`maplibre_style_id`; templates/includes/plotly_css.html carries one).



    .venv/bin/python -m ops.plotly_css > static/css/plotly.css
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import plotly

PLOTLY_JS = Path(plotly.__file__).resolve().parent / "package_data" / "plotly.min.js"
_RULES = re.compile(r'=\{("X,X div":.*?)\};for\(')
# The bundled maplibre injects its stylesheet at load unless an element with this id exists.
_MAPLIBRE_ID = re.compile(
    r'if\(!document\.getElementById\("([0-9a-f]{64})"\)\)\{var e=document\.createElement\("style"\)'
)
_ENTRY = re.compile(r'"((?:[^"\\]|\\.)*)":(?:"((?:[^"\\]|\\.)*)"|\'((?:[^\'\\]|\\.)*)\')')


def maplibre_style_id(js: str) -> str:
    """The id of the <style> element plotly's bundled maplibre inserts at load: our chart pages
    carry an element with it, so nothing is inserted (no map is drawn here)."""
    match = _MAPLIBRE_ID.search(js)
    if match is None:
        raise ValueError("plotly.min.js no longer inserts maplibre's stylesheet where expected")
    return match.group(1)


def plotly_css(js: str) -> str:
    match = _RULES.search(js)
    if match is None:
        raise ValueError("plotly.min.js no longer holds its style rules where expected")
    lines = ["/* plotly.js's own style rules (made by ops/plotly_css.py; do not edit). */"]
    for selector, double, single in _ENTRY.findall(match.group(1)):
        rule = json.loads(f'"{double}"') if double else single
        selector = (
            re.sub(r"^,", " ,", selector)
            .replace("X", ".js-plotly-plot .plotly")
            .replace("Y", ".plotly-notifier")
        )
        lines.append(f"{selector} {{{rule}}}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(plotly_css(PLOTLY_JS.read_text(encoding="utf-8")))
