"""The offering explorer in a real browser: filters from the form, pages that fit a phone."""

from __future__ import annotations

from tests.e2e.conftest import assert_no_horizontal_scroll


def row_count(page) -> int:
    return page.locator("table.explorer-table tbody tr").count()


def total(page) -> int:
    """The number of offerings the filters match, all pages ("164 offerings · page 1 of 7")."""
    return int(page.locator("p.summary").inner_text().split()[0].replace(",", ""))


def test_the_explorer_filters_change_the_rows(page):
    page.goto("/offerings/")
    everything = total(page)
    assert everything >= 140 and row_count(page) == 25

    page.get_by_label("VRAM per GPU from (GiB)").fill("48")
    page.get_by_label("Billing unit").select_option("hour")
    page.get_by_role("button", name="Apply filters").click()
    page.wait_for_url("**/offerings/?*vram_min=48*")
    large = total(page)
    assert 0 < large < everything
    # The third column is "VRAM per GPU / total (GiB)".
    cells = page.locator("tbody td:nth-child(3)").all_inner_texts()
    per_gpu = [float(text.split("/")[0]) for text in cells]
    assert per_gpu and min(per_gpu) >= 48

    page.get_by_label("Platform").select_option("gongji")
    page.get_by_role("button", name="Apply filters").click()
    page.wait_for_url("**platform=gongji*")
    names = page.locator("table.explorer-table tbody th").all_inner_texts()
    assert 0 < len(names) < large
    assert all("共绩算力" in name for name in names)


def test_an_invalid_filter_shows_a_message_next_to_its_field(page):
    page.goto("/offerings/?price_max=2")
    assert page.get_by_text("Choose a billing unit to filter by price.").is_visible()
    assert page.get_by_label("Billing unit").get_attribute("aria-invalid") == "true"


def test_the_explorer_fits_a_375_px_screen(mobile_page):
    mobile_page.goto("/offerings/")
    assert row_count(mobile_page) >= 20
    assert_no_horizontal_scroll(mobile_page)


def test_the_platform_page_with_its_chart_fits_a_375_px_screen(mobile_page):
    mobile_page.goto("/platforms/autodl/")
    mobile_page.locator("#price-history-chart .main-svg").first.wait_for()
    assert_no_horizontal_scroll(mobile_page)
