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
