"""What the advisor page shows beyond the ranked table, as text ready for the template: the
seed article's claims checked and the verdict on its pick, the plans across platforms with their
legs, and, when nothing fits, the closest miss and the changes that would fit, each a link that
runs the scenario again with it. The same facts the API and the CLI give (api/advice.py).
"""

from __future__ import annotations

from typing import Any

from django.http import QueryDict
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from advisor import charts, forms
from advisor.engine.plans import Leg, Plan, PlanSearch
from advisor.engine.ranking import Recommendation
from advisor.engine.types import GiB
from advisor.engine.vocab import CostBasis, PlacementMode
from advisor.services import AdviceReport, OfferingFit
from wording import choices, messages
from wording.choices import BILLING_UNIT_LABELS, BillingUnit

VERDICT_LABELS = {
    "holds": gettext_lazy("holds"),
    "does_not_hold": gettext_lazy("does not hold"),
    "cannot_tell": gettext_lazy("cannot be told"),
}


def article(report: AdviceReport) -> dict[str, Any]:
    """The preset's claims checked, and the verdict on the article's pick."""
    checks = [
        {
            "id": check.id,
            "claim": messages.render(check.claim),
            "verdict": check.verdict,
            "label": str(VERDICT_LABELS[check.verdict]),
            "lines": messages.render_all(check.lines),
        }
        for check in report.checks
    ]
    verdict = report.verdict
    return {
        "checks": checks,
        "verdict": None if verdict is None else messages.render(verdict.message),
        "pick_wins": None if verdict is None else verdict.pick_wins,
    }


def no_fit(report: AdviceReport) -> dict[str, Any]:
    """The closest miss and the changes that would fit, each with the query that runs it."""
    error = report.no_fit
    closest = error.closest_miss if error is not None else None
    return {
        "closest": None if closest is None else messages.render(closest.label),
        "suggestions": [
            {
                "change": messages.render(s.change),
                "query": forms.scenario_query(s.scenario).urlencode(),
                "best": _("then first: %(offering)s on %(platform)s, %(cost)s %(currency)s")
                % {
                    "offering": s.best.offering_name,
                    "platform": s.best.platform_name,
                    "cost": charts.money_text(s.best.cost),
                    "currency": s.best.plan.target_currency,
                },
            }
            for s in report.suggestions
        ],
    }


def unit_label(leg: Leg) -> str:
    if leg.plan.unit == "mixed":
        return _("mixed plan")
    return str(BILLING_UNIT_LABELS[BillingUnit(leg.plan.unit)])


def plan_legs(plan: Plan) -> list[dict[str, Any]]:
    """Each leg of `plan` as the page shows it (text ready to print)."""
    return [
        {
            "n": n,
            "platform": leg.platform_name,
            "offering": leg.offering_name,
            "offering_id": leg.offering_id,
            "url": leg.offering_url,
            "gpus": ngettext("%(n)s GPU", "%(n)s GPUs", leg.gpus) % {"n": leg.gpus},
            "unit": unit_label(leg),
            "tasks": _(", ").join(messages.texts(leg.task_labels())),
            "cost": charts.money_text(leg.cost),
            "monthly": charts.money_text(leg.monthly_cost),
            "storage": None if leg.storage_cost is None else charts.money_text(leg.storage_cost),
            "time": None if leg.time_hours is None else charts.hours_text(leg.time_hours),
        }
        for n, leg in enumerate(plan.legs, start=1)
    ]


def plans(report: AdviceReport) -> dict[str, Any] | None:
    """What the search over plans across platforms says (the plans it found are rows of the
    ranked table, `plans.ranked_plans`): its note and details, each a sentence."""
    search: PlanSearch | None = report.plans
    if search is None:
        return None
    return {
        "note": messages.render(search.note),
        "details": messages.render_all(search.details),
    }


def placement_text(rec: Recommendation | Leg) -> list[str]:
    """Which task runs where, one line each: "night fine-tune → instance 1, GPU 0, 1"; for a plan
    of several legs, each leg's lines after its number ("leg 2: daytime inference → …")."""
    if isinstance(rec, Recommendation) and rec.legs:
        return [
            _("leg %(n)s: %(where)s") % {"n": n, "where": line}
            for n, leg in enumerate(rec.legs, start=1)
            for line in placement_text(leg)
        ]
    out = []
    for a in rec.placement.assignments:
        gpus = ", ".join(str(g) for g in a.gpus)
        if a.machines > 1:
            where = _("instances %(i)s to %(j)s, %(n)s GPUs") % {
                "i": a.instance + 1,
                "j": a.instance + a.machines,
                "n": a.gpu_count,
            }
        else:
            where = _("instance %(i)s, GPU %(gpus)s") % {"i": a.instance + 1, "gpus": gpus}
        if a.mode == PlacementMode.MIG:
            where += f" · MIG {a.mig_profile}"
        elif a.mode == PlacementMode.POOLED and a.pooled_share is not None:
            where += " · " + _("pooled %(share)s%%") % {"share": round(a.pooled_share * 100)}
        elif a.mode == PlacementMode.SHARED:
            where += " · " + _("shared")
        out.append(f"{a.task} → {where}")
    return out


def fit_view(fit: OfferingFit | None) -> dict[str, Any] | None:
    """One offering's answer for a scenario as the comparison shows it: its cost, busiest month,
    time and placement, or why it cannot run the scenario."""
    if fit is None:
        return None
    rec = fit.recommendation
    if rec is None:
        return {"fits": False, "reason": messages.render(fit.reason) if fit.reason else ""}
    return {
        "fits": True,
        "rec": rec,
        "cost": charts.money_text(rec.cost),
        "monthly": charts.money_text(rec.monthly_cost),
        "time": None if rec.time_hours is None else charts.hours_text(rec.time_hours),
        "placement": placement_text(rec),
        "plan": _unit_label_of(rec.plan.unit),
        # What the cost covers ("per month", "for the whole job"): its label, never the plan's
        # billing unit ("1,173.52 CNY per hour" was a month's cost).
        "basis": choices.label(rec.cost_basis),
        "job_basis": rec.cost_basis is CostBasis.JOB,
        "currency": rec.plan.target_currency,
        "headroom": None
        if rec.headroom_bytes is None
        else messages.gib_number(rec.headroom_bytes / GiB),
    }


def _unit_label_of(unit: str) -> str:
    if unit == "mixed":
        return _("mixed plan")
    return str(BILLING_UNIT_LABELS[BillingUnit(unit)])


def compare_fields(query: QueryDict) -> list[tuple[str, str]]:
    """The advisor's query as hidden fields of the compare form, so that the comparison prices
    the ticked offerings for the same scenario (its own ids, format and the row buttons left
    out)."""
    skip = {"ids", "format", "add", "remove"}
    return [(key, value) for key in query if key not in skip for value in query.getlist(key)]
