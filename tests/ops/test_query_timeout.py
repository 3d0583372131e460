"""A statement or lock timeout is a 503 of its own (`query_timeout`, log event `query_timeout`), not
"database unavailable": the database answers, a query was too slow. And a database error is
logged in one line, without a traceback.

Before: a query past the 20 s statement timeout (100k offerings in one platform) or behind a lock
held on a table answered 503 `database_unavailable`, logged as `database_down`."""

from __future__ import annotations

import logging

import psycopg
import pytest
from django.db import OperationalError, connection
from django.test import Client

from ops.db import database_unavailable, query_timeout

pytestmark = pytest.mark.django_db(transaction=True)


class _PgError(Exception):
    """Stands for psycopg's error: the SQLSTATE Django's OperationalError is raised from."""

    __module__ = "psycopg.errors"

    def __init__(self, sqlstate: str) -> None:
        super().__init__(sqlstate)
        self.sqlstate = sqlstate


def _operational(sqlstate: str) -> OperationalError:
    error = OperationalError("canceling statement due to statement timeout")
    error.__cause__ = _PgError(sqlstate)
    return error


def test_the_sql_states_of_a_timeout_are_told_from_an_outage():
    assert query_timeout(_operational("57014")) and query_timeout(_operational("55P03"))
    assert database_unavailable(_operational("57014"))  # still a 503
    assert not query_timeout(_operational("08006"))  # a lost connection
    assert database_unavailable(_operational("08006"))
    assert not query_timeout(OperationalError("database is locked"))


@pytest.fixture
def table_locked():
    """Another session holds platforms_platform's strongest lock; this one gives up after 300 ms."""
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (DATABASE_URL=postgres://...)")
    config = connection.settings_dict
    other = psycopg.connect(
        host=config["HOST"] or "127.0.0.1",
        port=config["PORT"] or 5432,
        user=config["USER"] or "postgres",
        dbname=config["NAME"],
    )
    other.execute("LOCK TABLE platforms_platform IN ACCESS EXCLUSIVE MODE")
    with connection.cursor() as cursor:
        cursor.execute("SET statement_timeout = 300")
    yield
    other.rollback()
    other.close()
    with connection.cursor() as cursor:
        cursor.execute("RESET statement_timeout")


def test_a_query_past_its_timeout_is_a_503_query_timeout_with_its_own_log_event(
    table_locked, caplog
):
    client = Client(raise_request_exception=False)
    with caplog.at_level(logging.WARNING):
        response = client.get("/api/v1/platforms/")
    assert response.status_code == 503
    error = response.json()["error"]
    assert error["code"] == "query_timeout"
    assert response["Retry-After"]
    events = [getattr(record, "event", "") for record in caplog.records]
    assert "query_timeout" in events and "database_down" not in events
    logged = next(r for r in caplog.records if getattr(r, "event", "") == "query_timeout")
    assert logged.exc_info is None  # one line, no traceback


def test_a_page_past_its_query_timeout_is_the_503_page(table_locked):
    response = Client(raise_request_exception=False).get("/")
    assert response.status_code == 503
    assert "Retry-After" in response


def test_a_database_outage_is_logged_in_one_line(caplog, monkeypatch):
    from django.db.backends.base.base import BaseDatabaseWrapper

    monkeypatch.setattr(
        BaseDatabaseWrapper,
        "ensure_connection",
        lambda self: (_ for _ in ()).throw(OperationalError("database is locked")),
    )
    with caplog.at_level(logging.ERROR, logger="api.exceptions"):
        response = Client(raise_request_exception=False).get("/api/v1/platforms/")
    assert response.json()["error"]["code"] == "database_unavailable"
    down = [r for r in caplog.records if getattr(r, "event", "") == "database_down"]
    assert len(down) == 1 and down[0].exc_info is None
