"""Figure data for the advisor's charts: the right points, the Pareto front, break-even points."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from decimal import Decimal
from types import SimpleNamespace

import pytest
from django.utils import translation

from advisor import charts, views
from advisor.engine.advise import advise
from advisor.engine.billing import cents
from advisor.engine.estimate import Estimate, Fit, OnResult, TaskEstimate
from advisor.engine.memory_plan import MemoryBreakdown, MemoryPlan
from advisor.engine.messages import Code, msg
from advisor.engine.scenario import parse_scenario
from advisor.engine.types import AcceleratorSpec, ExchangeRateSpec, GiB, OfferingSpec, PriceSpec
from advisor.engine.vocab import CostBasis, TaskKind
from advisor.presets import PRESETS
from advisor.services import advise_scenario
from tests.conftest import NOW
from wording.messages import render

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
    assert bars["Weights"]["customdata"] == [[render(WEIGHTS), "2.00"], ["", "0.00"]]
    [capacity] = [t for t in fig["data"] if t["type"] == "scatter"]
    assert capacity["x"] == ["train", "render"] and capacity["y"] == [39.5, 79]
    assert capacity["customdata"] == [
        ["Cloud · A100 (3g.40gb)", "39.50"],
        ["Cloud · A100", "79.00"],
    ]
    assert fig["layout"]["barmode"] == "stack"
    assert fig["layout"]["yaxis"]["title"]["text"] == "Memory per GPU (GiB)"


def test_without_a_recommendation_the_memory_chart_uses_the_evaluated_hardware():
    fit = Fit(True, 79 * GiB, 70 * GiB, WEIGHTS)
    on = OnResult("a100-80gb", "A100 80GB", 1, None, 80.0, "verified")
    estimate = Estimate((task("train", MemoryBreakdown(overhead=9 * GiB), fit=fit, on=on),))
    fig = charts.memory_figure(estimate, None)
    [capacity] = [t for t in fig["data"] if t["type"] == "scatter"]
    assert capacity["y"] == [79] and capacity["customdata"] == [["A100 80GB", "79.00"]]


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


def rec(rank, cost, hours, pareto, basis=CostBasis.MONTH):
    return SimpleNamespace(
        rank=rank,
        offering_id=rank * 10,
        platform_name="P",
        offering_name=f"o{rank}",
        instances=1,
        gpus_per_instance=8,
        accelerator="h100-sxm-80gb",
        cost=Decimal(f"{cost:.2f}"),
        cost_basis=basis,
        monthly_cost=Decimal(f"{cost / 2:.2f}"),
        job_cost=Decimal("10.00"),
        time_hours=hours,
        pareto=pareto,
        legs=(),
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
    assert fig["layout"]["yaxis"]["title"]["text"] == "Cost per month (CNY/month)"
    # The hover's numbers are the table's text: cost, time, and the job cost on a monthly basis.
    # Every amount with its currency, the GPUs by name (the slug where the name is not known).
    assert points["customdata"][0][2:] == [
        "8 × h100-sxm-80gb, 1 instance",
        "10.00 CNY",
        "10.0",
        "100.00 CNY",
    ]
    assert "Job cost" in points["hovertemplate"]
    named = charts.cost_time_figure(recs, "CNY", {"h100-sxm-80gb": CARD})["data"][0]
    assert named["customdata"][0][2] == f"8 × {CARD.name}, 1 instance"


def test_on_a_job_basis_the_cost_time_chart_plots_the_whole_jobs_cost():
    recs = [rec(1, 120, 10, True, CostBasis.JOB), rec(2, 90, 30, True, CostBasis.JOB)]
    fig = charts.cost_time_figure(recs, "CNY")
    points = fig["data"][0]
    assert points["y"] == [120, 90]  # `cost`, not the busiest month (60, 45)
    assert fig["layout"]["yaxis"]["title"]["text"] == "Cost of the whole job (CNY)"
    assert points["customdata"][0][3] == "60.00 CNY" and "Busiest month" in points["hovertemplate"]


def test_without_training_times_there_is_no_cost_time_chart():
    assert charts.cost_time_figure([untimed(rec(1, 1, 0, True))], "CNY") is None


CARD = AcceleratorSpec(
    slug="rtx-4090-24gb",
    name="RTX 4090",
    vendor="NVIDIA",
    vram_gib=24,
    memory_bandwidth_gbps=1008,
    bf16_tflops=165.2,
)
SEEN = NOW - timedelta(days=1)


def fresh(unit: str, amount: str) -> PriceSpec:
    return PriceSpec(unit=unit, amount=Decimal(amount), currency="CNY", observed_at=SEEN)


def offer(id, *prices, gpus=1, name="RTX 4090 24GB"):
    return OfferingSpec(
        id=id,
        platform="autodl",
        platform_name="AutoDL",
        name=name,
        accelerator=CARD,
        gpu_count=gpus,
        prices=tuple(prices),
    )


def fixed(gib, when="always", hours=None, name=None):
    task = {"kind": "fixed", "vram_gib": gib, "when": when, "name": name or f"{when} {gib}"}
    if hours is not None:
        task["hours_per_month"] = hours
    return task


def chart_for(tasks, *offerings):
    """The engine's advice on hand-made offerings, and the billing chart of its recommendations."""
    scenario = parse_scenario(
        {"tasks": tasks, "constraints": {"currency": "CNY"}, "objective": "cost"}
    )
    advice = advise(scenario, offerings, {CARD.slug: CARD}, now=NOW)
    by_id = {o.id: o for o in offerings}
    fig = charts.break_even_figure(advice.recommendations, by_id, scenario, rates=[], now=NOW)
    return advice, fig


def lines(fig):
    return {t["name"]: t for t in fig["data"] if t["mode"] == "lines"}


def y_at(trace, x):
    return trace["y"][trace["x"].index(x)]


def test_the_break_even_of_autodls_4090_is_monthly_price_over_hourly_price():
    """AutoDL RTX 4090: 1052 CNY a month against 1.88 CNY an hour (AutoDL listings, 2026):
    the month plan is cheaper above 1052 / 1.88 = 559.57 busy hours a month."""
    autodl = row(7, 24, 1, price("hour", "1.88"), price("month", "1052"), name="RTX 4090 24GB")
    [(metered, monthly, hours)] = charts.break_even_points(autodl.prices)
    assert (metered.unit, monthly.unit) == ("hour", "month")
    assert float(hours) == pytest.approx(559.574, abs=1e-3)
    # 300 busy hours: 300 × 1.88 = 564.00 by the hour beats the month.
    advice, fig = chart_for(
        [fixed(10, hours=300)], offer(7, fresh("hour", "1.88"), fresh("month", "1052"))
    )
    [top] = advice.recommendations
    assert top.monthly_cost == Decimal("564.00")
    drawn = lines(fig)
    hourly = drawn["#1 AutoDL · RTX 4090 24GB: 1.88 CNY per hour · chosen"]
    flat = drawn["#1 AutoDL · RTX 4090 24GB: 1052 CNY per month"]
    assert hourly["x"][0] == 0 and hourly["x"][-1] == 720
    assert y_at(hourly, 100) == 188.0 and hourly["y"][-1] == pytest.approx(1353.6)
    assert set(flat["y"][1:]) == {1052.0} and flat["y"][0] == 0
    assert hourly["customdata"][hourly["x"].index(100)] == ["100", "188.00"]
    [cross] = [t for t in fig["data"] if t["name"].startswith("Break-even")]
    assert cross["x"] == [pytest.approx(559.57, abs=1e-2)] and cross["y"] == [1052.0]
    assert cross["text"] == ["560 h"]  # hours whole from 100 h (wording.messages.hours_number)
    [here] = [t for t in fig["data"] if t["name"] == "#1 in this scenario"]
    assert (here["x"], here["y"]) == ([300], [564.0]) and y_at(hourly, 300) == 564.0
    assert here["customdata"] == [["300", "564.00"]]
    assert fig["layout"]["shapes"][0]["x0"] == 300
    assert fig["layout"]["xaxis"]["title"]["text"] == "Busy hours per month of each instance"
    assert fig["layout"]["yaxis"]["title"]["text"] == "Cost of the instances each needs (CNY/month)"


def test_the_billing_chart_prices_every_instance_a_recommendation_needs():
    """Two 20 GiB tasks cannot share a 24 GB card: 2 instances, 2 × 600 h × 2.88 = 3,456.00."""
    tasks = [fixed(20, hours=600, name="a"), fixed(20, hours=600, name="b")]
    advice, fig = chart_for(tasks, offer(1, fresh("hour", "2.88"), name="L20"))
    [top] = advice.recommendations
    assert top.instances == 2 and top.monthly_cost == Decimal("3456.00")
    line = lines(fig)["#1 AutoDL · L20: 2 × 2.88 CNY per hour · chosen"]
    assert y_at(line, 600) == float(cents(top.monthly_cost)) == 3456.0
    assert line["y"][-1] == pytest.approx(2 * 720 * 2.88)


def test_a_mixed_plan_is_drawn_with_each_instance_on_its_own_unit():
    """Always on (720 h: the month, 1052) and 100 h in bursts (by the hour, 188): 1,240.00 a month,
    less than two months (2,104) or 820 hours (1,541.60)."""
    tasks = [fixed(20, hours=None, name="service"), fixed(20, when="burst", hours=100)]
    advice, fig = chart_for(tasks, offer(7, fresh("hour", "1.88"), fresh("month", "1052")))
    top = advice.recommendations[0]
    assert top.plan.unit == "mixed" and top.monthly_cost == Decimal("1240.00")
    drawn = lines(fig)
    mixed = drawn["#1 AutoDL · RTX 4090 24GB: mixed plan · chosen"]
    assert y_at(mixed, 720) == 1240.0
    # Busiest instance on x; the burst one in proportion: 720 h and 100 h at x = 720.
    assert y_at(drawn["#1 AutoDL · RTX 4090 24GB: 2 × 1.88 CNY per hour"], 720) == 1541.6
    assert y_at(drawn["#1 AutoDL · RTX 4090 24GB: 2 × 1052 CNY per month"], 720) == 2104.0
    [here] = [t for t in fig["data"] if t["name"] == "#1 in this scenario"]
    assert (here["x"], here["y"]) == ([720], [1240.0])
    assert fig["layout"]["xaxis"]["title"]["text"] == (
        "Busy hours per month of the busiest instance, the others in proportion"
    )


def test_break_even_crossings_past_a_whole_month_are_not_marked():
    # 1000 a month against 1 an hour: the hourly plan is cheaper even at 720 h.
    assert charts.break_even_points((price("hour", "1"), price("month", "1000"))) == []


def test_a_day_plan_is_drawn_as_steps_of_whole_days():
    advice, fig = chart_for([fixed(10)], offer(1, fresh("day", "40")))
    [line] = lines(fig).values()
    y = dict(zip(line["x"], line["y"], strict=True))
    assert (y[4], y[24], y[28], y[720]) == (40, 40, 80, 1200)
    assert advice.recommendations[0].monthly_cost == Decimal("1200")


def test_a_half_cent_is_rounded_once_as_the_table_rounds_it():
    """1.005 CNY is 1.01 (half up, from the exact Decimal); the float 1.005 is 1.00499..., which
    a float rounding or Plotly's number format would show as 1.00."""
    assert charts.money_text(Decimal("1.005")) == "1.01"
    assert charts.money_text(Decimal("15.435")) == "15.44"
    assert charts.money_text(Decimal("1234.5")) == "1,234.50"
    assert f"{float(Decimal('1.005')):.2f}" == "1.00"
    advice, fig = chart_for([fixed(10, hours=1)], offer(1, fresh("hour", "1.005")))
    [top] = advice.recommendations
    [here] = [t for t in fig["data"] if t["name"] == "#1 in this scenario"]
    [row_] = views._rows(advice)
    assert top.monthly_cost == Decimal("1.005")
    assert here["y"] == [1.01] and here["customdata"][0][1] == row_["monthly"] == "1.01"
    assert charts.signed(Decimal("-0.004"), charts.money_text) == "0.00"
    assert charts.signed(Decimal("14.4"), charts.money_text) == "+14.40"
    assert charts.signed(-17.39, charts.hours_text) == "\u221217.4"


def test_instance_hours_add_day_and_night_tasks_and_overlap_the_rest():
    """As the engine bills an instance (usage.instance_usage): day and night tasks share it and
    add up, the rest overlap; always-on services without hours are 720 h."""

    def busy(*tasks, gpus=1):
        advice, _ = chart_for(list(tasks), offer(1, fresh("hour", "1"), gpus=gpus))
        return list(advice.recommendations[0].instance_hours)

    day = fixed(1, "day", 360)
    night = fixed(1, "night", 300)
    assert busy(day, night) == [660]
    assert busy(day, night, fixed(1, "always", 700), gpus=2) == [700]
    assert busy(day, fixed(1, "night", 400), fixed(1, "always"), gpus=2) == [720]


def test_the_front_drawn_is_the_engines_pareto_front(seed, frozen):
    advice = advise_scenario(PRESETS["training-inference"].scenario).advice
    assert advice is not None
    fig = charts.cost_time_figure(advice.recommendations, "CNY")
    drawn = {(x, y) for x, y in zip(fig["data"][1]["x"], fig["data"][1]["y"], strict=True)}
    engine = {(float(r.time_hours or 0), float(r.cost)) for r in advice.recommendations if r.pareto}
    assert drawn == engine and drawn


def test_the_page_figures_cover_the_whole_priced_catalogue_in_groups(seed, frozen):
    report = advise_scenario(PRESETS["4090-lora-sdxl"].scenario)
    figures = charts.advisor_figures(report)
    rows = charts.catalogue_rows(report.catalogue.offerings)
    # Each set in two traces: pay-as-you-go circles and period-plan diamonds.
    traces = figures["price_vram"]["data"]
    others_name = "Other offerings (the cheapest per GPU and platform)"
    fitting_name = "Can run the scenario (ranked)"
    assert {t["legendgroup"] for t in traces} == {others_name, fitting_name}
    assert {t["marker"]["symbol"] for t in traces} == {"circle", "diamond"}
    others = [t for t in traces if t["legendgroup"] == others_name]
    fitting = {
        "customdata": [
            c for t in traces if t["legendgroup"] == fitting_name for c in t["customdata"]
        ]
    }
    # One point per GPU shape and platform (the seed has fewer than MAX_GROUP_POINTS of them);
    # seed prices are CNY or have a USD/CNY rate, so every priced offering is in one.
    shapes = {(r.accelerator, r.vram_gib, r.platform) for r in rows}
    assert sum(len(t["x"]) for t in others) == len(shapes) > 0
    groups, by_platform = charts.catalogue_groups(
        report.catalogue.offerings, currency="CNY", rates=report.catalogue.rates, now=NOW
    )
    assert by_platform and sum(g.offerings for g in groups) == len(rows)
    assert report.advice is not None
    top = report.advice.recommendations[0]
    assert any(top.offering_name in c[0] for c in fitting["customdata"])
    # The first three are labelled by their rank, once each: those that are one offering (a plan
    # of several legs is no point of this chart).
    labels = [x for t in traces for x in t.get("text", []) if x]
    singles = {f"#{r.rank}" for r in report.advice.recommendations[:3] if not r.legs}
    assert len(labels) == len(set(labels)) and set(labels) == singles and singles


def test_a_group_is_its_cheapest_price_per_gpu_hour_with_a_bar_up_to_the_dearest():
    rows = [
        row(1, 24, 1, price("hour", "2.00"), name="a"),
        row(2, 24, 2, price("hour", "3.00"), price("month", "1440"), name="b"),  # 1.50, 1.00
        row(3, 24, 1, price("hour", "0.50", "USD"), name="c"),  # 3.50 CNY
        row(4, 12, 1, price("hour", "0.90"), name="pooled"),  # another shape: its own point
    ]
    groups = charts.price_groups(rows, currency="CNY", rates=[USD_CNY], now=NOW)
    [big, small] = groups
    assert (big.cheapest.name, big.price.unit, big.low, big.high) == (
        "b",
        "month",
        Decimal("1"),
        Decimal("3.5"),
    )
    assert (big.offerings, small.offerings) == (3, 1)
    fig = charts.price_vram_figure(groups, currency="CNY", rates=[USD_CNY], now=NOW)
    # One trace per shape, so the legend's shapes never change: an hourly price, a month plan.
    metered, period = fig["data"]
    assert (metered["marker"]["symbol"], period["marker"]["symbol"]) == ("circle", "diamond")
    assert (metered["x"], metered["y"], period["x"], period["y"]) == ([12], [0.9], [24], [1.0])
    assert period["error_y"]["array"] == [2.5] and "error_y" not in metered
    assert period["customdata"][0][6] == (
        "the cheapest of 3 offerings of this GPU here, up to 3.50"
    )
    assert metered["legendgroup"] == period["legendgroup"]


def test_past_max_group_points_the_chart_has_one_point_per_gpu_across_platforms(monkeypatch):
    monkeypatch.setattr(charts, "MAX_GROUP_POINTS", 1)
    offerings = [
        OfferingSpec(
            id=i,
            platform=f"p{i % 3}",
            platform_name=f"P{i % 3}",
            name=f"o{i}",
            accelerator=CARD,
            gpu_count=1,
            prices=(fresh("hour", f"{1 + i / 10:.2f}"),),
        )
        for i in range(30)
    ]
    groups, by_platform = charts.catalogue_groups(offerings, currency="CNY", rates=[], now=NOW)
    assert not by_platform
    [group] = groups
    assert (group.offerings, group.platforms, group.low, group.high) == (
        30,
        3,
        Decimal("1.00"),
        Decimal("3.90"),
    )
    # Kept for this catalogue: the same object again is the same answer.
    assert charts.catalogue_groups(offerings, currency="CNY", rates=[], now=NOW)[0] is groups


@pytest.mark.parametrize("storage_gb", [0, 200])
def test_the_billing_chart_meets_the_table_for_two_instances(seed, frozen, storage_gb):
    """Rendering + simulation on the seed: the first single offering is 算家云's RTX 4090 48GB
    at 2.28 CNY/h (its create-instance page, 2026-08-17; AutoDL's cheaper MTT S4000 runs the
    tasks' CUDA code only through a port, not allowed here), 2 instances, each busy 600 h:
    2 × 600 × 2.28 = 2,736.00 a month, as the table says, storage apart (200 GB: 算家云 states
    no storage price, so the median of those that do, 40.00, is in the table, left out of the
    chart, whose axis says so). None of the top three has a day or month price, so the
    best-ranked one that has one (优云智算's RTX 4090 48GB) is charted too."""
    scenario = PRESETS["rendering-simulation"].scenario
    report = advise_scenario(
        {**scenario, "constraints": {"currency": "CNY", "storage_gb": storage_gb}}
    )
    assert report.advice is not None
    figure = charts.advisor_figures(report)["break_even"]
    # The billing chart draws the first three recommendations, a plan of legs leg by leg.
    recs = report.advice.recommendations
    charted = {t["name"]: t for t in figure["data"] if t["name"].endswith("in this scenario")}
    extra = next(r for r in recs[3:] if r.offering_name == "RTX 4090 48GB")
    shown = [*recs[:3], extra]
    assert list(charted) == [
        name
        for r in shown
        for name in (
            [f"#{r.rank}, leg {n} in this scenario" for n in range(1, len(r.legs) + 1)]
            if r.legs
            else [f"#{r.rank} in this scenario"]
        )
    ]
    ranked = [r for r in shown if not r.legs]
    top = ranked[0]
    assert (top.platform_name, top.offering_name, top.instances) == (
        "算家云 (Suanjiayun)",
        "RTX 4090 48GB (15 vCPU, 60 GB RAM, 50 GB free data disk)",
        2,
    )
    storage = top.storage_cost or Decimal(0)
    assert top.monthly_cost - storage == Decimal("2736.00")
    assert storage == (Decimal("40.00") if storage_gb else 0)
    for rec in ranked:
        marker = charted[f"#{rec.rank} in this scenario"]
        assert rec.instances == 2
        [chosen] = [
            t
            for t in lines(figure).values()
            if t["name"].startswith(f"#{rec.rank} ") and "chosen" in t["name"]
        ]
        table = float(cents(rec.monthly_cost - (rec.storage_cost or 0)))
        assert marker["x"] == [600.0] and marker["y"] == [table] == [y_at(chosen, 600.0)]
        [[hours, money]] = marker["customdata"]
        assert hours == "600"  # whole hours from 100 h (wording.messages.hours_number)
        assert money == charts.money_text(rec.monthly_cost - (rec.storage_cost or 0))
    title = figure["layout"]["yaxis"]["title"]["text"]
    assert ("excluding storage" in title) == bool(storage_gb)


def test_the_billing_chart_shows_only_recommendations_of_the_table(seed, frozen):
    """4090 LoRA + SDXL: none of the top three has a monthly and an hourly price, so the
    best-ranked one that has both (优云智算's RTX 5090, by the 2026 price rows) is added: it is
    in the table too."""
    report = advise_scenario(PRESETS["4090-lora-sdxl"].scenario)
    assert report.advice is not None
    figure = charts.advisor_figures(report)["break_even"]
    ranks = {r.rank: r for r in report.advice.recommendations}
    first = {r.rank for r in report.advice.recommendations[:3]}
    named = {int(m[1]) for t in figure["data"] if (m := re.match(r"#(\d+)\b", t["name"]))}
    assert named <= set(ranks) and first <= named and len(named) == 4
    [extra] = named - first
    assert ranks[extra].offering_name == "RTX 5090 32GB (14 vCPU, 64 GB RAM)"
    assert any(t["name"].startswith("Break-even: 优云智算") for t in figure["data"])


def test_each_job_is_billed_for_its_own_time_on_the_chart():
    """Two one-off LoRA jobs, 0.1 and 0.3 billion tokens, on an instance each: the run is the
    whole job (JOB basis); the chart's month has each instance busy for its own job's time, and
    its chosen line meets the table's busiest month at the longer job's hours."""
    lora = {"kind": "lora", "model": "llama-3.1-8b", "activation_checkpointing": "full"}
    tasks = [{**lora, "name": "short", "tokens": 1e8}, {**lora, "name": "long", "tokens": 3e8}]
    advice, fig = chart_for(tasks, offer(1, fresh("hour", "1.88")))
    [top] = advice.recommendations
    assert top.cost_basis is CostBasis.JOB and top.instances == 2
    uses = list(top.instance_hours)
    assert uses[0] == pytest.approx(top.time_hours) and uses[1] == pytest.approx(uses[0] / 3, 0.01)
    line = lines(fig)["#1 AutoDL · RTX 4090 24GB: 2 × 1.88 CNY per hour · chosen"]
    [here] = [t for t in fig["data"] if t["name"] == "#1 in this scenario"]
    assert here["x"] == [uses[0]]
    assert here["y"] == [y_at(line, uses[0])] == [float(cents(top.monthly_cost))]
    assert "the others in proportion" in fig["layout"]["xaxis"]["title"]["text"]


def test_messages_round_money_as_the_tables_do():
    """A reason's numbers and the table's follow one rule (wording.messages.number): half up
    from the exact value, once. A price keeps its own digits (money_places: ¥1.005 stays 1.005)."""
    from advisor.engine.messages import Money
    from wording import messages

    assert messages.money(Money(Decimal("1.005"), "CNY")) == "1.005 CNY"
    assert messages.money(Money(Decimal("1052.5"), "CNY")) == "1,052.50 CNY"
    assert messages.number(Decimal("1.005"), 2) == "1.01"
    assert messages.number(2.675, 2) == "2.68"  # the float 2.675 is 2.67499...; its text is not
    assert charts.money_text(Decimal("1.005")) == messages.number(Decimal("1.005"), 2)


def test_the_cost_time_chart_has_a_point_per_ranked_plan_with_its_legs(seed, frozen):
    """Training + inference: the plans of two legs are ranked with the single offerings, so each
    is a point of the ranked set (the legs' costs added, at the plan's time: plans.Plan.cost,
    Plan.time_hours), named by its legs, and no star of its own beside it."""
    report = advise_scenario(PRESETS["training-inference"].scenario)
    search = report.plans
    assert search is not None and search.best_cross is not None and report.advice is not None
    plan_recs = [r for r in report.advice.recommendations if r.legs]
    assert plan_recs and any(r.legs == search.best_cross.legs for r in plan_recs)
    fig = charts.advisor_figures(report)["cost_time"]
    assert fig is not None
    assert not [t for t in fig["data"] if t["marker"].get("symbol") == "star"]
    ranked = fig["data"][0]
    for rec in plan_recs:
        assert rec.time_hours is not None
        assert rec.cost == sum(leg.cost for leg in rec.legs)
        [at] = [i for i, c in enumerate(ranked["customdata"]) if c[0] == rec.rank]
        assert (ranked["x"][at], ranked["y"][at]) == (rec.time_hours, float(rec.cost))
        name = ranked["customdata"][at][1]
        assert name == " + ".join(f"{leg.platform_name} · {leg.offering_name}" for leg in rec.legs)
    with translation.override("zh-hans"):
        chinese = charts.advisor_figures(report)["cost_time"]
    assert chinese is not None and chinese["data"][0]["name"] == "排名方案"
