"""Catalogue pages: the comparison table, the offering explorer, and a platform's offerings, price
history and sources."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone

from advisor.snapshot import ALWAYS, Snapshots
from feeds.selectors import platform_freshness, platforms_freshness, price_confirmations

from . import charts, selectors
from . import home as home_facts
from .forms import SORT_CHOICES, ExplorerForm
from .models import Platform


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
    current = {o.pk: prices for o, prices in listed.offerings}
    picker = selectors.chart_order([o for o, _ in listed.offerings])
    asked = {int(v) for v in request.GET.getlist("chart") if v.isdigit()}
    # The reader's picks among the page's offerings, else the first of the picker's order.
    charted = [o for o in picker if o.pk in asked][: selectors.CHART_MAX] or picker[
        : selectors.CHART_OFFERINGS
    ]
    history = charts.price_history(charted, {o.pk: current[o.pk] for o in charted})
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
            "chart_picker": [(o, o in charted) for o in picker],
            "chart_max": selectors.CHART_MAX,
            "storage_prices": list(platform.storage_prices.all()),  # latest per kind
            "billing": selectors.platform_billing(platform),
            "priced": latest is not None,
            "history": history,
            "history_figure": charts.price_history_figure(history) if history else None,
            # When prices were last seen and by which feed or source; failing feeds (one query).
            "freshness": platform_freshness(platform, latest),
            # When and how each listed price was last confirmed (feed, staff, import): one query.
            "confirmations": price_confirmations(
                [price for _, prices in listed.offerings for price in prices]
            ),
        },
    )
