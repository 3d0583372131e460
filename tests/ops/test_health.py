"""/healthz answers while the process lives; /readyz checks the database, the cache and the
migrations, each with its milliseconds, and answers 503 naming what failed (the database or the
migrations), or 200 "degraded" when only the cache fails; never with a server's address."""

from __future__ import annotations

from unittest import mock

import pytest
from django.db import OperationalError, connection
from django.db.migrations.recorder import MigrationRecorder
from django.test import Client

from ops import health


@pytest.fixture(autouse=True)
def fresh_migration_check(monkeypatch):
    monkeypatch.setattr(health, "_migrations_applied", False)


def test_healthz_answers_without_the_database_or_a_known_host(settings):
    settings.ALLOWED_HOSTS = ["advisor.example.com"]
    with mock.patch("ops.health.readiness", side_effect=AssertionError("not called")):
        response = Client().get("/healthz", HTTP_HOST="10.0.0.7:8000")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert response["Cache-Control"] == "no-store"


@pytest.mark.django_db
def test_readyz_is_ok_with_each_checks_milliseconds():
    response = Client().get("/readyz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert set(body["checks"]) == {"database", "cache", "migrations"}
    for check in body["checks"].values():
        assert check["ok"] is True
        assert 0 <= check["ms"] < 1000


@pytest.mark.django_db
def test_readyz_is_503_while_the_database_is_down():
    error = OperationalError(
        'connection to server at "10.1.2.3", port 5432 failed: Connection refused'
    )
    with mock.patch("ops.health.check_database", side_effect=error):
        response = Client().get("/readyz/")
    assert response.status_code == 503
    assert b"10.1.2.3" not in response.content and b"5432" not in response.content
    checks = response.json()["checks"]
    assert checks["database"] == {
        "ok": False,
        "ms": checks["database"]["ms"],
        "error": "OperationalError",
    }
    assert checks["migrations"]["ok"] is False
    assert checks["cache"]["ok"] is True


@pytest.mark.django_db(transaction=True)
def test_readyz_is_503_while_a_migration_is_not_applied():
    recorder = MigrationRecorder(connection)
    latest = MigrationRecorder.Migration.objects.filter(app="feeds").order_by("-id").first()
    assert latest is not None
    latest.delete()
    try:
        response = Client().get("/readyz")
    finally:
        recorder.record_applied("feeds", latest.name)
    assert response.status_code == 503
    migrations = response.json()["checks"]["migrations"]
    assert migrations["ok"] is False
    assert f"feeds.{latest.name}" in migrations["error"]


@pytest.mark.django_db
def test_readyz_is_200_degraded_when_the_cache_loses_what_it_stored():
    """Before: 503, so a load balancer following it pulled every instance for a cache outage."""
    with mock.patch("ops.health.cache.get", return_value=None):
        response = Client().get("/readyz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "degraded"
    assert body["checks"]["cache"]["ok"] is False
    assert body["checks"]["cache"]["degraded"] is True
