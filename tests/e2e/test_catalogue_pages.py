"""The catalogue pages in a real browser."""

from __future__ import annotations

from tests.e2e.conftest import assert_no_horizontal_scroll


def test_the_comparison_table_compares_a_chosen_subset(page):
    page.goto("/platforms/")
    assert page.locator("table.comparison thead th").count() >= 5
    page.get_by_label("AutoDL").check()
    page.get_by_role("button", name="Compare", exact=True).click()
    headers = page.locator("table.comparison thead th").all_inner_texts()
    assert len(headers) == 2 and "AutoDL" in headers[1]


def test_the_comparison_page_fits_a_375_px_screen(mobile_page):
    mobile_page.goto("/platforms/")
    assert_no_horizontal_scroll(mobile_page)


def test_a_platform_page_fits_a_375_px_screen(mobile_page):
    mobile_page.goto("/platforms/autodl/")
    assert mobile_page.get_by_role("heading", name="Offerings and current prices").is_visible()
    assert_no_horizontal_scroll(mobile_page)
