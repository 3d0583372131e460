"""The advisor page: presets, query-string round trip, field errors, NoFit, CSV, query counts."""

from __future__ import annotations

import csv
import io
import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.http import QueryDict
from django.urls import reverse

from advisor.engine.billing import cents
from advisor.engine.scenario import parse_scenario
from advisor.forms import ScenarioForm, edited_query, platform_choices, scenario_query
from advisor.presets import PRESETS
from advisor.services import advise_scenario
from platforms import services
from tests.conftest import NOW, make_offering

URL = "/advisor/"


def get(client, scenario, **extra):
    return client.get(URL, QueryDict(scenario_query(scenario, **extra).urlencode()))


def field_block(html: str, name: str) -> str:
    """The `<div class="field ...">` that holds the input named `name`."""
    for block in re.findall(r'<div class="field[^"]*">.*?</div>', html, flags=re.S):
        if f'name="{name}"' in block:
            return block
    raise AssertionError(f"no field {name} on the page")


def text(response) -> str:
    return response.content.decode()


def test_the_advisor_url_is_named_and_linked_from_the_navigation(client, db):
    response = client.get(reverse("advisor:index"))
    assert response.status_code == 200
    assert f'href="{URL}"' in text(response)


def test_the_empty_page_shows_the_form_and_every_preset_but_no_results(client, db):
    response = client.get(URL)
    html = text(response)
    assert response.status_code == 200
    assert response.context["outcome"] is None
    for preset in PRESETS.values():
        assert f'data-preset="{preset.slug}"' in html
    assert 'name="t0-kind"' in html and 'id="results"' not in html
    assert "plotly.min.js" not in html  # only pages with charts load plotly


@pytest.mark.parametrize("slug", ["training-inference", "rendering-simulation", "dev-experiments"])
def test_a_preset_produces_ranked_recommendations_from_the_seed_catalogue(
    client, seed, frozen, slug
):
    preset = PRESETS[slug]
    response = get(client, preset.scenario, preset=slug)
    html = text(response)
    advice = advise_scenario(preset.scenario).advice
    assert advice is not None
    rows = [r["rec"] for r in response.context["rows"]]
    assert response.status_code == 200
    assert [r.offering_id for r in rows] == [r.offering_id for r in advice.recommendations]
    assert rows and f'data-offering="{rows[0].offering_id}"' in html
    assert html.count('class="task-plan"') == len(preset.scenario["tasks"])
    assert 'data-chart-json="figure-memory"' in html
    assert 'data-chart-json="figure-price-vram"' in html


def test_the_training_preset_has_times_so_the_cost_time_chart_is_drawn(client, seed, frozen):
    response = get(client, PRESETS["training-inference"].scenario, preset="training-inference")
    figures = response.context["figures"]
    assert figures["cost_time"] is not None and figures["break_even"] is not None
    assert 'id="figure-cost-time"' in text(response)


def test_the_70b_case_does_not_fit_and_the_page_says_why_with_the_arithmetic(client, seed, frozen):
    response = get(client, PRESETS["medical-70b"].scenario, preset="medical-70b")
    html = text(response)
    outcome = response.context["outcome"]
    assert response.status_code == 200
    assert outcome.report.advice is None and "None of" in outcome.no_fit
    assert "Nothing in the catalogue can run this scenario" in html
    # The memory plan is still there: 8-way ZeRO-3 of Llama 3.1 70B needs far more than 80 GB.
    total = outcome.report.estimate.tasks[0].per_gpu.total / 2**30
    assert total > 80
    assert f"{total:.2f}" in html
    # 70,553,706,496 params × 20 B = 1,411 GB, not the article's 140 GB.
    assert "1,411 GB" in html and "not 140 GB" in html
    assert "does not fit" in html
    assert "What would fit" in html and "QLoRA" in html


def test_the_4090_question_does_not_fit_24_gb_and_fits_48_gb(client, seed, frozen):
    response = get(client, PRESETS["4090-lora-sdxl"].scenario, preset="4090-lora-sdxl")
    [check] = response.context["outcome"].checks
    assert check["ok"] is True
    assert "both at once do not fit" in check["lines"][1]
    assert check["lines"][1].startswith("24 GB")
    assert "both at once fit" in check["lines"][2] and check["lines"][2].startswith("48 GB")
    assert response.context["rows"], "a 48 GB card or two cards still run it"


@pytest.mark.parametrize("slug", list(PRESETS))
def test_every_preset_round_trips_through_the_query_string(db, slug):
    """scenario JSON -> GET parameters -> form -> scenario JSON: the same scenario."""
    preset = PRESETS[slug]
    form = ScenarioForm(scenario_query(preset.scenario), platforms=platform_choices())
    assert form.is_valid(), [f.errors for f in form.tasks] + [form.constraints.errors]
    assert parse_scenario(form.scenario()) == parse_scenario(preset.scenario)


def test_the_page_gives_the_same_results_as_the_service_for_the_same_scenario(client, seed, frozen):
    scenario = PRESETS["4090-lora-sdxl"].scenario
    page = get(client, scenario).context["outcome"].report.advice
    assert page is not None and page == advise_scenario(scenario).advice


def test_a_short_hand_written_url_takes_the_defaults(client, seed, frozen):
    response = client.get(
        URL, {"tasks": "1", "t0-kind": "fixed", "t0-vram_gib": "10", "include_stale": "on"}
    )
    scenario = response.context["form"].scenario()
    assert scenario["tasks"] == [
        {
            "kind": "fixed",
            "vram_gib": 10.0,
            "gpus": 1,
            "when": "always",
            "hours_per_month": 720.0,
            "isolation": "hard",
        }
    ]
    assert response.context["rows"]


def test_a_form_error_is_shown_next_to_its_field(client, db):
    response = client.get(URL, {"tasks": "1", "t0-kind": "lora", "t0-seq_len": "0"})
    block = field_block(text(response), "t0-seq_len")
    assert response.status_code == 200
    assert "has-error" in block and "greater than or equal to 1" in block
    assert response.context["outcome"] is None


def test_an_engine_error_is_mapped_back_to_the_field_it_names(client, db):
    query = {
        "tasks": "2",
        "t0-kind": "full_finetune",
        "t0-precision": "int4",
        "t1-kind": "inference",
        "t1-context_len": "20000000",
    }
    response = client.get(URL, query)
    html = text(response)
    assert response.status_code == 200
    # The engine stops at the first bad field: tasks[0].precision.
    assert "Full fine-tune trains in fp32, bf16, fp16" in field_block(html, "t0-precision")
    query["t0-precision"] = "bf16"
    html = text(client.get(URL, query))
    assert "must be in [1, 10,000,000]" in field_block(html, "t1-context_len")


def test_a_missing_model_is_reported_on_the_model_field(client, db):
    response = client.get(URL, {"tasks": "1", "t0-kind": "lora", "t0-model": ""})
    assert "give a model preset or params" in field_block(text(response), "t0-model")


def test_giving_both_a_preset_and_params_is_reported_on_the_params_field(client, db):
    query = {"tasks": "1", "t0-kind": "lora", "t0-model": "mistral-7b", "t0-params_b": "7"}
    block = field_block(text(client.get(URL, query)), "t0-params_b")
    assert "not both" in block


def test_nothing_fitting_shows_the_reason_and_still_the_memory_plan(client, seed, frozen):
    response = client.get(
        URL, {"tasks": "1", "t0-kind": "fixed", "t0-vram_gib": "500", "include_stale": "on"}
    )
    html = text(response)
    assert response.status_code == 200
    assert "Nothing in the catalogue can run this scenario" in html
    assert "does not fit" in response.context["outcome"].no_fit
    assert "<strong data-total>500.00</strong>" in html
    assert response.context["rows"] == []


def test_the_csv_download_lists_every_recommendation(client, seed, frozen):
    scenario = PRESETS["rendering-simulation"].scenario
    response = get(client, scenario, format="csv")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="gpu-advisor-results.csv"'
    rows = list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))
    advice = advise_scenario(scenario).advice
    assert advice is not None
    expected = advice.recommendations
    assert [r["rank"] for r in rows] == [str(r.rank) for r in expected]
    first, top = rows[0], expected[0]
    assert first["platform"] == top.platform_name
    assert first["offering"] == top.offering_name
    assert first["monthly_cost"] == str(cents(top.monthly_cost))
    assert first["currency"] == "CNY"
    assert first["billing_unit"] == top.plan.unit
    assert first["placement"].startswith("rendering → instance 1, GPU 0")


def test_the_csv_link_carries_the_scenario(client, seed, frozen):
    response = get(client, PRESETS["rendering-simulation"].scenario)
    link = re.search(r'href="\?([^"]+)" download', text(response))[1]
    query = QueryDict(link.replace("&amp;", "&"))
    assert query["format"] == "csv" and query["t0-vram_gib"] == "40"


def test_the_add_button_adds_a_default_row_without_javascript(client, db):
    response = client.get(URL, {"tasks": "1", "t0-kind": "fixed", "t0-vram_gib": "8", "add": "1"})
    assert response.status_code == 302
    query = QueryDict(response["Location"].split("?", 1)[1])
    assert query["tasks"] == "2" and query["t0-vram_gib"] == "8"
    assert query["t1-kind"] == "lora" and query["t1-master_weights"] == "on"
    assert "add" not in query


def test_the_remove_button_drops_that_row_and_renumbers_the_rest(client, db):
    data = QueryDict(mutable=True)
    data.update({"tasks": "3", "remove": "1", "t0-name": "a", "t1-name": "b", "t2-name": "c"})
    query = edited_query(data)
    assert query["tasks"] == "2"
    assert (query["t0-name"], query["t1-name"]) == ("a", "c")
    assert "t2-name" not in query and "remove" not in query


def test_the_last_row_cannot_be_removed(db):
    query = edited_query(QueryDict("tasks=1&remove=0&t0-name=a"))
    assert query["tasks"] == "1" and query["t0-name"] == "a"


def test_a_silly_task_count_is_kept_within_bounds(client, db):
    response = client.get(URL, {"tasks": "100000"})
    assert len(response.context["form"].tasks) == 100
    response = client.get(URL, {"tasks": "many"})
    assert len(response.context["form"].tasks) == 1


def add_offerings(platform, accelerator, source, n: int) -> None:
    for i in range(n):
        offering = make_offering(platform, accelerator, source, name=f"o{i}")
        for unit, amount in (("hour", "1.88"), ("month", "1052")):
            services.price_observation_create(
                offering=offering,
                unit=unit,
                amount=Decimal(amount),
                currency="CNY",
                source=source,
                observed_at=NOW - timedelta(days=2),
            )


@pytest.mark.parametrize("n", [1, 50])
def test_the_advisor_page_query_count_does_not_grow_with_the_catalogue(
    client, platform, accelerator, source, frozen, n, django_assert_num_queries
):
    add_offerings(platform, accelerator, source, n)
    query = {"tasks": "1", "t0-kind": "fixed", "t0-vram_gib": "4"}
    # 1 platforms for the form's choices
    # 2-4 accelerators, their aliases, their MIG profiles (service)
    # 5 platforms, 6 offerings, 7 their current prices, 8 the prices' sources (service)
    # 9 exchange rates (service), 10 storage prices (service); the charts reuse them
    with django_assert_num_queries(10):
        response = client.get(URL, query)
    assert response.status_code == 200
    result = response.context["outcome"].report.advice
    assert (result.considered, result.fitting) == (n, n)
