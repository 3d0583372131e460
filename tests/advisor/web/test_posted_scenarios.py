"""The advisor's form posts (advisor/posted.py): a scenario short enough for a URL is redirected to
it, a longer one (14 task rows already take 7 KB, past gunicorn's 4,094-byte request line, which
answered 414) is answered at once with the same page, up to the form's 100 rows."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.http import QueryDict

from advisor import forms
from advisor.posted import MAX_URL_BYTES
from advisor.presets import PRESETS

URL = "/advisor/"


def scenario_of(rows: int) -> dict:
    """The training + inference preset's two tasks, repeated to `rows` rows, each named apart."""
    tasks = PRESETS["training-inference"].scenario["tasks"]
    base = PRESETS["training-inference"].scenario
    return {
        **base,
        "tasks": [{**tasks[i % 2], "name": f"task {i + 1}"} for i in range(rows)],
    }


def form_data(scenario: dict, **extra: str) -> dict[str, list[str]]:
    query = forms.scenario_query(scenario)
    for key, value in extra.items():
        query[key] = value
    return dict(query.lists())


def ranked(response) -> list:
    return [row["rec"].offering_id for row in response.context["rows"]]


def test_a_short_scenario_is_redirected_to_its_url(client, seed, frozen):
    scenario = PRESETS["rendering-simulation"].scenario

    response = client.post(URL, form_data(scenario))

    assert response.status_code == 303
    url, fragment = response.url.split("#")
    assert fragment == "results"  # the browser lands on the answer
    query = QueryDict(url.split("?", 1)[1])
    assert dict(query.lists()) == form_data(scenario)
    assert "csrfmiddlewaretoken" not in response.url
    assert ranked(client.get(url))


def test_a_scenario_too_long_for_a_url_is_answered_with_the_same_page(client, seed, frozen):
    scenario = scenario_of(14)
    query = forms.scenario_query(scenario).urlencode()
    assert len(f"{URL}?{query}".encode()) > MAX_URL_BYTES > 4094 - len("GET  HTTP/1.1") - 100

    posted = client.post(URL, form_data(scenario))
    by_url = client.get(URL, QueryDict(query))  # the test client has no request-line limit

    assert posted.status_code == 200
    assert ranked(posted) and ranked(posted) == ranked(by_url)
    html = posted.content.decode()
    assert html.count('class="task-plan"') == 14
    assert 'method="post"' in html and 'name="csrfmiddlewaretoken"' in html


def test_the_form_posts_with_its_csrf_token(client, db):
    html = client.get(URL).content.decode()

    form = re.search(r'<form method="(\w+)"[^>]*id="scenario-form"', html)
    assert form is not None and form[1] == "post"
    assert 'name="csrfmiddlewaretoken"' in html


def test_the_largest_scenario_the_form_allows_is_answered(client, seed, frozen):
    scenario = scenario_of(forms.MAX_TASKS)
    data = form_data(scenario)
    assert sum(len(values) for values in data.values()) > 1000  # Django's default field limit

    response = client.post(URL, data)

    assert response.status_code == 200
    assert response.content.decode().count('class="task-plan"') == forms.MAX_TASKS


def test_the_field_limit_holds_the_largest_form(db):
    constraints = len(forms.ConstraintsForm(platforms=[]).fields)
    largest = forms.MAX_TASKS * len(forms.TaskForm.base_fields) + constraints + 10
    assert largest <= settings.DATA_UPLOAD_MAX_NUMBER_FIELDS


def test_adding_a_task_to_a_long_scenario_is_done_without_a_redirect(client, seed, frozen):
    response = client.post(URL, form_data(scenario_of(14), add="Add a task"))

    assert response.status_code == 200
    assert len(response.context["form"].tasks) == 15


def test_a_csrf_token_is_required_to_post(seed, frozen):
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)

    assert strict.post(URL, form_data(scenario_of(2))).status_code == 403


@pytest.mark.parametrize(
    ("kind", "content_type"),
    [("csv", "text/csv; charset=utf-8"), ("json", "application/json")],
)
@pytest.mark.parametrize("rows", [2, 14])
def test_the_downloads_of_a_posted_scenario_are_the_same_files(
    client, seed, frozen, rows, kind, content_type
):
    """Posted (2 rows: redirected to the page's URL; 14: answered at once), the CSV and the JSON
    download are byte for byte the files the page's own link for the scenario gives."""
    data = form_data(scenario_of(rows), format=kind)

    posted = client.post(URL, data, follow=True)
    linked = client.get(URL, form_data(scenario_of(rows), format=kind))

    assert posted.status_code == linked.status_code == 200
    assert posted["Content-Type"] == linked["Content-Type"] == content_type
    assert posted.get("Content-Disposition") == linked.get("Content-Disposition")
    assert posted.content == linked.content
    if kind == "csv":
        assert len(posted.content.decode("utf-8-sig").splitlines()) > 1  # a header and rows
    else:
        assert len(posted.json()["recommendations"]) > 0


def test_a_refused_scenario_is_summarised_above_the_form_beside_the_results_it_came_from(
    client, seed, frozen
):
    """An hour count past the billing month's 720 h is the engine's to refuse: the page answers
    at once (no redirect), names the field in plain words at the top with a link to it, and keeps
    the results the form was sent from."""
    scenario = PRESETS["rendering-simulation"].scenario
    before = forms.scenario_query(scenario)
    shown = ranked(client.get(URL, before))

    response = client.post(
        URL, form_data(scenario, **{"t0-hours_per_month": "1000", "previous": before.urlencode()})
    )

    assert response.status_code == 200
    assert response.context["error_summary"] == [
        {
            "where": "Task 1 · Hours per month",
            "message": "at most 720 h: the billing month is 30 days (720 h)",
            "anchor": "id_t0-hours_per_month",
        }
    ]
    html = response.content.decode()
    assert '<a href="#id_t0-hours_per_month">Task 1 · Hours per month: at most 720 h' in html
    assert html.index('id="form-errors"') < html.index('id="scenario-form"')
    assert "(0, 744]" not in html
    assert response.context["previous"] is True
    assert ranked(response) == shown
    # The form still shows what was typed, and sends the same earlier results along next time.
    assert response.context["form"].tasks[0]["hours_per_month"].value() == "1000"
    assert response.context["results_query"] == before.urlencode()


def test_a_refused_scenario_in_chinese_is_summarised_in_chinese(client, seed, frozen):
    scenario = PRESETS["rendering-simulation"].scenario
    response = client.post(
        URL,
        form_data(scenario, **{"t0-hours_per_month": "1000"}),
        headers={"accept-language": "zh-hans"},
    )
    assert response.status_code == 200
    [error] = response.context["error_summary"]
    assert error["message"] == "不超过 720 小时：计费月按 30 天（720 小时）计"
    assert error["where"] == "任务 1 · 每月小时数"
    assert response.context["outcome"] is None
