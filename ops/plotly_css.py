"""static/css/plotly.css: the style rules plotly.js would otherwise insert as an inline <style>
element, which the Content-Security-Policy (style-src 'self') refuses.

plotly.js keeps them in one object literal ("X,X div": "direction:ltr;...", X standing for
".js-plotly-plot .plotly" and Y for ".plotly-notifier") and skips inserting them when the page
has an element with id "plotly.js-style-global" and class "no-inline-styles": our chart pages
link this file under that id (https://github.com/plotly/plotly.js/pull/7109). The file is made
from the installed plotly.min.js, and a test fails when it no longer matches (a plotly upgrade):

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
_ENTRY = re.compile(r'"((?:[^"\\]|\\.)*)":(?:"((?:[^"\\]|\\.)*)"|\'((?:[^\'\\]|\\.)*)\')')


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
