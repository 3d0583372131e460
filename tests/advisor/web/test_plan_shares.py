"""A task shared between the legs of a plan (advisor/engine/plans.py, "Share splits") as the page,
the CSV and the charts show it once ranked: each leg's tasks say its share, in both languages, and
the charts draw the ranked plan (one point; one bar of its legs; its legs' billing lines)."""

from __future__ import annotations

import csv
import io
from dataclasses import replace
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.utils import translation

from advisor import charts, results, views
from advisor.engine import plans
from advisor.engine.advise import advise
from advisor.engine.hardware import load_accelerators
from advisor.engine.types import Constraints, OfferingSpec, PriceSpec, Scenario, Task

ACCELERATORS = load_accelerators()
NOW = datetime(2026, 10, 2)
SEEN = datetime(2026, 9, 30)


def price(unit: str, amount: str) -> PriceSpec:
    return PriceSpec(unit=unit, amount=Decimal(amount), currency="CNY", observed_at=SEEN)  # type: ignore[arg-type]


def offer(oid: str, *prices: PriceSpec) -> OfferingSpec:
    return OfferingSpec(
        id=oid,
        platform=oid,
        platform_name=oid.upper(),
        name=f"4090 on {oid}",
        accelerator=ACCELERATORS["rtx-4090-24gb"],
        prices=prices,
    )


def ranked(name: str = "4090 on a") -> Any:
    """tests/advisor/engine/test_plans.py's hand example: a 1,000 h render, A's month (2,000) for
    720 h and B's hours for the 280 h left (1,120): the plan (3,120) ranked #1 against A alone
    (3,400), as the advisor ranks it (plans.ranked_plans)."""
    job = Task(
        name="render",
        kind="fixed",  # type: ignore[arg-type]
        vram_gib=20,
        frames=120_000,
        seconds_per_frame=30,
        reference_accelerator="rtx-4090-24gb",
    )
    scenario = Scenario(tasks=(job,), constraints=Constraints(), objective="cost")  # type: ignore[arg-type]
    offerings = [
        replace(offer("a", price("month", "2000"), price("hour", "5")), name=name),
        offer("b", price("hour", "4")),
    ]
    found = plans.search_plans(scenario, offerings, ACCELERATORS, now=NOW)
    assert found is not None and found.plan is not None
    advice = advise(scenario, offerings, ACCELERATORS, now=NOW)
    return plans.ranked_plans(advice, found, scenario)


def test_the_page_and_the_csv_say_each_legs_share_of_the_task():
    advice = ranked()
    first = advice.recommendations[0]
    assert len(first.legs) == 2 and first.cost == Decimal("3120.00")
    shown = results.plan_legs(plans.single_plan(first, "CNY"))
    assert [leg["tasks"] for leg in shown] == [
        "render: 720 h of 1,000 h",
        "render: 280 h of 1,000 h",
    ]
    assert charts.hours_text(first.time_hours) == "1,000"  # the shares one after the other
    response = views._csv(advice)
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    header, body = rows[0], rows[1:]
    tasks, cost, plan = header.index("tasks"), header.index("cost"), header.index("plan")
    rank = header.index("rank")
    assert [(row[plan], row[tasks], row[cost]) for row in body if row[rank] == "1"] == [
        ("plan", "render: 720 h of 1,000 h", "2000.00"),
        ("plan", "render: 280 h of 1,000 h", "1120.00"),
    ]
    with translation.override("zh-hans"):
        chinese = results.plan_legs(plans.single_plan(first, "CNY"))
    assert all(" of " not in leg["tasks"] for leg in chinese)
    assert chinese[0]["tasks"].startswith("render：")


def test_the_cost_time_chart_puts_the_shared_plan_at_its_shares_added_time():
    advice = ranked()
    first = advice.recommendations[0]
    figure = charts.cost_time_figure(advice.recommendations, "CNY", ACCELERATORS)
    assert figure is not None
    ranked_points = figure["data"][0]
    at = ranked_points["customdata"].index(
        next(c for c in ranked_points["customdata"] if c[0] == first.rank)
    )
    assert ranked_points["x"][at] == 1000.0 and ranked_points["y"][at] == float(first.cost)
    assert ranked_points["customdata"][at][1] == "A · 4090 on a + B · 4090 on b"


def test_the_plans_chart_draws_each_ranked_plan_leg_by_leg():
    """#1 is the plan: one bar "#1" of two segments, its legs' costs (2,000 + 1,120)."""
    advice = ranked()
    figure = charts.plan_legs_figure(advice.recommendations, "CNY")
    assert figure is not None
    legs = figure["data"]
    assert [trace["name"] for trace in legs] == ["Leg 1", "Leg 2"]
    assert legs[0]["y"][0] == "#1" and legs[0]["x"][0] == 2000.0
    assert legs[1]["y"][0] == "#1" and legs[1]["x"][0] == 1120.0
    assert legs[0]["customdata"][0][2] == "render: 720 h of 1,000 h"


def test_the_billing_chart_draws_a_plan_leg_by_leg():
    """The plan's two legs each on their own offering's prices: leg 1 (A, 720 h busy, its month
    chosen), leg 2 (B, 280 h busy, by the hour), each with this scenario's marker at its hours."""
    advice = ranked()
    offerings = {
        o.id: o
        for o in (
            offer("a", price("month", "2000"), price("hour", "5")),
            offer("b", price("hour", "4")),
        )
    }
    shown = charts.chart_recommendations(advice.recommendations, offerings)
    assert shown[0].legs
    scenario = Scenario(tasks=(), constraints=Constraints(), objective="cost")  # type: ignore[arg-type]
    figure = charts.break_even_figure(shown[:1], offerings, scenario, rates=(), now=NOW)
    assert figure is not None
    markers = [t for t in figure["data"] if t.get("marker", {}).get("symbol") == "circle-open"]
    assert [(m["name"], m["x"]) for m in markers] == [
        ("#1, leg 1 in this scenario", [720.0]),
        ("#1, leg 2 in this scenario", [280.0]),
    ]
    chosen = [t["name"] for t in figure["data"] if t["name"].endswith("chosen")]
    assert chosen == [
        "#1, leg 1: A · 4090 on a: 2000 CNY per month · chosen",
        "#1, leg 2: B · 4090 on b: 4 CNY per hour · chosen",
    ]


def test_the_plan_charts_escape_the_names_they_draw():
    """Offering names are data: the plans chart and the cost-time chart escape them for Plotly."""
    advice = ranked("<a href=x>o</a>")
    legs = charts.plan_legs_figure(advice.recommendations, "CNY")
    assert legs is not None
    assert legs["data"][0]["customdata"][0][0] == "A · &lt;a href=x&gt;o&lt;/a&gt;"
    points = charts.cost_time_figure(advice.recommendations, "CNY", ACCELERATORS)
    assert points is not None
    assert "<a" not in str(points["data"]) and "&lt;a href=x&gt;o&lt;/a&gt;" in str(points["data"])
