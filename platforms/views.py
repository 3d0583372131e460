"""Catalogue pages: the comparison table, the offering explorer, and a platform's offerings, price
history and sources."""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from advisor.snapshot import ALWAYS, Snapshots
from feeds.selectors import platform_freshness, platforms_freshness

from . import charts, compare, selectors
from . import home as home_facts
from .forms import SORT_CHOICES, ExplorerForm
from .models import Currency, Platform


def home(request: HttpRequest) -> HttpResponse:
    """What the product does, a way into the advisor with a model, a kind and hours, the seed
    article's scenarios and the cheapest card of each kind today. The platform comparison that
    was here has its own page: an old link that chose platforms is sent there."""
    from advisor import forms as advisor_forms
    from advisor import presets

    if "platforms" in request.GET:
        return redirect(f"{reverse('platforms:comparison')}?{request.GET.urlencode()}")
    return render(
        request,
        "platforms/home.html",
        {
            "start": advisor_forms.StartForm(),
            "presets": [
                (
                    p,
                    advisor_forms.scenario_query(
                        p.translated_scenario(), preset=p.slug
                    ).urlencode(),
                )
                for p in presets.PRESETS.values()
            ],
            "cheapest": home_facts.cheapest_cards(),
            "platform_count": Platform.objects.count(),
        },
    )


def comparison(request: HttpRequest) -> HttpResponse:
    all_platforms = list(
        Platform.objects.order_by("name_en", "name").values("slug", "name", "name_en")
    )
    chosen = [s for s in request.GET.getlist("platforms") if s]
    platforms = list(selectors.platforms_with_facts(chosen or None))
    rows = selectors.comparison_table(platforms)
    # When each platform's prices were last seen and by which feed or source, as on its page.
    freshness = platforms_freshness(platforms)
    return render(
        request,
        "platforms/comparison.html",
        {
            "all_platforms": all_platforms,
            "chosen": set(chosen),
            "platforms": platforms,
            "rows": rows,
            # Each row's cells beside their platform, whose name labels a cell in a card.
            "table": [(row, list(zip(row.cells, platforms, strict=True))) for row in rows],
            "sources": selectors.comparison_sources(rows),
            "price_freshness": [(freshness[p.pk], p) for p in platforms],
        },
    )


def offering_explorer(request: HttpRequest) -> HttpResponse:
    platforms, accelerators = selectors.explorer_choices()
    data = request.GET.copy()
    data.setdefault("sort", SORT_CHOICES[0][0])  # the order shown ticked when none is asked
    form = ExplorerForm(data, platforms=platforms, accelerators=accelerators)
    # The filters set, counted on the folded filters' button (the sort order and the display
    # currency are not filters).
    active = sum(
        1 for name in form.fields if name not in ("sort", "currency") and request.GET.get(name)
    )
    if not form.is_valid():
        # The filters come from a URL anyone can edit: say which value is wrong, list nothing.
        return render(
            request, "platforms/explorer.html", {"form": form, "active_filters": active}, status=400
        )
    result = selectors.explorer_page(form.cleaned_data, request.GET.get("page"))
    return render(
        request,
        "platforms/explorer.html",
        {
            "form": form,
            "page_obj": result.page,
            "rows": result.rows,
            "conversion": result.conversion,
            "active_filters": active,
        },
    )


def offering_compare(request: HttpRequest) -> HttpResponse:
    """Two to four offerings side by side (platforms/compare.py); with the advisor's scenario in
    the query (its form's fields, as the advisor's results link here), each one's fit, time, cost
    and placement for it."""
    # The advisor's form and service: imported here, the catalogue app does not need them else.
    from advisor import forms as advisor_forms
    from advisor import messages, results
    from advisor.services import AdvisorError, scenario_on_offerings

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
    if advisor_forms.is_submitted(request.GET):
        form = advisor_forms.ScenarioForm(request.GET, platforms=advisor_forms.platform_choices())
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


# The current price each platform page says was seen last, kept per catalogue version (a price seen
# again is a write, hence a new version): finding it reads the current prices of every listed
# offering of the platform (some 80 ms for a platform of 4,500 offerings at 100,000).
SEEN_LAST = Snapshots(size=64)


def platform_detail(request: HttpRequest, slug: str) -> HttpResponse:
    try:
        platform = selectors.platform_detail(slug)
    except Platform.DoesNotExist:
        raise Http404("No such platform.") from None
    listed = selectors.platform_offerings(platform)
    charted = listed.offerings[: selectors.CHART_OFFERINGS]
    history = charts.price_history([o for o, _ in charted], {o.pk: prices for o, prices in charted})
    latest = SEEN_LAST.get(
        ("seen last", platform.pk),
        timezone.now(),
        lambda: (selectors.latest_seen_price(platform), ALWAYS),
    )
    return render(
        request,
        "platforms/detail.html",
        {
            "platform": platform,
            "offerings": listed.offerings,
            "more_offerings": listed.more,
            "charted_offerings": len(charted),
            "storage_prices": list(platform.storage_prices.all()),  # latest per kind
            "billing": selectors.platform_billing(platform),
            "priced": latest is not None,
            "history": history,
            "history_figure": charts.price_history_figure(history) if history else None,
            # When prices were last seen and by which feed or source; failing feeds (one query).
            "freshness": platform_freshness(platform, latest),
        },
    )
