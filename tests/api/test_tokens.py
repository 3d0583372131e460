"""API tokens: stored as a digest (the token itself is shown once, by `manage.py api_token
create`), expiring, revocable; the header stays `Authorization: Token <token>`."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
import time_machine
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.utils import timezone
from knox.models import AuthToken
from rest_framework.test import APIClient

PRICES = "/api/v1/offerings/{pk}/prices/"


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_user("staff", is_staff=True, is_superuser=True)


def create(username: str, *args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("api_token", "create", username, *args, stdout=out, stderr=err)
    return out.getvalue().strip(), err.getvalue()


def status_with(token: str, offering) -> int:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    body = {"unit": "hour", "amount": "1.50", "currency": "CNY"}
    return client.post(PRICES.format(pk=offering.pk), body, format="json").status_code


@pytest.mark.django_db
def test_a_created_token_works_and_is_not_stored(staff, offering):
    token, note = create("staff")
    assert len(token) == 64
    assert "not stored" in note
    assert status_with(token, offering) == 201
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM knox_authtoken")
        rows = cursor.fetchall()
    assert len(rows) == 1
    assert all(token not in str(value) for value in rows[0])
    listing = StringIO()
    call_command("api_token", "list", stdout=listing)
    assert token not in listing.getvalue()
    assert token[:15] in listing.getvalue()


@pytest.mark.django_db
def test_a_token_expires(staff, offering):
    token, _ = create("staff", "--days", "30")
    (stored,) = AuthToken.objects.all()
    assert timedelta(days=29) < stored.expiry - timezone.now() <= timedelta(days=30)
    with time_machine.travel(timezone.now() + timedelta(days=31)):
        assert status_with(token, offering) == 401


@pytest.mark.django_db
def test_tokens_expire_after_api_token_days_by_default(staff):
    create("staff")
    (stored,) = AuthToken.objects.all()
    assert timedelta(days=89) < stored.expiry - timezone.now() <= timedelta(days=90)


@pytest.mark.django_db
def test_a_revoked_token_is_refused(staff, offering):
    token, _ = create("staff")
    other, _ = create("staff")
    call_command("api_token", "revoke", token[:15], stdout=StringIO())
    assert status_with(token, offering) == 401
    assert status_with(other, offering) == 201
    call_command("api_token", "revoke", "--user", "staff", stdout=StringIO())
    assert status_with(other, offering) == 401


@pytest.mark.django_db
def test_the_command_refuses_an_unknown_user_or_key(staff):
    with pytest.raises(CommandError, match="no user named 'nobody'"):
        create("nobody")
    with pytest.raises(CommandError, match="no token with the key"):
        call_command("api_token", "revoke", "abcdefabcdefabc", stdout=StringIO())
