"""Browser tests: Playwright for Python driving Debian's Chromium against a live server.

Without /usr/bin/chromium the tests skip locally; in CI (CI=true) a missing browser fails the run.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Playwright's sync API runs an event loop in this thread; Django's ORM calls from the test body are
# still synchronous and safe here.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
DESKTOP = {"width": 1280, "height": 900}
MOBILE = {"width": 375, "height": 740}
# The screens the answer-first, narrow-screen and sharing tests run on: each width in each language.
VIEWPORTS = {"1366": {"width": 1366, "height": 900}, "375": {"width": 375, "height": 740}}
LANGUAGES = {"en": "en-US", "zh": "zh-CN"}
SCREENS = [(w, lang) for w in VIEWPORTS for lang in LANGUAGES]


def pytest_collection_modifyitems(items):
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.fspath).parents:
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
def browser():
    if not CHROMIUM.exists():
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("Chromium is not installed at /usr/bin/chromium (apt-get install chromium)")
        pytest.skip("Chromium is not installed at /usr/bin/chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS, headless=True
        )
        yield browser
        browser.close()


@pytest.fixture
def seeded(transactional_db):
    from platforms.seed import load_seed

    load_seed()


def _page(browser, live_server, viewport):
    context = browser.new_context(
        viewport=viewport, base_url=live_server.url, locale="en-US", service_workers="block"
    )
    context.set_default_timeout(10_000)
    page = context.new_page()
    return context, page


@pytest.fixture
def page(browser, live_server, seeded):
    """A desktop-sized page on the live server, with the seed catalogue loaded."""
    context, page = _page(browser, live_server, DESKTOP)
    yield page
    context.close()


@pytest.fixture
def mobile_page(browser, live_server, seeded):
    """A 375 px wide page on the live server, with the seed catalogue loaded."""
    context, page = _page(browser, live_server, MOBILE)
    yield page
    context.close()


def assert_no_horizontal_scroll(page) -> None:
    overflow = page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert overflow <= 0, f"the page scrolls sideways by {overflow}px"


@pytest.fixture(params=SCREENS, ids=[f"{w}px-{lang}" for w, lang in SCREENS])
def screen(request, browser, live_server, seeded):
    """A page on one of SCREENS, its width kept as `screen_width`."""
    width, lang = request.param
    context = browser.new_context(
        viewport=VIEWPORTS[width],
        base_url=live_server.url,
        locale=LANGUAGES[lang],
        service_workers="block",
    )
    context.set_default_timeout(15_000)
    page = context.new_page()
    page.screen_width = VIEWPORTS[width]["width"]  # type: ignore[attr-defined]
    yield page
    context.close()
