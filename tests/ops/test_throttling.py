"""Throttling: a made-up X-Forwarded-For does not make a new client; with NUM_PROXIES trusted
proxies the address they saw counts; failed token authentication is throttled per client.

Rates are set on DRF's throttle classes (they read DEFAULT_THROTTLE_RATES when imported). That
the counters are shared by gunicorn's workers through Redis is tests/ops/test_outage.py's."""

from __future__ import annotations

import uuid

import pytest
from django.core.cache import cache
from knox.models import AuthToken
from rest_framework.settings import api_settings
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle


@pytest.fixture
def rates(monkeypatch):
    def set_rates(**rates):
        monkeypatch.setattr(
            SimpleRateThrottle, "THROTTLE_RATES", {**SimpleRateThrottle.THROTTLE_RATES, **rates}
        )

    cache.clear()
    yield set_rates
    cache.clear()


@pytest.mark.django_db
def test_a_random_x_forwarded_for_does_not_escape_the_anonymous_rate(rates):
    """Before: 300 of 300 requests with a random X-Forwarded-For passed a 120/min limit."""
    rates(anon="5/min")
    client = APIClient()
    statuses = [
        client.get(
            "/api/v1/platforms/", HTTP_X_FORWARDED_FOR=f"10.{n}.{n}.{n}", REMOTE_ADDR="192.0.2.1"
        ).status_code
        for n in range(12)
    ]
    assert statuses.count(200) == 5
    assert statuses[5:] == [429] * 7


@pytest.mark.django_db
def test_behind_one_trusted_proxy_the_address_it_saw_is_the_client(rates, settings):
    rates(anon="2/min")
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    assert api_settings.NUM_PROXIES == 1
    client = APIClient()

    def get(client_address: str, spoofed: str = "") -> int:
        header = f"{spoofed}, {client_address}" if spoofed else client_address
        return client.get(
            "/api/v1/platforms/", HTTP_X_FORWARDED_FOR=header, REMOTE_ADDR="10.0.0.2"
        ).status_code

    assert [get("198.51.100.7"), get("198.51.100.7", spoofed="1.2.3.4")] == [200, 200]
    assert get("198.51.100.7", spoofed="5.6.7.8") == 429
    assert get("198.51.100.8") == 200  # another client behind the same proxy


@pytest.mark.django_db
def test_failed_token_authentication_is_throttled_per_client(rates, django_user_model):
    """Before: bad tokens were answered 401 as often as they came, never throttled."""
    rates(auth_failure="3/min")
    staff = django_user_model.objects.create_user("staff", is_staff=True)
    _instance, good = AuthToken.objects.create(user=staff)
    client = APIClient(REMOTE_ADDR="203.0.113.9")

    def get(token: str) -> int:
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        return client.get("/api/v1/platforms/").status_code

    assert [get(uuid.uuid4().hex) for _ in range(3)] == [401, 401, 401]
    client.credentials(HTTP_AUTHORIZATION=f"Token {uuid.uuid4().hex}")
    blocked = client.get("/api/v1/platforms/")
    assert blocked.status_code == 429
    assert blocked.json()["error"]["code"] == "throttled"
    assert 1 <= int(blocked["Retry-After"]) <= 60
    # A valid token from the same address is not held back by another client's bad ones
    # (before: blocked too, so ten bad tokens from a shared address locked every client out).
    assert get(good) == 200
    assert get(uuid.uuid4().hex) == 429
    # Another client is not held back, and requests without a token are not either.
    other = APIClient(REMOTE_ADDR="203.0.113.10")
    other.credentials(HTTP_AUTHORIZATION=f"Token {good}")
    assert other.get("/api/v1/platforms/").status_code == 200
    client.credentials()
    assert client.get("/api/v1/platforms/").status_code == 200
