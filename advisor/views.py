"""The advisor page: the scenario form (all in the query string), its results, charts and CSV.

form -> `advisor.services.advise_scenario` -> render. User errors (InvalidWorkload) go back to
the form next to the field they name; NoFit shows its reason with the memory plan still.
Queries for a page with results, whatever the catalogue's size: platforms for the form (1) and
the service (see advisor/services.py); the charts reuse the catalogue the service read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, TypeVar, cast

from django.conf import settings
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.safestring import SafeString
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _

from advisor import charts, explain, forms, posted, presets, results, sharing
from advisor.engine.billing import cents
from advisor.engine.errors import AdvisorError
from advisor.engine.estimate import Estimate
from advisor.engine.legs import Leg, TaskServing
from advisor.engine.messages import Code, msg
from advisor.engine.plans import legs_of, single_plan
from advisor.engine.ranking import (
    TIE_FRACTION,
    Advice,
    Comparison,
    Recommendation,
    unpriced_message,
)
from advisor.engine.serving import ServingEstimate
from advisor.engine.types import AcceleratorSpec, GiB
from advisor.engine.vocab import BillingUnit, CostBasis
from advisor.services import AdviceReport, advise_scenario
from platforms.models import SourceKind
from platforms.safe_text import SpreadsheetWriter
from wording import choices, messages
from wording.choices import BILLING_UNIT_LABELS

N = TypeVar("N", float, Decimal)


@dataclass
class Outcome:
    """What the service said about a valid form."""

    report: AdviceReport
    no_fit: str = ""
    # The platforms in scope with no current price, named (the engine's PLATFORMS_NOT_PRICED).
    unpriced: str = ""
    # With a task over several GPUs: the platforms rented one card per instance (hosts.py).
    one_card: str = ""


def _advise(form: forms.ScenarioForm) -> Outcome | None:
    scenario = form.scenario()
    if form.preset in presets.PRESETS:
        scenario["preset"] = form.preset  # its claims are checked, its pick judged
    try:
        report = advise_scenario(scenario)
    except AdvisorError as error:
        form.add_engine_error(error.field, forms.error_text(error.detail))
        return None
    outcome = Outcome(report)
    if report.no_fit is not None:
        outcome.no_fit = messages.render(report.no_fit.detail)
        if report.no_fit.field:
            form.add_engine_error(report.no_fit.field, outcome.no_fit)
    unpriced = unpriced_message(report.unpriced_platforms)
    if unpriced is not None:
        outcome.unpriced = messages.render(unpriced)
    one_card = report.advice.one_card_message if report.advice is not None else None
    if one_card is not None:
        outcome.one_card = messages.render(one_card)
    return outcome


@posted.scenario_by_post
def index(request: HttpRequest) -> HttpResponse:
    edited = forms.edited_query(request.GET)
    if edited is not None:
        return redirect(f"{reverse('advisor:index')}?{edited.urlencode()}")
    submitted = forms.is_submitted(request.GET)
    platforms = forms.platform_choices()
    form = forms.ScenarioForm(request.GET if submitted else None, platforms=platforms)
    outcome = _advise(form) if form.is_valid() else None
    # The results shown: this scenario's, or, when it has errors, those of the scenario the
    # form was sent from (posted.py keeps its query), so that a typo loses nothing.
    shown, shown_query, previous = form, cast(QueryDict, request.GET), False
    before: QueryDict | None = getattr(request, "previous_query", None)
    if outcome is None and form.is_bound and before is not None and forms.is_submitted(before):
        earlier = forms.ScenarioForm(before, platforms=platforms)
        outcome = _advise(earlier) if earlier.is_valid() else None
        if outcome is not None:
            shown, shown_query, previous = earlier, before, True
    advice = outcome.report.advice if outcome else None
    if not previous and outcome is not None:
        if advice is not None and request.GET.get("format") == "csv":
            return _csv(advice)
        if request.GET.get("format") == "json":
            return sharing.json_download(outcome.report)
    figures = charts.advisor_figures(outcome.report) if outcome else {}
    rows = _rows(advice, outcome.report.catalogue.accelerators) if outcome and advice else []
    results_query = shown_query.copy()
    results_query.pop("format", None)
    return render(
        request,
        "advisor/index.html",
        {
            "form": form,
            "error_summary": form.error_summary() if form.has_errors else [],
            "task_template": task_template(),
            "task_rows": [
                task_row(task, i, len(form.tasks) == 1) for i, task in enumerate(form.tasks)
            ],
            "plan": _plan(outcome.report.estimate) if outcome else [],
            "outcome": outcome,
            "previous": previous,
            # The query of the results on the page: the form sends it along (posted.py).
            "results_query": results_query.urlencode() if outcome else "",
            "advice": advice,
            "rows": rows,
            "summary": _summary(rows, advice) if advice else None,
            "explain": explain.explain_first(
                rows, advice.currency, choices.label(advice.cost_basis)
            )
            if advice
            else None,
            "results": _results(advice) if advice else {},
            "figures": figures,
            "presets": [
                (p, forms.scenario_query(p.translated_scenario(), preset=p.slug).urlencode())
                for p in presets.PRESETS.values()
            ],
            "active_preset": presets.PRESETS.get(form.preset),
            "article": results.article(outcome.report) if outcome else None,
            "no_fit_help": results.no_fit(outcome.report) if outcome else None,
            "plans": results.plans(outcome.report) if outcome else None,
            "compare_fields": results.compare_fields(shown_query) if outcome else [],
            "share": sharing.share_context(request, shown, shown_query) if outcome else None,
            "tasks_notice": forms.task_count_notice(request.GET),
        },
    )


def _summary(rows: list[dict[str, Any]], advice: Advice) -> str | None:
    """#1 in a sentence, for the top of the results: "#1: AutoDL · RTX 4090 (1 × RTX 4090),
    84.00 CNY for the whole job, 12.5 h; why: …" (the table's own figures); None when nothing
    is ranked."""
    if not rows:
        return None
    first = rows[0]
    rec: Recommendation = first["rec"]
    parts = [
        _("%(amount)s %(currency)s %(basis)s")
        % {
            "amount": first["cost"],
            "currency": advice.currency,
            "basis": choices.label(advice.cost_basis),
        }
    ]
    if first["job"] is not None and advice.cost_basis is not CostBasis.JOB:
        parts.append(
            _("%(amount)s %(currency)s a job")
            % {"amount": first["job"], "currency": advice.currency}
        )
    if first["time"] is not None:
        parts.append(_("%(n)s h") % {"n": first["time"]})
    text = _("#%(rank)s: %(name)s (%(gpus)s), %(figures)s") % {
        "rank": rec.rank,
        "name": first["name"],
        "gpus": first["gpus"],
        "figures": _(", ").join(parts),
    }
    why = sorted(
        (m for m in rec.reasons if m.code in _WHY),
        key=lambda m: _WHY.index(m.code),
    )
    if why:
        text = _("%(first)s; why: %(reason)s") % {"first": text, "reason": messages.render(why[0])}
    return text


# What the summary gives as #1's "why", the first found: the ranking's own reason.
_WHY = (
    Code.REASON_BEST_BY_COST,
    Code.REASON_BEST_BY_TIME,
    Code.REASON_BEST_BY_BALANCED,
    Code.REASON_CHEAPEST_BILLING,
)


def task_template() -> SafeString:
    """The empty task row (prefix `t__index__`, number `__number__`) in the active language: the
    same for every request (an unbound form of fixed choices)."""
    return _kept_row(
        (get_language(), "template"),
        lambda: {
            "task": forms.TaskForm(prefix="t__index__"),
            "index": "__index__",
            "number": "__number__",
            "single": False,
        },
    )


# Task rows as rendered, by everything a row shows (task_row, task_template): a page asked again
# (a preset, a reload) renders its rows once. Bounded: past the limit it starts again empty.
_TASK_ROWS: dict[tuple[Any, ...], SafeString] = {}
_TASK_ROWS_KEPT = 512


def _kept_row(key: tuple[Any, ...], context: Callable[[], dict[str, Any]]) -> SafeString:
    """advisor/task_row.html rendered with `context()`, kept under `key` unless templates may
    change under DEBUG."""
    found = _TASK_ROWS.get(key)
    if found is None:
        found = render_to_string("advisor/task_row.html", context())
        if not settings.DEBUG:
            if len(_TASK_ROWS) >= _TASK_ROWS_KEPT:
                _TASK_ROWS.clear()
            _TASK_ROWS[key] = found
    return found


def task_row(task: forms.TaskForm, index: int, single: bool) -> SafeString:
    """Row `index` of the scenario form, rendered (advisor/task_row.html, with only what it reads:
    the task's form, its index and number, whether it is the only one). Kept by the language and
    what the row's form shows: its data, or that it is unbound, and its errors; its choices are
    fixed (forms.py), unless templates may change under DEBUG."""
    if task.is_bound:
        data = task.data
        prefix = f"{task.prefix}-"
        values = data.getlist if isinstance(data, QueryDict) else lambda k: [data[k]]
        shown: tuple[Any, ...] = tuple(
            sorted((k, tuple(map(str, values(k)))) for k in data if k.startswith(prefix))
        )
        errors = tuple(sorted((f, tuple(map(str, e))) for f, e in task.errors.items()))
    else:
        shown, errors = (), ()
    key = (get_language(), index, single, task.prefix, task.is_bound, shown, errors)
    return _kept_row(
        key, lambda: {"task": task, "index": index, "number": index + 1, "single": single}
    )


def _plan(estimate: Estimate) -> list[dict[str, Any]]:
    """Each task's memory plan as table rows: component, GiB per GPU, the formula behind it; and
    its fit, suggestions and notes as sentences."""
    labels = charts.component_labels()
    out = []
    for task in estimate.tasks:
        formulas = task.plan.formulas
        parts = [
            {
                "key": key,
                "label": labels[key],
                "gib": getattr(task.per_gpu, key) / GiB,
                "formula": messages.render(formulas[key]) if key in formulas else "",
            }
            for key in charts.COMPONENTS
            if getattr(task.per_gpu, key) or key in formulas
        ]
        fit = task.fit
        out.append(
            {
                "name": task.name,
                "gpus": task.gpus,
                "on": task.on,
                "fit": fit,
                "fit_reason": messages.render(fit.reason) if fit else "",
                "suggestions": messages.render_all(fit.suggestions) if fit else [],
                "time": task.time,
                "serving": _serving(task.serving) if task.serving else None,
                "notes": messages.render_all(task.plan.notes)
                + (messages.render_all(task.serving.notes) if task.serving else []),
                "parts": parts,
                "total_gib": task.per_gpu.total / GiB,
            }
        )
    return out


def _seconds_text(seconds: float) -> str:
    return charts.number_text(seconds, 2 if seconds >= 0.1 else 3)


def _serving(est: ServingEstimate) -> dict[str, Any]:
    """A task's serving figures as the page shows them: the expected output rate with its range
    (prefill counted), the decode bounds, TTFT in seconds with its range."""
    ttft, rate = est.ttft, est.output_tokens_per_s
    return {
        "aggregate": charts.number_text(rate.expected if rate else est.aggregate_tokens_per_s, 0),
        "aggregate_low": charts.number_text(rate.low, 0) if rate else None,
        "aggregate_high": charts.number_text(rate.high, 0) if rate else None,
        "bound": charts.number_text(est.aggregate_tokens_per_s, 0),
        "stream": charts.number_text(est.stream_tokens_per_s, 1),
        "concurrency": est.concurrency,
        "max": est.max_concurrency,
        "prompt": est.prompt_tokens,
        "output": est.output_tokens,
        "ttft": None if ttft is None else _seconds_text(ttft.expected),
        "ttft_low": None if ttft is None else _seconds_text(ttft.low),
        "ttft_high": None if ttft is None else _seconds_text(ttft.high),
        "compute_bound": est.bound == "compute",
    }


def _task_serving(s: TaskServing) -> dict[str, Any]:
    def price(value: Decimal | None) -> str | None:
        return None if value is None else messages.computed_price(value)

    return {
        "task": s.task,
        **_serving(s.estimate),
        "cost": price(s.cost_per_million_tokens),
        "cost_low": price(s.cost_low),
        "cost_high": price(s.cost_high),
        "input_cost": price(s.input_cost_per_million),
        "output_cost": price(s.output_cost_per_million),
        "currency": s.currency,
        "shared": s.instance_shared,
    }


def _serving_text(s: dict[str, Any]) -> str:
    """One task's serving figures in a sentence, for the CSV."""
    parts = [
        _("%(task)s: about %(aggregate)s output tokens/s at %(n)s sequences, up to %(most)s fit")
        % {"task": s["task"], "aggregate": s["aggregate"], "n": s["concurrency"], "most": s["max"]}
    ]
    if s["aggregate_low"] is not None:
        parts.append(
            _("%(low)s to %(high)s tokens/s in published runs")
            % {"low": s["aggregate_low"], "high": s["aggregate_high"]}
        )
    if s["ttft"] is not None:
        parts.append(_("TTFT %(ttft)s s") % {"ttft": s["ttft"]})
    if s["cost"] is not None:
        parts.append(
            _("%(cost)s %(currency)s per million output tokens")
            % {"cost": s["cost"], "currency": s["currency"]}
        )
    if s["cost_low"] is not None and s["cost_high"] is not None:
        parts.append(
            _("%(low)s to %(high)s %(currency)s")
            % {"low": s["cost_low"], "high": s["cost_high"], "currency": s["currency"]}
        )
    return _(", ").join(parts)


def _placement(rec: Recommendation) -> list[str]:
    return results.placement_text(rec)


def _rows(
    advice: Advice, accelerators: Mapping[str, AcceleratorSpec] | None = None
) -> list[dict[str, Any]]:
    """Recommendations with what the table shows precomputed (GiB, sentences, labels, and money
    as text: each amount rounded once, by charts.money_text, as the charts show it). GPUs are
    named by the catalogue's `accelerators` (slug -> spec), the slug where one is missing."""
    money = charts.money_text
    return [
        {
            "rec": rec,
            "headroom_gib": None if rec.headroom_bytes is None else rec.headroom_bytes / GiB,
            "headroom": None
            if rec.headroom_bytes is None
            else messages.gib_number(rec.headroom_bytes / GiB),
            "gpus": charts.gpus_text(rec, accelerators or {}),
            "plan_price": None
            if rec.plan.price is None
            else _("%(amount)s %(currency)s")
            % {"amount": messages.listed_price(rec.plan.price), "currency": rec.plan.currency},
            "plan_rate": None if rec.plan.rate is None else messages.rate_number(rec.plan.rate),
            "placement_text": _placement(rec),
            "plan_label": _plan_label(rec),
            "name": explain.plan_name(rec),
            "price_source_kind_label": _source_kind_label(rec.price_source_kind),
            "reasons": messages.render_all(rec.reasons),
            "warnings": messages.render_all(rec.warnings),
            "cost": money(rec.cost),
            "monthly": money(rec.monthly_cost),
            "job": None if rec.job_cost is None else money(rec.job_cost),
            "time": None if rec.time_hours is None else charts.hours_text(rec.time_hours),
            "time_range": _range_text(rec.time_low_hours, rec.time_high_hours, charts.hours_text),
            "job_range": _range_text(rec.job_cost_low, rec.job_cost_high, money),
            "storage": None if rec.storage_cost is None else money(rec.storage_cost),
            "idle": _idle(rec),
            "spans": ngettext("spans %(n)s month", "spans %(n)s months", rec.months)
            % {"n": rec.months}
            if rec.months > 1
            else "",
            "versus": _versus(rec.vs_first, advice.currency),
            "tied": rec.vs_first is not None and rec.vs_first.tied,
            "serving": [_task_serving(s) for s in rec.serving],
            # A plan of several legs: each leg (offering, instances, billing, tasks, cost).
            "legs": results.plan_legs(single_plan(rec, advice.currency)) if rec.legs else [],
        }
        for rec in advice.recommendations
    ]


def _idle(rec: Recommendation) -> dict[str, Any] | None:
    """The time between runs as the table shows it: how it is spent, its sentence and notes,
    and what keeping the instances on costs (None when nothing)."""
    between = rec.idle
    if between is None:
        return None
    return {
        "way": between.way.value,
        "label": choices.label(between.way),
        "text": messages.render(between.message),
        "notes": messages.render_all(between.notes),
        "cost": charts.money_text(between.cost) if between.cost else None,
    }


def _range_text(low: N | None, high: N | None, text: Callable[[N], str]) -> str:
    """A range as the table shows it under the expected value: "12.5–31.0"; "" without one."""
    if low is None or high is None:
        return ""
    return _("%(low)s–%(high)s") % {"low": text(low), "high": text(high)}


def _versus(vs: Comparison | None, currency: str) -> str:
    """What a recommendation costs and takes more than the first: "vs #1: +147.60 CNY, +1.5 h"."""
    if vs is None:
        return ""
    parts = [
        _("%(amount)s %(currency)s")
        % {"amount": charts.signed(vs.cost, charts.money_text), "currency": currency}
    ]
    if vs.time_hours is not None:
        parts.append(_("%(n)s h") % {"n": charts.signed(vs.time_hours, charts.hours_text)})
    return _("vs #1: %(differences)s") % {"differences": _(", ").join(parts)}


def _results(advice: Advice) -> dict[str, Any]:
    """What the table says once for every row: the cost basis and the tie rule."""
    return {
        "basis_label": choices.label(advice.cost_basis),
        "job_basis": advice.cost_basis is CostBasis.JOB,
        "tie_percent": charts.number_text(TIE_FRACTION * 100, 0),
        "serving": any(rec.serving for rec in advice.recommendations),
        # The offerings left out and why (the engine's reject codes), the most common first.
        "rejected": [
            messages.render(msg(Code.REJECT_COUNT, reason=msg(code), count=n))
            for code, n in sorted(advice.rejected.items(), key=lambda item: (-item[1], item[0]))
        ],
    }


def _plan_label(rec: Recommendation) -> str:
    if rec.legs:  # each leg's unit: "per hour + per month"
        return " + ".join(results.unit_label(leg) for leg in rec.legs)
    if rec.plan.unit == "mixed":
        return _("mixed plan")
    return str(BILLING_UNIT_LABELS[BillingUnit(rec.plan.unit)])


def _source_kind_label(kind: str) -> str:
    try:
        return str(SourceKind(kind).label)
    except ValueError:
        return kind


CSV_COLUMNS = (
    "rank",
    "plan",
    "leg",
    "tasks",
    "platform",
    "offering",
    "accelerator",
    "instances",
    "gpus_per_instance",
    "billing_unit",
    "cost",
    "cost_basis",
    "months",
    "monthly_cost",
    "job_cost",
    "storage_cost",
    "storage_assumed",
    "idle_way",
    "idle_hours",
    "runs",
    "idle_cost",
    "stopped_storage_cost",
    "startup_cost",
    "currency",
    "cost_vs_first",
    "time_vs_first_hours",
    "tied_with_first",
    "time_hours",
    "time_low_hours",
    "time_high_hours",
    "headroom_gib",
    "pareto",
    "regions",
    "placement",
    "price_age_days",
    "price_source",
    "price_source_kind",
    "warnings",
    "serving",
)


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def _idle_cells(rec: Recommendation) -> list[object]:
    """The CSV's idle_way, idle_hours, runs, idle_cost, stopped_storage_cost and startup_cost:
    empty when the instances are never idle."""
    between = rec.idle
    if between is None:
        return [""] * 6
    stopped = between.stopped_storage
    return [
        between.way.value,
        round(between.hours, 3),
        round(between.runs, 3),
        cents(between.cost),
        "" if stopped is None else cents(stopped),
        cents(between.startup_cost),
    ]


def _csv(advice: Advice) -> HttpResponse:
    """The table as CSV, one row per leg: a single offering is a plan of one leg (plan
    "single", leg 1), a plan of several legs one row per leg (plan "plan"), each with the plan's
    rank and standing. Money in cents (half up, as the page shows it), the difference to #1
    empty on #1's own row."""
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="gpu-advisor-results.csv"'
    # A byte-order mark so that spreadsheet programs read the Chinese platform names as UTF-8.
    response.write("\ufeff")
    # Names from the catalogue and the scenario reach a spreadsheet: no cell may be a formula.
    writer = SpreadsheetWriter(response)
    writer.writerow(CSV_COLUMNS)
    for row in _rows(advice):
        rec: Recommendation = row["rec"]
        for n, leg in enumerate(legs_of(rec), start=1):
            writer.writerow(_csv_row(advice, row, leg, n))
    return response


def _csv_row(advice: Advice, row: dict[str, Any], leg: Leg, n: int) -> list[object]:
    """One leg of a ranked recommendation: what the leg runs, where and for how much; the
    plan's standing (rank, difference to #1, time, Pareto) on each of its legs. A single
    offering is plan "single", leg 1, its own figures; a plan of several legs is plan "plan"."""
    rec: Recommendation = row["rec"]
    vs = rec.vs_first
    if rec.legs:
        leg_cells: list[object] = [
            "plan",
            n,
            "; ".join(messages.texts(leg.task_labels())),
            leg.platform_name,
            leg.offering_name,
            leg.accelerator,
            leg.instances,
            leg.gpus_per_instance,
            leg.plan.unit,
            cents(leg.cost),
            rec.cost_basis.value,
            leg.months,
            cents(leg.monthly_cost),
            ""
            if rec.cost_basis is not CostBasis.JOB
            else cents(leg.cost - (leg.storage_cost or 0)),
            "" if leg.storage_cost is None else cents(leg.storage_cost),
        ]
    else:
        leg_cells = [
            "single",
            1,
            "; ".join(dict.fromkeys(a.task for a in rec.placement.assignments)),
            rec.platform_name,
            rec.offering_name,
            rec.accelerator,
            rec.instances,
            rec.gpus_per_instance,
            rec.plan.unit,
            cents(rec.cost),
            rec.cost_basis.value,
            rec.months,
            cents(rec.monthly_cost),
            "" if rec.job_cost is None else cents(rec.job_cost),
            "" if rec.storage_cost is None else cents(rec.storage_cost),
        ]
    return [
        rec.rank,
        *leg_cells,
        _yes(rec.storage_assumed),
        *_idle_cells(rec),
        advice.currency,
        "" if vs is None else cents(vs.cost),
        "" if vs is None or vs.time_hours is None else round(vs.time_hours, 3),
        "" if vs is None else _yes(vs.tied),
        "" if rec.time_hours is None else round(rec.time_hours, 3),
        "" if rec.time_low_hours is None else round(rec.time_low_hours, 3),
        "" if rec.time_high_hours is None else round(rec.time_high_hours, 3),
        "" if row["headroom_gib"] is None else f"{row['headroom_gib']:.2f}",
        _yes(rec.pareto),
        "; ".join(rec.regions),
        "; ".join(row["placement_text"]),
        rec.price_age_days,
        rec.price_source,
        rec.price_source_kind,
        "; ".join(row["warnings"]),
        "; ".join(_serving_text(s) for s in row["serving"]),
    ]
