"""The platform page: current prices, the price history chart's data, and plotly.js only where a
chart is drawn."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pytest
from django.urls import reverse

from platforms import charts, services
from platforms.models import BillingRules, IdleModePrice
from tests.conftest import NOW, local, make_offering
from tests.web.conftest import add_price

PLOTLY = "vendor/plotly/plotly.min.js"


def observed(trace):
    """The (x, y) of a trace's observed buckets: the points between them (size 0) hold the price
    so that a hover anywhere along the line finds one."""
    sizes = trace["marker"]["size"]
    return [(x, y) for x, y, size in zip(trace["x"], trace["y"], sizes, strict=True) if size]


def history_of(platform):
    """The page's series: its listed offerings, with their current prices."""
    offerings = list(platform.offerings.filter(is_active=True))
    return charts.price_history(offerings, {o.pk: o.current_prices for o in offerings})


def test_the_history_has_one_trace_per_offering_and_billing_unit_with_its_buckets(
    platform, offering, accelerator, source, django_assert_num_queries
):
    add_price(offering, source, "2.19", days_ago=60)
    add_price(offering, source, "1.88", days_ago=1)
    add_price(offering, source, "1052", unit="month", days_ago=30)
    other = make_offering(platform, accelerator, source, name="4090 x2", gpu_count=2)
    add_price(other, source, "3.50", days_ago=10)
    offerings = [offering, other]
    current = {o.pk: o.current_prices for o in offerings}
    # 1 where the history begins (the buckets' width), 2 each bucket's last price, 3 the
    # observations per offering, unit, tier, currency and bucket, 4 the sources they cite
    with django_assert_num_queries(4):
        series = charts.price_history(offerings, current)
    figure = charts.price_history_figure(series, now=NOW)

    traces = {(t["meta"]["offering"], t["meta"]["unit"]): t for t in figure["data"]}
    assert set(traces) == {(offering.pk, "hour"), (offering.pk, "month"), (other.pk, "hour")}
    hourly = traces[(offering.pk, "hour")]
    # Day buckets (the history spans fewer than MAX_POINTS days), from midnight in Asia/Shanghai,
    # a held point each day between, then the current price held until now.
    chart_time = "%Y-%m-%d %H:%M:%S"
    days = [local(NOW - timedelta(days=d), "%Y-%m-%d") + " 00:00:00" for d in (60, 1)]
    assert observed(hourly) == [(days[0], 2.19), (days[1], 1.88)]
    assert len(hourly["x"]) == 61 + 1  # 60 days ago to today, and now
    assert hourly["x"][-1] == local(NOW, chart_time) and hourly["y"][-1] == 1.88
    assert hourly["line"]["shape"] == "hv"
    assert hourly["meta"]["bucket"] == "day"
    assert hourly["name"] == "RTX 4090 VM · per hour (CNY)"
    # Per GPU-hour by default (vocab.price_per_gpu_hour): a month is 720 h, 2 GPUs halve it.
    assert hourly["text"][0] == (
        "¥2.19 per GPU-hour · ¥2.19 per hour · 1 observation · Test price list"
    )
    assert hourly["text"][1] == "¥2.19 per GPU-hour · ¥2.19 per hour · unchanged"
    month = traces[(offering.pk, "month")]
    assert [y for _x, y in observed(month)] == [pytest.approx(1052 / 720)]
    assert {y for _x, y in observed(traces[(other.pk, "hour")])} == {1.75}
    assert figure["layout"]["yaxis"]["title"]["text"] == "Price per GPU-hour (CNY)"
    # As listed: the same lines in each price's own unit.
    listed = figure["views"]["listed"]
    index = figure["data"].index(month)
    assert set(listed["y"][index]) == {1052.0}
    assert listed["title"] == "Price as listed (CNY, log scale)"
    assert figure["views"]["gpu_hour"]["y"][index] == month["y"]


def test_a_day_of_several_observations_is_one_bucket_with_its_range_and_last_price(
    offering, source
):
    for hours, amount in ((30, "1.80"), (29, "2.00"), (28, "1.90")):
        services.price_observation_create(
            offering=offering,
            unit="hour",
            amount=Decimal(amount),
            currency="CNY",
            source=source,
            observed_at=NOW.replace(hour=23) - timedelta(hours=hours),
        )
    [series] = history_of(offering.platform)
    [day] = series.points
    # The line steps to the last price listed (1.90), never to an average nobody listed.
    assert (day.low, day.high, day.close, day.count) == (
        Decimal("1.80"),
        Decimal("2.00"),
        Decimal("1.90"),
        3,
    )
    assert series.current.amount == Decimal("1.90")


def test_a_long_history_is_charted_by_week_then_by_month(offering, source):
    """Weeks start on Monday; months on the first. At most MAX_POINTS buckets a line."""
    for days in (charts.MAX_POINTS * 7 + 30, 400, 3, 2):
        add_price(offering, source, f"{days}.00", days_ago=days)
    [series] = history_of(offering.platform)
    assert series.bucket == "month"
    assert [p.start.day for p in series.points] == [1] * len(series.points)
    assert series.points[-1].count == 2  # 2 and 3 days ago: both in November 2026

    first = date(2026, 1, 4)  # a Sunday
    assert charts.bucket_width(first, first + timedelta(days=charts.MAX_POINTS - 1)) == "day"
    assert charts.bucket_width(first, first + timedelta(days=charts.MAX_POINTS)) == "week"
    assert charts.bucket_width(first, first + timedelta(days=charts.MAX_POINTS * 7)) == "month"


def test_the_chart_has_a_range_selector_a_range_slider_and_a_log_axis_for_wide_ranges(
    offering, source
):
    for days in (1, 5):
        add_price(offering, source, "1.88", days_ago=days)
        add_price(offering, source, "1052", unit="month", days_ago=days)
    figure = charts.price_history_figure(history_of(offering.platform), now=NOW)
    layout = figure["layout"]
    buttons = layout["xaxis"]["rangeselector"]["buttons"]
    assert [b["label"] for b in buttons] == ["1m", "6m", "1y", "all"]
    assert [(b.get("count"), b["step"]) for b in buttons] == [
        (1, "month"),
        (6, "month"),
        (1, "year"),
        (None, "all"),
    ]
    assert layout["xaxis"]["rangeslider"]["visible"] is True
    # As listed, 1052 / 1.88 is more than 20 times: a log axis; per GPU-hour 1.88 and 1.46 are not.
    assert layout["yaxis"]["type"] == "linear"
    assert figure["views"]["listed"]["type"] == "log"


def test_the_current_prices_are_the_latest_per_offering_and_unit(client, offering, source):
    add_price(offering, source, "2.19", days_ago=60)
    latest = add_price(offering, source, "1.88", days_ago=1)
    month = add_price(offering, source, "1052", unit="month", days_ago=30)
    response = client.get(reverse("platforms:detail", args=[offering.platform.slug]))
    assert response.context["offerings"] == [(offering, [latest, month])]


def test_the_page_lists_the_first_offerings_and_links_to_the_rest_in_the_explorer(
    client, platform, accelerator, source, monkeypatch
):
    from platforms import selectors

    monkeypatch.setattr(selectors, "PLATFORM_OFFERINGS", 3)
    monkeypatch.setattr(selectors, "CHART_OFFERINGS", 2)
    for i in range(5):
        made = make_offering(platform, accelerator, source, name=f"o{i}")
        add_price(made, source, "1.98", days_ago=3)
        add_price(made, source, "1.88")
    response = client.get(reverse("platforms:detail", args=[platform.slug]))
    assert [o.name for o, _ in response.context["offerings"]] == ["o0", "o1", "o2"]
    assert {t["meta"]["offering"] for t in response.context["history_figure"]["data"]} == {
        o.pk for o, _ in response.context["offerings"][:2]
    }
    body = response.content.decode()
    assert '<a href="/offerings/?platform=testcloud">2 more offerings</a>' in body
    assert "Offerings drawn: 2 of 3" in body


def test_the_reader_picks_the_offerings_drawn_and_the_cards_most_listed_come_first(
    client, platform, other_platform, accelerator, source
):
    """The picker lists the page's offerings, the cards rented out by the most platforms first
    (the catalogue keeps no rental counts); `?chart=` draws the ones picked, in that order."""
    from platforms.models import Accelerator

    rare = Accelerator.objects.create(
        slug="rare-16gb", name="Rare card", vendor="NVIDIA", vram_gib=Decimal("16"), source=source
    )
    small = make_offering(platform, rare, source, name="rare x1")
    add_price(small, source, "0.90", days_ago=3)
    add_price(small, source, "0.80")
    common = make_offering(platform, accelerator, source, name="4090 x1")
    add_price(common, source, "1.98", days_ago=3)
    add_price(common, source, "1.88")
    make_offering(other_platform, accelerator, source, name="elsewhere 4090")

    response = client.get(reverse("platforms:detail", args=[platform.slug]))
    picker = [o.name for o, _ in response.context["chart_picker"]]
    assert picker == ["4090 x1", "rare x1"]  # listed smallest first, picked most-listed first
    assert [o.name for o, _ in response.context["offerings"]] == ["rare x1", "4090 x1"]

    response = client.get(reverse("platforms:detail", args=[platform.slug]), {"chart": small.pk})
    drawn = {t["meta"]["offering"] for t in response.context["history_figure"]["data"]}
    assert drawn == {small.pk}
    assert [(o.name, on) for o, on in response.context["chart_picker"]] == [
        ("4090 x1", False),
        ("rare x1", True),
    ]
    body = response.content.decode()
    assert f'name="chart" value="{small.pk}" checked' in body
    assert "Offerings drawn: 1 of 2" in body
    # An offering of another platform, or a value that is not one, is ignored.
    response = client.get(
        reverse("platforms:detail", args=[platform.slug]), {"chart": ["x", "999999"]}
    )
    assert len(response.context["history_figure"]["data"]) == 2


def test_a_change_is_drawn_on_its_day_at_a_listed_price_and_the_range_ends_now(offering, source):
    """A history over MAX_POINTS days is bucketed by week; a price changed on a Thursday is drawn
    on that Thursday, at the price listed last that week (never the week's average), and the
    range buttons count back from now (the axis ends at now, so "1m" shows no future)."""
    add_price(offering, source, "3.00", days_ago=charts.MAX_POINTS + 30)
    thursday = NOW.date() - timedelta(days=(NOW.weekday() - 3) % 7 + 7)
    days_ago = (NOW.date() - thursday).days
    add_price(offering, source, "2.00", days_ago=days_ago + 1)  # Wednesday
    add_price(offering, source, "1.50", days_ago=days_ago)  # Thursday
    [series] = history_of(offering.platform)
    assert series.bucket == "week"
    figure = charts.price_history_figure([series], now=NOW)
    [trace] = figure["data"]
    points = observed(trace)
    assert points[-1] == (local(NOW - timedelta(days=days_ago), "%Y-%m-%d") + " 00:00:00", 1.5)
    assert 1.75 not in trace["y"] and set(trace["y"]) <= {3.0, 2.0, 1.5}
    layout = figure["layout"]
    assert layout["showlegend"] is True
    assert layout["xaxis"]["range"][1] == local(NOW, "%Y-%m-%d %H:%M:%S")
    assert layout["xaxis"]["autorange"] is False


def test_the_platform_page_embeds_the_figure_and_loads_plotly(client, platform, price_history):
    response = client.get(reverse("platforms:detail", args=[platform.slug]))
    body = response.content.decode()
    assert PLOTLY in body
    assert 'data-chart-json="price-history-figure"' in body
    assert '<script id="price-history-figure" type="application/json">' in body
    (trace,) = response.context["history_figure"]["data"]
    assert [y for _x, y in observed(trace)] == [2.19, 1.88]


def test_a_new_price_is_on_the_chart_at_the_next_request(client, platform, offering, source):
    url = reverse("platforms:detail", args=[platform.slug])
    add_price(offering, source, "1.88", days_ago=2)
    client.get(url)
    add_price(offering, source, "1.49", days_ago=1)
    (trace,) = client.get(url).context["history_figure"]["data"]
    assert [y for _x, y in observed(trace)] == [1.88, 1.49]


def test_a_platform_without_prices_shows_no_chart_and_loads_no_plotly(client, platform, offering):
    body = client.get(reverse("platforms:detail", args=[platform.slug])).content.decode()
    assert PLOTLY not in body
    assert "No prices recorded yet." in body


@pytest.mark.parametrize("url", [reverse("platforms:comparison"), reverse("platforms:offerings")])
def test_pages_without_charts_load_no_plotly(client, price_history, url):
    response = client.get(url)
    assert response.status_code == 200
    assert "plotly" not in response.content.decode()


def test_the_platform_page_shows_names_in_both_languages_and_sources_with_dates(
    client, platform, offering, vendor_source
):
    add_price(offering, vendor_source, "1.88")
    body = client.get(reverse("platforms:detail", args=[platform.slug])).content.decode()
    assert "测试云" in body and "Test Cloud" in body
    assert "vendor claim" in body
    assert (NOW - timedelta(days=1)).strftime("%Y-%m-%d") in body
    assert Decimal("1.88") == offering.prices.get().amount


def test_the_history_table_lists_the_newest_observations_and_links_to_the_rest(
    client, platform, offering, source
):
    from platforms.charts import TABLE_POINTS

    for days in range(TABLE_POINTS + 3, 0, -1):
        add_price(offering, source, f"{days}.00", days_ago=days)
    body = client.get(reverse("platforms:detail", args=[platform.slug])).content.decode()
    table = body[body.index('class="history-table"') :]
    assert "3 older observations of RTX 4090 VM are on the chart and in the API." in table
    assert f"/api/v1/offerings/{offering.pk}/prices/?unit=hour" in table
    assert ">1.00<" in table and f">{TABLE_POINTS}.00<" in table
    assert f">{TABLE_POINTS + 1}.00<" not in table


def test_a_member_price_is_its_own_series_and_both_tiers_are_current(
    client, platform, offering, source
):
    """AutoDL's RTX 4090 on 2026-10-04 (libtv 03): list 1.98, member 1.88 (95 % of list)."""
    add_price(offering, source, "1.98")
    services.price_observation_create(
        offering=offering,
        unit="hour",
        amount=Decimal("1.88"),
        currency="CNY",
        source=source,
        observed_at=NOW - timedelta(days=1),
        tier="member",
    )
    series = history_of(platform)
    assert sorted((s.tier, [p.close for p in s.points]) for s in series) == [
        ("list", [Decimal("1.98")]),
        ("member", [Decimal("1.88")]),
    ]
    assert [s.name for s in series if s.tier == "member"] == [
        "RTX 4090 VM · per hour (CNY, member price)"
    ]
    assert [(s.tier, s.current.amount) for s in series] == [
        ("list", Decimal("1.98")),
        ("member", Decimal("1.88")),
    ]

    page = client.get(reverse("platforms:detail", args=[platform.slug])).content.decode()
    assert 'data-tier="member"' in page and "member price" in page


def test_a_platform_without_a_sourced_price_says_so(client, platform, offering):
    page = client.get(reverse("platforms:detail", args=[platform.slug])).content.decode()
    assert 'data-unpriced="testcloud"' in page
    assert "No sourced price" in page
    assert "no sourced price" in page  # the offering's own cell


def test_the_billing_rules_are_shown_with_their_source_and_unknowns_as_not_stated(
    client, platform, source
):
    """AutoDL's rules (docs.gpuhub.com/billing-recharge/billing): per-second metering, minimum
    0.01 CNY, released after 15 days stopped; its no-GPU mode ¥0.10/h (libtv 03)."""
    BillingRules.objects.create(
        platform=platform,
        metering_seconds=1,
        min_charge=Decimal("0.01"),
        min_charge_currency="CNY",
        idle_mode=True,
        release_after_stopped_days=15,
        credit_name="算力点",
        credit_name_en="compute points",
        source=source,
    )
    IdleModePrice.objects.create(
        platform=platform,
        unit="hour",
        amount=Decimal("0.10"),
        currency="CNY",
        observed_at=NOW,
        description="0.5 vCPU, 2 GB RAM",
        source=source,
    )
    page = client.get(reverse("platforms:detail", args=[platform.slug])).content.decode()
    rules = page[page.index('id="billing-heading"') :]
    assert "per second" in rules
    assert "0.01 CNY" in rules
    assert "0.10 CNY" in rules and "0.5 vCPU, 2 GB RAM" in rules
    assert "after 15 days" in rules
    assert "not stated" in rules  # start-up billing, storage while stopped, system disk
    assert "compute points (算力点)" in rules
    assert "No source states what a credit is worth in CNY." in page


def test_one_observation_per_series_is_a_list_not_a_chart(client, platform, offering, source):
    """A chart of single dots says less than the table: the page lists the prices instead and
    loads no plotly."""
    add_price(offering, source, "1.88")
    add_price(offering, source, "1052", unit="month")
    response = client.get(reverse("platforms:detail", args=[platform.slug]))
    assert response.context["history_figure"] is None
    body = response.content.decode()
    assert PLOTLY not in body and "data-single-observations" in body
    assert '<details class="history-table" open>' in body


def test_the_page_says_who_may_rent_and_unknown_where_no_source_says(client, platform, source):
    url = reverse("platforms:detail", args=[platform.slug])
    html = client.get(url).content.decode()
    assert "Sign-up needs a mainland Chinese ID card or phone</dt><dd>unknown" in html
    assert "Takes cards issued abroad</dt><dd>unknown" in html
    platform.cn_identity_required = False
    platform.foreign_cards = True
    platform.renting_source = source
    platform.save()
    html = client.get(url).content.decode()
    assert f'ID card or phone</dt><dd>no <small class="muted">({source})</small>' in html
    assert "Takes cards issued abroad</dt><dd>yes" in html
