"""Admin login: after AXES_FAILURE_LIMIT (5) wrong passwords for a user, or from an address, the
login is locked for AXES_COOLOFF_MINUTES (15) and the right password fails until then.

Before: 100 wrong passwords in 39 s, then the right one worked."""

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
        # From another address too: the user is locked, not only the address.
        assert attempt(client, "right-pw-1234", address="198.51.100.99").status_code == 429
        clock.shift(timedelta(minutes=14))
        assert attempt(client, "right-pw-1234").status_code == 429
        clock.shift(timedelta(minutes=16))
        ok = attempt(client, "right-pw-1234")
    assert ok.status_code == 302
    assert ok["Location"] == "/admin/"


@pytest.mark.django_db
def test_an_address_trying_many_users_is_locked(axes_on, admin_user):
    client = Client()
    for n in range(5):
        attempt(client, "wrong", user=f"user{n}")
    assert attempt(client, "right-pw-1234").status_code == 429
    assert attempt(client, "right-pw-1234", address="198.51.100.21").status_code == 302
