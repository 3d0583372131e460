"""The page answers first, in Chromium at 1366 and 375 px, in English and Chinese: after Advise
and after Share the results' heading is in view and focused; a scenario with errors is summarised
at the top, each error a link to its field, in plain words, the earlier results kept; no page
scrolls sideways."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.e2e.conftest import assert_no_horizontal_scroll

IN_VIEW_AND_FOCUSED = """id => {
    const el = document.getElementById(id);
    const box = el.getBoundingClientRect();
    return {
        focused: document.activeElement === el,
        // scrolled to its top, to a fraction of a pixel
        inView: box.top > -1 && box.top < window.innerHeight && box.height > 0,
        top: box.top,
    };
}"""


def advise(page) -> None:
    """Press the form's visible Advise button (the first submit button is hidden: Enter's)."""
    with page.expect_navigation():
        page.locator("#scenario-form > p > button[type=submit]:not([name])").click()
    page.wait_for_load_state()


def assert_lands_on(page, element_id: str) -> None:
    page.wait_for_function(f"() => document.activeElement?.id === {element_id!r}")
    state = page.evaluate(IN_VIEW_AND_FOCUSED, element_id)
    assert state["focused"] and state["inView"], state


def test_advise_and_share_land_on_the_results_heading(screen):
    screen.goto("/advisor/")
    advise(screen)
    assert screen.url.endswith("#results")
    assert_lands_on(screen, "results")
    expect(screen.locator("[data-summary]")).to_contain_text(re.compile(r"^(#1: |第 1 名：)"))
    assert_no_horizontal_scroll(screen)

    with screen.expect_navigation():
        screen.locator("[data-share-button]").click()
    screen.wait_for_load_state()
    assert re.search(r"/s/[a-z2-7]+/#results$", screen.url), screen.url
    assert_lands_on(screen, "results")
    expect(screen.locator("#short-link")).to_be_attached()
    assert_no_horizontal_scroll(screen)


def first_row(screen) -> str | None:
    """What the table's first row ranks: an offering's id, or a plan's offerings."""
    row = screen.locator("table.recommendations tbody tr").first
    return row.get_attribute("data-offering") or row.get_attribute("data-plan")


def test_a_scenario_with_an_error_is_summarised_at_the_top_beside_the_results_before(screen):
    screen.goto("/advisor/")
    advise(screen)
    first = first_row(screen)
    assert first is not None
    screen.locator("#id_t0-hours_per_month").fill("1000")
    advise(screen)
    assert_lands_on(screen, "form-errors")
    summary = screen.locator("#form-errors")
    link = summary.locator("a[href='#id_t0-hours_per_month']")
    # The billing month is 720 h: more is refused in plain words, no interval notation.
    expect(link).to_contain_text("720")
    assert "(0, 7" not in summary.text_content()
    assert "hours_per_month" not in summary.text_content()
    # The results the form was sent from are still there, said to be those.
    expect(screen.locator("[data-previous-results]")).to_be_visible()
    assert first_row(screen) == first
    link.click()
    expect(screen.locator("#id_t0-hours_per_month")).to_be_in_viewport()
    assert_no_horizontal_scroll(screen)


def test_a_preset_link_lands_on_its_results(screen):
    screen.goto("/advisor/")
    with screen.expect_navigation():
        screen.locator("[data-preset='training-inference']").click()
    assert_lands_on(screen, "results")


def test_the_homes_question_opens_the_advisor_at_the_results(screen):
    screen.goto("/")
    expect(screen.locator("[data-what-it-does]")).to_be_visible()
    expect(screen.locator("[data-cheapest-cards] li").first).to_be_visible()
    screen.locator("#id_t0-model").select_option("qwen2.5-7b")
    screen.locator("#id_t0-kind").select_option("inference")
    screen.locator("#id_t0-hours_per_month").fill("200")
    with screen.expect_navigation():
        screen.locator(".start-form button[type=submit]").click()
    assert_lands_on(screen, "results")
    assert screen.locator("#id_t0-model").input_value() == "qwen2.5-7b"
    assert screen.locator("#id_t0-kind").input_value() == "inference"
    assert screen.locator("#id_t0-hours_per_month").input_value() == "200"
    assert_no_horizontal_scroll(screen)
