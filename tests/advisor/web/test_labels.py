"""Labels that match the numbers on the advisor page: platform names once, "top N of M" said,
Pareto only beside a time, storage in one unit per table."""

from __future__ import annotations

from decimal import Decimal
from types import SimpleNamespace

from django.http import QueryDict

from advisor import forms
from advisor.forms import scenario_query
from advisor.presets import PRESETS
from platforms.templatetags.catalogue import per_gb_month

URL = "/advisor/"


def get(client, scenario):
    return client.get(URL, QueryDict(scenario_query(scenario).urlencode()))


def test_a_platform_whose_english_name_holds_its_name_is_named_once(seed):
    labels = dict(forms.platform_choices())
    assert labels["openbayes"] == "OpenBayes (HyperAI)"
    assert not [label for label in labels.values() if "((" in label]


def test_the_table_says_it_shows_the_top_n_of_the_offerings_that_fit(client, seed, frozen):
    response = get(client, PRESETS["training-inference"].scenario)
    shown, fitting = len(response.context["rows"]), response.context["advice"].fitting
    assert shown < fitting
    assert f"The table shows the top {shown} of the {fitting}." in response.content.decode()


def test_pareto_is_marked_only_beside_a_time(client, seed, frozen):
    """Without training tokens nothing has a time: no row is on a cost-time front."""
    timed = get(client, PRESETS["training-inference"].scenario)
    assert any(r["rec"].pareto and r["rec"].time_hours is not None for r in timed.context["rows"])
    assert "data-pareto" in timed.content.decode()
    untimed = get(
        client,
        {"tasks": [{"kind": "inference", "model": "llama-3.1-8b", "hours_per_month": 200}]},
    )
    assert all(r["rec"].time_hours is None for r in untimed.context["rows"])
    # The engine's front is on cost alone here; the page does not call that "Pareto".
    assert any(r["rec"].pareto for r in untimed.context["rows"])
    assert "data-pareto" not in untimed.content.decode()


def test_storage_prices_are_shown_per_gb_month():
    """A month is 720 h as the advisor bills it; a TB is 1000 GB."""
    day = SimpleNamespace(unit="gb_day", amount=Decimal("0.01"))
    hour = SimpleNamespace(unit="gb_hour", amount=Decimal("0.0001"))
    tb = SimpleNamespace(unit="tb_month", amount=Decimal("100"))
    assert per_gb_month(day) == Decimal("0.30")
    assert per_gb_month(hour) == Decimal("0.072")
    assert per_gb_month(tb) == Decimal("0.1")
