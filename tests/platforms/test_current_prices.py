"""The stored current prices (CurrentPrice): every write path keeps them equal to what the history
says, the latest observation per offering, billing unit and price tier."""

from __future__ import annotations

import importlib
from datetime import timedelta
from decimal import Decimal

import pytest
from django.apps import apps
from django.contrib.auth.models import User
from django.db.models import OuterRef, Subquery
from django.urls import reverse
from rest_framework.test import APIClient

from advisor.engine import vocab
from platforms import services
from platforms.models import (
    CatalogueVersion,
    CurrentPrice,
    ExchangeRate,
    Offering,
    PriceObservation,
)
from platforms.seed import SeedReport, load_accelerators, load_seed
from platforms.selectors import display_conversion
from tests.conftest import NOW, make_offering

FILL = importlib.import_module("platforms.migrations.0005_current_prices_catalogue_version").fill
SORT_KEYS = importlib.import_module("platforms.migrations.0009_current_price_sort_keys")
FILL_KEYS = SORT_KEYS.fill_sort_keys
FILL_EXPLORER_KEYS = importlib.import_module(
    "platforms.migrations.0010_explorer_sort_keys"
).fill_explorer_keys


def from_history() -> set[tuple]:
    """The definition, computed the slow way: per key, the observation no other is newer than."""
    latest = (
        PriceObservation.objects.filter(
            offering=OuterRef("offering"), unit=OuterRef("unit"), tier=OuterRef("tier")
        )
        .order_by("-observed_at")
        .values("pk")[:1]
    )
    return set(
        PriceObservation.objects.filter(pk=Subquery(latest)).values_list(
            "offering_id", "unit", "tier", "pk", "amount", "currency", "observed_at"
        )
    )


def stored() -> set[tuple]:
    return set(
        CurrentPrice.objects.values_list(
            "offering_id", "unit", "tier", "observation_id", "amount", "currency", "observed_at"
        )
    )


def assert_current_prices_right() -> None:
    expected = from_history()
    assert stored() == expected
    assert expected  # a test that writes no price checks nothing
    assert_sort_keys_right()


def assert_sort_keys_right() -> None:
    """Each stored price per GPU-hour (the list API's sort key) is the engine's figure for the
    row's amount, unit and the offering's GPU count today."""
    rows = CurrentPrice.objects.values_list("amount", "unit", "offering__gpu_count", "per_gpu_hour")
    for amount, unit, gpus, key in rows:
        assert key == pytest.approx(float(vocab.price_per_gpu_hour(amount, unit, gpus)), rel=1e-12)
    # The explorer's: the cheapest hourly list price in CNY at the latest rates, and per GPU.
    factors = display_conversion("CNY").factors
    for offering in Offering.objects.all():
        hourly = [
            float(p.amount * factors[p.currency]) / float(vocab.BillingUnit(p.unit).hours)
            for p in CurrentPrice.objects.filter(offering=offering, tier="list")
            if p.currency in factors
        ]
        if not hourly:
            assert (offering.list_hourly_cny, offering.list_gpu_hour_cny) == (None, None)
            continue
        cheapest = min(hourly)
        assert offering.list_hourly_cny == pytest.approx(cheapest, rel=1e-9)
        assert offering.list_gpu_hour_cny == pytest.approx(cheapest / offering.gpu_count, rel=1e-9)


def add(offering, source, amount, days_ago, unit="hour", tier="list"):
    return services.price_observation_create(
        offering=offering,
        unit=unit,
        amount=Decimal(amount),
        currency="CNY",
        source=source,
        observed_at=NOW - timedelta(days=days_ago),
        tier=tier,
    )


def version() -> str:
    return CatalogueVersion.objects.get(pk=1).token


def test_a_newer_price_becomes_current_and_an_older_one_joins_the_history(offering, source):
    add(offering, source, "1.98", days_ago=10)
    newer = add(offering, source, "1.88", days_ago=2)
    add(offering, source, "2.10", days_ago=30)  # a dated price entered late
    member = add(offering, source, "1.79", days_ago=20, tier="member")
    assert_current_prices_right()
    assert set(offering.current_prices) == {newer, member}


def test_a_bulk_write_points_each_key_at_its_newest_row(platform, accelerator, source):
    first = make_offering(platform, accelerator, source, name="a")
    second = make_offering(platform, accelerator, source, name="b")
    add(first, source, "1.50", days_ago=1)
    rows = [
        PriceObservation(
            offering=offering,
            unit=unit,
            amount=Decimal(amount),
            currency="CNY",
            source=source,
            observed_at=NOW - timedelta(days=days),
        )
        for offering, unit, amount, days in [
            (first, "hour", "1.40", 5),  # older than first's current price: not current
            (second, "hour", "2.00", 9),
            (second, "hour", "1.90", 3),
            (second, "month", "900", 4),
        ]
    ]
    services.price_observations_create(observations=rows)
    assert_current_prices_right()
    assert {p.amount for p in first.current_prices} == {Decimal("1.50")}


def test_a_price_seen_again_stays_the_current_one_and_changes_the_version(offering, source):
    price = add(offering, source, "1.88", days_ago=40)
    before = version()
    assert services.price_observation_seen(observation=price, seen_at=NOW)
    assert version() != before
    assert_current_prices_right()


def test_an_import_keeps_the_current_prices_right(db):
    from tests.importers.conftest import DAY_1, DAY_2, make_platform, run, sample
    from tests.importers.test_history import LAMBDA, a10, catalog

    load_accelerators(SeedReport())
    lambda_cloud = make_platform("lambda", "Lambda", ["cloud_vm"])
    run(sample(LAMBDA), "skypilot", lambda_cloud, day=DAY_1)
    run(catalog(a10(price="1.49")), "skypilot", lambda_cloud, day=DAY_2)
    run(sample(LAMBDA), "skypilot", lambda_cloud, day=DAY_2)  # seen again, one price back
    assert_current_prices_right()
    assert CurrentPrice.objects.filter(offering__platform=lambda_cloud).count() == 374


@pytest.fixture
def superuser(db) -> User:
    return User.objects.create_superuser("root", password="pw")


def test_a_price_added_on_an_offering_in_the_admin_is_current(client, superuser, offering, source):
    from tests.platforms.test_admin import offering_form_data

    add(offering, source, "1.98", days_ago=3)
    client.force_login(superuser)
    url = reverse("admin:platforms_offering_change", args=[offering.pk])
    response = client.post(url, offering_form_data(offering, new_price_amount="1.77"))
    assert response.status_code == 302
    assert_current_prices_right()
    assert [p.amount for p in offering.current_prices] == [Decimal("1.77")]


def test_a_superusers_correction_and_deletion_re_point_the_current_price(
    client, superuser, offering, source
):
    older = add(offering, source, "1.98", days_ago=10)
    newest = add(offering, source, "1.88", days_ago=2)
    client.force_login(superuser)
    change = reverse("admin:platforms_priceobservation_change", args=[newest.pk])
    data = {
        "offering": offering.pk,
        "unit": "hour",
        "amount": "1.66",
        "currency": "CNY",
        "tier": "list",
        "basis": "offer",
        "observed_at_0": (NOW - timedelta(days=2)).strftime("%Y-%m-%d"),
        "observed_at_1": (NOW - timedelta(days=2)).strftime("%H:%M:%S"),
        "last_seen_at_0": NOW.strftime("%Y-%m-%d"),
        "last_seen_at_1": NOW.strftime("%H:%M:%S"),
        "source": source.pk,
    }
    assert client.post(change, data).status_code == 302
    assert_current_prices_right()
    assert [p.amount for p in offering.current_prices] == [Decimal("1.66")]

    # Moved to another unit: the hour's current price is the older one again.
    assert client.post(change, {**data, "unit": "day"}).status_code == 302
    assert_current_prices_right()
    assert {(p.unit, p.pk) for p in offering.current_prices} == {
        ("hour", older.pk),
        ("day", newest.pk),
    }

    delete = reverse("admin:platforms_priceobservation_delete", args=[newest.pk])
    assert client.post(delete, {"post": "yes"}).status_code == 302
    assert_current_prices_right()
    assert offering.current_prices == [older]

    changelist = reverse("admin:platforms_priceobservation_changelist")
    action = {"action": "delete_selected", "_selected_action": [older.pk], "post": "yes"}
    assert client.post(changelist, action).status_code == 302
    assert not CurrentPrice.objects.exists() and not PriceObservation.objects.exists()


def test_a_price_added_through_the_api_is_current(db, offering, source):
    from django.contrib.auth.models import Permission

    add(offering, source, "1.98", days_ago=3)
    keeper = User.objects.create_user("keeper", password="pw", is_staff=True)
    keeper.user_permissions.add(Permission.objects.get(codename="add_priceobservation"))
    api = APIClient()
    api.force_authenticate(keeper)
    body = {"unit": "hour", "amount": "1.70", "currency": "CNY"}
    response = api.post(f"/api/v1/offerings/{offering.pk}/prices/", body, format="json")
    assert response.status_code == 201, response.content
    assert_current_prices_right()
    assert [p.amount for p in offering.current_prices] == [Decimal("1.70")]


def test_the_seed_keeps_the_current_prices_right(db):
    load_seed()
    assert_current_prices_right()
    load_seed()  # again: nothing new, nothing moved
    assert_current_prices_right()


def test_the_migration_fills_the_current_prices_from_the_history(offering, source):
    add(offering, source, "1.98", days_ago=10)
    add(offering, source, "1.88", days_ago=2)
    add(offering, source, "900", days_ago=5, unit="month")
    CurrentPrice.objects.all().delete()
    FILL(apps, None)
    FILL_KEYS(apps, None)
    FILL_EXPLORER_KEYS(apps, None)
    assert_current_prices_right()


def test_the_sort_keys_follow_a_change_of_gpu_count(offering, source, client, superuser):
    from tests.platforms.test_admin import offering_form_data

    add(offering, source, "8.00", days_ago=2)
    add(offering, source, "4000", days_ago=2, unit="month")
    offering.gpu_count = 4
    services.offering_update(offering=offering, fields=["gpu_count"])  # as an import applies it
    assert_current_prices_right()
    assert CurrentPrice.objects.get(unit="hour").per_gpu_hour == 2.0

    client.force_login(superuser)
    url = reverse("admin:platforms_offering_change", args=[offering.pk])
    form = offering_form_data(offering, gpu_count=2)
    assert client.post(url, form).status_code == 302
    assert_current_prices_right()
    assert CurrentPrice.objects.get(unit="hour").per_gpu_hour == 4.0


def test_an_exchange_rate_written_in_the_admin_moves_the_explorer_keys(
    client, superuser, offering, source
):
    add(offering, source, "1.00", days_ago=2)
    dollars = CurrentPrice.objects.get().observation
    dollars.currency = "USD"
    dollars.save()
    services.current_prices_recompute(keys=[(offering.pk, "hour", "list")])
    assert Offering.objects.get().list_hourly_cny is None  # no rate yet
    client.force_login(superuser)
    data = {
        "base": "USD",
        "quote": "CNY",
        "rate": "7.1",
        "as_of": "2026-11-01",
        "source": source.pk,
    }
    assert client.post(reverse("admin:platforms_exchangerate_add"), data).status_code == 302
    assert_current_prices_right()
    assert Offering.objects.get().list_hourly_cny == pytest.approx(7.1)
    rate = ExchangeRate.objects.get()
    delete = reverse("admin:platforms_exchangerate_delete", args=[rate.pk])
    assert client.post(delete, {"post": "yes"}).status_code == 302
    assert Offering.objects.get().list_hourly_cny is None


def test_the_migration_fills_the_sort_keys(offering, source):
    add(offering, source, "1.98", days_ago=2)
    add(offering, source, "900", days_ago=5, unit="month")
    CurrentPrice.objects.update(per_gpu_hour=None)
    Offering.objects.update(list_hourly_cny=None, list_gpu_hour_cny=None)
    FILL_KEYS(apps, None)
    FILL_EXPLORER_KEYS(apps, None)
    assert_current_prices_right()
