"""The Content-Security-Policy (our own scripts and styles only) breaks nothing: the chart pages
draw their charts with plotly's rules from static/css/plotly.css, and the browser reports no
violation on any page."""

from __future__ import annotations

import pytest

PAGES = ["/", "/platforms/", "/offerings/", "/platforms/autodl/", "/advisor/", "/admin/login/"]


@pytest.fixture
def violations(page):
    seen: list[str] = []

    def console(message) -> None:
        if "Content Security Policy" in message.text:
            seen.append(f"{message.text} ({message.location})")

    page.on("console", console)
    return seen


@pytest.mark.parametrize("path", PAGES)
def test_no_page_violates_the_content_security_policy(page, violations, path):
    response = page.goto(path)
    assert "script-src 'self'" in response.headers["content-security-policy"]
    page.wait_for_load_state("networkidle")
    assert violations == []


def test_the_price_chart_is_styled_by_plotlys_rules_without_inline_styles(page, violations):
    page.goto("/platforms/autodl/")
    chart = page.locator("#price-history-chart")
    chart.locator(".main-svg").first.wait_for()
    position = chart.locator(".main-svg").first.evaluate("el => getComputedStyle(el).position")
    assert position == "absolute"  # ".js-plotly-plot .plotly .main-svg" in plotly.css
    assert page.locator("style#plotly\\.js-style-global").count() == 0
    assert violations == []
