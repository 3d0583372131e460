"""The offerings compared side by side (/offerings/compare/, the catalogue's page), with the
advisor's scenario when the query carries one: each offering's fit, time, cost and placement for
it. The advisor's view, since it reads the advisor's form and service; the catalogue's URL map
routes to it, so that the catalogue's views import no part of the advisor's edge but its snapshots
(docs/architecture.md)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext as _

from advisor import forms, results
from advisor.services import AdvisorError, scenario_on_offerings
from platforms import compare
from platforms.models import Currency
from wording import messages


def offering_compare(request: HttpRequest) -> HttpResponse:
    """Two to four offerings side by side (platforms/compare.py); with the advisor's scenario in
    the query (its form's fields, as the advisor's results link here), each one's fit, time, cost
    and placement for it."""
    currency = request.GET.get("currency") or Currency.CNY
    if currency not in Currency.values:
        currency = Currency.CNY
    try:
        ids = compare.parse_ids(request.GET.getlist("ids"))
        result = compare.compare_offerings(ids, currency, now=timezone.now())
    except compare.CompareError as error:
        return render(request, "platforms/compare.html", {"error": str(error)}, status=400)
    fits: dict[int | str, Any] = {}
    scenario_error = ""
    advisor_query = ""
    if forms.is_submitted(request.GET):
        form = forms.ScenarioForm(request.GET, platforms=forms.platform_choices())
        if form.is_valid():
            try:
                _scenario, fits = scenario_on_offerings(form.scenario(), ids)
            except AdvisorError as error:
                scenario_error = messages.render(error.detail)
        else:
            scenario_error = _("The scenario in the address is not valid; open it in the advisor.")
        query = request.GET.copy()
        query.pop("ids", None)
        advisor_query = query.urlencode()
    columns = [
        {
            "item": item,
            "fit": results.fit_view(fits.get(item.offering.pk)),
            # What names the column in a card (below 700 px the table stacks).
            "label": f"{item.offering.platform} · {item.offering.name_text}",
        }
        for item in result.offerings
    ]
    return render(
        request,
        "platforms/compare.html",
        {
            "comparison": result,
            "columns": columns,
            "currency": currency,
            "scenario_given": bool(advisor_query),
            "scenario_error": scenario_error,
            "advisor_query": advisor_query,
        },
    )
