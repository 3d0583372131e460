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
from advisor.engine.plans import legs_of
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
    # #1 is an offering, or a plan whose first leg it names (a training leg on spot beside
    # the user-facing tasks on on-demand capacity, docs/advisor-rules.md, "Spot").
    first = rows[0].offering_id if rows else None
    assert rows and (f'data-offering="{first}"' in html or f'data-plan="{first} ' in html)
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
    [check] = response.context["article"]["checks"]
    assert check["verdict"] == "holds"
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
    response = client.get(URL, {"tasks": "1", "t0-kind": "fixed", "t0-vram_gib": "10"})
    scenario = response.context["form"].scenario()
    # No hours_per_month: a service without one is always on (the engine's default, 720 h).
    assert scenario["tasks"] == [
        {"kind": "fixed", "vram_gib": 10.0, "gpus": 1, "when": "always", "isolation": "hard"}
    ]
    assert scenario["constraints"] == {"currency": "CNY"}
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
    assert "must be from 1 to 10,000,000" in field_block(html, "t1-context_len")


def test_a_missing_model_is_reported_on_the_model_field(client, db):
    response = client.get(URL, {"tasks": "1", "t0-kind": "lora", "t0-model": ""})
    block = field_block(text(response), "t0-model")
    assert "Choose a model, paste its config.json or type its parameter count." in block


def test_parameters_typed_beside_a_preset_replace_it(client, seed, frozen):
    """The form starts with a preset chosen; typing 13 billion parameters beside it estimates
    13 billion, as the same task given by its parameters alone, instead of refusing both."""
    typed = {"tasks": "1", "t0-kind": "lora", "t0-model": "llama-3.1-8b", "t0-params_b": "13"}
    alone = {**typed, "t0-model": ""}
    both, only = client.get(URL, typed), client.get(URL, alone)
    assert not both.context["form"].has_errors
    assert both.context["form"].scenario()["tasks"][0]["params"] == 13e9
    assert "model" not in both.context["form"].scenario()["tasks"][0]
    assert [p["total_gib"] for p in both.context["plan"]] == [
        p["total_gib"] for p in only.context["plan"]
    ]
    assert "not both" not in text(both)


def test_nothing_fitting_shows_the_reason_and_still_the_memory_plan(client, seed, frozen):
    response = client.get(URL, {"tasks": "1", "t0-kind": "fixed", "t0-vram_gib": "500"})
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
    # One row per leg: a plan of several legs has a row for each, with its rank on each.
    assert [r["rank"] for r in rows] == [str(r.rank) for r in expected for _ in r.legs or (r,)]
    plans = [r for r in expected if r.legs]
    assert plans, "the preset's answer has a plan of several legs"
    for plan in plans:
        legs = [row for row in rows if row["rank"] == str(plan.rank)]
        assert [row["plan"] for row in legs] == ["plan"] * len(plan.legs)
        assert [row["leg"] for row in legs] == [str(n) for n in range(1, len(plan.legs) + 1)]
        assert [row["offering"] for row in legs] == [leg.offering_name for leg in plan.legs]
        assert sum(Decimal(row["cost"]) for row in legs) == cents(plan.cost)
    first, top = rows[0], next(r for r in expected if not r.legs)
    first = next(row for row in rows if row["rank"] == str(top.rank))
    assert first["platform"] == top.platform_name
    assert first["offering"] == top.offering_name
    assert first["monthly_cost"] == str(cents(top.monthly_cost))
    assert first["currency"] == "CNY"
    assert first["billing_unit"] == top.plan.unit
    assert first["placement"].startswith("rendering → instance 1, GPU 0")


def test_the_csv_link_carries_the_scenario(client, seed, frozen):
    response = get(client, PRESETS["rendering-simulation"].scenario)
    link = re.search(r'href="/advisor/\?([^"]+)" download data-download="csv"', text(response))[1]
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
    # 1 platforms for the form's choices, 2 the catalogue's version (service); the first request
    # at a version builds the engine inputs it keeps (advisor.snapshot):
    # 3-5 accelerators, their aliases, their MIG profiles
    # 6 platforms, 7 offerings, 8 their current prices, 9 the prices' sources
    # 10 exchange rates, 11 storage prices; the charts reuse them
    with django_assert_num_queries(11):
        response = client.get(URL, query)
    assert response.status_code == 200
    result = response.context["outcome"].report.advice
    assert (result.considered, result.fitting) == (n, n)
    # The next request reuses them: 1 the form's platforms, 2 the catalogue's version.
    with django_assert_num_queries(2):
        again = client.get(URL, query)
    assert again.context["outcome"].report.advice.fitting == n


# ------------------------------------------------------------------ the form: schedule and jobs


@pytest.mark.parametrize("name", ["hours_per_month", "jobs_per_month"])
@pytest.mark.parametrize("value", ["0", "-5"])
def test_hours_or_jobs_per_month_of_zero_or_less_is_an_error_naming_the_field(
    client, db, name, value
):
    query = {"tasks": "1", "t0-kind": "lora", "t0-tokens_b": "1", f"t0-{name}": value}
    response = client.get(URL, query)
    block = field_block(text(response), f"t0-{name}")
    label = {"hours_per_month": "Hours per month", "jobs_per_month": "Jobs per month"}[name]
    assert "has-error" in block and f"{label} must be greater than 0." in block
    assert response.context["outcome"] is None


def test_blank_hours_and_jobs_are_left_out_and_given_ones_are_passed_on(db):
    def task(**fields):
        data = QueryDict(mutable=True)
        data.update({"tasks": "1", **{f"t0-{k}": v for k, v in fields.items()}})
        form = ScenarioForm(data, platforms=[])
        assert form.is_valid()
        return form.scenario()["tasks"][0]

    blank = task(kind="lora", tokens_b="1")
    assert "hours_per_month" not in blank and "jobs_per_month" not in blank
    given = task(kind="lora", tokens_b="1", hours_per_month="8", jobs_per_month="4")
    assert (given["hours_per_month"], given["jobs_per_month"]) == (8.0, 4.0)
    # Jobs per month belong to the training fields (vocab.FIELD_GROUPS): not sent for inference.
    served = task(kind="inference", hours_per_month="300", jobs_per_month="4")
    assert served["hours_per_month"] == 300.0 and "jobs_per_month" not in served


def test_jobs_per_month_is_shown_with_the_training_fields_only(client, db):
    html = text(client.get(URL))
    groups = re.findall(
        r'<fieldset class="group" data-kinds="([^"]*)">(.*?)</fieldset>', html, re.S
    )
    [kinds] = [k for k, body in groups if 'name="t0-jobs_per_month"' in body]
    assert kinds == "full_finetune lora qlora"
    [tokens] = [k for k, body in groups if 'name="t0-tokens_b"' in body]
    assert tokens == kinds
    hours = field_block(html, "t0-hours_per_month")
    assert 'value="' not in hours.split("<input", 1)[1].split(">", 1)[0]  # blank by default
    assert "always on" in hours


# ------------------------------------------------------- stale prices, the same scenario everywhere


def stale_rows(response):
    return [r["rec"] for r in response.context["rows"] if r["rec"].stale]


def row_html(html: str, rec) -> str:
    """The table's row of recommendation `rec` (by its rank: a plan's legs may share offerings)."""
    match = re.search(rf'<tr [^>]*data-rank="{rec.rank}">.*?</tr>', html, re.S)
    assert match, f"no row for #{rec.rank}"
    return match[0]


BLANK = {"tasks": [{}]}  # the form as a browser submits it untouched: every field at its default


def test_a_blank_form_the_engine_and_the_api_rank_the_same_stale_prices_included(
    client, seed, frozen
):
    """The default task (LoRA of Llama 3.1 8B, no tokens: a service, always on) from an untouched
    form, from the API's shortest body with the form's one different default (full
    recomputation, as the common trainers run) and from the service: one ranking, stale prices
    in it."""
    response = get(client, BLANK)
    page = response.context["outcome"].report.advice
    shortest = {
        "tasks": [{"kind": "lora", "model": "llama-3.1-8b", "activation_checkpointing": "full"}]
    }
    assert parse_scenario(response.context["form"].scenario()) == parse_scenario(shortest)
    assert page == advise_scenario(shortest).advice
    api = client.post("/api/v1/advise/", shortest, content_type="application/json")
    assert api.status_code == 200, api.content
    assert [r["offering_id"] for r in api.json()["recommendations"]] == [
        r.offering_id for r in page.recommendations
    ]
    stale = stale_rows(response)
    assert stale, "the seed's May prices are stale on 2026-11-20 and still ranked"
    html = text(response)
    for rec in stale:
        assert rec.price_age_days > 30
        assert f"stale: {rec.price_age_days} days old" in row_html(html, rec)
    fresh = next(r["rec"] for r in response.context["rows"] if not r["rec"].stale)
    assert "data-stale" not in row_html(html, fresh)


# Presets whose shown rows include a stale price on the seed (the development preset's first
# twenty are all fresh since the global clouds' catalogs joined the seed).
@pytest.mark.parametrize("slug", ["rendering-simulation", "4090-lora-sdxl"])
def test_presets_include_stale_prices_and_fresh_only_leaves_them_out(client, seed, frozen, slug):
    scenario = PRESETS[slug].scenario
    assert scenario["constraints"] == {"currency": "CNY"}
    response = get(client, scenario, preset=slug)
    stale = stale_rows(response)
    assert stale
    assert f"stale: {stale[0].price_age_days} days old" in row_html(text(response), stale[0])
    ticked = get(client, scenario, preset=slug, fresh_only="on")
    assert ticked.context["form"].scenario()["constraints"]["fresh_only"] is True
    ids = {r["rec"].offering_id for r in ticked.context["rows"]}
    assert ids and not stale_rows(ticked)
    # The offerings priced stale (a plan's stale legs among them) are left out with fresh_only.
    assert any(leg.stale for r in stale for leg in legs_of(r))
    assert not any(leg.stale for row in ticked.context["rows"] for leg in legs_of(row["rec"]))
    assert "data-stale" not in text(ticked)


def test_the_training_preset_stale_leader_is_left_out_with_fresh_only(client, seed, frozen):
    """On the article's four platforms, 智星云's A100 80G × 8 NVLink machine at 28,000 CNY/month
    (quoted 2026-05-26, 178 days before) leads the mixed training preset, as the article
    recommends: the RTX 4090 48G × 8 at 12,000 has no peer-to-peer between its GeForce cards, so
    the night fine-tune's ZeRO-3 traffic crawls through host memory (docs/time-model.md) and
    takes over twice as long. With fresh prices only no 8-GPU machine there runs it (every one's
    price is from May; the global clouds' 2026-10 prices are outside the four): the fine-tune
    goes over eight single-A100 instances of 矩池云 (docs/advisor-rules.md, "Placement"), which
    state no network between them, so the answer says it assumes 10 Gb/s Ethernet; 趋动云, which
    has no sourced price, is named as unpriced."""
    preset = PRESETS["training-inference"].scenario
    article = ["zhixingyun", "hengyuanyun", "matpool", "virtaicloud"]
    scenario = {**preset, "constraints": {**preset["constraints"], "platforms": article}}
    response = get(client, scenario)
    top = response.context["rows"][0]["rec"]
    assert (top.offering_name, top.stale, top.price_age_days) == (
        "A100 80G × 8 bare metal (NVLink)",
        True,
        178,
    )
    html = row_html(text(response), top)
    assert "stale: 178 days old" in html and "28,000.00" in html
    ticked = get(client, scenario, fresh_only="on")
    assert top.offering_id not in [r["rec"].offering_id for r in ticked.context["rows"]]
    assert not ticked.context["outcome"].no_fit
    spread = ticked.context["rows"][0]["rec"]
    assert (spread.platform, spread.instances, spread.gpus_per_instance) == ("matpool", 8, 1)
    assert "ethernet at 10 Gb/s per instance is assumed" in " ".join(
        w.english() for w in spread.warnings
    )
    unpriced = ticked.context["outcome"].unpriced
    assert "趋动云" in unpriced and "智星云" in unpriced
    assert "data-unpriced-platforms" in text(ticked)


# ------------------------------------------------------------- results: cost, ties, regions, CSV


def price(offering, source, amount, unit="hour", days=2):
    services.price_observation_create(
        offering=offering,
        unit=unit,
        amount=Decimal(amount),
        currency="CNY",
        source=source,
        observed_at=NOW - timedelta(days=days),
    )


@pytest.fixture
def close_race(platform, accelerator, source, frozen):
    """Three 4090s always on: 1.88, 1.90 (1.1 % dearer: tied) and 2.50 CNY an hour; the 1.90 one
    sold in two regions at the same price."""
    offerings = {}
    for name, amount, region in (
        ("cheap", "1.88", ""),
        ("close", "1.90", "cn-north"),
        ("close", "1.90", "cn-east"),
        ("dear", "2.50", ""),
    ):
        offering = make_offering(platform, accelerator, source, name=name, region=region)
        price(offering, source, amount)
        offerings.setdefault(name, offering)
    return offerings


FIXED_4 = {"tasks": "1", "t0-kind": "fixed", "t0-vram_gib": "4", "objective": "cost"}


def test_ranks_after_the_first_say_how_they_compare_and_ties_are_marked(client, close_race):
    """720 h: 1,353.60 (#1), 1,368.00 (#2: +14.40, within 2 %: tied), 1,800.00 (#3: +446.40)."""
    response = client.get(URL, FIXED_4)
    html = text(response)
    recs = [r["rec"] for r in response.context["rows"]]
    assert [r.offering_name for r in recs] == ["cheap", "close", "dear"]
    assert [r.cost for r in recs] == [Decimal("1353.60"), Decimal("1368.00"), Decimal("1800.00")]
    first, second, third = (row_html(html, r) for r in recs)
    assert "data-versus" not in first and "data-tied" not in first
    assert "vs #1: +14.40 CNY</small>" in second and "tied with #1" in second
    assert "vs #1: +446.40 CNY</small>" in third and "data-tied" not in third
    assert "<strong data-cost>1,368.00</strong>" in second
    # The two regions of the 1.90 offer are one row that lists both.
    assert len(recs) == 3 and "Regions: cn-east, cn-north" in second
    assert "per month" in re.search(r"<th[^>]*data-cost-basis=\"month\".*?</th>", html, re.S)[0]
    assert response.context["rows"][1]["reasons"][1].startswith("Tied with #1")


def test_the_csv_has_the_cost_its_basis_and_the_comparison_to_the_first(client, close_race):
    response = client.get(URL, {**FIXED_4, "format": "csv"})
    rows = list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert [r["cost"] for r in rows] == ["1353.60", "1368.00", "1800.00"]
    assert {r["cost_basis"] for r in rows} == {"month"} and {r["months"] for r in rows} == {"1"}
    assert [r["monthly_cost"] for r in rows] == ["1353.60", "1368.00", "1800.00"]
    assert [r["cost_vs_first"] for r in rows] == ["", "14.40", "446.40"]
    assert [r["tied_with_first"] for r in rows] == ["", "yes", "no"]
    assert [r["time_vs_first_hours"] for r in rows] == ["", "", ""]
    assert [r["regions"] for r in rows] == ["", "cn-east; cn-north", ""]
    assert {r["storage_cost"] for r in rows} == {""} and {r["storage_assumed"] for r in rows} == {
        "no"
    }
    assert {r["job_cost"] for r in rows} == {""}


def test_interruptible_capacity_is_offered_to_user_facing_services_only_when_allowed(
    client, platform, accelerator, source, frozen
):
    """The spot choice: blank (services kept off spot), `on` (allowed), `off` (never)."""
    spot = make_offering(platform, accelerator, source, name="spot", interruptible=True)
    price(spot, source, "0.99")
    steady = make_offering(platform, accelerator, source, name="steady")
    price(steady, source, "1.88")
    names = [r["rec"].offering_name for r in client.get(URL, FIXED_4).context["rows"]]
    assert names == ["steady"]
    allowed = client.get(URL, {**FIXED_4, "allow_interruptible": "on"})
    assert [r["rec"].offering_name for r in allowed.context["rows"]] == ["spot", "steady"]
    assert allowed.context["form"].scenario()["constraints"]["allow_interruptible"] is True
    never = client.get(URL, {**FIXED_4, "allow_interruptible": "off"})
    assert [r["rec"].offering_name for r in never.context["rows"]] == ["steady"]
    assert never.context["form"].scenario()["constraints"]["allow_interruptible"] is False


def test_storage_is_in_the_cost_and_an_assumed_price_is_marked(client, seed, frozen):
    """200 GB: AutoDL's data disk is 0.0066 CNY/GB/day = 39.60 a month, on its L20 48GB at 2.88
    CNY/h (AutoDL private deployment notes, 2026-09-16), its cheapest 48 GB card that runs CUDA
    code (its MTT S4000 runs it only through a port, not allowed here); 算家云 lists no storage
    price, so the median of the platforms that do is assumed and marked."""
    scenario = PRESETS["rendering-simulation"].scenario
    response = get(client, {**scenario, "constraints": {"currency": "CNY", "storage_gb": 200}})
    html = text(response)
    recs = [r["rec"] for r in response.context["rows"]]
    autodl = next(r for r in recs if r.platform == "autodl")
    assert (autodl.platform_name, autodl.offering_name) == ("AutoDL", "L20 48GB")
    assert (autodl.storage_cost, autodl.storage_assumed) == (Decimal("39.60"), False)
    assert autodl.cost == Decimal("3495.60")  # 2 instances × 600 h × 2.88 + 39.60
    own = row_html(html, autodl)
    assert "incl. storage 39.60" in own and "data-storage-assumed" not in own
    assumed = next(r for r in recs if r.platform == "suanjiayun" and r.storage_assumed)
    assert "data-storage-assumed" in row_html(html, assumed)


def test_a_one_off_job_is_costed_for_the_whole_run_with_its_busiest_month(client, seed, frozen):
    """A LoRA job with tokens and a 10-hour nightly window: the cost is the whole run, over the
    months it spans; the busiest month stays visible."""
    query = {
        "tasks": "1",
        "t0-kind": "lora",
        "t0-model": "llama-3.1-8b",
        "t0-tokens_b": "0.5",
        "t0-hours_per_month": "10",
        "t0-master_weights": "on",
        "objective": "cost",
    }
    response = client.get(URL, query)
    html = text(response)
    advice = response.context["advice"]
    assert advice.cost_basis.value == "job"
    header = re.search(r"<th[^>]*data-cost-basis=\"job\".*?</th>", html, re.S)[0]
    assert "for the whole job" in header and ">Job cost<" not in html
    for r in response.context["rows"]:
        rec = r["rec"]
        cell = row_html(html, rec)
        assert f"busiest month: {r['monthly']}" in cell
        assert r["cost"] == f"{cents(rec.cost):,}"
        if rec.months > 1:
            assert f"spans {rec.months} months" in cell
    assert any(r["rec"].months > 1 for r in response.context["rows"])
    rows = list(csv.DictReader(io.StringIO(get_csv(client, query))))
    assert {r["cost_basis"] for r in rows} == {"job"}
    assert rows[0]["months"] == str(advice.recommendations[0].months)


def get_csv(client, query) -> str:
    return client.get(URL, {**query, "format": "csv"}).content.decode("utf-8-sig")


def test_the_4090_premise_rounds_as_the_memory_plan_does(client, seed, frozen):
    """15.656 GiB and 11.868 GiB: 15.66 and 11.87 in the memory plan, and in the premise check
    (which cut the digits off, 15.65 + 11.86, before)."""
    response = get(client, PRESETS["4090-lora-sdxl"].scenario, preset="4090-lora-sdxl")
    html = text(response)
    [check] = response.context["article"]["checks"]
    assert check["lines"][0] == ("15.66 GiB (7B LoRA) + 11.87 GiB (SDXL inference) = 27.52 GiB")
    assert "<strong data-total>15.66</strong>" in html
    assert "<strong data-total>11.87</strong>" in html


def test_each_recommendation_shows_what_its_inference_task_serves_and_its_cost_per_token(
    client, seed, frozen
):
    """The training + inference preset: the Serving column names the inference task's expected
    output tokens/s with its range, the sequences that fit, the time to first token and the
    cost per million output tokens with its range; the CSV carries the same figures."""
    scenario = PRESETS["training-inference"].scenario
    response = get(client, scenario)
    html = text(response)
    inference = next(t["name"] for t in scenario["tasks"] if t["kind"] == "inference")
    assert f'data-serving-task="{inference}"' in html and "data-cost-per-million" in html
    [first] = response.context["rows"][:1]
    [serving] = first["serving"]
    assert serving["task"] == inference and serving["cost"] is not None
    assert f"{serving['aggregate']} tok/s at {serving['concurrency']} seqs" in html
    rows = list(csv.DictReader(io.StringIO(text(get(client, scenario, format="csv")))))
    assert rows[0]["serving"].startswith(
        f"{inference}: about {serving['aggregate']} output tokens/s"
    )
    # The expected rate and cost come with the range of the engine's published runs.
    assert "data-aggregate-range" in html and "data-cost-range" in html
    assert serving["cost_low"] is not None and serving["cost_high"] is not None


def test_an_inference_task_on_named_hardware_shows_its_serving_figures(client, seed, frozen):
    scenario = {
        "tasks": [
            {
                "name": "chat",
                "kind": "inference",
                "model": "llama-3.1-8b",
                "on": {"accelerator": "rtx-4090-24gb"},
            }
        ]
    }
    response = get(client, scenario)
    [task] = response.context["plan"]
    assert task["serving"] is not None
    assert "Serving on this hardware: about" in text(response)
    assert "Decode alone: at most" in text(response)


def test_the_untouched_form_sizes_an_8b_lora_as_published_runs_do(client, seed, frozen):
    """The form's default task, Llama 3.1 8B LoRA at 2,048 tokens with the recomputation the
    common trainers enable by default: 16-22 GiB per GPU, as torchtune's README (16.2 GiB) and
    Unsloth's Llama 3 blog (about 16 GB) report, so a 24 GB card is enough and is offered."""
    response = get(client, BLANK)
    estimate = response.context["outcome"].report.estimate
    [task] = estimate.tasks
    assert 16 * 2**30 <= task.plan.per_gpu.total <= 22 * 2**30
    cards = {row["rec"].accelerator for row in response.context["rows"]}
    assert cards & {"rtx-4090-24gb", "rtx-3090-24gb", "rtx-4090d-24gb"}


def test_the_empty_task_row_is_kept_per_language_and_reads_in_each(client, seed):
    """The row the page clones to add a task (<template id="task-template">) is rendered once
    per language and kept (views.task_template): every request has the same row, with the
    placeholders the page's script replaces, in the reader's language."""
    from advisor import views

    views._TASK_ROWS.clear()
    pattern = re.compile(r'<template id="task-template">(.*?)</template>', re.S)
    english = [pattern.search(text(client.get(URL))).group(1) for _ in range(2)]
    assert english[0] == english[1]
    assert 'name="t__index__-kind"' in english[0] and "__number__" in english[0]
    assert "Precision" in english[0]
    chinese = pattern.search(text(client.get(URL, HTTP_ACCEPT_LANGUAGE="zh-hans"))).group(1)
    assert chinese != english[0] and 'name="t__index__-kind"' in chinese
    assert "精度" in chinese
    kept = {key for key in views._TASK_ROWS if key[1:] == ("template",)}
    assert kept == {("en", "template"), ("zh-hans", "template")}


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_kept_task_rows_are_the_rows_a_fresh_render_gives(client, db, language):
    """advisor.views.task_row keeps each rendered row by what it shows: asked in turn, with and
    without errors (a form error, an engine error), each page is the page rendered afresh."""
    from advisor import views

    queries = [
        {"tasks": "1", "t0-kind": "lora", "t0-seq_len": "0"},
        {"tasks": "2", "t0-kind": "full_finetune", "t0-precision": "int4", "t1-kind": "inference"},
        {"tasks": "2", "t0-kind": "full_finetune", "t0-precision": "bf16", "t1-kind": "inference"},
        {"tasks": "1", "t0-kind": "lora", "t0-seq_len": "512"},
        {},
    ]
    rows = re.compile(r'<div id="task-rows">.*?</div>\s*<template', re.S)

    def page(query):
        html = text(client.get(URL, query, HTTP_ACCEPT_LANGUAGE=language))
        return rows.search(html).group(0)

    fresh = []
    for query in queries:
        views._TASK_ROWS.clear()
        fresh.append(page(query))
    assert len(set(fresh)) == len(queries)  # the rows differ between the queries
    assert ("任务 <span data-number>" in fresh[0]) == (language == "zh-hans")
    for _ in range(2):
        assert [page(query) for query in queries] == fresh
    assert views._TASK_ROWS  # kept


def test_the_results_open_with_number_one_in_a_sentence_of_the_tables_figures(client, seed, frozen):
    response = get(client, PRESETS["rendering-simulation"].scenario)
    first = response.context["rows"][0]
    summary = response.context["summary"]
    assert summary.startswith(
        f"#1: {first['name']} ({first['gpus']}), {first['cost']} CNY per month"
    )
    # Why: the ranking's own reason, not the placement.
    assert "; why: Best of " in summary
    html = text(response)
    assert html.index("data-summary") < html.index('id="recs-heading"')


def test_the_form_takes_the_software_fields(client, platform, accelerator, source, frozen):
    """allow_ports (a checkbox), a fixed task's portable_code and an inference task's
    serving_engine reach the scenario as the contract writes them (README, "The scenario")."""
    make_offering(platform, accelerator, source, name="card")
    query = {**FIXED_4, "t0-portable_code": "on", "allow_ports": "on"}
    scenario = client.get(URL, query).context["form"].scenario()
    assert scenario["constraints"]["allow_ports"] is True
    assert scenario["tasks"][0]["portable_code"] is True
    served = {
        "tasks": "1",
        "t0-kind": "inference",
        "t0-model": "llama-3.1-8b",
        "t0-serving": "paged",
        "t0-serving_engine": "sglang",
        "t0-context_len": "4096",
        "t0-concurrent_sequences": "1",
    }
    scenario = client.get(URL, served).context["form"].scenario()
    assert scenario["tasks"][0]["serving_engine"] == "sglang"


def test_the_renting_filters_round_trip_through_the_form(db):
    """countries and regions are typed in one box each; delivery forms are ticked; the figures
    per GPU and the renter from abroad are fields of their own (README "The scenario")."""
    scenario = {
        "tasks": [{"kind": "fixed", "vram_gib": 10, "name": "render"}],
        "constraints": {
            "currency": "USD",
            "countries": ["US", "DE"],
            "regions": ["us-east-1", "eu-central-1"],
            "delivery_forms": ["bare_metal", "cloud_vm"],
            "min_vcpus_per_gpu": 8,
            "min_ram_gib_per_gpu": 32,
            "min_disk_gb_per_gpu": 100,
            "foreign_renter": True,
        },
        "objective": "cost",
    }
    query = scenario_query(scenario)
    assert query["countries"] == "US, DE" and query.getlist("delivery_forms") == [
        "bare_metal",
        "cloud_vm",
    ]
    form = ScenarioForm(query, platforms=platform_choices())
    assert form.is_valid(), form.constraints.errors
    assert parse_scenario(form.scenario()) == parse_scenario(scenario)


def test_a_bad_country_is_shown_on_its_field(client, db):
    scenario = {"tasks": [{"kind": "fixed", "vram_gib": 10, "name": "render"}]}
    response = get(client, scenario, countries="China")
    assert "two-letter country codes" in field_block(text(response), "countries")
