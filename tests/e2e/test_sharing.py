"""The page a renter shares, in Chromium at 1366 and 375 px wide, in English and in Chinese: the
results' deciding cells visible without scrolling sideways, select labels whole, legends not cut,
no serious or critical accessibility violation (axe-core), a saved scenario reopened from its
short link, the price history per GPU-hour, dark mode, and what the advisor page with a preset
transfers on a first load.

axe-core comes from the npm registry, installed into var/e2e-node (an ignored folder) by .ci/run
or, where npm is there, by this module; it is injected into the page under test only, never
served by the site.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.conf import settings
from playwright.sync_api import expect

from advisor.forms import scenario_query
from advisor.presets import PRESETS
from tests.e2e.conftest import VIEWPORTS

ROOT = Path(__file__).resolve().parents[2]
AXE_VERSION = "4.14.1"
AXE_DIR = ROOT / "var" / "e2e-node"
AXE_JS = AXE_DIR / "node_modules" / "axe-core" / "axe.min.js"

PRESET = PRESETS["training-inference"]


def preset_url(preset=PRESET) -> str:
    return (
        "/advisor/?" + scenario_query(preset.translated_scenario(), preset=preset.slug).urlencode()
    )


@pytest.fixture(scope="session")
def axe_source() -> str:
    if not AXE_JS.exists() and shutil.which("npm"):
        AXE_DIR.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--no-package-lock", "--prefix",
             str(AXE_DIR), f"axe-core@{AXE_VERSION}"],
            check=False, capture_output=True, timeout=300,
        )  # fmt: skip
    if not AXE_JS.exists():
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"axe-core is not installed at {AXE_JS} (.ci/run installs it with npm)")
        pytest.skip("axe-core is not installed and npm is not available")
    return AXE_JS.read_text(encoding="utf-8")


def charts_drawn(page) -> None:
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-chart-json]')]"
        ".every(el => el.classList.contains('chart-drawn'))"
    )


# ------------------------------------------------------------------------ readable results

SIDEWAYS = """() => [...document.querySelectorAll('body *')]
    .filter(el => !['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName))
    .filter(el => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX))
    .filter(el => el.scrollWidth > el.clientWidth + 1)
    .map(el => el.tagName + '.' + el.className + ' ' + (el.scrollWidth - el.clientWidth))"""


def test_the_first_results_deciding_cells_are_visible_and_nothing_scrolls_sideways(screen):
    screen.goto(preset_url())
    first = screen.locator("table.recommendations tbody tr").first
    expect(first).to_be_visible()
    width = screen.screen_width
    for cell in ("td.cost", "td.time", "td.plan", "td.warnings-cell"):
        box = first.locator(cell).bounding_box()
        assert box is not None and box["width"] > 0, cell
        assert box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5, (cell, box)
    assert (
        screen.evaluate(
            "document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        <= 0
    )
    assert screen.evaluate(SIDEWAYS) == []
    # Names, not slugs, in the GPU line; a platform's name never doubled.
    gpus = first.locator("[data-gpus]").text_content()
    assert not re.search(r"\d+× [a-z0-9-]+\b", gpus), gpus
    assert "((" not in screen.locator("table.recommendations").text_content()


SELECTS = """() => {
  const c = document.createElement('canvas').getContext('2d'); const cut = [];
  document.querySelectorAll('select').forEach(s => {
    if (!s.offsetParent) return;
    const st = getComputedStyle(s); c.font = st.font;
    const room = s.clientWidth - parseFloat(st.paddingLeft) - parseFloat(st.paddingRight) - 16;
    for (const o of s.options) {
      if (c.measureText(o.text).width > room) cut.push(s.name + ': ' + o.text);
    }
  });
  return cut; }"""


def test_every_choice_of_every_select_fits_its_box(screen):
    """A select cannot wrap its text: the longest choice must fit (the arrow takes 16 px)."""
    screen.goto(preset_url())
    screen.locator("select[name='t1-kind']").wait_for()
    assert screen.evaluate(SELECTS) == []


def test_chinese_headers_and_row_labels_do_not_break_a_character_a_line(screen):
    screen.goto("/platforms/")
    # At 375 px the table is cards, its header row visually hidden (1 px wide): not read here.
    narrow = screen.evaluate(
        """() => [...document.querySelectorAll('table.comparison th')]
            .filter(th => th.textContent.trim().length > 1)
            .filter(th => th.closest('thead')?.getBoundingClientRect().width !== 1)
            .filter(th => {
              const em = parseFloat(getComputedStyle(th).fontSize);
              return th.getBoundingClientRect().width < 2.5 * em;
            })
            .map(th => th.textContent.trim())"""
    )
    assert narrow == []


# ------------------------------------------------------------------------------ the charts

LEGENDS = """() => [...document.querySelectorAll('.js-plotly-plot')].flatMap(el => {
  const box = el.getBoundingClientRect(); const legend = el.querySelector('.legend');
  if (!legend) return [];
  const r = legend.getBoundingClientRect();
  const cut = r.left < box.left - 1 || r.right > box.right + 1 || r.bottom > box.bottom + 1;
  return cut || legend.querySelector('.scrollbar[width]:not([width="0"])') ? [el.id] : [];
})"""


def test_no_chart_legend_is_cut(screen):
    screen.goto(preset_url())
    charts_drawn(screen)
    assert screen.evaluate(LEGENDS) == []
    screen.goto("/platforms/autodl/")
    charts_drawn(screen)
    assert screen.evaluate(LEGENDS) == []


def test_the_mode_bar_downloads_a_png_and_has_no_cloud_button(page):
    page.goto(preset_url())
    charts_drawn(page)
    titles = page.evaluate(
        "() => [...document.querySelectorAll('#chart-memory .modebar-btn')]"
        ".map(b => b.getAttribute('data-title'))"
    )
    assert "Download plot as a PNG" in titles
    assert not [t for t in titles if re.search(r"cloud|share|chart studio|edit", t, re.I)]


def test_the_price_history_is_per_gpu_hour_and_switches_to_as_listed(screen):
    screen.goto("/platforms/autodl/")
    charts_drawn(screen)
    chart = screen.locator("#price-history-chart")
    title = chart.evaluate("el => el.layout.yaxis.title.text")
    per_gpu = {"en": "Price per GPU-hour (CNY)", "zh": "每 GPU 小时价格（CNY）"}
    assert title in per_gpu.values()
    # An 8-GPU offering's line is its price over 8 GPUs (vocab.price_per_gpu_hour).
    lines = chart.evaluate(
        "el => el.data.map(t => ({gpus: t.meta.gpus, unit: t.meta.unit, y: t.y[0],"
        " listed: t.meta.listed[0]}))"
    )
    hourly = [t for t in lines if t["unit"] == "hour"]
    assert hourly and all(t["y"] == pytest.approx(t["listed"] / t["gpus"]) for t in hourly)
    screen.locator("input[data-chart-view][value='listed']").check()
    screen.wait_for_function(
        "t => document.getElementById('price-history-chart').layout.yaxis.title.text !== t",
        arg=title,
    )
    listed_title = chart.evaluate("el => el.layout.yaxis.title.text")
    assert listed_title != title and ("as listed" in listed_title or "标价" in listed_title)
    ys = chart.evaluate("el => el.data.map(t => t.y[0])")
    assert ys == [t["listed"] for t in lines]


def test_dark_mode_follows_the_system_and_recolours_the_charts(browser, live_server, seeded):
    context = browser.new_context(
        viewport=VIEWPORTS["1366"], base_url=live_server.url, color_scheme="dark"
    )
    page = context.new_page()
    page.goto(preset_url())
    charts_drawn(page)
    background = page.evaluate("getComputedStyle(document.documentElement).backgroundColor")
    assert background == "rgb(20, 24, 29)"
    font = page.evaluate("document.getElementById('chart-memory').layout.font.color")
    assert font == "#e3e7ec"
    accent = page.evaluate(
        "document.getElementById('chart-price-vram').data.map(t => t.marker.color)"
    )
    assert "#0b5cad" not in accent and "#7ab8ff" in accent
    context.close()


# ---------------------------------------------------------------------- accessibility

PAGES = [
    "/",
    "/platforms/",
    "/offerings/",
    "/platforms/autodl/",
    "/advisor/",
    "PRESET",
    "SAVED",
    "/api/docs/",
    "/admin/login/",
]

AXE_RUN = """async () => {
  const result = await axe.run(document, {resultTypes: ['violations']});
  return result.violations
    .filter(v => v.impact === 'serious' || v.impact === 'critical')
    .map(v => v.id + ': ' + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(' | '));
}"""


def test_no_page_has_a_serious_or_critical_accessibility_violation(screen, axe_source):
    screen.goto(preset_url())
    screen.locator("[data-share-button]").click()
    screen.wait_for_url(re.compile(r"/s/[a-z2-7]+/#results$"))
    saved = screen.url
    found = {}
    for path in PAGES:
        url = {"PRESET": preset_url(), "SAVED": saved}.get(path, path)
        screen.goto(url)
        screen.wait_for_load_state("networkidle")
        if screen.locator("[data-chart-json]").count():
            charts_drawn(screen)
        screen.evaluate(axe_source)
        violations = screen.evaluate(AXE_RUN)
        if violations:
            found[path] = violations
    assert found == {}


# ------------------------------------------------------------------- sharing a scenario


def test_a_saved_scenario_reopens_from_its_short_link(screen, browser, live_server):
    screen.goto(preset_url())
    cost = screen.locator("table.recommendations tbody tr").first.locator("[data-cost]")
    expected = cost.text_content()
    screen.locator("[data-share-button]").click()
    # At the results, where the link is.
    screen.wait_for_url(re.compile(r"/s/[a-z2-7]{10}/#results$"))
    link = screen.locator("#short-link").input_value()
    assert f"{link}#results" == screen.url and len(link) < len(live_server.url) + 20
    # Someone else opens the link: the same scenario and the same first result.
    other = browser.new_context(viewport=VIEWPORTS["375"])
    page = other.new_page()
    page.goto(link)
    expect(
        page.locator("table.recommendations tbody tr").first.locator("[data-cost]")
    ).to_have_text(expected)
    assert page.locator("#id_t0-name").input_value() == "daytime inference"
    other.close()


# -------------------------------------------------------------------------- first load


@pytest.fixture
def production_static(tmp_path_factory, transactional_db):
    """The live server with static files as `make serve` and `make run` send them: collected,
    hashed and compressed (WhiteNoise), not through the test server's plain file handler."""
    from django.core.management import call_command
    from django.test import override_settings

    root = tmp_path_factory.mktemp("static")
    with override_settings(
        STATIC_ROOT=root,
        STORAGES={
            **settings.STORAGES,
            "staticfiles": {"BACKEND": "config.storage.HashedStaticFilesStorage"},
        },
        WHITENOISE_USE_FINDERS=False,
        WHITENOISE_AUTOREFRESH=False,
    ):
        call_command("collectstatic", interactive=False, verbosity=0)
        from django.test.testcases import LiveServerThread

        class Compressed(LiveServerThread):
            # WSGIHandler alone: WhiteNoise (in its middleware) answers /static/.
            def run(self) -> None:
                from django.core.handlers.wsgi import WSGIHandler
                from django.db import connections

                if self.connections_override:
                    for alias, conn in self.connections_override.items():
                        connections[alias] = conn
                try:
                    self.httpd = self._create_server(connections_override=self.connections_override)
                    self.port = self.httpd.server_address[1]
                    self.httpd.set_app(WSGIHandler())
                    self.is_ready.set()
                    self.httpd.serve_forever()
                except Exception as error:
                    self.error = error
                    self.is_ready.set()
                finally:
                    connections.close_all()

        from django.db import connections

        # As Django's LiveServerTestCase: an in-memory SQLite test database is shared with the
        # server's thread (PostgreSQL needs nothing).
        shared = {
            conn.alias: conn
            for conn in connections.all()
            if conn.vendor == "sqlite" and conn.is_in_memory_db()
        }
        for conn in shared.values():
            conn.inc_thread_sharing()
        thread = Compressed("127.0.0.1", static_handler=None, connections_override=shared)
        thread.daemon = True
        thread.start()
        thread.is_ready.wait()
        if thread.error:
            raise thread.error
        yield f"http://127.0.0.1:{thread.port}"
        thread.terminate()
        thread.join()
        for conn in shared.values():
            conn.dec_thread_sharing()


def test_the_advisor_page_with_a_preset_transfers_under_2_mb_on_a_first_load(
    browser, seeded, production_static
):
    """DESIGN target: first load of the advisor under 2 MB. Counted as the browser received it
    (Playwright's request sizes: headers and the encoded body) on an empty cache."""
    context = browser.new_context(viewport=VIEWPORTS["1366"], base_url=production_static)
    page = context.new_page()
    responses = []
    page.on("requestfinished", lambda request: responses.append(request))
    page.goto(preset_url(), wait_until="networkidle")
    charts_drawn(page)
    total = 0
    plotly = None
    for request in responses:
        sizes = request.sizes()
        total += sizes["responseHeadersSize"] + sizes["responseBodySize"]
        if "plotly.min" in request.url:
            plotly = request.response()
    assert plotly is not None
    headers = plotly.all_headers()
    assert headers.get("content-encoding") in ("gzip", "br")
    assert "immutable" in headers.get("cache-control", "")
    assert total < 2 * 1024 * 1024, f"{total / 1024 / 1024:.2f} MB"
    context.close()
