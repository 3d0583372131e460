"""Figure data for the advisor page's Plotly charts: plain dicts and lists, built outside the views.

Each `*_figure` function is pure (the engine's typed results and catalogue rows in,
`{"data", "layout"}` out) so tests can check the traces point by point; `advisor_figures` puts
them together for the page from the advisor's report, reusing the catalogue it read (no query).
The template passes each figure to static/js/charts.js with `json_script`.

Units: memory in GiB (2^30 B), money in the scenario's currency, time in hours; every axis says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.utils.translation import gettext as _

from advisor.engine import vocab
from advisor.engine.billing import (
    METERED_UNITS,
    break_even_hours,
    cents,
    convert,
    monthly_cost,
)
from advisor.engine.errors import AdvisorError
from advisor.engine.estimate import Estimate, TaskEstimate
from advisor.engine.ranking import Recommendation
from advisor.engine.types import (
    HOURS_PER_MONTH,
    ExchangeRateSpec,
    GiB,
    OfferingSpec,
    PriceSpec,
    Scenario,
)
from advisor.messages import render
from advisor.services import AdviceReport
from platforms.choices import BILLING_UNIT_LABELS

Figure = dict[str, Any]

ACCENT = "#0b5cad"
MUTED = "#9aa5b1"
BAD = "#b3261e"
WARN = "#a15c00"
COMPONENTS = ("weights", "gradients", "optimizer", "activations", "kv_cache", "overhead")
COMPONENT_COLOURS = ("#0b5cad", "#5b8fd1", "#e0a030", "#1b7a3d", "#8e44ad", "#7f8c8d")
# Busy hours sampled for the billing lines; day and week plans are step functions, so the step
# must be well under a day for their steps to show.
HOUR_STEP = 4


def component_labels() -> dict[str, str]:
    return {
        "weights": _("Weights"),
        "gradients": _("Gradients"),
        "optimizer": _("Optimizer states"),
        "activations": _("Activations"),
        "kv_cache": _("KV cache"),
        "overhead": _("Overhead / fixed VRAM"),
    }


def _unit_labels() -> dict[str, str]:
    return {unit.value: str(label) for unit, label in BILLING_UNIT_LABELS.items()}


def _layout(x_title: str, y_title: str, **extra: Any) -> dict[str, Any]:
    return {
        "margin": {"l": 64, "r": 16, "t": 16, "b": 56},
        "xaxis": {"title": {"text": x_title}, "zeroline": False},
        "yaxis": {"title": {"text": y_title}, "zeroline": False, "rangemode": "tozero"},
        "legend": {"orientation": "h", "y": -0.22},
        "hovermode": "closest",
        "font": {"family": "system-ui, sans-serif", "size": 12},
        **extra,
    }


# ------------------------------------------------------------------------------ catalogue rows


@dataclass(frozen=True)
class CatalogueRow:
    """A listed offering with its current prices, flattened for the charts."""

    id: int | str
    platform: str
    name: str
    accelerator: str
    gpu_count: int
    vram_gib: float  # per GPU, or the pooled slice's memory
    prices: tuple[PriceSpec, ...]


def catalogue_rows(offerings: Iterable[OfferingSpec]) -> list[CatalogueRow]:
    """The offerings the advisor read (advisor.services.Catalogue), flattened for the charts: no
    query of their own."""
    return [
        CatalogueRow(
            id=o.id,
            platform=o.platform_name,
            name=o.name,
            accelerator=o.accelerator.name,
            gpu_count=o.gpu_count,
            vram_gib=float(o.pooled_vram_gib or o.accelerator.vram_gib),
            prices=o.prices,
        )
        for o in offerings
        if o.prices
    ]


def _convert(
    amount: Decimal, currency: str, target: str, rates: Sequence[ExchangeRateSpec], now: datetime
) -> Decimal | None:
    try:
        return convert(amount, currency, target, rates, now)[0]
    except AdvisorError:
        return None  # no exchange rate for the pair: left off the chart, not guessed


# ------------------------------------------------------------------------------- (1) memory


def _capacities(
    estimate: Estimate, recommendation: Recommendation | None
) -> dict[str, tuple[float, str]]:
    """Usable GiB per task on the top recommendation's GPU or slice, or on its `on` hardware."""
    out: dict[str, tuple[float, str]] = {}
    if recommendation is not None:
        where = f"{recommendation.platform_name} · {recommendation.offering_name}"
        for a in recommendation.placement.assignments:
            label = where + (f" ({a.mig_profile})" if a.mig_profile else "")
            out[a.task] = (a.usable_bytes / GiB, label)
    for task in estimate.tasks:
        if task.name not in out and task.fit is not None and task.on is not None:
            out[task.name] = (task.fit.usable_bytes / GiB, task.on.name)
    return out


def _formula(task: TaskEstimate, key: str) -> str:
    formula = task.plan.formulas.get(key)
    return "" if formula is None else render(formula)


def memory_figure(estimate: Estimate, recommendation: Recommendation | None = None) -> Figure:
    """Stacked per-GPU memory of each task, against the usable memory it would get."""
    tasks = estimate.tasks
    names = [t.name for t in tasks]
    labels = component_labels()
    data: list[dict[str, Any]] = []
    for key, colour in zip(COMPONENTS, COMPONENT_COLOURS, strict=True):
        values = [getattr(t.per_gpu, key) / GiB for t in tasks]
        if not any(values):
            continue
        data.append(
            {
                "type": "bar",
                "name": labels[key],
                "x": names,
                "y": [round(v, 3) for v in values],
                "customdata": [_formula(t, key) for t in tasks],
                "marker": {"color": colour},
                "hovertemplate": f"%{{x}}<br>{labels[key]}: %{{y:.2f}} GiB<br>"
                "%{customdata}<extra></extra>",
            }
        )
    capacities = _capacities(estimate, recommendation)
    with_capacity = [n for n in names if n in capacities]
    if with_capacity:
        data.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": _("Usable memory"),
                "x": with_capacity,
                "y": [round(capacities[n][0], 3) for n in with_capacity],
                "customdata": [capacities[n][1] for n in with_capacity],
                "marker": {"symbol": "line-ew", "size": 56, "line": {"width": 3, "color": BAD}},
                "hovertemplate": _("Usable on %(where)s") % {"where": "%{customdata}"}
                + ": %{y:.2f} GiB<extra></extra>",
            }
        )
    return {
        "data": data,
        "layout": _layout(_("Task"), _("Memory per GPU (GiB)"), barmode="stack"),
    }


# ------------------------------------------------------------------------- (2) price vs VRAM


def per_gpu_hour(price: PriceSpec, gpu_count: int) -> Decimal:
    """A price per GPU-hour: a period plan as if busy the whole period."""
    return vocab.price_per_gpu_hour(price.amount, price.unit, gpu_count)


def price_vram_figure(
    rows: Iterable[CatalogueRow],
    *,
    currency: str,
    rates: Sequence[ExchangeRateSpec],
    now: datetime,
    fitting_ids: Iterable[int | str] = (),
    need_gib: float | None = None,
) -> Figure:
    """Each priced offering's price per GPU-hour (in `currency`) against its VRAM per GPU."""
    fitting = set(fitting_ids)
    units = _unit_labels()
    traces: dict[bool, dict[str, list[Any]]] = {
        flag: {"x": [], "y": [], "customdata": [], "symbol": []} for flag in (False, True)
    }
    for row in rows:
        for price in row.prices:
            value = _convert(
                per_gpu_hour(price, row.gpu_count), price.currency, currency, rates, now
            )
            if value is None:
                continue
            trace = traces[row.id in fitting]
            trace["x"].append(row.vram_gib)
            trace["y"].append(round(float(value), 4))
            trace["symbol"].append("circle" if price.unit in METERED_UNITS else "diamond")
            trace["customdata"].append(
                [
                    f"{row.platform} · {row.name}",
                    f"{row.gpu_count} × {row.accelerator}",
                    f"{price.amount.normalize():f} {price.currency} {units[price.unit]}",
                    _("stale price") if price.stale else "",
                ]
            )
    hover = (
        "<b>%{customdata[0]}</b><br>%{customdata[1]}, %{x:.0f} GiB per GPU<br>"
        "%{customdata[2]}<br>≈ %{y:.2f} "
        + currency
        + " "
        + _("per GPU-hour")
        + "<br>%{customdata[3]}<extra></extra>"
    )
    data = []
    for flag, name, colour, size in (
        (False, _("Other offerings"), MUTED, 8),
        (True, _("Can run the scenario (ranked)"), ACCENT, 11),
    ):
        trace = traces[flag]
        if not trace["x"]:
            continue
        data.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": name,
                "x": trace["x"],
                "y": trace["y"],
                "customdata": trace["customdata"],
                "marker": {
                    "color": colour,
                    "size": size,
                    "symbol": trace["symbol"],
                    "line": {"width": 1, "color": "#fff"},
                },
                "hovertemplate": hover,
            }
        )
    layout = _layout(
        _("VRAM per GPU (GiB)"),
        _("Price per GPU-hour (%(currency)s)") % {"currency": currency},
    )
    if need_gib is not None:
        text = _("largest task: %(gib)s GiB per GPU") % {"gib": f"{need_gib:.1f}"}
        _mark_x(layout, need_gib, text, color=BAD, dash="dash", anchor="left")
    return {"data": data, "layout": layout}


def largest_need_gib(estimate: Estimate) -> float:
    """The most memory one GPU of any single task needs (GiB)."""
    return max(t.per_gpu.total for t in estimate.tasks) / GiB


# ---------------------------------------------------------------------------- (3) cost vs time


def pareto_front(points: Iterable[tuple[float, float, Any]]) -> list[Any]:
    """Keys of the (cost, time, key) points that nothing else is cheaper and at least as fast as,
    or faster and at most as expensive as; in order of cost. Of exact duplicates the first wins
    (vocab.pareto_front, the engine's rule)."""
    front = vocab.pareto_front(list(points), cost=lambda p: p[0], time=lambda p: p[1])
    return [key for _cost, _time, key in front]


def cost_time_figure(recommendations: Sequence[Recommendation], currency: str) -> Figure | None:
    """Monthly cost against training time of each ranked offering, with the Pareto front.

    None when no recommendation has a training time (no training task with tokens)."""
    timed = [r for r in recommendations if r.time_hours is not None]
    if not timed:
        return None
    points = [(float(r.monthly_cost), float(r.time_hours or 0), r.rank) for r in timed]
    by_rank = {r.rank: r for r in timed}
    front = pareto_front(points)

    def custom(r: Recommendation) -> list[Any]:
        job = r.job_cost
        return [
            r.rank,
            f"{r.platform_name} · {r.offering_name}",
            f"{r.instances} × {r.gpus_per_instance} GPU",
            f"{cents(job)} {currency}" if job is not None else "–",
        ]

    hover = (
        "#%{customdata[0]} <b>%{customdata[1]}</b><br>%{customdata[2]}<br>"
        + _("Time")
        + ": %{x:.1f} h<br>"
        + _("Monthly")
        + ": %{y:,.2f} "
        + currency
        + "<br>"
        + _("Job cost")
        + ": %{customdata[3]}<extra></extra>"
    )
    data = [
        {
            "type": "scatter",
            "mode": "markers",
            "name": _("Ranked offerings"),
            "x": [p[1] for p in points],
            "y": [p[0] for p in points],
            "customdata": [custom(r) for r in timed],
            "marker": {"color": MUTED, "size": 10},
            "hovertemplate": hover,
        },
        {
            "type": "scatter",
            "mode": "lines+markers",
            "name": _("Pareto front"),
            "x": [float(by_rank[k].time_hours or 0) for k in front],
            "y": [float(by_rank[k].monthly_cost) for k in front],
            "customdata": [custom(by_rank[k]) for k in front],
            "line": {"color": ACCENT, "shape": "hv"},
            "marker": {"color": ACCENT, "size": 12},
            "hovertemplate": hover,
        },
    ]
    return {
        "data": data,
        "layout": _layout(
            _("Training time (hours)"),
            _("Monthly cost (%(currency)s/month)") % {"currency": currency},
        ),
    }


# ------------------------------------------------------------------- (4) cost vs busy hours


def busy_hours(scenario: Scenario) -> float:
    """Busy hours per month of one machine running every task: time-shifted day and night tasks
    add up, the rest overlap (vocab.busy_hours, as ranking.py bills an instance); at most 720 h."""
    return vocab.busy_hours((vocab.When(t.when), t.hours_per_month) for t in scenario.tasks)


def break_even_points(prices: Sequence[PriceSpec]) -> list[tuple[PriceSpec, PriceSpec, Decimal]]:
    """(metered, monthly, busy hours per month) where a monthly plan starts to beat a metered one.

    Only monthly plans: the x axis is busy hours per month, and a day or week plan's crossing
    depends on how the hours are spread over the days (billing.month_units)."""
    out = []
    for monthly in (p for p in prices if p.unit == "month"):
        for metered in (p for p in prices if p.unit in METERED_UNITS):
            if metered.currency != monthly.currency:
                continue
            hours = break_even_hours(metered, monthly)
            if hours is not None and 0 < hours <= HOURS_PER_MONTH:
                out.append((metered, monthly, hours))
    return out


def break_even_figure(
    rows: Sequence[CatalogueRow],
    *,
    currency: str,
    rates: Sequence[ExchangeRateSpec],
    now: datetime,
    busy: float | None = None,
) -> Figure | None:
    """Monthly cost of one instance of each offering against busy hours, per billing unit, with
    the break-even points between its monthly and metered plans. None without prices."""
    units = _unit_labels()
    grid = [float(h) for h in range(0, HOURS_PER_MONTH + 1, HOUR_STEP)]
    data: list[dict[str, Any]] = []
    for row in rows:
        for price in row.prices:
            if _convert(price.amount, price.currency, currency, rates, now) is None:
                continue
            ys = [
                round(
                    float(
                        _convert(monthly_cost(price, h), price.currency, currency, rates, now) or 0
                    ),
                    2,
                )
                for h in grid
            ]
            label = f"{row.platform} · {row.name}: {price.amount.normalize():f} {price.currency} "
            data.append(
                {
                    "type": "scatter",
                    "mode": "lines",
                    "name": label + units[price.unit],
                    "x": grid,
                    "y": ys,
                    "line": {
                        "dash": "solid" if price.unit in METERED_UNITS else "dash",
                        "shape": "linear" if price.unit in METERED_UNITS else "hv",
                    },
                    "hovertemplate": "%{fullData.name}<br>%{x:.0f} h: %{y:,.2f} "
                    + currency
                    + "<extra></extra>",
                }
            )
        for metered, monthly, hours in break_even_points(row.prices):
            cost = _convert(monthly.amount, monthly.currency, currency, rates, now)
            if cost is None:
                continue
            data.append(
                {
                    "type": "scatter",
                    "mode": "markers+text",
                    "name": _("Break-even: %(platform)s · %(offering)s")
                    % {"platform": row.platform, "offering": row.name},
                    "x": [round(float(hours), 2)],
                    "y": [round(float(cost), 2)],
                    "text": [f"{float(hours):.1f} h"],
                    "textposition": "top center",
                    "marker": {"symbol": "x", "size": 12, "color": BAD},
                    "customdata": [
                        [
                            f"{monthly.amount.normalize():f} {monthly.currency} " + units["month"],
                            f"{metered.amount.normalize():f} {metered.currency} "
                            + units[metered.unit],
                        ]
                    ],
                    "hovertemplate": _("Break-even at %(hours)s busy hours per month")
                    % {"hours": "%{x:.1f}"}
                    + "<br>%{customdata[0]} = %{customdata[1]}<extra></extra>",
                }
            )
    if not data:
        return None
    layout = _layout(
        _("Busy hours per month (hours)"),
        _("Cost of one instance (%(currency)s/month)") % {"currency": currency},
    )
    layout["xaxis"]["range"] = [0, HOURS_PER_MONTH]
    if busy is not None:
        text = _("this scenario: %(hours)s h") % {"hours": f"{busy:.0f}"}
        _mark_x(layout, busy, text, color=WARN, dash="dot", anchor="right")
    return {"data": data, "layout": layout}


# ---------------------------------------------------------------------------------- the page


def top_rows(
    recommendations: Sequence[Recommendation],
    rows_by_id: Mapping[int | str, CatalogueRow],
    n: int = 3,
) -> list[CatalogueRow]:
    """The catalogue rows of the first `n` distinct ranked offerings, plus the best-ranked one
    with a monthly and a metered price if none of those has both: the chart is there to show
    where one plan overtakes the other."""
    ranked = [rows_by_id[r.offering_id] for r in recommendations if r.offering_id in rows_by_id]
    out = list(dict.fromkeys(ranked))[:n]
    if not any(break_even_points(row.prices) for row in out):
        out.extend(row for row in ranked if break_even_points(row.prices))
    return list(dict.fromkeys(out))[: n + 1]


def advisor_figures(report: AdviceReport) -> dict[str, Figure | None]:
    """Every chart of the advisor page, from the advisor's own report: no query of its own."""
    scenario, estimate = report.scenario, report.estimate
    currency = scenario.constraints.currency
    recs = list(report.advice.recommendations) if report.advice else []
    rows = catalogue_rows(report.catalogue.offerings)
    rates, now = report.catalogue.rates, report.now
    return {
        "memory": memory_figure(estimate, recs[0] if recs else None),
        "price_vram": price_vram_figure(
            rows,
            currency=currency,
            rates=rates,
            now=now,
            fitting_ids=[r.offering_id for r in recs],
            need_gib=largest_need_gib(estimate),
        ),
        "cost_time": cost_time_figure(recs, currency),
        "break_even": break_even_figure(
            top_rows(recs, {row.id: row for row in rows}),
            currency=currency,
            rates=rates,
            now=now,
            busy=busy_hours(scenario),
        )
        if recs
        else None,
    }


def _mark_x(
    layout: dict[str, Any], x: float, text: str, *, color: str, dash: str, anchor: str
) -> None:
    """A labelled vertical line across the whole plot at `x` (the scenario's need or hours)."""
    layout["shapes"] = [
        {
            "type": "line",
            "x0": x,
            "x1": x,
            "y0": 0,
            "y1": 1,
            "yref": "paper",
            "line": {"color": color, "width": 2, "dash": dash},
        }
    ]
    layout["annotations"] = [
        {
            "x": x,
            "y": 1,
            "yref": "paper",
            "text": text,
            "showarrow": False,
            "xanchor": anchor,
            "yanchor": "top",
            "font": {"color": color},
        }
    ]
