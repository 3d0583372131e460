"""Under /api/ every error has the API's one JSON shape, also those no DRF view raises: a body over
DATA_UPLOAD_MAX_MEMORY_SIZE (a 413, not Django's HTML 400), a path no route matches, a request
Django refuses before any view runs. Pages elsewhere keep Django's own answers."""

from __future__ import annotations

import json

import pytest
from django.conf import settings

BIG = 3 * 1024 * 1024  # over DATA_UPLOAD_MAX_MEMORY_SIZE, Django's 2.5 MB default


def big_scenario() -> str:
    body = json.dumps({"tasks": [{"name": "x" * BIG, "kind": "fixed", "vram_gib": 10}]})
    assert len(body) > settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return body


def error_of(response) -> dict:
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert set(body) == {"error"} and {"status", "code", "message", "fields"} <= set(body["error"])
    assert body["error"]["status"] == response.status_code
    return body["error"]


@pytest.mark.parametrize("path", ["/api/v1/advise/", "/api/v1/estimate/", "prices"])
def test_a_body_over_the_limit_is_a_413_in_the_api_shape(client, staff_client, offering, path):
    if path == "prices":  # a write: its caller is authenticated first
        client, path = staff_client, f"/api/v1/offerings/{offering.pk}/prices/"
    response = client.post(path, data=big_scenario(), content_type="application/json")

    error = error_of(response)
    assert response.status_code == 413
    assert error["code"] == "payload_too_large"
    limit = f"{settings.DATA_UPLOAD_MAX_MEMORY_SIZE:,}"
    assert (
        error["message"]
        == f"The request body is larger than {limit} bytes, the most the API reads."
    )


def test_the_413_speaks_the_callers_language(client, db):
    response = client.post(
        "/api/v1/advise/",
        data=big_scenario(),
        content_type="application/json",
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )

    assert response.status_code == 413
    assert "字节" in error_of(response)["message"]


@pytest.mark.parametrize("path", ["/api/", "/api/nope/", "/api/v2/platforms/", "/api/docs/x"])
def test_a_path_no_route_matches_is_a_404_in_the_api_shape(client, db, path):
    response = client.get(path)

    assert response.status_code == 404
    assert error_of(response)["code"] == "not_found"


def test_a_host_django_refuses_is_a_400_in_the_api_shape(client, db):
    response = client.get("/api/v1/platforms/", HTTP_HOST="evil.example")

    assert response.status_code == 400
    assert error_of(response)["code"] == "bad_request"


def test_too_many_query_fields_are_a_400_in_the_api_shape(client, db):
    query = "&".join(f"f{i}=1" for i in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 1))

    response = client.get(f"/api/v1/offerings/?{query}")

    assert response.status_code == 400
    assert error_of(response)["code"] == "bad_request"


def test_pages_outside_the_api_keep_djangos_own_answers(client, db):
    missing = client.get("/no-such-page/")
    refused = client.get("/", HTTP_HOST="evil.example")

    assert missing.status_code == 404 and "text/html" in missing["Content-Type"]
    assert refused.status_code == 400 and "text/html" in refused["Content-Type"]
