"""Staff keep prices current in the admin; every change becomes history."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib.auth.models import Permission, User
from django.urls import reverse

from platforms.models import PriceObservation


@pytest.fixture
def staff(db) -> User:
    user = User.objects.create_user("staff", password="pw", is_staff=True)
    user.user_permissions.set(
        Permission.objects.filter(
            content_type__app_label="platforms",
            codename__in=[
                "view_offering",
                "change_offering",
                "view_priceobservation",
                "add_priceobservation",
                "change_priceobservation",
                "delete_priceobservation",
            ],
        )
    )
    return user


def offering_form_data(offering, **price) -> dict:
    data = {
        "platform": offering.platform_id,
        "accelerator": offering.accelerator_id,
        "name": offering.name,
        "external_id": offering.external_id,
        "source": offering.source_id,
        "gpu_count": offering.gpu_count,
        "delivery_form": offering.delivery_form,
        "sharing_mode": offering.sharing_mode,
        "interconnect": offering.interconnect,
        "is_active": "on",
        "new_price_unit": "hour",
        "new_price_currency": "CNY",
        "prices-TOTAL_FORMS": "0",
        "prices-INITIAL_FORMS": "0",
        "prices-MIN_NUM_FORMS": "0",
        "prices-MAX_NUM_FORMS": "1000",
    }
    data.update(price)
    return data


def test_a_price_entered_on_an_offering_becomes_a_new_observation(
    client, staff, offering, price_history
):
    client.force_login(staff)
    url = reverse("admin:platforms_offering_change", args=[offering.pk])
    response = client.post(url, offering_form_data(offering, new_price_amount="1.70"))
    assert response.status_code == 302, response.content.decode()[:2000]

    history = list(offering.prices.order_by("observed_at").values_list("amount", flat=True))
    assert history == [Decimal("2.19"), Decimal("1.88"), Decimal("1.70")]
    newest = offering.prices.latest()
    assert newest.created_by == staff
    assert newest.source.title == "Entered in the admin"


def test_the_new_price_is_on_the_public_platform_page_at_once(
    client, staff, offering, price_history
):
    client.force_login(staff)
    url = reverse("admin:platforms_offering_change", args=[offering.pk])
    client.post(url, offering_form_data(offering, new_price_amount="1.6543"))
    client.logout()
    page = client.get(reverse("platforms:detail", args=[offering.platform.slug]))
    assert "1.6543 CNY" in page.content.decode()


def test_saving_an_offering_without_a_price_adds_no_observation(
    client, staff, offering, price_history
):
    client.force_login(staff)
    url = reverse("admin:platforms_offering_change", args=[offering.pk])
    client.post(url, offering_form_data(offering))
    assert offering.prices.count() == 2


def test_the_offering_page_shows_the_history_read_only(client, staff, offering, price_history):
    client.force_login(staff)
    response = client.get(reverse("admin:platforms_offering_change", args=[offering.pk]))
    body = response.content.decode()
    assert "price history" in body.lower()
    assert "2.19" in body and "1.88" in body
    assert 'name="prices-0-amount"' not in body


def test_staff_who_are_not_superusers_cannot_edit_or_delete_past_prices(
    client, staff, price_history
):
    old, _ = price_history
    client.force_login(staff)
    change = client.post(
        reverse("admin:platforms_priceobservation_change", args=[old.pk]),
        {"amount": "0.01"},
    )
    assert change.status_code == 403
    old.refresh_from_db()
    assert old.amount == Decimal("2.19")
    delete = client.post(
        reverse("admin:platforms_priceobservation_delete", args=[old.pk]), {"post": "yes"}
    )
    assert delete.status_code == 403
    assert PriceObservation.objects.filter(pk=old.pk).exists()


def test_a_superuser_can_correct_a_past_price(client, db, price_history):
    old, _ = price_history
    admin = User.objects.create_superuser("root", password="pw")
    client.force_login(admin)
    delete = client.post(
        reverse("admin:platforms_priceobservation_delete", args=[old.pk]), {"post": "yes"}
    )
    assert delete.status_code == 302
    assert not PriceObservation.objects.filter(pk=old.pk).exists()


@pytest.mark.parametrize("is_logged_in", [False, True])
def test_non_staff_get_no_admin(client, db, is_logged_in):
    if is_logged_in:
        client.force_login(User.objects.create_user("visitor", password="pw"))
    response = client.get(reverse("admin:platforms_offering_changelist"))
    assert response.status_code == 302
    assert reverse("admin:login") in response["Location"]


@pytest.mark.parametrize(
    "model",
    [
        "offering",
        "priceobservation",
        "platform",
        "accelerator",
        "source",
        "storageprice",
        "exchangerate",
        "platformfact",
    ],
)
def test_every_catalogue_model_has_a_searchable_admin_list(client, db, model, price_history):
    client.force_login(User.objects.create_superuser("root", password="pw"))
    response = client.get(reverse(f"admin:platforms_{model}_changelist"), {"q": "4090"})
    assert response.status_code == 200


def test_a_price_dated_in_the_future_is_refused(client, staff, offering, price_history):
    from datetime import timedelta

    from django.utils import timezone

    client.force_login(staff)
    url = reverse("admin:platforms_offering_change", args=[offering.pk])
    tomorrow = (timezone.now() + timedelta(days=1)).strftime("%Y-%m-%d %H:%M:%S")
    response = client.post(
        url, offering_form_data(offering, new_price_amount="1.00", new_price_observed_at=tomorrow)
    )
    assert response.status_code == 200
    assert "A price cannot be observed in the future." in response.content.decode()
    assert offering.prices.count() == 2
