"""Who may do what: every endpoint and method, for an anonymous caller, a user and staff.

Reads and the advisor are open to all; adding a price is for staff with the admin's permission to
add prices (anonymous 401, others 403, as the admin refuses them); nothing else writes (405, with an
Allow header).
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse
from knox.models import AuthToken
from rest_framework.test import APIClient

from platforms.models import PriceObservation
from tests.api.test_advisor import FITS_ANYWHERE, LORA_ON_4090

METHODS = ["get", "post", "put", "patch", "delete"]
OPEN_READ = {"get": (200, 200, 200)}
# (anonymous, user, staff)
ENDPOINTS = {
    "platform list": ("/api/v1/platforms/", OPEN_READ),
    "platform": ("/api/v1/platforms/testcloud/", OPEN_READ),
    "accelerator list": ("/api/v1/accelerators/", OPEN_READ),
    "accelerator": ("/api/v1/accelerators/a100-80gb/", OPEN_READ),
    "offering list": ("/api/v1/offerings/", OPEN_READ),
    "offering": ("/api/v1/offerings/{offering}/", OPEN_READ),
    "price history": (
        "/api/v1/offerings/{offering}/prices/",
        {"get": (200, 200, 200), "post": (401, 403, 201)},
    ),
    "storage price list": ("/api/v1/storage-prices/", OPEN_READ),
    "storage price": ("/api/v1/storage-prices/{storage}/", OPEN_READ),
    "exchange rate list": ("/api/v1/exchange-rates/", OPEN_READ),
    "exchange rate": ("/api/v1/exchange-rates/{rate}/", OPEN_READ),
    "estimate": ("/api/v1/estimate/", {"post": (200, 200, 200)}),
    "advise": ("/api/v1/advise/", {"post": (200, 200, 200)}),
}
BODIES = {
    "price history": {"unit": "hour", "amount": "1.50", "currency": "CNY"},
    "estimate": LORA_ON_4090,
    "advise": FITS_ANYWHERE,
}


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_each_caller_gets_the_documented_status_for_each_endpoint_and_method(
    clients, catalogue, endpoint, method
):
    template, allowed = ENDPOINTS[endpoint]
    path = template.format(
        offering=catalogue["a100x8"].pk,
        storage=catalogue["storage"].pk,
        rate=catalogue["rate"].pk,
    )
    expected = allowed.get(method, (405, 405, 405))
    body = BODIES.get(endpoint, {}) if method in ("post", "put", "patch") else None
    for who, status in zip(("anonymous", "user", "staff"), expected, strict=True):
        response = getattr(clients[who], method)(path, body, format="json")
        assert response.status_code == status, (who, response.json())
        if status >= 400:
            assert response.json()["error"]["status"] == status
        if status == 401:
            assert response["WWW-Authenticate"] == "Token"
        if status == 405:
            assert method.upper() not in response["Allow"]


def test_a_bad_token_is_a_401_even_where_anonymous_callers_may_read(anon_client, db):
    anon_client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    response = anon_client.get("/api/v1/platforms/")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "authentication_failed"


PRICE = {"unit": "hour", "amount": "1.50", "currency": "CNY"}


def test_staff_without_the_permission_to_add_prices_are_refused_as_the_admin_refuses_them(
    db, offering
):
    """Being staff opens the admin's door, not its models: the API asks for the same permission."""
    staff = get_user_model().objects.create_user("clerk", password="pw-clerk-123", is_staff=True)
    staff.user_permissions.add(Permission.objects.get(codename="view_priceobservation"))
    by_token = APIClient()
    by_token.credentials(HTTP_AUTHORIZATION=f"Token {AuthToken.objects.create(user=staff)[1]}")
    by_session = APIClient()
    by_session.force_login(staff)
    admin = Client()
    admin.force_login(staff)

    responses = [
        client.post(f"/api/v1/offerings/{offering.pk}/prices/", PRICE, format="json")
        for client in (by_token, by_session)
    ]
    admin_add = admin.get(reverse("admin:platforms_priceobservation_add"))

    assert [response.status_code for response in responses] == [403, 403]
    assert responses[0].json()["error"]["code"] == "permission_denied"
    assert admin_add.status_code == 403
    assert not PriceObservation.objects.exists()


def test_staff_given_the_permission_and_superusers_may_add_prices(db, offering):
    keeper = get_user_model().objects.create_user("keeper2", password="pw-k-123", is_staff=True)
    keeper.user_permissions.add(Permission.objects.get(codename="add_priceobservation"))
    root = get_user_model().objects.create_superuser("root", password="pw-root-123")
    # The permission without a staff account opens neither the admin nor the API's writes.
    outsider = get_user_model().objects.create_user("outsider", password="pw-o-123")
    outsider.user_permissions.add(Permission.objects.get(codename="add_priceobservation"))
    statuses = []
    for user, hour in ((keeper, "01"), (root, "02"), (outsider, "03")):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {AuthToken.objects.create(user=user)[1]}")
        body = {**PRICE, "observed_at": f"2026-11-01T{hour}:00:00Z"}
        statuses.append(
            client.post(f"/api/v1/offerings/{offering.pk}/prices/", body, format="json").status_code
        )

    assert statuses == [201, 201, 403]
    assert PriceObservation.objects.filter(offering=offering).count() == 2


def test_staff_signed_in_with_a_session_must_send_the_csrf_token(db, offering):
    admin = get_user_model().objects.create_user("admin", password="pw-admin-123", is_staff=True)
    admin.user_permissions.add(Permission.objects.get(codename="add_priceobservation"))
    client = APIClient(enforce_csrf_checks=True)
    client.login(username="admin", password="pw-admin-123")
    response = client.post(
        f"/api/v1/offerings/{offering.pk}/prices/",
        {"unit": "hour", "amount": "1.50", "currency": "CNY"},
        format="json",
    )
    assert response.status_code == 403
    assert "CSRF" in response.json()["error"]["message"]
