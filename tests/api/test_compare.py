"""Two to four offerings side by side: the page /offerings/compare/ and the API
/api/v1/offerings/compare/, on the test catalogue (tests/api/conftest.py)."""

from __future__ import annotations

import json

import pytest

from tests.api.conftest import conforms

pytestmark = pytest.mark.usefixtures("frozen")

URL = "/api/v1/offerings/compare/"
NOTEBOOK = {
    "tasks": [{"name": "notebook", "kind": "fixed", "vram_gib": 30, "hours_per_month": 100}]
}


def test_the_api_gives_each_offering_its_prices_per_gpu_hour_storage_and_sources(
    anon_client, openapi, catalogue
):
    """The 4090 VM (1.88 an hour, one GPU) and the A100 x8 (60.00 an hour and 28,000 a month,
    eight GPUs): per GPU-hour 1.88, 60 ÷ 8 = 7.50 and 28,000 ÷ (720 × 8) = 4.8611."""
    vm, big = catalogue["4090"], catalogue["a100x8"]
    response = anon_client.get(URL, {"ids": [vm.pk, big.pk]})
    assert response.status_code == 200, response.json()
    conforms(openapi, "get", URL, response)
    body = response.json()
    assert body["currency"] == "CNY"
    first, second = body["offerings"]
    assert (first["id"], second["id"]) == (vm.pk, big.pk)
    assert [(p["unit"], p["per_gpu_hour"]) for p in first["prices"]] == [("hour", "1.8800")]
    assert [(p["unit"], p["per_gpu_hour"]) for p in second["prices"]] == [
        ("hour", "7.5000"),
        ("month", "4.8611"),
    ]
    assert second["cheapest_gpu_hour"] == "4.8611"
    assert first["storage"][0]["amount"] == "0.500000"  # the latest of the platform's two
    assert second["storage"] == []
    assert second["physically_exclusive"] is True and first["physically_exclusive"] is None
    assert first["source"]["kind"] == "manual" and first["scenario"] is None


def test_with_a_scenario_each_offering_says_whether_it_runs_it_and_at_what_cost(
    anon_client, catalogue
):
    """30 GiB does not fit a 24 GB 4090; on the A100 x8, 100 busy hours × 60 = 6,000 a month."""
    vm, big = catalogue["4090"], catalogue["a100x8"]
    response = anon_client.get(URL, {"ids": f"{vm.pk},{big.pk}", "scenario": json.dumps(NOTEBOOK)})
    assert response.status_code == 200, response.json()
    first, second = (o["scenario"] for o in response.json()["offerings"])
    assert first["fits"] is False and first["reason"]["code"] == "offering_on_platform"
    assert second["fits"] is True and second["cost"] == "6000.00"
    assert second["plan"]["unit"] == "hour" and second["placement"][0]["task"] == "notebook"


@pytest.mark.parametrize(
    ("ids", "field"),
    [(["1"], "ids"), (["1", "2", "3", "4", "5"], "ids"), (["x", "2"], "ids")],
)
def test_one_or_more_than_four_offerings_is_a_400_naming_ids(anon_client, catalogue, ids, field):
    response = anon_client.get(URL, {"ids": ids})
    assert response.status_code == 400
    assert any(key.startswith(field) for key in response.json()["error"]["fields"])


def test_an_offering_that_is_not_listed_is_a_400_naming_it(anon_client, catalogue):
    vm = catalogue["4090"]
    response = anon_client.get(URL, {"ids": [vm.pk, 999999]})
    assert response.status_code == 400
    assert "999999" in response.json()["error"]["fields"]["ids"][0]


def test_the_page_shows_the_offerings_side_by_side_at_a_shareable_address(client, catalogue):
    vm, big = catalogue["4090"], catalogue["a100x8"]
    response = client.get(f"/offerings/compare/?ids={vm.pk}&ids={big.pk}")
    assert response.status_code == 200
    html = response.content.decode()
    assert f'data-offering="{vm.pk}"' in html and f'data-offering="{big.pk}"' in html
    assert "4.86 CNY per GPU-hour" in html and 'data-exclusive="unknown"' in html
    assert client.get(f"/offerings/compare/?ids={vm.pk}").status_code == 400


def test_the_page_prices_them_for_the_advisors_scenario(client, catalogue):
    """The advisor's results link here with their query: the same scenario, each offering's fit."""
    from advisor.forms import scenario_query

    vm, big = catalogue["4090"], catalogue["a100x8"]
    query = scenario_query(NOTEBOOK)
    query.setlist("ids", [str(vm.pk), str(big.pk)])
    response = client.get("/offerings/compare/", query)
    html = response.content.decode()
    assert 'data-fit="no"' in html and 'data-fit="yes"' in html
    assert "6,000.00" in html


def test_the_explorer_and_the_advisor_results_tick_offerings_to_compare(client, catalogue):
    explorer = client.get("/offerings/").content.decode()
    assert 'id="compare-form"' in explorer
    assert explorer.count('form="compare-form"') == 4  # the four listed offerings
    from advisor.forms import scenario_query

    page = client.get("/advisor/", scenario_query(NOTEBOOK))
    assert page.context["compare_fields"]
    assert 'id="compare-form"' in page.content.decode()


def test_the_scenarios_cost_is_labelled_by_what_it_covers_not_by_the_billing_unit(
    client, catalogue
):
    """A month of the scenario on the A100 ×8 costs 6,000.00 CNY: "per month", with its billing
    plan named apart (the page said "1,173.52 CNY per hour" of a month's cost)."""
    from advisor.forms import scenario_query

    vm, big = catalogue["4090"], catalogue["a100x8"]
    query = scenario_query(NOTEBOOK)
    query.setlist("ids", [str(vm.pk), str(big.pk)])
    html = client.get("/offerings/compare/", query).content.decode()
    assert "<strong data-scenario-cost>6,000.00 CNY per month</strong>" in html
    assert "billing plan: " in html
