"""The advisor page: the scenario form (all in the query string), its results, charts and CSV.

form -> `advisor.services.advise_scenario` -> render. User errors (InvalidWorkload) go back to
the form next to the field they name; NoFit shows its reason with the memory plan still.
Queries for a page with results, whatever the catalogue's size: platforms for the form (1), the
service (7: see advisor/services.py), the charts' catalogue and exchange rates (3).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from advisor import charts, forms, presets
from advisor.engine.errors import AdvisorError, NoFit
from advisor.engine.types import GiB
from advisor.services import advise_scenario, estimate_scenario
from platforms.models import SourceKind


@dataclass
class Outcome:
    """What the service said about a valid form."""

    scenario: dict[str, Any]
    result: dict[str, Any] | None = None  # advise_scenario's answer
    estimate: dict[str, Any] | None = None  # the memory plan (also on NoFit)
    no_fit: str = ""
    checks: list[dict[str, Any]] = field(default_factory=list)


def _advise(form: forms.ScenarioForm) -> Outcome | None:
    scenario = form.scenario()
    outcome = Outcome(scenario)
    try:
        outcome.result = advise_scenario(scenario)
        outcome.estimate = outcome.result["estimate"]
    except NoFit as error:
        outcome.no_fit = error.message
        if error.field:
            form.add_engine_error(error.field, error.message)
        try:
            outcome.estimate = estimate_scenario(scenario)
        except AdvisorError:
            outcome.estimate = None  # the estimate's own error is already the NoFit's cause
    except AdvisorError as error:
        form.add_engine_error(error.field, error.message)
        return None
    outcome.checks = presets.premise_checks(form.preset, scenario, outcome.estimate)
    return outcome


def index(request: HttpRequest) -> HttpResponse:
    edited = forms.edited_query(request.GET)
    if edited is not None:
        return redirect(f"{reverse('advisor:index')}?{edited.urlencode()}")
    submitted = forms.is_submitted(request.GET)
    form = forms.ScenarioForm(
        request.GET if submitted else None, platforms=forms.platform_choices()
    )
    outcome = _advise(form) if form.is_valid() else None
    if outcome and outcome.result and request.GET.get("format") == "csv":
        return _csv(outcome.result)
    figures = (
        charts.advisor_figures(
            outcome.scenario, outcome.estimate, outcome.result, now=timezone.now()
        )
        if outcome
        else {}
    )
    query = request.GET.copy()
    query["format"] = "csv"
    return render(
        request,
        "advisor/index.html",
        {
            "form": form,
            "empty_task": forms.TaskForm(prefix="t__index__"),
            "single_task": len(form.tasks) == 1,
            "plan": _plan(outcome.estimate) if outcome and outcome.estimate else [],
            "outcome": outcome,
            "rows": _rows(outcome.result) if outcome and outcome.result else [],
            "figures": figures,
            "csv_query": query.urlencode(),
            "presets": [
                (p, forms.scenario_query(p.scenario, preset=p.slug).urlencode())
                for p in presets.PRESETS.values()
            ],
            "active_preset": presets.PRESETS.get(form.preset),
        },
    )


def _plan(estimate: dict[str, Any]) -> list[dict[str, Any]]:
    """Each task's memory plan as table rows: component, GiB per GPU, the formula behind it."""
    labels = charts.component_labels()
    out = []
    for task in estimate["tasks"]:
        formulas = task.get("formulas", {})
        parts = [
            {
                "key": key,
                "label": labels[key],
                "gib": task["per_gpu"][key] / GiB,
                "formula": formulas.get(key, ""),
            }
            for key in charts.COMPONENTS
            if task["per_gpu"][key] or formulas.get(key)
        ]
        out.append({**task, "parts": parts, "total_gib": task["per_gpu"]["total"] / GiB})
    return out


def _placement(rec: dict[str, Any]) -> list[str]:
    out = []
    for a in rec["placement"]:
        gpus = ", ".join(str(g) for g in a["gpus"])
        where = _("instance %(i)s, GPU %(gpus)s") % {"i": a["instance"] + 1, "gpus": gpus}
        if a["mode"] == "mig":
            where += f" · MIG {a['mig_profile']}"
        elif a["mode"] == "pooled" and a["pooled_share"] is not None:
            where += " · " + _("pooled %(share)s%%") % {"share": round(a["pooled_share"] * 100)}
        elif a["mode"] == "shared":
            where += " · " + _("shared")
        out.append(f"{a['task']} → {where}")
    return out


def _rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Recommendations with what the table shows precomputed (GiB, placement text)."""
    return [
        {
            **rec,
            "headroom_gib": None if rec["headroom_bytes"] is None else rec["headroom_bytes"] / GiB,
            "placement_text": _placement(rec),
            "price_source_kind_label": _source_kind_label(rec["price_source_kind"]),
            "vendor_claim": rec["price_source_kind"] == "vendor_claim"
            or any("vendor claim" in w for w in rec["warnings"]),
        }
        for rec in result["recommendations"]
    ]


def _source_kind_label(kind: str) -> str:
    try:
        return str(SourceKind(kind).label)
    except ValueError:
        return kind


CSV_COLUMNS = (
    "rank",
    "platform",
    "offering",
    "accelerator",
    "instances",
    "gpus_per_instance",
    "billing_unit",
    "monthly_cost",
    "job_cost",
    "currency",
    "time_hours",
    "headroom_gib",
    "pareto",
    "placement",
    "price_age_days",
    "price_source",
    "price_source_kind",
    "warnings",
)


def _csv(result: dict[str, Any]) -> HttpResponse:
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="gpu-advisor-results.csv"'
    # A byte-order mark so that spreadsheet programs read the Chinese platform names as UTF-8.
    response.write("\ufeff")
    writer = csv.writer(response)
    writer.writerow(CSV_COLUMNS)
    for row in _rows(result):
        writer.writerow(
            [
                row["rank"],
                row["platform_name"],
                row["offering"],
                row["accelerator"],
                row["instances"],
                row["gpus_per_instance"],
                row["plan"]["unit"],
                row["monthly_cost"],
                row["job_cost"] or "",
                result["currency"],
                "" if row["time_hours"] is None else row["time_hours"],
                "" if row["headroom_gib"] is None else f"{row['headroom_gib']:.2f}",
                "yes" if row["pareto"] else "no",
                "; ".join(row["placement_text"]),
                row["price_age_days"],
                row["price_source"],
                row["price_source_kind"],
                "; ".join(row["warnings"]),
            ]
        )
    return response
