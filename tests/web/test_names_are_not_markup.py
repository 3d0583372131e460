"""Names are data: a task name from a shared URL and platform, offering and source names from the
catalogue reach Plotly and spreadsheets as text, never as markup or formulas.

Plotly reads `<a href>`, `<span style>`, `<b>` and `<br>` in every trace's names, hovers, ticks
and custom data, and shows `&lt;` as "<" (https://plotly.com/chart-studio-help/adding-HTML-and-links-to-charts/);
a spreadsheet runs a CSV cell starting with `=`, `+`, `-` or `@` (or a tab or carriage return
before one) as a formula (https://owasp.org/www-community/attacks/CSV_Injection).
"""

from __future__ import annotations

import csv
import io
import json
import re
from datetime import timedelta
from decimal import Decimal

import pytest
import time_machine
from django.http import QueryDict
from django.utils import timezone

from advisor.forms import scenario_query
from advisor.presets import PRESETS
from platforms import charts, services
from platforms.models import Offering, Platform
from platforms.safe_text import figure_text_escaped, plotly_text, spreadsheet_cell
from tests.conftest import NOW

LINK = '<a href="https://evil.example/">click me</a>'
HUGE = '<span style="font-size:80px;color:red">HUGE</span>'
FORMULA = '=HYPERLINK("https://evil.example/","click")'
DDE = "@SUM(1+1)*cmd|' /C calc'!A0"


def figures_on(html: str) -> dict[str, dict]:
    """Every figure the page hands to charts.js (json_script blocks), by id."""
    blocks = re.findall(r'<script id="([^"]+)" type="application/json">(.*?)</script>', html, re.S)
    return {name: json.loads(body) for name, body in blocks if "figure" in name}


def trace_strings(figure: dict) -> list[str]:
    """Every string a trace carries as data (templates aside): what Plotly reads as markup."""
    out: list[str] = []

    def walk(value):
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, list | tuple):
            for item in value:
                walk(item)

    for trace in figure["data"]:
        for key, value in trace.items():
            if key not in ("hovertemplate", "texttemplate", "meta", "marker", "line"):
                walk(value)
    return out


@pytest.fixture
def seed(db):
    from platforms.seed import load_seed

    load_seed()


@pytest.fixture
def frozen():
    with time_machine.travel(NOW, tick=False):
        yield NOW


@pytest.fixture
def hostile_catalogue(seed):
    """The seed catalogue with every platform and offering renamed to markup and formulas."""
    Platform.objects.update(name=HUGE, name_en=HUGE)
    Offering.objects.update(name=DDE, name_zh=DDE)


def test_the_advisor_charts_show_a_task_name_from_the_url_and_catalogue_names_as_text(
    client, hostile_catalogue, frozen
):
    scenario = PRESETS["rendering-simulation"].scenario
    scenario = {
        **scenario,
        "tasks": [{**scenario["tasks"][0], "name": LINK}, *scenario["tasks"][1:]],
    }

    response = client.get("/advisor/", QueryDict(scenario_query(scenario).urlencode()))

    figures = figures_on(response.content.decode())
    assert {"figure-memory", "figure-price-vram"} <= set(figures)
    strings = [s for figure in figures.values() for s in trace_strings(figure)]
    assert not [s for s in strings if "<a" in s or "<span" in s]
    assert plotly_text(LINK) in figures["figure-memory"]["data"][0]["x"]
    assert any(plotly_text(HUGE) in s for s in trace_strings(figures["figure-price-vram"]))


def test_the_advisor_csv_writes_no_cell_a_spreadsheet_would_run(client, hostile_catalogue, frozen):
    scenario = PRESETS["rendering-simulation"].scenario
    scenario = {
        **scenario,
        "tasks": [{**scenario["tasks"][0], "name": FORMULA}, *scenario["tasks"][1:]],
    }
    Offering.objects.update(name=FORMULA)
    Platform.objects.update(name="+1+cmd|' /C calc'!A0", name_en="+1+cmd|' /C calc'!A0")

    response = client.get(
        "/advisor/", QueryDict(scenario_query(scenario, format="csv").urlencode())
    )

    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    header, body = rows[0], rows[1:]
    assert body
    cells = [cell for row in body for cell in row]
    assert not [cell for cell in cells if cell[:1] in ("=", "+", "@", "\t", "\r")]
    first = dict(zip(header, body[0], strict=True))
    assert first["offering"] == "'" + FORMULA
    assert first["platform"] == "'+1+cmd|' /C calc'!A0"
    # A single offering's placement starts with the task's name, escaped; a plan's with its leg.
    assert first["placement"].startswith(("'" + FORMULA + " → ", "leg 1: " + FORMULA + " → "))


def test_the_platform_price_chart_shows_offering_and_source_names_as_text(
    client, platform, offering, source
):
    offering.name = LINK
    offering.save()
    source.title = HUGE
    source.save()
    for amount, days in (("2.19", 30), ("1.88", 1)):  # two prices: a history to draw
        services.price_observation_create(
            offering=offering,
            unit="hour",
            amount=Decimal(amount),
            currency="CNY",
            source=source,
            observed_at=timezone.now() - timedelta(days=days),
        )

    page = client.get(f"/platforms/{platform.slug}/").content.decode()
    figure = figures_on(page)["price-history-figure"]

    strings = trace_strings(figure)
    assert not [s for s in strings if "<a" in s or "<span" in s]
    assert figure["data"][0]["name"].startswith(plotly_text(LINK))
    assert plotly_text(HUGE) in figure["data"][0]["text"][0]
    series = charts.price_history([offering])
    assert charts.price_history_figure(series, now=NOW)["data"][0]["name"].startswith("&lt;a href=")


@pytest.mark.parametrize(
    ("cell", "written"),
    [
        ("=1+1", "'=1+1"),
        ("+1+1", "'+1+1"),
        ("-1+1", "'-1+1"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\t=1+1", "'\t=1+1"),
        ("\r=1+1", "'\r=1+1"),
        ("-", "'-"),
        # Numbers, as text or not, are numbers: a spreadsheet runs nothing in them.
        ("-0.20", "-0.20"),
        ("+3", "+3"),
        ("-1.5e3", "-1.5e3"),
        (Decimal("-0.20"), Decimal("-0.20")),
        (-3, -3),
        # Plain text, including a minus sign (U+2212) and an inner "=".
        ("\u22120.20", "\u22120.20"),
        ("a=b", "a=b"),
        ("", ""),
    ],
)
def test_a_cell_that_starts_like_a_formula_is_written_as_text(cell, written):
    assert spreadsheet_cell(cell) == written


def test_plotly_text_escapes_markup_and_ampersands_and_nothing_else():
    figure = {
        "data": [
            {
                "name": "R&D <b>",
                "x": ["<br>", 1.5],
                "customdata": [["<i>x</i>", 2]],
                "hovertemplate": "<b>%{x}</b>",
            }
        ],
        "layout": {"title": {"text": "<b>ours</b>"}},
    }

    assert figure_text_escaped(figure) == {
        "data": [
            {
                "name": "R&amp;D &lt;b&gt;",
                "x": ["&lt;br&gt;", 1.5],
                "customdata": [["&lt;i&gt;x&lt;/i&gt;", 2]],
                "hovertemplate": "<b>%{x}</b>",
            }
        ],
        "layout": {"title": {"text": "<b>ours</b>"}},
    }
