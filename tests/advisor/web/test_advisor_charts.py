"""Figure data for the advisor's charts: the right points, the Pareto front, break-even points."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

import pytest

from advisor import charts
from advisor.engine.types import ExchangeRateSpec, GiB, PriceSpec
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

ESTIMATE = {
    "tasks": [
        {
            "name": "train",
            "per_gpu": {
                "weights": 2 * GiB,
                "gradients": GiB,
                "optimizer": 4 * GiB,
                "activations": GiB,
                "kv_cache": 0,
                "overhead": GiB,
                "total": 9 * GiB,
            },
            "formulas": {"weights": "1B params × 2 B (bf16) = 2.00 GiB"},
        },
        {
            "name": "render",
            "per_gpu": {
                "weights": 0,
                "gradients": 0,
                "optimizer": 0,
                "activations": 0,
                "kv_cache": 0,
                "overhead": 20 * GiB,
                "total": 20 * GiB,
            },
        },
    ]
}


def assignment(task, usable_gib, profile=None):
    return {"task": task, "usable_bytes": int(usable_gib * GiB), "mig_profile": profile}


def test_the_memory_chart_stacks_each_component_and_marks_the_usable_memory():
    rec = {
        "platform_name": "Cloud",
        "offering": "A100",
        "placement": [assignment("train", 39.5, "3g.40gb"), assignment("render", 79)],
    }
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
    assert bars["Weights"]["customdata"][0] == "1B params × 2 B (bf16) = 2.00 GiB"
    [capacity] = [t for t in fig["data"] if t["type"] == "scatter"]
    assert capacity["x"] == ["train", "render"] and capacity["y"] == [39.5, 79]
    assert capacity["customdata"] == ["Cloud · A100 (3g.40gb)", "Cloud · A100"]
    assert fig["layout"]["barmode"] == "stack"
    assert fig["layout"]["yaxis"]["title"]["text"] == "Memory per GPU (GiB)"


def test_without_a_recommendation_the_memory_chart_uses_the_evaluated_hardware():
    estimate = {
        "tasks": [
            {**ESTIMATE["tasks"][0], "fit": {"usable_bytes": 79 * GiB}, "on": {"name": "A100 80GB"}}
        ]
    }
    fig = charts.memory_figure(estimate, None)
    [capacity] = [t for t in fig["data"] if t["type"] == "scatter"]
    assert capacity["y"] == [79] and capacity["customdata"] == ["A100 80GB"]


def test_price_against_vram_normalises_to_one_gpu_hour_in_the_chosen_currency():
    rows = [
        row(1, 48, 8, price("month", "12000")),  # 12000 / 720 h / 8 GPUs
        row(2, 24, 1, price("hour", "1.88"), price("month", "1052")),
        row(3, 80, 1, price("hour", "2", currency="USD")),  # × 7 CNY per USD
    ]
    fig = charts.price_vram_figure(
        rows, currency="CNY", rates=[USD_CNY], now=NOW, fitting_ids=[2], need_gib=20.5
    )
    other, fitting = fig["data"]
    assert other["name"] == "Other offerings"
    assert list(zip(other["x"], other["y"], strict=True)) == [(48, 2.0833), (80, 14.0)]
    assert other["marker"]["symbol"] == ["diamond", "circle"]
    assert list(zip(fitting["x"], fitting["y"], strict=True)) == [(24, 1.88), (24, 1.4611)]
    assert fitting["customdata"][0][2] == "1.88 CNY per hour"
    [need] = fig["layout"]["shapes"]
    assert need["x0"] == need["x1"] == 20.5
    assert "20.5 GiB" in fig["layout"]["annotations"][0]["text"]
    assert fig["layout"]["yaxis"]["title"]["text"] == "Price per GPU-hour (CNY)"


def test_a_price_with_no_exchange_rate_is_left_off_the_chart():
    fig = charts.price_vram_figure(
        [row(1, 80, 1, price("hour", "2", currency="USD"))], currency="CNY", rates=[], now=NOW
    )
    assert fig["data"] == []


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
    return {
        "rank": rank,
        "offering_id": rank * 10,
        "platform_name": "P",
        "offering": f"o{rank}",
        "instances": 1,
        "gpus_per_instance": 8,
        "monthly_cost": f"{cost:.2f}",
        "job_cost": "10.00",
        "time_hours": hours,
        "pareto": pareto,
    }


def test_the_cost_time_chart_draws_every_timed_offering_and_a_line_through_the_front():
    recs = [
        rec(1, 100, 10, True),
        rec(2, 80, 20, True),
        rec(3, 90, 25, False),
        {**rec(4, 50, 0, False), "time_hours": None},
    ]
    fig = charts.cost_time_figure(recs, "CNY")
    points, front = fig["data"]
    assert list(zip(points["x"], points["y"], strict=True)) == [(10, 100), (20, 80), (25, 90)]
    assert list(zip(front["x"], front["y"], strict=True)) == [(20, 80), (10, 100)]
    assert front["mode"] == "lines+markers"
    assert fig["layout"]["xaxis"]["title"]["text"] == "Training time (hours)"
    assert fig["layout"]["yaxis"]["title"]["text"] == "Monthly cost (CNY/month)"


def test_without_training_times_there_is_no_cost_time_chart():
    assert charts.cost_time_figure([{**rec(1, 1, 0, True), "time_hours": None}], "CNY") is None


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
    tasks = [{"when": "day", "hours_per_month": 360}, {"when": "night", "hours_per_month": 300}]
    assert charts.busy_hours({"tasks": tasks}) == 660
    tasks.append({"when": "always", "hours_per_month": 700})
    assert charts.busy_hours({"tasks": tasks}) == 700
    tasks[1]["hours_per_month"] = 400
    assert charts.busy_hours({"tasks": tasks}) == 720


def test_the_front_drawn_is_the_engines_pareto_front(seed, frozen):
    result = advise_scenario(PRESETS["training-inference"].scenario)
    fig = charts.cost_time_figure(result["recommendations"], "CNY")
    drawn = {(x, y) for x, y in zip(fig["data"][1]["x"], fig["data"][1]["y"], strict=True)}
    engine = {
        (float(r["time_hours"]), float(r["monthly_cost"]))
        for r in result["recommendations"]
        if r["offering_id"] in result["pareto"]
    }
    assert drawn == engine and drawn


def test_the_page_figures_cover_the_whole_priced_catalogue(seed, frozen):
    scenario = PRESETS["4090-lora-sdxl"].scenario
    result = advise_scenario(scenario)
    figures = charts.advisor_figures(scenario, result["estimate"], result, now=frozen)
    rows = charts.catalogue_rows(frozen)
    priced = sum(len(r.prices) for r in rows)
    plotted = sum(len(t["x"]) for t in figures["price_vram"]["data"])
    assert priced > 0 and plotted == priced  # seed prices are CNY or have a USD/CNY rate
    fitting = figures["price_vram"]["data"][-1]
    assert fitting["name"] == "Can run the scenario (ranked)"
    top = result["recommendations"][0]
    assert any(top["offering"] in c[0] for c in fitting["customdata"])
