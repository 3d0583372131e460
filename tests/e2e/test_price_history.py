"""The platform page's price history chart in a real browser, fed by a price typed in the admin."""

from __future__ import annotations

from django.contrib.auth.models import User

from platforms.models import Offering

# The observed buckets of each line (marker size 7; the points between them hold the price).
TRACES = """el => el.data.map(t => ({
    offering: t.meta.offering, unit: t.meta.unit, tier: t.meta.tier,
    y: t.y.filter((_, i) => t.marker.size[i] > 0)
}))"""


def test_the_price_history_chart_renders(page):
    page.goto("/platforms/autodl/")
    chart = page.locator("#price-history-chart")
    chart.locator(".main-svg").first.wait_for()
    assert page.locator("#price-history-chart.js-plotly-plot .main-svg").count() >= 1
    assert chart.locator(".rangeselector .button").count() == 4
    # The height was reserved in CSS: drawing the chart did not resize its box.
    assert chart.bounding_box()["height"] == 520


def test_a_price_entered_in_the_admin_appears_on_the_history_chart(page):
    User.objects.create_superuser("boss", "boss@example.com", "a-long-test-password")
    offering = Offering.objects.get(platform__slug="autodl", external_id="adl-4090")

    page.goto(f"/admin/platforms/offering/{offering.pk}/change/")
    page.fill("#id_username", "boss")
    page.fill("#id_password", "a-long-test-password")
    page.click("input[type=submit]")
    page.fill("#id_new_price_amount", "1.66")
    page.select_option("#id_new_price_unit", "hour")
    page.select_option("#id_new_price_currency", "CNY")
    page.click("input[name=_save]")
    page.locator(".messagelist .success").wait_for()

    page.goto("/platforms/autodl/")
    chart = page.locator("#price-history-chart")
    chart.locator(".main-svg").first.wait_for()
    traces = chart.evaluate(TRACES)
    (hourly,) = [
        t
        for t in traces
        if t["offering"] == offering.pk and t["unit"] == "hour" and t["tier"] == "list"
    ]
    # The seed's list prices 2.19 (2026-04) and 1.98 (2026-10-04), then the new price (held until
    # now); the member price 1.88 is a line of its own.
    assert hourly["y"][:3] == [2.19, 1.98, 1.66]
    assert hourly["y"][-1] == 1.66
    (member,) = [t for t in traces if t["offering"] == offering.pk and t["tier"] == "member"]
    assert member["y"][0] == 1.88


def test_the_chart_names_its_lines_and_one_month_ends_today(page):
    """Each line is named in a legend; "1m" shows the month to today, with no empty future."""
    from datetime import datetime, timedelta

    page.goto("/platforms/autodl/")
    chart = page.locator("#price-history-chart")
    chart.locator(".main-svg").first.wait_for()
    names = chart.locator(".legend .traces").count()
    assert names == chart.evaluate("el => el.data.length") > 1
    chart.locator(".rangeselector .button").first.click()
    start, end = chart.evaluate("el => el.layout.xaxis.range")
    end, start = (datetime.fromisoformat(v[:19]) for v in (end, start))
    assert end <= datetime.now() + timedelta(days=1)
    assert timedelta(days=27) <= end - start <= timedelta(days=32)


def test_the_reader_picks_the_offerings_drawn(page):
    offering = Offering.objects.get(platform__slug="autodl", external_id="adl-4090")
    page.goto("/platforms/autodl/")
    page.locator(".chart-picker summary").click()
    boxes = page.locator(".chart-picker input[name=chart]")
    for i in range(boxes.count()):
        boxes.nth(i).uncheck()
    page.locator(f".chart-picker input[value='{offering.pk}']").check()
    page.locator(".chart-picker button[type=submit]").click()
    chart = page.locator("#price-history-chart")
    chart.locator(".main-svg").first.wait_for()
    assert "#history-heading" in page.url
    offerings = set(chart.evaluate("el => el.data.map(t => t.meta.offering)"))
    assert offerings == {offering.pk}
