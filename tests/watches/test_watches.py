"""Watches end to end on the seed catalogue: a price edit through the API that changes a saved
scenario's #1 sends one email and one signed webhook, and nothing more that day; the unsubscribe
link stops the watch; an email address's watch sends nothing but its confirmation until it is
confirmed. Emails land in Django's locmem outbox; webhooks in a server on 127.0.0.1 started here.

The scenario is the seed article's "dev experiments" preset saved as a short link; the edit puts
the price of the offering ranked behind #1 (a single offering) at a fifth of its current one, so
that it becomes the cheaper and the ranking moves (the test checks that it did)."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.auth.models import Permission, User
from django.core import mail
from django.test import Client
from knox.models import AuthToken
from rest_framework.test import APIClient

from advisor.services import advise_scenario
from platforms.models import CurrentPrice
from watches import tokens, webhook
from watches.models import Watch
from watches.tasks import check_watches


@pytest.fixture
def staff_api(db) -> APIClient:
    """Staff with the permission to add prices, as the API asks (tests/api/conftest.py)."""
    user = User.objects.create_user("keeper", password="pw-keeper-123", is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="add_priceobservation"))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {AuthToken.objects.create(user=user)[1]}")
    return client


def cut_price(api: APIClient, recommendation, factor: str) -> None:
    """Post a new list price of `recommendation`'s offering: its current price times `factor`."""
    current = CurrentPrice.objects.get(
        offering_id=recommendation.offering_id, unit=recommendation.plan.unit, tier="list"
    )
    response = api.post(
        f"/api/v1/offerings/{recommendation.offering_id}/prices/",
        {
            "unit": current.unit,
            "amount": str((current.amount * Decimal(factor)).quantize(Decimal("0.000001"))),
            "currency": current.currency,
        },
        format="json",
    )
    assert response.status_code == 201, response.content


def key_of(rec) -> str:
    """What the watch compares of a #1: its offering and instances, or each leg's of a plan."""
    legs = rec.legs or (rec,)
    return "+".join(f"{leg.platform}/{leg.offering_id}x{leg.instances}" for leg in legs)


def watch_by_post(client: Client, answer, **fields) -> Watch:
    response = client.post(
        "/watches/new/", {"scenario": answer.saved.key, "threshold_pct": "10", **fields}
    )
    assert response.status_code in (200, 302), response.content[:800]
    return Watch.objects.get()


def test_a_price_edit_that_changes_the_1_is_told_once_by_email_and_signed_webhook(
    client, renter, dev_scenario, hook_server, staff_api, frozen, django_capture_on_commit_callbacks
):
    answer = dev_scenario
    client.force_login(renter)
    watch = watch_by_post(client, answer, send_email="on", webhook_url=hook_server.url)
    assert watch.confirmed_at is not None  # a signed-in user's watch needs no confirmation
    assert watch.baseline["key"] == key_of(answer.first)
    assert watch.baseline["cost"] == str(answer.first.cost.quantize(Decimal("0.01")))

    with django_capture_on_commit_callbacks(execute=True):  # the API's write commits
        cut_price(staff_api, answer.second, "0.2")

    now_first = advise_scenario(answer.saved.scenario).advice.recommendations[0]
    assert key_of(now_first) != key_of(answer.first)  # the edit did change the #1
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["renter@example.com"]
    assert message.subject == "The answer to your watched scenario changed"
    assert answer.first.offering_name in message.body
    assert now_first.offering_name in message.body
    unsubscribe = re.search(
        r"http://127\.0\.0\.1:8000(/watches/unsubscribe/[^/\s]+/)", message.body
    )
    assert unsubscribe is not None
    assert message.extra_headers["List-Unsubscribe"] == f"<{unsubscribe[0]}>"

    assert len(hook_server.received) == 1
    hook = hook_server.received[0]
    assert hook.path == "/hook"
    assert hook.headers["Content-Type"] == "application/json; charset=utf-8"
    assert hook.headers["X-Advisor-Watch"] == str(watch.pk)
    # The receiver's check: HMAC-SHA256 of the raw body keyed by the watch's secret.
    assert webhook.verify(watch.secret, hook.body, hook.headers["X-Advisor-Signature"])
    assert not webhook.verify("another secret", hook.body, hook.headers["X-Advisor-Signature"])
    body = json.loads(hook.body)
    assert body["event"] == "watch.changed" and body["kind"] == "scenario"
    assert body["subject"] == answer.saved.key
    assert "first_changed" in body["reasons"]
    assert body["before"]["key"] == key_of(answer.first)
    assert body["after"]["key"] == key_of(now_first)
    assert body["unsubscribe_url"] == unsubscribe[0]

    # Another edit that day moves the #1's cost again: held, not sent.
    frozen.shift(timedelta(hours=1))
    with django_capture_on_commit_callbacks(execute=True):
        cut_price(staff_api, answer.second, "0.1")
    watch.refresh_from_db()
    assert len(mail.outbox) == 1 and len(hook_server.received) == 1
    assert watch.held_at is not None

    # A day after the message, the held change is told, measured from what was last told.
    frozen.shift(timedelta(days=1))
    assert check_watches() == 1
    assert len(mail.outbox) == 2 and len(hook_server.received) == 2
    second = json.loads(hook_server.received[1].body)
    assert second["before"] == body["after"]
    assert second["reasons"] == ["cost_moved"]
    assert Decimal(second["cost_change_pct"]) < Decimal("-10")
    # And nothing more while nothing changes.
    frozen.shift(timedelta(days=2))
    assert check_watches() == 0
    assert len(mail.outbox) == 2


def test_the_unsubscribe_link_stops_the_watch_without_signing_in(
    renter, dev_scenario, staff_api, frozen, django_capture_on_commit_callbacks
):
    answer = dev_scenario
    signed_in = Client()
    signed_in.force_login(renter)
    watch = watch_by_post(signed_in, answer, send_email="on")
    link = f"/watches/unsubscribe/{tokens.unsubscribe_token(watch.pk)}/"

    visitor = Client(enforce_csrf_checks=True)  # a mail client's one-click POST has no token
    page = visitor.get(link)
    assert page.status_code == 200 and b"Stop the watch" in page.content
    assert Watch.objects.filter(pk=watch.pk).exists()  # opening the link changes nothing
    assert visitor.post(link).status_code == 200
    assert not Watch.objects.exists()

    with django_capture_on_commit_callbacks(execute=True):
        cut_price(staff_api, answer.second, "0.2")
    assert check_watches() == 0
    assert mail.outbox == []
    # A forged token names nothing.
    assert visitor.get(link[:-3] + "xx/").status_code == 404


def test_an_unconfirmed_email_watch_sends_only_its_confirmation(
    client, dev_scenario, hook_server, staff_api, frozen, django_capture_on_commit_callbacks
):
    answer = dev_scenario
    response = client.post(
        "/watches/new/",
        {
            "scenario": answer.saved.key,
            "email": "someone@example.com",
            "send_email": "on",
            "webhook_url": hook_server.url,
            "threshold_pct": "5",
        },
    )
    assert response.status_code == 200 and b"Check your email" in response.content
    watch = Watch.objects.get()
    assert watch.confirmed_at is None and watch.user is None
    assert len(mail.outbox) == 1
    confirmation = mail.outbox[0]
    assert confirmation.to == ["someone@example.com"]
    assert confirmation.subject == "Confirm your watch"
    link = re.search(r"http://testserver(/watches/confirm/[^/\s]+/)", confirmation.body)[1]

    with django_capture_on_commit_callbacks(execute=True):
        cut_price(staff_api, answer.second, "0.2")
    frozen.shift(timedelta(days=2))
    assert check_watches() == 0
    assert len(mail.outbox) == 1 and hook_server.received == []

    # Opening the link asks; its button confirms. Then the watch sends.
    assert client.get(link).status_code == 200
    assert Watch.objects.get().confirmed_at is None
    confirmed = client.post(link)
    assert confirmed.status_code == 302
    assert confirmed["Location"].startswith("/watches/e/")
    assert Watch.objects.get().confirmed_at is not None
    assert check_watches() == 1
    assert [m.subject for m in mail.outbox][1:] == ["The answer to your watched scenario changed"]
    assert len(hook_server.received) == 1


def test_a_confirmation_link_expires(client, dev_scenario, frozen, settings):
    response = client.post(
        "/watches/new/",
        {
            "scenario": dev_scenario.saved.key,
            "email": "late@example.com",
            "send_email": "on",
            "threshold_pct": "10",
        },
    )
    assert response.status_code == 200
    link = re.search(r"http://testserver(/watches/confirm/[^/\s]+/)", mail.outbox[0].body)[1]
    frozen.shift(timedelta(days=settings.WATCH_CONFIRM_DAYS, seconds=1))
    assert client.post(link).status_code == 404
    assert Watch.objects.get().confirmed_at is None
