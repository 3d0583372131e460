"""Catalogue pages: the comparison table and a platform's offerings, prices and sources."""

from __future__ import annotations

from django.http import Http404
from django.shortcuts import render

from . import selectors
from .models import Platform


def comparison(request):
    all_platforms = list(
        Platform.objects.order_by("name_en", "name").values("slug", "name", "name_en")
    )
    chosen = [s for s in request.GET.getlist("platforms") if s]
    platforms = list(selectors.platforms_with_facts(chosen or None))
    rows = selectors.comparison_table(platforms)
    return render(
        request,
        "platforms/comparison.html",
        {
            "all_platforms": all_platforms,
            "chosen": set(chosen),
            "platforms": platforms,
            "rows": rows,
            "sources": selectors.comparison_sources(rows),
        },
    )


def platform_detail(request, slug: str):
    try:
        platform = selectors.platform_detail(slug)
    except Platform.DoesNotExist:
        raise Http404("No such platform.") from None
    offerings = [
        (offering, selectors.current_prices_by_unit(offering))
        for offering in platform.catalog_offerings
    ]
    latest_storage = {}
    for price in platform.storage_prices.all():
        latest_storage.setdefault(price.kind, price)
    return render(
        request,
        "platforms/detail.html",
        {
            "platform": platform,
            "offerings": offerings,
            "storage_prices": list(latest_storage.values()),
        },
    )
