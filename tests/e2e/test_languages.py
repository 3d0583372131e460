"""Switching the language in a real browser, with the keyboard and without JavaScript."""

from __future__ import annotations


def test_the_language_switcher_shows_the_page_in_chinese_and_back(page):
    page.goto("/offerings/?sort=price")
    assert page.get_by_role("heading", name="Offerings", exact=True).is_visible()

    page.get_by_role("button", name="简体中文").click()
    page.wait_for_url("**/offerings/?sort=price")
    assert page.locator("html").get_attribute("lang") == "zh-hans"
    assert page.get_by_role("heading", name="实例规格", exact=True).is_visible()
    assert page.get_by_role("button", name="应用筛选").is_visible()
    assert page.get_by_role("button", name="简体中文").get_attribute("aria-pressed") == "true"

    # Chinese stays on as the visitor moves on.
    page.get_by_role("link", name="平台对比").click()
    assert page.get_by_role("heading", name="GPU 平台对比").is_visible()

    page.get_by_role("button", name="English").click()
    assert page.get_by_role("heading", name="Compare GPU platforms").is_visible()


def test_the_language_switcher_works_from_the_keyboard_without_javascript(
    browser, live_server, seeded
):
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    page = context.new_page()
    page.goto("/platforms/autodl/")
    page.get_by_role("button", name="简体中文").focus()
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.get_by_role("heading", name="价格历史").is_visible()
    context.close()


MODEBAR_TITLES = (
    "el => [...el.querySelectorAll('.modebar-btn')].map(b => b.getAttribute('data-title'))"
)


def test_the_charts_use_plotlys_chinese_locale_on_a_chinese_page(page):
    page.goto("/platforms/autodl/")
    chart = page.locator("#price-history-chart")
    chart.locator(".main-svg").first.wait_for()
    english = chart.evaluate(MODEBAR_TITLES)
    assert "Download plot as a PNG" in english
    assert not any("Share" in title for title in english)  # no cloud button

    page.get_by_role("button", name="简体中文").click()
    page.wait_for_url("**/platforms/autodl/")
    chart.locator(".main-svg").first.wait_for()
    assert chart.evaluate("el => el._context.locale") == "zh-CN"
    titles = chart.evaluate(MODEBAR_TITLES)
    assert "下载图表（PNG）" in titles and "自动缩放" in titles
    assert not any("Download" in title or "分享" in title for title in titles)
    # The date axis names its months in Chinese (2026年9月), not "Sep 2026".
    ticks = chart.locator(".xtick text").all_text_contents()
    assert any("月" in tick for tick in ticks), ticks
    assert not any(month in " ".join(ticks) for month in ("Jan", "Jun", "Sep", "Oct", "Nov"))
