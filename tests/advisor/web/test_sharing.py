"""Scenarios people keep and share: short links (/s/<key>/), one link per scenario, a user's list,
a 100-task scenario, the API request and the JSON download beside the CSV, "Explain #1 against
#2", and a `tasks` value the form had to change saying so."""

from __future__ import annotations

import json
import re

import pytest
from django.contrib.auth.models import User
from django.http import QueryDict
from django.test import Client
from django.urls import reverse

from advisor.forms import scenario_query
from advisor.models import KEY_LENGTH, SavedScenario, ScenarioBookmark
from advisor.presets import PRESETS
from advisor.sharing import canonical_json, content_hash, short_key

SAVE = "/s/"
MIXED = PRESETS["training-inference"]


def preset_query(preset=MIXED) -> QueryDict:
    return scenario_query(preset.translated_scenario(), preset=preset.slug)


def save_form(client, query: QueryDict):
    """POST the advisor form's fields to /s/, as a browser would."""
    return client.post(SAVE, query)


def key_of(response) -> str:
    assert response.status_code == 303, response.content[:500]
    # At its results, where the link to copy is.
    match = re.fullmatch(r"/s/([a-z2-7]+)/#results", response["Location"])
    assert match, response["Location"]
    return match[1]


def test_saving_a_scenario_gives_a_short_link_that_shows_its_results(client, seed, frozen):
    query = preset_query()
    page = client.get("/advisor/", query)
    key = key_of(save_form(client, query))
    assert len(key) == KEY_LENGTH
    shown = client.get(f"/s/{key}/")
    assert shown.status_code == 200
    # The same ranking as the long address, and the link on the page.
    ranked = [r.offering_id for r in shown.context["advice"].recommendations]
    assert ranked == [r.offering_id for r in page.context["advice"].recommendations]
    html = shown.content.decode()
    assert f'value="http://testserver/s/{key}/"' in html
    assert 'id="short-link"' in html
    # The preset came along: its article's claims are checked on the short link's page too.
    assert shown.context["active_preset"] == MIXED


def test_the_same_scenario_gets_the_same_link_however_it_is_spelled(client, seed, frozen):
    query = preset_query()
    first = key_of(save_form(client, query))
    again = key_of(save_form(client, query))
    # The scenario's JSON with its keys in another order and the preset field apart.
    scenario = MIXED.translated_scenario()
    reordered = json.dumps(dict(reversed(list(scenario.items()))))
    as_json = key_of(client.post(SAVE, {"scenario": reordered, "preset": MIXED.slug}))
    assert first == again == as_json
    assert SavedScenario.objects.count() == 1
    saved = SavedScenario.objects.get()
    assert saved.digest == content_hash(saved.scenario, saved.preset)
    assert saved.key == short_key(saved.digest)
    # The hash is of the canonical JSON: sorted keys, no spaces.
    assert canonical_json({"b": 1, "a": [1, 2]}) == '{"preset":"","scenario":{"a":[1,2],"b":1}}'


def test_another_scenario_gets_another_link(client, seed, frozen):
    one = key_of(save_form(client, preset_query()))
    other = key_of(save_form(client, preset_query(PRESETS["dev-experiments"])))
    assert one != other and SavedScenario.objects.count() == 2


def test_a_clash_of_short_ids_gives_the_newer_scenario_a_longer_one(client, seed, frozen):
    query = preset_query()
    scenario = MIXED.translated_scenario()
    form_key = key_of(save_form(client, query))
    saved = SavedScenario.objects.get(key=form_key)
    # Make the stored row look like another scenario whose hash starts the same way.
    SavedScenario.objects.filter(pk=saved.pk).update(digest="0" * 64)
    key = key_of(client.post(SAVE, {"scenario": json.dumps(scenario), "preset": MIXED.slug}))
    assert key.startswith(form_key) and len(key) == KEY_LENGTH + 2
    assert client.get(f"/s/{key}/").status_code == 200


def test_a_hundred_task_scenario_is_saved_and_shown_from_its_short_link(client, seed, frozen):
    """The engine's maximum (advisor.engine.scenario.MAX_TASKS = 100): the long address would be
    about 11 KB, past a production server's 4 KB request line; the short one is a few bytes."""
    task = {"name": "t", "kind": "fixed", "vram_gib": 1, "hours_per_month": 10, "when": "burst"}
    scenario = {"tasks": [{**task, "name": f"render {i}"} for i in range(100)]}
    long_address = "/advisor/?" + scenario_query(scenario).urlencode()
    assert len(long_address) > 4096
    key = key_of(client.post(SAVE, {"scenario": json.dumps(scenario)}))
    assert len(f"/s/{key}/") < 20
    response = client.get(f"/s/{key}/")
    assert response.status_code == 200
    assert len(response.context["form"].tasks) == 100
    assert response.context["outcome"] is not None
    assert "render 99" in response.content.decode()


@pytest.mark.parametrize(
    ("data", "says"),
    [
        ({"scenario": "{not json"}, "not valid JSON"),
        ({"scenario": json.dumps({"tasks": "x"})}, "list of tasks"),
        ({}, "No scenario was sent"),
        ({"tasks": "1", "t0-kind": "lora", "t0-seq_len": "0"}, "greater than or equal to 1"),
    ],
)
def test_a_scenario_that_cannot_be_saved_is_a_400_saying_why(client, db, data, says):
    response = client.post(SAVE, data)
    assert response.status_code == 400
    assert says in response.content.decode()
    assert not SavedScenario.objects.exists()


def test_an_unknown_short_link_is_a_404(client, db):
    assert client.get("/s/aaaaaaaaaa/").status_code == 404


def test_a_logged_in_user_keeps_what_they_shared_in_their_list(seed, frozen):
    user = User.objects.create_user("renter", password="a-long-test-password")
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(user)
    # The Share button's form, with the page's CSRF token.
    page = browser.get("/advisor/", preset_query())
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.content.decode())[1]
    share = page.context["share"]
    response = browser.post(
        SAVE,
        {
            "scenario": share["scenario_json"],
            "preset": share["preset"],
            "csrfmiddlewaretoken": token,
        },
    )
    key = key_of(response)
    assert list(user.saved_scenarios.values_list("key", flat=True)) == [key]
    listed = browser.get(SAVE).content.decode()
    assert f'href="/s/{key}/"' in listed and "daytime inference" in listed
    # Without the token the scenario is saved (anyone may) but not added to the list.
    other = preset_query(PRESETS["dev-experiments"])
    other_key = key_of(browser.post(SAVE, other))
    assert SavedScenario.objects.filter(key=other_key).exists()
    assert not ScenarioBookmark.objects.filter(user=user, scenario__key=other_key).exists()


def test_the_list_asks_an_anonymous_visitor_to_log_in(client, db):
    response = client.get(SAVE)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("admin:login"))


def test_the_json_download_is_the_apis_answer(client, seed, frozen):
    query = preset_query()
    page = client.get("/advisor/", query)
    share = page.context["share"]
    assert share["json_url"].endswith("format=json") and share["csv_url"].endswith("format=csv")
    download = client.get(share["json_url"])
    assert download["Content-Disposition"] == 'attachment; filename="gpu-advisor-results.json"'
    api = client.post(
        "/api/v1/advise/", json.loads(share["api_json"]), content_type="application/json"
    )
    assert api.status_code == 200
    assert json.loads(download.content) == api.json()


def test_the_api_request_on_the_page_is_the_scenario_it_shows(client, seed, frozen):
    page = client.get("/advisor/", preset_query())
    share = page.context["share"]
    body = json.loads(share["api_json"])
    assert body == {**page.context["form"].scenario(), "preset": MIXED.slug}
    curl = share["api_curl"]
    assert curl.startswith("curl -X POST http://testserver/api/v1/advise/")
    quoted = curl.split(" -d ", 1)[1]
    assert quoted[0] == quoted[-1] == "'" and json.loads(quoted[1:-1]) == body
    html = page.content.decode()
    assert "Copy as API request" in html and "Download JSON" in html and "Download CSV" in html


def test_a_short_links_downloads_use_the_short_link(client, seed, frozen):
    key = key_of(save_form(client, preset_query()))
    share = client.get(f"/s/{key}/").context["share"]
    assert share["csv_url"] == f"/s/{key}/?format=csv"
    csv = client.get(share["csv_url"])
    assert csv["Content-Type"].startswith("text/csv")
    assert client.get(share["json_url"])["Content-Type"] == "application/json"


def test_explain_sets_the_first_against_the_next_ones(client, seed, frozen):
    response = client.get("/advisor/", preset_query())
    explain = response.context["explain"]
    recs = response.context["advice"].recommendations
    second = recs[1]
    first_sentence = explain["sentences"][0]
    assert first_sentence.startswith(f"Against #2, {second.platform_name} · {second.offering_name}")
    cost = second.vs_first.cost
    assert ("less" if cost > 0 else "more" if cost < 0 else "the same") in first_sentence
    assert len(explain["sentences"]) == min(3, len(recs) - 1)
    assert "data-explain" in response.content.decode()


@pytest.mark.parametrize(
    ("tasks", "rows", "says"),
    [
        (
            "101",
            100,
            "“tasks=101” asks for more than the 100 tasks a scenario may have: "
            "the first 100 are shown.",
        ),
        ("abc", 1, "“tasks=abc” is not a number of tasks: 1 is shown."),
        ("0", 1, "“tasks=0”: a scenario has at least one task, so 1 is shown."),
    ],
)
def test_a_tasks_value_the_form_changed_is_named(client, db, tasks, rows, says):
    response = client.get("/advisor/", {"tasks": tasks})
    assert len(response.context["form"].tasks) == rows
    assert response.context["tasks_notice"] == says
    assert says in response.content.decode().replace("&ldquo;", "“").replace("&rdquo;", "”")


def test_a_tasks_value_used_as_given_says_nothing(client, db):
    response = client.get("/advisor/", {"tasks": "2"})
    assert response.context["tasks_notice"] == ""
    assert "data-tasks-notice" not in response.content.decode()
