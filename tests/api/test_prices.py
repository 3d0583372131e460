"""Price history, aggregated in the database per bucket; staff adding a price through the API."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

import pytest
from django.utils import timezone

from platforms import services
from platforms.models import PriceObservation
from tests.conftest import NOW, local, make_offering

SHANGHAI = timezone.get_fixed_timezone(8 * 60)


def at(day: int, hour: int, minute: int = 0) -> datetime:
    """An instant in November 2026, Shanghai time (the site's time zone)."""
    return datetime(2026, 11, day, hour, minute, tzinfo=SHANGHAI)


@pytest.fixture
def history(platform, accelerator, source):
    """Three hourly prices in the week of Monday 2 November and one in the next; one monthly.

    The last hourly price is at 00:30 on Monday 9 November in Shanghai, which is still Sunday
    in UTC: it belongs to the second week.
    """
    offering = make_offering(platform, accelerator, source, name="history")
    for when, unit, amount in [
        (at(2, 10), "hour", "2.00"),
        (at(4, 10), "hour", "2.60"),
        (at(8, 23), "hour", "2.30"),
        (at(9, 0, 30), "hour", "1.90"),
        (at(5, 12), "month", "900.00"),
    ]:
        services.price_observation_create(
            offering=offering,
            unit=unit,
            amount=Decimal(amount),
            currency="CNY",
            source=source,
            observed_at=when,
        )
    return offering


def history_of(client, offering, **params):
    response = client.get(f"/api/v1/offerings/{offering.pk}/prices/", params)
    assert response.status_code == 200, response.json()
    return response.json()


def bucket(period_start, low, high, mean, count, unit="hour"):
    return {
        "unit": unit,
        "tier": "list",
        "currency": "CNY",
        "period_start": period_start,
        "min": low,
        "max": high,
        "avg": mean,
        "count": count,
    }


def test_weekly_buckets_hold_min_max_mean_and_count_of_the_observations_in_each_week(
    anon_client, history
):
    # Week 1: 2.00, 2.60, 2.30 -> min 2.00, max 2.60, mean 6.90 / 3 = 2.30. Week 2: 1.90 alone.
    assert history_of(anon_client, history, bucket="week", unit="hour") == {
        "offering": history.pk,
        "bucket": "week",
        "from": None,
        "to": None,
        "unit": "hour",
        "buckets": [
            bucket("2026-11-02", "2.000000", "2.600000", "2.300000", 3),
            bucket("2026-11-09", "1.900000", "1.900000", "1.900000", 1),
        ],
    }


def test_without_a_unit_each_billing_unit_has_its_own_series(anon_client, history):
    body = history_of(anon_client, history, bucket="month")
    # All four hourly prices fall in November: mean (2.00 + 2.60 + 2.30 + 1.90) / 4 = 2.20.
    assert body["buckets"] == [
        bucket("2026-11-01", "1.900000", "2.600000", "2.200000", 4),
        bucket("2026-11-01", "900.000000", "900.000000", "900.000000", 1, unit="month"),
    ]


def test_daily_buckets_are_the_default(anon_client, history):
    body = history_of(anon_client, history, unit="hour")
    assert body["bucket"] == "day"
    assert [(b["period_start"], b["count"]) for b in body["buckets"]] == [
        ("2026-11-02", 1),
        ("2026-11-04", 1),
        ("2026-11-08", 1),
        ("2026-11-09", 1),
    ]


def test_from_and_to_are_whole_local_days(anon_client, history):
    # 4 Nov to 8 Nov keeps 2.60 and 2.30 (23:00 on the 8th) and drops 00:30 on the 9th.
    body = history_of(
        anon_client,
        history,
        bucket="week",
        unit="hour",
        **{"from": "2026-11-04", "to": "2026-11-08"},
    )
    assert (body["from"], body["to"]) == ("2026-11-04", "2026-11-08")
    assert body["buckets"] == [bucket("2026-11-02", "2.300000", "2.600000", "2.450000", 2)]


def test_an_offering_without_prices_has_an_empty_history(anon_client, offering):
    assert history_of(anon_client, offering)["buckets"] == []


def test_history_stays_readable_after_an_offering_is_delisted(anon_client, history):
    history.is_active = False
    history.save()
    assert len(history_of(anon_client, history, bucket="month")["buckets"]) == 2


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"bucket": "year"}, "bucket"),
        ({"unit": "fortnight"}, "unit"),
        ({"from": "2026-13-01"}, "from"),
        ({"to": "yesterday"}, "to"),
        ({"from": "0001-01-01"}, "from"),
        ({"to": "9999-12-31"}, "to"),
        ({"from": "2026-11-09", "to": "2026-11-02"}, "to"),
    ],
)
def test_a_bad_history_parameter_is_a_400_naming_it(anon_client, history, params, field):
    response = anon_client.get(f"/api/v1/offerings/{history.pk}/prices/", params)
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == [field]


def test_the_history_of_an_unknown_offering_is_a_404(anon_client, db):
    response = anon_client.get("/api/v1/offerings/999999/prices/")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


# Adding a price


def post_price(client, offering, **body):
    return client.post(f"/api/v1/offerings/{offering.pk}/prices/", body, format="json")


def test_staff_add_a_price_which_becomes_the_current_one(
    staff_client, anon_client, frozen, price_history, offering
):
    response = post_price(staff_client, offering, unit="hour", amount="1.70", currency="CNY")
    assert response.status_code == 201
    created = PriceObservation.objects.latest()
    assert response.json() == {
        "id": created.pk,
        "offering": offering.pk,
        "unit": "hour",
        "amount": "1.700000",
        "currency": "CNY",
        "tier": "list",
        "basis": "offer",
        "observed_at": local(NOW),
        "last_seen_at": local(NOW),
        "age_days": 0,
        "stale": False,
        "source": {"title": "Entered in the admin", "kind": "manual"},
    }
    assert created.created_by.username == "keeper"
    # The history keeps the earlier prices; the list now shows the new one.
    assert PriceObservation.objects.filter(offering=offering).count() == 3
    listed = anon_client.get(f"/api/v1/offerings/{offering.pk}/").json()
    assert listed["price"]["amount"] == "1.700000"


def test_a_price_can_name_its_source_and_when_it_was_seen(staff_client, offering, vendor_source):
    response = post_price(
        staff_client,
        offering,
        unit="month",
        amount="999",
        currency="USD",
        observed_at="2026-11-01T08:00:00Z",
        source=vendor_source.pk,
    )
    assert response.status_code == 201
    assert response.json()["source"] == {"title": "A vendor's article", "kind": "vendor_claim"}
    assert response.json()["observed_at"] == "2026-11-01T16:00:00+08:00"


def test_a_second_price_for_the_same_unit_and_instant_is_a_400_on_observed_at(
    staff_client, offering
):
    body = {
        "unit": "hour",
        "amount": "1.70",
        "currency": "CNY",
        "observed_at": "2026-11-01T08:00:00Z",
    }
    assert post_price(staff_client, offering, **body).status_code == 201
    response = post_price(staff_client, offering, **{**body, "amount": "1.60"})
    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {
        "observed_at": [
            "This offering already has a price for this billing unit and tier at this time."
        ]
    }
    assert PriceObservation.objects.filter(offering=offering).count() == 1


def test_a_clash_caught_only_by_the_database_is_still_a_400(staff_client, offering, monkeypatch):
    """Two concurrent writers can both pass full_clean(); the unique constraint stops the second."""
    body = {
        "unit": "hour",
        "amount": "1.70",
        "currency": "CNY",
        "observed_at": "2026-11-01T08:00:00Z",
    }
    assert post_price(staff_client, offering, **body).status_code == 201
    monkeypatch.setattr(PriceObservation, "validate_constraints", lambda self, exclude=None: None)
    response = post_price(staff_client, offering, **body)
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["observed_at"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"unit": "hour", "amount": "-1", "currency": "CNY"}, "amount"),
        ({"unit": "hour", "amount": "abc", "currency": "CNY"}, "amount"),
        ({"unit": "hour", "amount": "1e30", "currency": "CNY"}, "amount"),
        # Six decimal places are kept (a per-second $0.000164); a seventh is refused.
        ({"unit": "hour", "amount": "0.0001234", "currency": "CNY"}, "amount"),
        ({"unit": "hour", "amount": "1", "currency": "CNY", "tier": "vip"}, "tier"),
        ({"unit": "year", "amount": "1", "currency": "CNY"}, "unit"),
        ({"unit": "hour", "amount": "1", "currency": "EUR"}, "currency"),
        ({"amount": "1", "currency": "CNY"}, "unit"),
        ({"unit": "hour", "amount": "1", "currency": "CNY", "source": 999999}, "source"),
        ({"unit": "hour", "amount": "1", "currency": "CNY", "observed_at": "then"}, "observed_at"),
        (
            {"unit": "hour", "amount": "1", "currency": "CNY", "observed_at": "0001-01-01T00:00Z"},
            "observed_at",
        ),
        (
            {
                "unit": "hour",
                "amount": "1",
                "currency": "CNY",
                "observed_at": "9999-12-31T23:00-10:00",
            },
            "observed_at",
        ),
    ],
)
def test_a_bad_price_is_a_400_naming_the_field_and_nothing_is_written(
    staff_client, offering, body, field
):
    response = post_price(staff_client, offering, **body)
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == [field]
    assert not PriceObservation.objects.exists()


@pytest.mark.parametrize("period", ["day", "week", "month"])
def test_a_bucket_row_reads_as_the_generic_serializer_writes_it(history, period):
    """PriceBucketSerializer writes a row without DRF's per-field lookups
    (to_representation): the same JSON as Serializer.to_representation, field for field, on the
    database's own rows (a mean with more digits than a price, local midnights), and on a row
    whose mean is missing."""
    from rest_framework import serializers

    from api.filters import price_history
    from api.serializers import PriceBucketSerializer

    rows = list(price_history(history, bucket=period))
    assert rows
    rows.append({**rows[0], "avg": None})
    fast = PriceBucketSerializer(rows, many=True).data
    generic = [serializers.Serializer.to_representation(PriceBucketSerializer(), r) for r in rows]
    assert [dict(r) for r in fast] == [dict(r) for r in generic]
    assert [list(r) for r in fast] == [list(r) for r in generic]  # the keys in one order
