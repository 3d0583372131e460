"""The advisor page in a real browser: presets, the form, results, charts and their tooltips."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from playwright.sync_api import expect

from advisor.engine.memory import task_memory
from advisor.engine.scenario import parse_scenario
from advisor.presets import PRESETS
from tests.e2e.conftest import assert_no_horizontal_scroll

CHARTS = ("memory", "price-vram", "cost-time", "break-even")


def open_preset(page, name: str) -> None:
    page.goto("/advisor/")
    page.get_by_role("link", name=name).click()
    page.wait_for_load_state()


def test_a_preset_fills_the_form_and_submitting_it_draws_the_results_and_every_chart(page):
    open_preset(page, "Training + inference mixed")
    assert page.locator("#id_t0-name").input_value() == "daytime inference"
    assert page.locator("#id_t1-kind").input_value() == "full_finetune"
    assert page.locator("#id_t1-sharding").input_value() == "zero3"
    page.get_by_role("button", name="Advise", exact=True).click()
    expect(page.locator("table.recommendations tbody tr").first).to_be_visible()
    assert page.locator("table.recommendations tbody tr").count() >= 1
    for chart in CHARTS:
        expect(page.locator(f"#chart-{chart}.js-plotly-plot .main-svg").first).to_be_visible()


def test_hovering_a_point_of_the_price_chart_shows_its_details(page):
    open_preset(page, "The 4090 LoRA + SDXL question")
    chart = page.locator("#chart-price-vram")
    chart.scroll_into_view_if_needed()
    expect(chart.locator(".main-svg").first).to_be_visible()
    point = chart.locator(".scatterlayer .point").last
    box = point.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    tooltip = chart.locator(".hoverlayer .hovertext")
    expect(tooltip.first).to_be_visible()
    assert "per GPU-hour" in tooltip.first.text_content()


def test_an_invalid_field_shows_its_message_next_to_it(page):
    page.goto("/advisor/")
    page.locator("#id_t0-seq_len").fill("0")
    page.get_by_role("button", name="Advise", exact=True).click()
    field = page.locator(".field.has-error", has=page.locator("#id_t0-seq_len"))
    expect(field.locator(".errorlist")).to_contain_text("greater than or equal to 1")
    expect(page.locator("#results")).to_have_count(0)


def test_the_70b_case_says_it_does_not_fit_and_still_shows_its_memory_plan(page):
    open_preset(page, "The 70B medical fine-tune case")
    expect(page.get_by_role("alert")).to_contain_text("None of")
    expect(page.locator(".premise-wrong").first).to_contain_text("not 140 GB")
    # The page's figure is the engine's plan, rounded half up to two decimals.
    task = parse_scenario(PRESETS["medical-70b"].scenario).tasks[0]
    gib = Decimal(task_memory(task).per_gpu.total) / 2**30
    shown = gib.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    expect(page.locator(".task-plan [data-total]")).to_have_text(f"{shown:,}")
    expect(page.locator("#chart-memory .main-svg").first).to_be_visible()


def test_task_rows_are_added_and_removed_in_place_with_javascript(page):
    page.goto("/advisor/")
    page.get_by_role("button", name="Add task").click()
    rows = page.locator("#task-rows [data-task-row]")
    expect(rows).to_have_count(2)
    assert page.locator("[data-task-count]").input_value() == "2"
    page.locator("#id_t1-name").fill("second")
    page.get_by_role("button", name="Remove task 1").click()
    expect(rows).to_have_count(1)
    assert page.locator("#id_t0-name").input_value() == "second"
    assert page.locator("[data-task-count]").input_value() == "1"
    expect(page.get_by_role("button", name="Remove task 1")).to_be_hidden()


def test_choosing_a_kind_shows_only_the_fields_that_apply(page):
    page.goto("/advisor/")
    expect(page.locator("#id_t0-vram_gib")).to_be_hidden()
    page.locator("#id_t0-kind").select_option("fixed")
    expect(page.locator("#id_t0-vram_gib")).to_be_visible()
    expect(page.locator("#id_t0-seq_len")).to_be_hidden()
    page.locator("#id_t0-vram_gib").fill("20")
    page.get_by_role("button", name="Advise", exact=True).click()
    expect(page.locator("table.recommendations tbody tr").first).to_be_visible()


def test_the_advisor_page_fits_a_375_px_screen(mobile_page):
    open_preset(mobile_page, "Development + short experiments")
    expect(mobile_page.locator("table.recommendations")).to_be_attached()
    expect(mobile_page.locator("#chart-price-vram .main-svg").first).to_be_visible()
    assert_no_horizontal_scroll(mobile_page)


def test_the_billing_chart_marks_the_tables_monthly_figure_for_two_instances(page):
    """Rendering + simulation: #2, 算家云's RTX 4090 48GB (its create-instance page, 2026-08-17;
    #1 is a plan of two legs), needs 2 instances, 600 h each at 2.28 CNY/h; the chart's marker
    reads 2,736.00, the table's figure, not one instance's 1,368.00."""
    open_preset(page, "Rendering + simulation")
    rows = page.locator("table.recommendations tbody tr")
    costs = page.locator("[data-cost]", has_text="2,736.00")
    expect(rows.filter(has=costs).first).to_be_attached()
    chart = page.locator("#chart-break-even")
    chart.scroll_into_view_if_needed()
    expect(chart.locator(".main-svg").first).to_be_visible()
    page.evaluate(
        """() => {
            const el = document.getElementById("chart-break-even");
            const i = el.data.findIndex((t) => t.name === "#2 in this scenario");
            Plotly.Fx.hover(el, [{curveNumber: i, pointNumber: 0}]);
        }"""
    )
    tooltip = chart.locator(".hoverlayer .hovertext")
    expect(tooltip.first).to_contain_text("600 h, 2,736.00 CNY")
