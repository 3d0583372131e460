"""The Content-Security-Policy header, and plotly's style rules kept as a file that matches the
installed plotly.js."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client

from ops.plotly_css import PLOTLY_JS, maplibre_style_id, plotly_css

ROOT = Path(__file__).resolve().parent.parent.parent


@pytest.mark.django_db
def test_pages_allow_only_our_own_scripts_and_styles():
    policy = Client().get("/offerings/")["Content-Security-Policy"]
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    assert directives["script-src"] == "'self'"
    assert directives["style-src"] == "'self'"
    assert directives["style-src-attr"] == "'unsafe-inline'"  # plotly's SVG text
    assert directives["object-src"] == "'none'"
    assert directives["frame-ancestors"] == "'none'"


@pytest.mark.django_db
def test_the_api_docs_alone_may_run_their_inline_start_up_script():
    policy = Client().get("/api/docs/")["Content-Security-Policy"]
    assert "script-src 'self' 'unsafe-inline'" in policy


def test_plotly_css_is_what_the_installed_plotly_js_would_insert_inline():
    """Regenerate with `.venv/bin/python -m ops.plotly_css > static/css/plotly.css`."""
    expected = plotly_css(PLOTLY_JS.read_text(encoding="utf-8"))
    assert (ROOT / "static" / "css" / "plotly.css").read_text() == expected
    assert ".js-plotly-plot .plotly .main-svg {position:absolute;" in expected
    assert expected.count("\n") > 50


@pytest.mark.django_db
def test_chart_pages_link_the_rules_under_the_id_plotly_looks_for(platform):
    page = Client().get(f"/platforms/{platform.slug}/").content.decode()
    assert 'id="plotly.js-style-global" class="no-inline-styles"' in page


def test_chart_pages_carry_the_id_that_stops_maplibres_inline_stylesheet():
    include = (ROOT / "templates" / "includes" / "plotly_css.html").read_text()
    assert f'id="{maplibre_style_id(PLOTLY_JS.read_text(encoding="utf-8"))}"' in include
