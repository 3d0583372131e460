"""A task shared between the legs of a plan (advisor/engine/plans.py, "Share splits") as the page,
the CSV and the cost-time chart show it: each leg's tasks say its share, in both languages."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from types import SimpleNamespace
from typing import Any

from django.utils import translation

from advisor import charts, results, views
from advisor.engine import plans
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


def report() -> Any:
    """tests/advisor/engine/test_plans.py's hand example: a 1,000 h render, A's month (2,000) for
    720 h and B's hours for the 280 h left (1,120): proposed against A alone (3,400)."""
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
        offer("a", price("month", "2000"), price("hour", "5")),
        offer("b", price("hour", "4")),
    ]
    found = plans.search_plans(scenario, offerings, ACCELERATORS, now=NOW)
    assert found is not None and found.plan is not None
    return SimpleNamespace(plans=found)


def test_the_page_and_the_csv_say_each_legs_share_of_the_task():
    shown = results.plans(report())
    assert shown is not None and shown["proposed"]
    assert [leg["tasks"] for leg in shown["legs"]] == [
        "render: 720 h of 1,000 h",
        "render: 280 h of 1,000 h",
    ]
    assert shown["time"] == "1,000"  # the shares one after the other: 720 + 280 h
    rows = results.csv_leg_rows(report(), views.CSV_COLUMNS)
    tasks = views.CSV_COLUMNS.index("tasks")
    cost = views.CSV_COLUMNS.index("cost")
    assert [(row[tasks], row[cost]) for row in rows] == [
        ("render: 720 h of 1,000 h", Decimal("2000.00")),
        ("render: 280 h of 1,000 h", Decimal("1120.00")),
    ]
    with translation.override("zh-hans"):
        chinese = results.plans(report())
    assert chinese is not None
    assert all(" of " not in leg["tasks"] for leg in chinese["legs"])
    assert chinese["legs"][0]["tasks"].startswith("render：")


def test_the_cost_time_chart_puts_the_shared_plan_at_its_shares_added_time():
    search = report().plans
    point = charts.plan_point_trace(search, "CNY")
    assert point is not None
    assert point["x"] == [1000.0] and point["y"] == [float(search.plan.cost)]
    assert point["customdata"][0][3] == (
        "Leg 1: A · 4090 on a, per month — render: 720 h of 1,000 h: 2,000.00 CNY"
    )
