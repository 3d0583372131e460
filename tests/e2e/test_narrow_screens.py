"""Every page at 1366 and 375 px, in English and Chinese, without sideways scrolling: the
comparisons' tables become cards on a phone, the explorer's filters fold behind a button, and
plotly's mode bar waits for a tap where nothing hovers."""

from __future__ import annotations

from playwright.sync_api import expect

from advisor.forms import scenario_query
from advisor.presets import PRESETS
from platforms.models import Offering
from tests.e2e.conftest import MOBILE, assert_no_horizontal_scroll


def pages() -> list[str]:
    preset = PRESETS["training-inference"]
    query = scenario_query(preset.translated_scenario(), preset=preset.slug)
    ids = list(
        Offering.objects.filter(accelerator__slug="rtx-4090-24gb")
        .order_by("pk")
        .values_list("pk", flat=True)[:4]
    )
    compare = "&".join(f"ids={pk}" for pk in ids)
    return [
        "/",
        "/platforms/",
        "/advisor/",
        f"/advisor/?{query.urlencode()}",
        "/offerings/",
        f"/offerings/compare/?{compare}",
        # The comparison reached from the advisor's results, with its scenario: 1,026 px wide
        # at 375 px before its table became cards.
        f"/offerings/compare/?{compare}&{query.urlencode()}",
        "/platforms/autodl/",
    ]


def test_no_page_scrolls_sideways(screen):
    for url in pages():
        response = screen.goto(url)
        assert response is not None and response.ok, url
        screen.wait_for_load_state()
        assert_no_horizontal_scroll(screen)


def test_the_comparison_of_offerings_is_a_card_per_fact_on_a_phone(screen):
    ids = list(Offering.objects.order_by("pk").values_list("pk", flat=True)[:3])
    screen.goto("/offerings/compare/?" + "&".join(f"ids={pk}" for pk in ids))
    row = screen.locator("table.compare tbody tr").first
    cells = row.locator("td")
    expect(cells).to_have_count(3)
    boxes = [cells.nth(i).bounding_box() for i in range(3)]
    if screen.screen_width == 375:  # stacked: one value under the other, each named
        assert boxes[0]["y"] < boxes[1]["y"] < boxes[2]["y"]
        label = screen.evaluate(
            "el => getComputedStyle(el, '::before').content", cells.first.element_handle()
        )
        assert label.strip('"') == cells.first.get_attribute("data-label") != ""
    else:  # side by side
        assert boxes[0]["x"] < boxes[1]["x"] < boxes[2]["x"]
    assert_no_horizontal_scroll(screen)


def test_the_explorers_filters_fold_behind_a_button_on_a_phone(screen):
    screen.goto("/offerings/?vram_min=20")
    filters = screen.locator("[data-filters]")
    vram = screen.locator("#id_vram_min")
    if screen.screen_width == 375:
        expect(vram).to_be_hidden()
        expect(filters.locator("[data-active-filters]")).to_contain_text("1")
        filters.locator("summary").click()
        expect(vram).to_be_visible()
        assert vram.input_value() == "20"
    else:
        expect(vram).to_be_visible()
        expect(filters.locator("summary")).to_be_hidden()


def test_the_mode_bar_waits_for_a_tap_where_nothing_hovers(browser, live_server, seeded):
    context = browser.new_context(
        viewport=MOBILE, base_url=live_server.url, has_touch=True, is_mobile=True
    )
    page = context.new_page()
    page.goto("/platforms/autodl/")
    chart = page.locator(".js-plotly-plot").first
    expect(chart.locator(".main-svg").first).to_be_visible()
    modebar = chart.locator(".modebar")
    expect(modebar).to_be_attached()
    expect(modebar).to_be_hidden()  # visibility: hidden, over the range buttons no more
    chart.scroll_into_view_if_needed()
    box = chart.bounding_box()
    page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] - 40)
    expect(modebar).to_be_visible()
    context.close()
