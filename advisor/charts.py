"""Figure data for the advisor page's Plotly charts: plain dicts and lists, built outside the views.

Each `*_figure` function is pure (the engine's typed results and catalogue rows in,
`{"data", "layout"}` out) so tests can check the traces point by point; `advisor_figures` puts
them together for the page from the advisor's report, reusing the catalogue it read (no query).
The template passes each figure to static/js/charts.js with `json_script`.

Units: memory in GiB (2^30 B), money in the scenario's currency, time in hours; every axis says so.
Task, platform and offering names are data, not markup: each figure's trace text is escaped for
Plotly (platforms.safe_text) before it leaves.

Numbers in hovers and labels are text made here, by the functions the results table uses
(`money_text`, `number_text`): each rounded once, from the exact value, by the table's rule
(money half up to cents). Plotly's own number formats are never applied to a figure that was
rounded already, so a chart cannot show a cent more or less than the table.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any, TypeVar

from django.template.defaultfilters import floatformat
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from advisor.engine import vocab
from advisor.engine.billing import (
    METERED_UNITS,
    ZERO,
    break_even_hours,
    cents,
    convert,
    find_rate,
    monthly_cost,
)
from advisor.engine.errors import AdvisorError
from advisor.engine.estimate import Estimate, TaskEstimate
from advisor.engine.legs import BillingChoice
from advisor.engine.plans import Leg, legs_of
from advisor.engine.ranking import Recommendation
from advisor.engine.types import (
    HOURS_PER_MONTH,
    AcceleratorSpec,
    ExchangeRateSpec,
    GiB,
    OfferingSpec,
    PriceSpec,
    Scenario,
)
from advisor.engine.vocab import CostBasis
from advisor.services import AdviceReport
from platforms.safe_text import figure_text_escaped
from wording import messages
from wording.choices import BILLING_UNIT_LABELS
from wording.messages import render

Figure = dict[str, Any]

ACCENT = "#0b5cad"
MUTED = "#9aa5b1"
BAD = "#b3261e"
WARN = "#a15c00"
COMPONENTS = ("weights", "gradients", "optimizer", "activations", "kv_cache", "overhead")
COMPONENT_COLOURS = ("#0b5cad", "#5b8fd1", "#e0a030", "#1b7a3d", "#8e44ad", "#7f8c8d")
# One colour per recommendation on the billing chart (its plans share it).
RECOMMENDATION_COLOURS = ("#0b5cad", "#1b7a3d", "#8e44ad", "#a15c00")
# The most plans drawn leg by leg (#1 and the ranked plans of several legs).
PLAN_BARS = 8
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


N = TypeVar("N", Decimal, float)


def money_text(amount: Decimal) -> str:
    """An amount as the page shows it, in the table and in every chart: rounded half up to cents
    once, here, from the exact Decimal, with the locale's separators (wording.messages.number,
    the rule every message follows too)."""
    return messages.number(amount, 2)


def number_text(value: float, places: int) -> str:
    """A float as the page's tables show it (Django's floatformat: half up, on the number's
    shortest decimal form), grouped; `places` < 0: only as many decimals as it has, at most
    -places."""
    if places >= 0:
        return messages.number(value, places)
    # floatformat's own rule for places < 0, through the locale's separators read once
    # (tests/advisor/test_messages_numbers.py compares the two): a whole number without
    # decimals, any other rounded half up to -places decimals.
    exact = Decimal(repr(float(value)))
    if not exact.is_finite():
        return str(floatformat(value, f"{places}g"))
    return messages.number(exact, 0 if exact == exact.to_integral_value() else -places)


def hours_text(hours: float) -> str:
    """Hours as the results table shows them (wording.messages.hours_number: one decimal, whole
    hours from 100 h)."""
    return messages.hours_number(hours)


def gpus_text(rec: Recommendation | Leg, accelerators: Mapping[str, AcceleratorSpec]) -> str:
    """The GPUs by name, never slug: "8 × NVIDIA H200 141GB, 1 instance"; a plan of several legs,
    each leg's joined by " + "."""
    if isinstance(rec, Recommendation) and rec.legs:
        return " + ".join(gpus_text(leg, accelerators) for leg in rec.legs)
    spec = accelerators.get(rec.accelerator)
    return ngettext(
        "%(gpus)s × %(name)s, %(n)s instance", "%(gpus)s × %(name)s, %(n)s instances", rec.instances
    ) % {
        "gpus": rec.gpus_per_instance,
        "name": spec.name if spec is not None else rec.accelerator,
        "n": rec.instances,
    }


def signed(value: N, text: Callable[[N], str]) -> str:
    """`value` formatted by `text` with its sign: +1.50, −0.20 (a minus sign), 0.00."""
    shown = text(abs(value))
    if value == 0 or not any(c in "123456789" for c in shown):
        return shown
    return ("+" if value > 0 else "\u2212") + shown


def _gib_text(gib: float) -> str:
    return number_text(gib, 2)


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
                "y": values,
                "customdata": [
                    [_formula(t, key), _gib_text(v)] for t, v in zip(tasks, values, strict=True)
                ],
                "marker": {"color": colour},
                "hovertemplate": f"%{{x}}<br>{labels[key]}: %{{customdata[1]}} GiB<br>"
                "%{customdata[0]}<extra></extra>",
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
                "y": [capacities[n][0] for n in with_capacity],
                "customdata": [
                    [capacities[n][1], _gib_text(capacities[n][0])] for n in with_capacity
                ],
                "marker": {"symbol": "line-ew", "size": 56, "line": {"width": 3, "color": BAD}},
                "hovertemplate": _("Usable on %(where)s") % {"where": "%{customdata[0]}"}
                + ": %{customdata[1]} GiB<extra></extra>",
            }
        )
    layout = _layout(_("Task"), _("Memory per GPU (GiB)"), barmode="stack")
    # The usable memory as a line across each task's whole bar, drawn above the bars (a marker
    # alone is lost on a wide bar of the same height).
    layout["shapes"] = [
        {
            "type": "line",
            "xref": "x",
            "yref": "y",
            "x0": names.index(n) - 0.45,
            "x1": names.index(n) + 0.45,
            "y0": capacities[n][0],
            "y1": capacities[n][0],
            "layer": "above",
            "line": {"color": BAD, "width": 3, "dash": "dash"},
        }
        for n in with_capacity
    ]
    return figure_text_escaped({"data": data, "layout": layout})


# ------------------------------------------------------------------------- (2) price vs VRAM


def per_gpu_hour(price: PriceSpec, gpu_count: int) -> Decimal:
    """A price per GPU-hour: a period plan as if busy the whole period."""
    return vocab.price_per_gpu_hour(price.amount, price.unit, gpu_count)


# The whole-catalogue chart draws one point per GPU shape (accelerator and VRAM per GPU) and
# platform, the cheapest there; past this many such points, one per GPU shape across platforms.
# Either way the page's size follows the number of GPU shapes, not of offerings.
MAX_GROUP_POINTS = 150
# Groups kept per process: the catalogue is the advisor's kept snapshot, so its groups are too.
_GROUPS_KEPT = 8


@dataclass(frozen=True)
class PriceGroup:
    """Priced offerings of one GPU shape (on one platform, or across all): the cheapest per
    GPU-hour in the chart's currency, the dearest, and how many there are."""

    cheapest: CatalogueRow
    price: PriceSpec
    low: Decimal
    high: Decimal
    offerings: int
    platforms: int


def price_groups(
    rows: Sequence[CatalogueRow],
    *,
    currency: str,
    rates: Sequence[ExchangeRateSpec],
    now: datetime,
    by_platform: bool = True,
) -> list[PriceGroup]:
    """Every priced row, grouped by GPU shape (accelerator and VRAM per GPU) and, `by_platform`,
    platform; each price per GPU-hour in `currency` (one without a rate is left out). Of equal
    prices the first row wins."""
    found: dict[tuple[Any, ...], list[Any]] = {}
    for row in rows:
        for price in row.prices:
            value = _convert(
                per_gpu_hour(price, row.gpu_count), price.currency, currency, rates, now
            )
            if value is None:
                continue
            key = (row.accelerator, row.vram_gib, row.platform if by_platform else "")
            group = found.get(key)
            if group is None:
                found[key] = [row, price, value, value, {row.id}, {row.platform}]
                continue
            if value < group[2]:
                group[0], group[1], group[2] = row, price, value
            group[3] = max(group[3], value)
            group[4].add(row.id)
            group[5].add(row.platform)
    return [
        PriceGroup(row, price, low, high, len(ids), len(platforms))
        for row, price, low, high, ids, platforms in found.values()
    ]


CURRENCIES = tuple(c.value for c in vocab.Currency)


def _rate_used(
    currency: str, target: str, rates: Sequence[ExchangeRateSpec], now: datetime
) -> ExchangeRateSpec | None:
    try:
        return find_rate(currency, target, rates, now)
    except AdvisorError:
        return None


_kept_groups: OrderedDict[tuple[Any, ...], tuple[Sequence[OfferingSpec], list[PriceGroup], bool]]
_kept_groups = OrderedDict()


def catalogue_groups(
    offerings: Sequence[OfferingSpec],
    *,
    currency: str,
    rates: Sequence[ExchangeRateSpec],
    now: datetime,
) -> tuple[list[PriceGroup], bool]:
    """The whole-catalogue chart's groups of `offerings` (the advisor's catalogue) and whether
    they are per platform: per GPU shape and platform while there are at most MAX_GROUP_POINTS,
    else per GPU shape. Kept for the catalogue object they were made from (the advisor keeps it
    between requests) and the exchange rates they used."""
    key = (id(offerings), currency, tuple(_rate_used(c, currency, rates, now) for c in CURRENCIES))
    kept = _kept_groups.get(key)
    if kept is not None and kept[0] is offerings:
        _kept_groups.move_to_end(key)
        return kept[1], kept[2]
    rows = catalogue_rows(offerings)
    groups = price_groups(rows, currency=currency, rates=rates, now=now)
    by_platform = len(groups) <= MAX_GROUP_POINTS
    if not by_platform:
        groups = price_groups(rows, currency=currency, rates=rates, now=now, by_platform=False)
    _kept_groups[key] = (offerings, groups, by_platform)
    while len(_kept_groups) > _GROUPS_KEPT:
        _kept_groups.popitem(last=False)
    return groups, by_platform


def price_vram_figure(
    groups: Sequence[PriceGroup],
    fitting: Iterable[CatalogueRow] = (),
    *,
    currency: str,
    rates: Sequence[ExchangeRateSpec],
    now: datetime,
    need_gib: float | None = None,
    by_platform: bool = True,
    ranks: Mapping[int | str, int] | None = None,
) -> Figure:
    """Price per GPU-hour (in `currency`) against VRAM per GPU: every price of the offerings that
    can run the scenario (`fitting`), and the rest of the catalogue as one point per group (the
    cheapest, with a bar up to the dearest: `price_groups`).

    Each set is two traces, pay-as-you-go prices as circles and period plans as diamonds, so the
    legend's shapes are the same whatever the scenario; the first three recommendations (`ranks`:
    offering id -> rank) are labelled #1, #2, #3, as points of one size overlap."""
    ranks = ranks or {}
    units = _unit_labels()

    def point(row: CatalogueRow, price: PriceSpec, value: Decimal, extra: str) -> list[str]:
        return [
            f"{row.platform} · {row.name}",
            f"{row.gpu_count} × {row.accelerator}",
            f"{price.amount.normalize():f} {price.currency} {units[price.unit]}",
            _("stale price") if price.stale else "",
            number_text(row.vram_gib, -1),
            money_text(value),
            extra,
        ]

    others: dict[str, list[Any]] = {"x": [], "y": [], "customdata": [], "symbol": [], "up": []}
    for g in groups:
        others["x"].append(g.cheapest.vram_gib)
        others["y"].append(float(g.low))
        others["up"].append(float(g.high - g.low))
        others["symbol"].append("circle" if g.price.unit in METERED_UNITS else "diamond")
        if g.offerings == 1:
            extra = ""
        elif by_platform:
            extra = _("the cheapest of %(n)s offerings of this GPU here, up to %(high)s") % {
                "n": g.offerings,
                "high": money_text(g.high),
            }
        else:
            extra = _(
                "the cheapest of %(n)s offerings of this GPU on %(platforms)s platforms, up to "
                "%(high)s"
            ) % {"n": g.offerings, "platforms": g.platforms, "high": money_text(g.high)}
        others["customdata"].append(point(g.cheapest, g.price, g.low, extra))
    others["label"] = [""] * len(others["x"])
    ranked: dict[str, list[Any]] = {
        "x": [],
        "y": [],
        "customdata": [],
        "symbol": [],
        "up": [],
        "label": [],
    }
    labelled: set[int | str] = set()
    for row in fitting:
        for price in row.prices:
            value = _convert(
                per_gpu_hour(price, row.gpu_count), price.currency, currency, rates, now
            )
            if value is None:
                continue
            ranked["x"].append(row.vram_gib)
            ranked["y"].append(float(value))
            ranked["symbol"].append("circle" if price.unit in METERED_UNITS else "diamond")
            ranked["customdata"].append(point(row, price, value, ""))
            rank = ranks.get(row.id)
            first = rank is not None and rank <= 3 and row.id not in labelled
            ranked["label"].append(f"#{rank}" if first else "")
            if first:
                labelled.add(row.id)
    hover = (
        "<b>%{customdata[0]}</b><br>%{customdata[1]}, %{customdata[4]} GiB per GPU<br>"
        "%{customdata[2]}<br>≈ %{customdata[5]} "
        + currency
        + " "
        + _("per GPU-hour")
        + "<br>%{customdata[6]}<br>%{customdata[3]}<extra></extra>"
    )
    other_name = (
        _("Other offerings (the cheapest per GPU and platform)")
        if by_platform
        else _("Other offerings (the cheapest per GPU, across platforms)")
    )
    data = []
    kinds = (
        ("circle", _("pay as you go")),
        ("diamond", _("period plan, as if busy the whole period")),
    )
    for trace, name, colour, size in (
        (others, other_name, MUTED, 8),
        (ranked, _("Can run the scenario (ranked)"), ACCENT, 11),
    ):
        for symbol, kind in kinds:
            keep = [i for i, s in enumerate(trace["symbol"]) if s == symbol]
            if not keep:
                continue

            labels = _take(trace["label"], keep)
            drawn: dict[str, Any] = {
                "type": "scatter",
                "mode": "markers+text" if any(labels) else "markers",
                "name": f"{name} · {kind}",
                "legendgroup": name,
                "x": _take(trace["x"], keep),
                "y": _take(trace["y"], keep),
                "customdata": _take(trace["customdata"], keep),
                "marker": {
                    "color": colour,
                    "size": size,
                    "symbol": symbol,
                    "line": {"width": 1, "color": "#fff"},
                },
                "hovertemplate": hover,
            }
            if any(labels):
                drawn["text"] = labels
                drawn["textposition"] = "top center"
                drawn["textfont"] = {"color": colour, "size": 12}
            up = _take(trace["up"], keep) if trace is others else []
            if any(up):
                drawn["error_y"] = {
                    "type": "data",
                    "symmetric": False,
                    "array": up,
                    "arrayminus": [0] * len(up),
                    "color": MUTED,
                    "thickness": 1,
                    "width": 0,
                }
            data.append(drawn)
    layout = _layout(
        _("VRAM per GPU (GiB)"),
        _("Price per GPU-hour (%(currency)s)") % {"currency": currency},
    )
    if need_gib is not None:
        text = _("largest task: %(gib)s GiB per GPU") % {"gib": number_text(need_gib, 1)}
        _mark_x(layout, need_gib, text, color=BAD, dash="dash", anchor="left")
    return figure_text_escaped({"data": data, "layout": layout})


def _take(values: list[Any], keep: list[int]) -> list[Any]:
    return [values[i] for i in keep]


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


def _cost_title(basis: CostBasis, currency: str) -> str:
    if basis is CostBasis.JOB:
        return _("Cost of the whole job (%(currency)s)") % {"currency": currency}
    return _("Cost per month (%(currency)s/month)") % {"currency": currency}


def cost_time_figure(
    recommendations: Sequence[Recommendation],
    currency: str,
    accelerators: Mapping[str, AcceleratorSpec] | None = None,
) -> Figure | None:
    """The ranked cost (`cost`, on the advice's basis: the whole job, or a month) against the
    training time of each ranked plan (a single offering, or a plan of several legs: the legs'
    costs added, its time), with the Pareto front (the engine's: the same cost). Every plan the
    answer proposes is ranked, so every one is a point here and no other is drawn.

    None when no recommendation has a training time (no training task with tokens)."""
    timed = [r for r in recommendations if r.time_hours is not None]
    if not timed:
        return None
    basis = timed[0].cost_basis
    points = [(float(r.cost), float(r.time_hours or 0), r.rank) for r in timed]
    by_rank = {r.rank: r for r in timed}
    front = pareto_front(points)

    def custom(r: Recommendation) -> list[Any]:
        if basis is CostBasis.JOB:
            other = money_text(r.monthly_cost)
        else:
            other = "–" if r.job_cost is None else money_text(r.job_cost)
        return [
            r.rank,
            " + ".join(f"{leg.platform_name} · {leg.offering_name}" for leg in r.legs)
            or f"{r.platform_name} · {r.offering_name}",
            gpus_text(r, accelerators or {}),
            f"{other} {currency}" if other != "–" else other,
            hours_text(r.time_hours or 0),
            f"{money_text(r.cost)} {currency}",
        ]

    other_label = _("Busiest month") if basis is CostBasis.JOB else _("Job cost")
    hover = (
        "#%{customdata[0]} <b>%{customdata[1]}</b><br>%{customdata[2]}<br>"
        + _("Time")
        + ": %{customdata[4]} h<br>"
        + _("Cost")
        + ": %{customdata[5]}<br>"
        + other_label
        + ": %{customdata[3]}<extra></extra>"
    )
    data = [
        {
            "type": "scatter",
            "mode": "markers",
            "name": _("Ranked plans"),
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
            "y": [float(by_rank[k].cost) for k in front],
            "customdata": [custom(by_rank[k]) for k in front],
            "line": {"color": ACCENT, "shape": "hv"},
            "marker": {"color": ACCENT, "size": 12},
            "hovertemplate": hover,
        },
    ]
    return figure_text_escaped(
        {"data": data, "layout": _layout(_("Training time (hours)"), _cost_title(basis, currency))}
    )


def _leg_unit(leg: Leg) -> str:
    if leg.plan.unit == "mixed":
        return _("mixed plan")
    return _unit_labels()[leg.plan.unit]


def plan_legs_figure(recommendations: Sequence[Recommendation], currency: str) -> Figure | None:
    """The ranked plans of several legs, each a bar of its legs' costs (on the ranked basis)
    stacked, beside #1 when #1 is not one of them: what each leg runs and costs against the
    answer's first pick. The bars are the table's rows (same rank, same cost), at most
    `PLAN_BARS` of them. None when no ranked plan has several legs."""
    split = [r for r in recommendations if len(r.legs) > 1]
    if not split:
        return None
    shown = sorted(
        {id(r): r for r in [*recommendations[:1], *split][:PLAN_BARS]}.values(),
        key=lambda r: r.rank,
    )
    plans = [(r, legs_of(r)) for r in shown]
    data = []
    for n in range(max(len(legs) for _rec, legs in plans)):
        xs, ys, custom = [], [], []
        for rec, legs in plans:
            if n >= len(legs):
                continue
            leg = legs[n]
            xs.append(float(leg.cost))
            ys.append(f"#{rec.rank}")
            custom.append(
                [
                    f"{leg.platform_name} · {leg.offering_name}",
                    _leg_unit(leg),
                    _(", ").join(messages.texts(leg.task_labels())),
                    money_text(leg.cost),
                ]
            )
        data.append(
            {
                "type": "bar",
                "orientation": "h",
                "name": _("Leg %(n)s") % {"n": n + 1},
                "x": xs,
                "y": ys,
                "customdata": custom,
                "marker": {"color": RECOMMENDATION_COLOURS[n % len(RECOMMENDATION_COLOURS)]},
                "hovertemplate": "<b>%{customdata[0]}</b>, %{customdata[1]}<br>%{customdata[2]}<br>"
                + _("Cost")
                + ": %{customdata[3]} "
                + currency
                + "<extra></extra>",
            }
        )
    layout = _layout(_cost_title(shown[0].cost_basis, currency), _("Rank"))
    layout["barmode"] = "stack"
    # The first rank on top, as in the table.
    layout["yaxis"]["autorange"] = "reversed"
    return figure_text_escaped({"data": data, "layout": layout})


# ------------------------------------------------------------------- (4) cost vs busy hours


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


@dataclass(frozen=True)
class _Money:
    """Converts prices into the chart's currency, or says it cannot (no rate: not drawn)."""

    currency: str
    rates: Sequence[ExchangeRateSpec]
    now: datetime

    def __call__(self, amount: Decimal, currency: str) -> Decimal | None:
        return _convert(amount, currency, self.currency, self.rates, self.now)


def _plan_cost(
    prices: Sequence[PriceSpec], hours: Sequence[float], money: _Money
) -> Decimal | None:
    """The instances' month: instance i busy hours[i] on prices[i], each charge converted (as
    the engine converts it)."""
    total = ZERO
    for price, h in zip(prices, hours, strict=True):
        value = money(monthly_cost(price, min(h, float(HOURS_PER_MONTH))), price.currency)
        if value is None:
            return None
        total += value
    return total


@dataclass(frozen=True)
class _Billed:
    """What one set of the billing chart's lines prices: a ranked offering as it is listed, or
    one leg of a ranked plan whose offering is listed: its instances' busy hours (busiest first),
    the billing plan chosen for them, and the names its lines carry."""

    rank: int
    label: str  # "#2 AutoDL · RTX 4090" or "#2, leg 1: AutoDL · RTX 4090"
    name: str  # "AutoDL · RTX 4090"
    here: str  # this scenario's marker: "#2 in this scenario", "#2, leg 1 in this scenario"
    offering_id: int | str
    plan: BillingChoice
    hours: tuple[float, ...]
    storage: bool


def _billed(rec: Recommendation, offerings: Mapping[int | str, OfferingSpec]) -> list[_Billed]:
    """The parts of `rec` the billing chart can draw: the offering, or each leg of a plan, whose
    instances are the offering as listed (not N cards of one host: hosts.py)."""
    legs = legs_of(rec)
    out = []
    for n, leg in enumerate(legs, start=1):
        offering = offerings.get(leg.offering_id)
        if offering is None or offering.gpu_count != leg.gpus_per_instance:
            continue
        name = f"{leg.platform_name} · {leg.offering_name}"
        if len(legs) > 1:
            label = _("#%(rank)s, leg %(n)s: %(name)s") % {"rank": rec.rank, "n": n, "name": name}
            here = _("#%(rank)s, leg %(n)s in this scenario") % {"rank": rec.rank, "n": n}
        else:
            label = f"#{rec.rank} {name}"
            here = _("#%(rank)s in this scenario") % {"rank": rec.rank}
        out.append(
            _Billed(
                rank=rec.rank,
                label=label,
                name=name,
                here=here,
                offering_id=leg.offering_id,
                plan=leg.plan,
                hours=leg.instance_hours,
                storage=leg.storage_cost is not None,
            )
        )
    return out


def _chosen_prices(
    billed: _Billed, prices: Sequence[PriceSpec], hours: Sequence[float], money: _Money
) -> list[PriceSpec] | None:
    """The price each instance is billed by in `billed`'s plan (plan.units, busiest first), each
    instance busy `hours` (the engine's instance_hours)."""
    plan = billed.plan
    if plan.unit != "mixed":
        same = [
            p
            for p in prices
            if (p.unit, p.amount, p.currency) == (plan.unit, plan.price, plan.currency)
        ]
        return [same[0]] * len(hours) if same else None
    out = []
    for unit, h in zip(plan.units, hours, strict=True):
        options = [p for p in prices if p.unit == unit]
        costs = [(money(monthly_cost(p, h), p.currency), p) for p in options]
        known = [(c, p) for c, p in costs if c is not None]
        if not known:
            return None
        out.append(min(known, key=lambda cp: cp[0])[1])
    return out


def chart_recommendations(
    recommendations: Sequence[Recommendation],
    offerings: Mapping[int | str, OfferingSpec],
    n: int = 3,
) -> list[Recommendation]:
    """The first `n` recommendations of the table, plus the best-ranked one whose offering (or
    one of whose legs' offerings) has a monthly and a metered price if none of those has both:
    the chart is there to show where one plan overtakes the other. Only recommendations of the
    table, never another offering; only those with a leg on an offering as it is listed (N
    cards of one host (hosts.py) are priced from more than one listed offering)."""
    known = [r for r in recommendations if _billed(r, offerings)]
    out = known[:n]

    def crosses(r: Recommendation) -> bool:
        return any(
            break_even_points(offerings[b.offering_id].prices) for b in _billed(r, offerings)
        )

    if not any(crosses(r) for r in out):
        out.extend(r for r in known[n:] if crosses(r))
    return out[: n + 1]


def _scaled(hours: Sequence[float], x: float) -> list[float]:
    """The instances' hours when the busiest is busy `x` hours, the others in proportion: exactly
    `hours` at the busiest one's own hours."""
    top = hours[0]
    return list(hours) if x == top else [h * x / top for h in hours]


@dataclass
class _Chart:
    """The billing chart as it is drawn: its traces and what its axes must say."""

    currency: str
    money: _Money
    units: dict[str, str]
    data: list[dict[str, Any]]
    busiest: set[float]
    uneven: bool = False
    storage: bool = False


def _line(
    chart: _Chart,
    group: str,
    name: str,
    billed: Sequence[PriceSpec],
    hours: Sequence[float],
    colour: str,
    chosen: bool,
    dash: str,
) -> dict[str, Any] | None:
    """One plan for all of a part's instances (instance i on billed[i]) against busy hours."""
    xs = sorted({*(float(h) for h in range(0, HOURS_PER_MONTH + 1, HOUR_STEP)), hours[0]})
    costs = []
    for x in xs:
        cost = _plan_cost(billed, _scaled(hours, x), chart.money)
        if cost is None:
            return None
        costs.append(cost)
    metered = all(p.unit in METERED_UNITS for p in billed)
    return {
        "type": "scatter",
        "mode": "lines",
        "name": name + (" · " + _("chosen") if chosen else ""),
        "legendgroup": group,
        "x": xs,
        "y": [float(cents(c)) for c in costs],
        "customdata": [[number_text(x, -1), money_text(c)] for x, c in zip(xs, costs, strict=True)],
        "line": {
            "color": colour,
            "width": 3 if chosen else 1.5,
            "dash": "solid" if metered else dash,
            "shape": "linear" if metered else "hv",
        },
        "hovertemplate": "%{fullData.name}<br>%{customdata[0]} h: %{customdata[1]} "
        + chart.currency
        + "<extra></extra>",
    }


def _break_even_marker(
    chart: _Chart, part: _Billed, group: str, prices: Sequence[PriceSpec], hours: Sequence[float]
) -> list[dict[str, Any]]:
    """Where the instances on a metered price cost what as many monthly plans do."""
    out = []
    units = chart.units
    for metered, monthly, per_instance in break_even_points(prices):
        x = float(per_instance) * len(hours) * hours[0] / sum(hours)
        one = chart.money(monthly.amount, monthly.currency)
        if one is None or not 0 < x <= HOURS_PER_MONTH:
            continue
        cost = one * len(hours)
        out.append(
            {
                "type": "scatter",
                "mode": "markers+text",
                "name": _("Break-even: %(name)s") % {"name": part.name},
                "legendgroup": group,
                "x": [x],
                "y": [float(cents(cost))],
                "text": [hours_text(x) + " h"],
                "textposition": "top center",
                "showlegend": False,  # labelled with its hours on the chart
                "marker": {"symbol": "x", "size": 12, "color": BAD},
                "customdata": [
                    [
                        f"{monthly.amount.normalize():f} {monthly.currency} " + units["month"],
                        f"{metered.amount.normalize():f} {metered.currency} " + units[metered.unit],
                        hours_text(x),
                        money_text(cost),
                    ]
                ],
                "hovertemplate": _("Break-even at %(hours)s busy hours per month")
                % {"hours": "%{customdata[2]}"}
                + ": %{customdata[3]} "
                + chart.currency
                + "<br>%{customdata[0]} = %{customdata[1]}<extra></extra>",
            }
        )
    return out


def _scenario_marker(
    chart: _Chart, part: _Billed, group: str, hours: Sequence[float], colour: str
) -> dict[str, Any]:
    """This scenario on `part`: its busiest instance's hours and the table's monthly figure for
    it (the chosen plan's month, storage apart)."""
    month = part.plan.converted_monthly
    name = part.here
    return {
        "type": "scatter",
        "mode": "markers",
        "name": name,
        "legendgroup": group,
        "x": [hours[0]],
        "y": [float(cents(month))],
        "customdata": [[hours_text(hours[0]), money_text(month)]],
        "showlegend": False,  # its hover names it; the legend lists the plans
        "marker": {
            "symbol": "circle-open",
            "size": 14,
            "color": colour,
            "line": {"width": 3, "color": colour},
        },
        "hovertemplate": name
        + ": %{customdata[0]} h, %{customdata[1]} "
        + chart.currency
        + "<extra></extra>",
    }


# Legs of one plan share its colour and differ by dash (the first leg's period plans dashed).
LEG_DASHES = ("dash", "dot", "dashdot", "longdash")


def _draw(
    chart: _Chart,
    part: _Billed,
    leg: int,
    offering: OfferingSpec,
    scenario: Scenario,
    colour: str,
) -> None:
    prices = [p for p in offering.prices if not (scenario.constraints.fresh_only and p.stale)]
    hours = list(part.hours)
    if not hours or hours[0] <= 0:
        return
    group = f"rec-{part.rank}-{leg}"
    dash = LEG_DASHES[leg % len(LEG_DASHES)]
    chart.uneven = chart.uneven or len(set(hours)) > 1
    chart.storage = chart.storage or part.storage
    count = f"{len(hours)} × " if len(hours) > 1 else ""

    def named(what: str) -> str:
        return _("%(plan)s: %(prices)s") % {"plan": part.label, "prices": what}

    chosen = _chosen_prices(part, prices, hours, chart.money)
    mixed = part.plan.unit == "mixed"
    for price in prices:
        label = f"{count}{price.amount.normalize():f} {price.currency} {chart.units[price.unit]}"
        is_chosen = chosen is not None and not mixed and chosen[0] is price
        line = _line(
            chart, group, named(label), [price] * len(hours), hours, colour, is_chosen, dash
        )
        if line is not None:
            chart.data.append(line)
    if chosen is not None and mixed:
        line = _line(chart, group, named(_("mixed plan")), chosen, hours, colour, True, dash)
        if line is not None:
            chart.data.append(line)
    chart.data.extend(_break_even_marker(chart, part, group, prices, hours))
    chart.data.append(_scenario_marker(chart, part, group, hours, colour))
    chart.busiest.add(hours[0])


def break_even_figure(
    recommendations: Sequence[Recommendation],
    offerings: Mapping[int | str, OfferingSpec],
    scenario: Scenario,
    *,
    rates: Sequence[ExchangeRateSpec],
    now: datetime,
) -> Figure | None:
    """What each recommendation's instances cost in a month against how busy they are, for each
    billing unit its offering has, with the break-even points of its monthly and metered plans;
    a plan of several legs drawn leg by leg (each leg's instances on its own offering's prices,
    the plan's colour, a dash of its own).

    Each line prices all the instances the recommendation (or the leg) needs (instance i on its
    own hours, by the plan's unit for it in a mixed plan); x is the busy hours of the busiest
    instance, the others scaled in proportion when they differ. The marker on each is this
    scenario: its hours and the table's monthly figure, storage apart (the y axis then says
    so). None without prices."""
    currency = scenario.constraints.currency
    chart = _Chart(currency, _Money(currency, rates, now), _unit_labels(), [], set())
    for index, rec in enumerate(recommendations):
        colour = RECOMMENDATION_COLOURS[index % len(RECOMMENDATION_COLOURS)]
        for leg, part in enumerate(_billed(rec, offerings)):
            _draw(chart, part, leg, offerings[part.offering_id], scenario, colour)
    if not chart.data:
        return None
    if chart.uneven:
        x_title = _("Busy hours per month of the busiest instance, the others in proportion")
    else:
        x_title = _("Busy hours per month of each instance")
    if chart.storage:
        y_title = _("Cost of the instances each needs, excluding storage (%(currency)s/month)")
    else:
        y_title = _("Cost of the instances each needs (%(currency)s/month)")
    layout = _layout(x_title, y_title % {"currency": currency})
    layout["legend"] = {"orientation": "h", "y": -0.16, "yanchor": "top"}
    layout["xaxis"]["range"] = [0, HOURS_PER_MONTH]
    if len(chart.busiest) == 1:
        [busy] = chart.busiest
        text = _("this scenario: %(hours)s h") % {"hours": number_text(busy, -1)}
        _mark_x(layout, busy, text, color=WARN, dash="dot", anchor="right")
    return figure_text_escaped({"data": chart.data, "layout": layout})


# ---------------------------------------------------------------------------------- the page


def _offering_ranks(recs: Sequence[Recommendation]) -> dict[int | str, int]:
    """Each offering's best rank as a recommendation of its own (not as a plan's leg)."""
    ranks: dict[int | str, int] = {}
    for r in recs:
        if not r.legs:
            ranks.setdefault(r.offering_id, r.rank)
    return ranks


def advisor_figures(report: AdviceReport) -> dict[str, Figure | None]:
    """Every chart of the advisor page, from the advisor's own report: no query of its own."""
    scenario, estimate = report.scenario, report.estimate
    currency = scenario.constraints.currency
    recs = list(report.advice.recommendations) if report.advice else []
    # The offerings as listed (not their N-card instances of one host, hosts.py).
    offerings = {o.id: o for o in report.catalogue.offerings if not o.host_cards}
    rates, now = report.catalogue.rates, report.now
    # The whole catalogue in groups (bounded by GPU shapes, kept with the catalogue); the ranked
    # offerings each with all their prices.
    groups, by_platform = catalogue_groups(
        report.catalogue.offerings, currency=currency, rates=rates, now=now
    )
    ranked = dict.fromkeys(r.offering_id for r in recs)
    fitting = catalogue_rows(offerings[i] for i in ranked if i in offerings)
    return {
        "memory": memory_figure(estimate, recs[0] if recs else None),
        "price_vram": price_vram_figure(
            groups,
            fitting,
            currency=currency,
            rates=rates,
            now=now,
            need_gib=largest_need_gib(estimate),
            by_platform=by_platform,
            ranks=_offering_ranks(recs),
        ),
        "cost_time": cost_time_figure(recs, currency, report.catalogue.accelerators),
        "plans": plan_legs_figure(recs, currency),
        "break_even": break_even_figure(
            chart_recommendations(recs, offerings),
            offerings,
            scenario,
            rates=rates,
            now=now,
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
