"""Figure data for the advisor's charts: the right points, the Pareto front, break-even points."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from types import SimpleNamespace

import pytest

from advisor import charts
from advisor.engine.estimate import Estimate, Fit, OnResult, TaskEstimate
from advisor.engine.memory import MemoryBreakdown, MemoryPlan
from advisor.engine.messages import Code, msg
from advisor.engine.scenario import parse_scenario
from advisor.engine.types import ExchangeRateSpec, GiB, PriceSpec
from advisor.engine.vocab import TaskKind
from advisor.messages import render
from advisor.presets import PRESETS
from advisor.services import advise_scenario
from tests.conftest import NOW

WHEN = datetime(2026, 9, 30, tzinfo=NOW.tzinfo)


def price(unit: str, amount: str, currency: str = "CNY", stale: bool = False) -> PriceSpec:
    return PriceSpec(
        unit=unit, amount=Decimal(amount), currency=currency, observed_at=WHEN, stale=stale
    )


def row(id, vram, gpus, *prices, name="o"):
    return charts.CatalogueRow(
        id=id,
        platform="P",
        name=name,
        accelerator="GPU",
        gpu_count=gpus,
        vram_gib=vram,
        prices=tuple(prices),
    )


USD_CNY = ExchangeRateSpec(base="USD", quote="CNY", rate=Decimal("7"), as_of=WHEN, source="test")


def task(name, per_gpu, formulas=None, **kw):
    plan = MemoryPlan(gpus=1, per_gpu=per_gpu, sharded=False, formulas=formulas or {})
    return TaskEstimate(name, TaskKind.FIXED, plan, **kw)


WEIGHTS = msg(Code.GENERIC_INVALID)  # any message: the chart shows it rendered
ESTIMATE = Estimate(
    (
        task(
            "train",
            MemoryBreakdown(
                weights=2 * GiB, gradients=GiB, optimizer=4 * GiB, activations=GiB, overhead=GiB
            ),
            {"weights": WEIGHTS},
        ),
        task("render", MemoryBreakdown(overhead=20 * GiB)),
    )
)


def assignment(task, usable_gib, profile=None):
    return SimpleNamespace(task=task, usable_bytes=int(usable_gib * GiB), mig_profile=profile)


def test_the_memory_chart_stacks_each_component_and_marks_the_usable_memory():
    rec = SimpleNamespace(
        platform_name="Cloud",
        offering_name="A100",
        placement=SimpleNamespace(
            assignments=[assignment("train", 39.5, "3g.40gb"), assignment("render", 79)]
        ),
    )
    fig = charts.memory_figure(ESTIMATE, rec)
    bars = {t["name"]: t for t in fig["data"] if t["type"] == "bar"}
    assert list(bars) == [
        "Weights",
        "Gradients",
        "Optimizer states",
        "Activations",
        "Overhead / fixed VRAM",
    ]  # no KV cache: zero for every task
    assert bars["Weights"]["x"] == ["train", "render"]
    assert bars["Weights"]["y"] == [2, 0]
    assert bars["Overhead / fixed VRAM"]["y"] == [1, 20]
    assert bars["Weights"]["customdata"] == [render(WEIGHTS), ""]
    [capacity] = [t for t in fig["data"] if t["type"] == "scatter"]
    assert capacity["x"] == ["train", "render"] and capacity["y"] == [39.5, 79]
    assert capacity["customdata"] == ["Cloud · A100 (3g.40gb)", "Cloud · A100"]
    assert fig["layout"]["barmode"] == "stack"
    assert fig["layout"]["yaxis"]["title"]["text"] == "Memory per GPU (GiB)"


def test_without_a_recommendation_the_memory_chart_uses_the_evaluated_hardware():
    fit = Fit(True, 79 * GiB, 70 * GiB, WEIGHTS)
    on = OnResult("a100-80gb", "A100 80GB", 1, None, 80.0, "verified")
    estimate = Estimate((task("train", MemoryBreakdown(overhead=9 * GiB), fit=fit, on=on),))
    fig = charts.memory_figure(estimate, None)
    [capacity] = [t for t in fig["data"] if t["type"] == "scatter"]
    assert capacity["y"] == [79] and capacity["customdata"] == ["A100 80GB"]


def test_the_pareto_front_of_a_hand_example():
    points = [
        (100, 10, "A"),
        (80, 20, "B"),
        (120, 5, "C"),
        (90, 25, "D"),  # dearer and slower than B
        (80, 20, "E"),  # a tie with B: B came first
        (130, 5, "F"),  # as fast as C, dearer
        (70, 40, "G"),  # cheapest
    ]
    assert charts.pareto_front(points) == ["G", "B", "A", "C"]


def rec(rank, cost, hours, pareto):
    return SimpleNamespace(
        rank=rank,
        offering_id=rank * 10,
        platform_name="P",
        offering_name=f"o{rank}",
        instances=1,
        gpus_per_instance=8,
        monthly_cost=Decimal(f"{cost:.2f}"),
        job_cost=Decimal("10.00"),
        time_hours=hours,
        pareto=pareto,
    )


def untimed(r):
    r.time_hours = None
    return r


def test_the_cost_time_chart_draws_every_timed_offering_and_a_line_through_the_front():
    recs = [
        rec(1, 100, 10, True),
        rec(2, 80, 20, True),
        rec(3, 90, 25, False),
        untimed(rec(4, 50, 0, False)),
    ]
    fig = charts.cost_time_figure(recs, "CNY")
    points, front = fig["data"]
    assert list(zip(points["x"], points["y"], strict=True)) == [(10, 100), (20, 80), (25, 90)]
    assert list(zip(front["x"], front["y"], strict=True)) == [(20, 80), (10, 100)]
    assert front["mode"] == "lines+markers"
    assert fig["layout"]["xaxis"]["title"]["text"] == "Training time (hours)"
    assert fig["layout"]["yaxis"]["title"]["text"] == "Monthly cost (CNY/month)"


def test_without_training_times_there_is_no_cost_time_chart():
    assert charts.cost_time_figure([untimed(rec(1, 1, 0, True))], "CNY") is None


def test_the_break_even_of_autodls_4090_is_monthly_price_over_hourly_price():
    """AutoDL RTX 4090: 1052 CNY a month against 1.88 CNY an hour (AutoDL listings, 2026):
    the month plan is cheaper above 1052 / 1.88 = 559.57 busy hours a month."""
    autodl = row(7, 24, 1, price("hour", "1.88"), price("month", "1052"), name="RTX 4090 24GB")
    [(metered, monthly, hours)] = charts.break_even_points(autodl.prices)
    assert (metered.unit, monthly.unit) == ("hour", "month")
    assert float(hours) == pytest.approx(559.574, abs=1e-3)
    fig = charts.break_even_figure([autodl], currency="CNY", rates=[], now=NOW, busy=300)
    hourly, flat, marker = fig["data"]
    assert hourly["x"][0] == 0 and hourly["x"][-1] == 720
    assert hourly["y"][hourly["x"].index(100)] == 188.0
    assert hourly["y"][-1] == pytest.approx(1353.6)
    assert set(flat["y"][1:]) == {1052.0} and flat["y"][0] == 0
    assert marker["x"] == [pytest.approx(559.57)] and marker["y"] == [1052.0]
    assert marker["text"] == ["559.6 h"]
    assert fig["layout"]["shapes"][0]["x0"] == 300
    assert fig["layout"]["xaxis"]["title"]["text"] == "Busy hours per month (hours)"


def test_break_even_crossings_past_a_whole_month_are_not_marked():
    # 1000 a month against 1 an hour: the hourly plan is cheaper even at 720 h.
    assert charts.break_even_points((price("hour", "1"), price("month", "1000"))) == []


def test_a_day_plan_is_drawn_as_steps_of_whole_days():
    fig = charts.break_even_figure(
        [row(1, 24, 1, price("day", "40"))], currency="CNY", rates=[], now=NOW
    )
    [line] = fig["data"]
    y_at = dict(zip(line["x"], line["y"], strict=True))
    assert (y_at[4], y_at[24], y_at[28], y_at[720]) == (40, 40, 80, 1200)


def test_busy_hours_add_day_and_night_tasks_and_overlap_the_rest():
    def busy(*tasks):
        return charts.busy_hours(parse_scenario({"tasks": list(tasks)}))

    day = {"kind": "fixed", "vram_gib": 1, "when": "day", "hours_per_month": 360}
    night = {"kind": "fixed", "vram_gib": 1, "when": "night", "hours_per_month": 300}
    always = {"kind": "fixed", "vram_gib": 1, "when": "always", "hours_per_month": 700}
    assert busy(day, night) == 660
    assert busy(day, night, always) == 700
    assert busy(day, {**night, "hours_per_month": 400}, always) == 720


def test_the_front_drawn_is_the_engines_pareto_front(seed, frozen):
    advice = advise_scenario(PRESETS["training-inference"].scenario).advice
    assert advice is not None
    fig = charts.cost_time_figure(advice.recommendations, "CNY")
    drawn = {(x, y) for x, y in zip(fig["data"][1]["x"], fig["data"][1]["y"], strict=True)}
    engine = {
        (float(r.time_hours or 0), float(r.monthly_cost))
        for r in advice.recommendations
        if r.offering_id in advice.pareto
    }
    assert drawn == engine and drawn


def test_the_page_figures_cover_the_whole_priced_catalogue(seed, frozen):
    report = advise_scenario(PRESETS["4090-lora-sdxl"].scenario)
    figures = charts.advisor_figures(report)
    rows = charts.catalogue_rows(report.catalogue.offerings)
    priced = sum(len(r.prices) for r in rows)
    plotted = sum(len(t["x"]) for t in figures["price_vram"]["data"])
    assert priced > 0 and plotted == priced  # seed prices are CNY or have a USD/CNY rate
    fitting = figures["price_vram"]["data"][-1]
    assert fitting["name"] == "Can run the scenario (ranked)"
    assert report.advice is not None
    top = report.advice.recommendations[0]
    assert any(top.offering_name in c[0] for c in fitting["customdata"])
