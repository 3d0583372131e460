"""The advisor page of a saved scenario (GET /s/<key>/): the page's own view, run on the saved
scenario's query. Apart from advisor/sharing.py, which the page's view imports for its short link
and download, so that neither imports the other back (docs/architecture.md)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404

from advisor import forms, views
from advisor.models import SavedScenario


def show(request: HttpRequest, key: str) -> HttpResponse:
    """The advisor page of a saved scenario: its form filled, its results, its short link."""
    saved = get_object_or_404(SavedScenario, key=key)
    query = forms.scenario_query(saved.scenario, preset=saved.preset)
    if request.GET.get("format") in ("csv", "json"):
        query["format"] = request.GET["format"]
    request.GET = query  # type: ignore[assignment]  # the page reads the saved scenario's query
    request.saved_scenario = saved  # type: ignore[attr-defined]
    return views.index(request)
