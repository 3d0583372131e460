"""Every error is one JSON shape with the right status; no input makes a 500."""

from __future__ import annotations

import pytest
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle

from tests.api.conftest import conforms

ESTIMATE = "/api/v1/estimate/"


def error_of(response, status: int) -> dict:
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == {"status", "code", "message", "fields"}
    assert body["error"]["status"] == status
    return body["error"]


@pytest.mark.parametrize(
    "raw",
    [
        b'{"tasks": [',
        b"{'tasks': []}",
        b'{"tasks": NaN}',
        b"\xff\xfe not utf-8",
        b"[" * 100_000,
        b'{"tasks": [{"params": ' + b"9" * 5000 + b"}]}",
    ],
    ids=["truncated", "single quotes", "NaN", "not utf-8", "deep nesting", "5000 digits"],
)
def test_a_malformed_json_body_is_a_400_parse_error(anon_client, db, raw):
    response = anon_client.post(ESTIMATE, raw, content_type="application/json")
    error = error_of(response, 400)
    assert error["code"] == "parse_error"
    assert error["message"].startswith("JSON parse error")


@pytest.mark.parametrize(
    "content_type", ["text/plain", "application/x-www-form-urlencoded", "application/xml"]
)
def test_a_body_that_is_not_json_is_a_415(anon_client, db, content_type):
    response = anon_client.post(ESTIMATE, "tasks=1", content_type=content_type)
    assert error_of(response, 415)["code"] == "unsupported_media_type"


def test_asking_for_a_format_the_api_does_not_speak_is_a_406(anon_client, db):
    response = anon_client.get("/api/v1/platforms/", HTTP_ACCEPT="application/xml")
    assert response.status_code == 406
    assert response.json()["error"]["code"] == "not_acceptable"


def test_an_unknown_path_under_the_api_is_a_json_404(anon_client, db):
    error = error_of(anon_client.get("/api/v1/gpus/"), 404)
    assert error == {"status": 404, "code": "not_found", "message": "Not found.", "fields": {}}
    assert error_of(anon_client.delete("/api/v1/platforms/x/y/"), 404)["code"] == "not_found"


def test_an_unknown_object_is_a_404_in_the_documented_shape(anon_client, openapi, db):
    response = anon_client.get("/api/v1/platforms/nowhere/")
    assert error_of(response, 404)["code"] == "not_found"
    conforms(openapi, "get", "/api/v1/platforms/{slug}/", response)


def test_a_method_not_allowed_is_a_405_that_lists_the_allowed_ones(anon_client, openapi, db):
    response = anon_client.delete("/api/v1/platforms/")
    error = error_of(response, 405)
    assert error["code"] == "method_not_allowed"
    assert error["message"] == 'Method "DELETE" not allowed.'
    assert response["Allow"] == "GET, HEAD, OPTIONS"
    conforms(openapi, "get", "/api/v1/platforms/", response)


@pytest.fixture
def tight_rates(monkeypatch):
    """Two requests a minute for anonymous callers, three for users (tests run at 100000/min).

    DRF's throttles read their rates once, at import, so the class attribute is what to change.
    """
    rates = {"anon": "2/min", "user": "3/min"}
    monkeypatch.setattr(AnonRateThrottle, "THROTTLE_RATES", rates)
    monkeypatch.setattr(UserRateThrottle, "THROTTLE_RATES", rates)


def test_too_many_anonymous_requests_are_a_429_with_retry_after(
    anon_client, openapi, db, tight_rates
):
    for _ in range(2):
        assert anon_client.get("/api/v1/platforms/").status_code == 200
    response = anon_client.get("/api/v1/platforms/")
    error = error_of(response, 429)
    assert error["code"] == "throttled"
    assert 0 < int(response["Retry-After"]) <= 60
    conforms(openapi, "get", "/api/v1/platforms/", response)


def test_an_authenticated_caller_has_its_own_higher_rate(user_client, anon_client, db, tight_rates):
    for _ in range(3):
        assert user_client.get("/api/v1/platforms/").status_code == 200
    assert user_client.get("/api/v1/platforms/").status_code == 429
    # The user's requests did not use up the anonymous allowance.
    assert anon_client.get("/api/v1/platforms/").status_code == 200


def test_the_error_shape_is_documented_once_and_referenced_by_every_error_response(db, client):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    required = schema["components"]["schemas"]["ErrorBody"]["required"]
    assert set(required) == {"status", "code", "message", "fields"}
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            for status, response in operation["responses"].items():
                if status.startswith(("4", "5")):
                    ref = response["content"]["application/json"]["schema"]["$ref"]
                    assert ref == "#/components/schemas/Error", (path, method, status)
