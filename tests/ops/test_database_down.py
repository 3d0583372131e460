"""The database down: pages answer a 503 in the visitor's language, the API its JSON error shape
with 503 and Retry-After, and the next request once it is back is served again.

In-process, on any database: every new cursor fails as a refused connection does. The real
outage (a TCP proxy in front of PostgreSQL cut, then frozen, then restored, behind gunicorn with
production settings) is tests/ops/test_outage.py.
"""

from __future__ import annotations

from contextlib import contextmanager
from unittest import mock

import pytest
from django.db import OperationalError
from django.db.backends.base.base import BaseDatabaseWrapper
from django.test import Client


@contextmanager
def database_down(message="connection to server at 127.0.0.1, port 5432 failed: refused"):
    """The database refuses: connecting, or using the open connection, fails. SQLite's message
    for a file it cannot use (a lock held past its timeout) is "database is locked"."""
    with mock.patch.object(
        BaseDatabaseWrapper, "ensure_connection", side_effect=OperationalError(message)
    ):
        yield


@pytest.fixture
def client():
    return Client(raise_request_exception=False)


@pytest.mark.django_db
def test_a_page_is_a_503_in_the_visitors_language_with_retry_after(client, settings):
    settings.RETRY_AFTER_S = 30
    with database_down("database is locked"):
        response = client.get("/", headers={"Accept-Language": "zh-hans"})
    assert response.status_code == 503
    assert response["Retry-After"] == "30"
    page = response.content.decode()
    assert "暂时无法访问" in page
    assert response["X-Request-ID"] in page
    assert 'lang="zh-hans"' in page


@pytest.mark.django_db
def test_a_page_is_a_503_in_english_by_default(client):
    with database_down("database is locked"):
        response = client.get("/offerings/")
    assert response.status_code == 503
    assert "Temporarily unavailable" in response.content.decode()


@pytest.mark.django_db
def test_the_api_answers_its_error_shape_with_503_and_retry_after(client, settings):
    settings.RETRY_AFTER_S = 30
    with database_down("database is locked"):
        response = client.get("/api/v1/platforms/")
    assert response.status_code == 503
    assert response["Retry-After"] == "30"
    assert response["Content-Type"].startswith("application/json")
    assert response.json() == {
        "error": {
            "status": 503,
            "code": "database_unavailable",
            "message": "The database is unavailable. Please try again shortly.",
            "fields": {},
        }
    }


@pytest.mark.django_db
def test_the_api_error_is_in_the_request_language(client):
    with database_down("database is locked"):
        response = client.get("/api/v1/platforms/", headers={"Accept-Language": "zh-hans"})
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "database_unavailable"
    assert response.json()["error"]["message"] != (
        "The database is unavailable. Please try again shortly."
    )


@pytest.mark.django_db
def test_service_resumes_on_the_next_request_once_the_database_is_back(client, platform):
    assert client.get("/api/v1/platforms/").status_code == 200
    with database_down("database is locked"):
        assert client.get("/api/v1/platforms/").status_code == 503
        assert client.get("/").status_code == 503
    assert client.get("/api/v1/platforms/").status_code == 200
    assert client.get("/").status_code == 200


@pytest.mark.django_db
def test_a_query_that_is_wrong_is_a_500_not_a_503(client):
    """SQLite calls a missing column an OperationalError too: that is a bug, not an outage."""
    with mock.patch(
        "platforms.selectors.comparison_table",
        side_effect=OperationalError("no such column: platforms_source.nope"),
    ):
        response = client.get("/platforms/")
    assert response.status_code == 500
    assert "Retry-After" not in response
