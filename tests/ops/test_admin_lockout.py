"""Admin login: after AXES_FAILURE_LIMIT (5) wrong passwords for a user from one address, that user
at that address is locked for AXES_COOLOFF_MINUTES (15) and the right password fails there until
then; the same user from another address is not locked out.

Before: 100 wrong passwords in 39 s, then the right one worked; later, 5 wrong passwords from
anywhere kept the admin out everywhere for 15 minutes."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

LOGIN = "/admin/login/?next=/admin/"


@pytest.fixture
def axes_on(settings):
    settings.AXES_ENABLED = True
    settings.AXES_FAILURE_LIMIT = 5
    settings.AXES_COOLOFF_TIME = timedelta(minutes=15)


@pytest.fixture
def admin_user(django_user_model):
    return django_user_model.objects.create_superuser("admin", password="right-pw-1234")


def attempt(client: Client, password: str, address: str = "198.51.100.20", user: str = "admin"):
    return client.post(LOGIN, {"username": user, "password": password}, REMOTE_ADDR=address)


@pytest.mark.django_db
def test_after_five_wrong_passwords_the_sixth_and_the_right_one_fail_until_the_cool_off(
    axes_on, admin_user
):
    client = Client()
    start = timezone.now()
    with time_machine.travel(start, tick=False) as clock:
        for _ in range(4):
            assert attempt(client, "wrong").status_code == 200  # the form again, with an error
        fifth = attempt(client, "wrong")
        assert fifth.status_code == 429
        sixth = attempt(client, "wrong")
        assert sixth.status_code == 429
        assert "15 minutes" in sixth.content.decode()
        assert attempt(client, "right-pw-1234").status_code == 429
        clock.shift(timedelta(minutes=14))
        assert attempt(client, "right-pw-1234").status_code == 429
        clock.shift(timedelta(minutes=16))
        ok = attempt(client, "right-pw-1234")
    assert ok.status_code == 302
    assert ok["Location"] == "/admin/"


@pytest.mark.django_db
def test_wrong_passwords_from_one_address_do_not_lock_the_user_out_from_another(
    axes_on, admin_user
):
    """Before: django-axes locked by user name alone, so anyone could keep the admin out."""
    attacker, admin = Client(), Client()
    for _ in range(5):
        attempt(attacker, "wrong", address="203.0.113.66")
    assert attempt(attacker, "right-pw-1234", address="203.0.113.66").status_code == 429
    ok = attempt(admin, "right-pw-1234", address="198.51.100.21")
    assert ok.status_code == 302 and ok["Location"] == "/admin/"


@pytest.mark.django_db
def test_behind_a_proxy_one_client_does_not_lock_out_the_others(axes_on, admin_user, settings):
    """With NUM_PROXIES set, the address is the client's, not the proxy's."""
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    client = Client()

    def via_proxy(password: str, client_address: str):
        return client.post(
            LOGIN,
            {"username": "admin", "password": password},
            REMOTE_ADDR="10.0.0.2",
            HTTP_X_FORWARDED_FOR=client_address,
        )

    for _ in range(5):
        via_proxy("wrong", "203.0.113.66")
    assert via_proxy("right-pw-1234", "203.0.113.66").status_code == 429
    assert via_proxy("right-pw-1234", "198.51.100.21").status_code == 302


@pytest.mark.django_db
def test_a_lockout_is_logged_with_the_user_name_and_the_address(axes_on, admin_user, caplog):
    """Before: axes masked both, so on-call could not tell an attack from a forgetful admin."""
    import logging

    client = Client()
    with caplog.at_level(logging.INFO, logger="axes"):
        for _ in range(5):
            attempt(client, "wrong", address="203.0.113.77")
    assert "admin" in caplog.text and "203.0.113.77" in caplog.text
    assert "wrong" not in caplog.text.replace("wrong password", "")
