"""The offering JSON written out by hand (api/serializers.py: OfferingSerializer.to_representation)
against DRF's field-by-field serialization of the same declared fields, byte for byte, on every
kind of row: pooled and MIG slices, no price, several billing units, tiers and currencies, a
region and a network or none, two sources, prices read as values for a listed page
(api/filters.py: listed_page_attach) and as model instances for a single offering."""

from __future__ import annotations

import json
from datetime import UTC, timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.conf import settings
from django.test import override_settings
from django.utils import timezone
from rest_framework import serializers
from rest_framework.renderers import JSONRenderer

from api import serializers as api_serializers
from api.filters import listed_page_attach, offerings_annotated, offerings_listed
from api.serializers import OfferingSerializer
from platforms import services
from platforms.models import Offering
from tests.api.conftest import add_price
from tests.conftest import NOW, make_offering

UNITS = ["hour", "month", "second"]


@pytest.fixture
def every_kind(catalogue, platform, other_platform, accelerator, a100, source, vendor_source):
    """The API catalogue (pooled slice, stale price, two units, interruptible, NVLink) and:

    name           platform   GPU        notes
    A100 MIG 3g    bigcloud   a100-80gb  MIG slice; region, network, CPU, RAM and disk given; USD
                                         per second and per hour, a member price; vendor source
    no price yet   testcloud  rtx-4090   no price at all
    """
    mig = make_offering(
        other_platform,
        a100,
        vendor_source,
        name="A100 MIG 3g",
        sharing_mode="mig",
        mig_profile="3g.40gb",
        region="beijing",
        network="roce",
        network_gbps=100,
        vcpus=12,
        ram_gib=Decimal("58.5"),
        disk_gb=200,
    )
    add_price(mig, vendor_source, "second", "0.000164", 1, currency="USD")
    services.price_observation_create(
        offering=mig,
        unit="hour",
        amount=Decimal("0.59"),
        currency="USD",
        source=vendor_source,
        # An instant with microseconds, which ISO 8601 writes out.
        observed_at=NOW - timedelta(days=2, microseconds=123456),
    )
    services.price_observation_create(
        offering=mig,
        unit="hour",
        amount=Decimal("0.5"),
        currency="USD",
        source=vendor_source,
        observed_at=NOW - timedelta(days=2),
        tier="member",
    )
    make_offering(platform, accelerator, source, name="no price yet")
    return catalogue


def render(data: Any) -> bytes:
    return JSONRenderer().render(data)


def field_by_field(serializer: OfferingSerializer, offering: Offering) -> dict[str, Any]:
    """DRF's own serialization of the declared fields (the method the fast path replaces)."""
    return serializers.ModelSerializer.to_representation(serializer, offering)


def listed_page(unit: str) -> list[Offering]:
    """Every listed offering as the list reads it: its columns and its prices as values."""
    rows = list(offerings_annotated(offerings_listed(), unit).order_by("pk"))
    listed_page_attach(rows)
    return rows


def single_offerings(unit: str) -> list[Offering]:
    """Every listed offering as a single offering reads it: model instances, prefetched."""
    return list(offerings_annotated(Offering.objects.for_catalog(), unit).order_by("pk"))


def both_ways(rows: list[Offering]) -> tuple[bytes, bytes]:
    serializer = OfferingSerializer(context={"now": NOW + timedelta(hours=5)})
    fast = [serializer.to_representation(row) for row in rows]
    slow = [field_by_field(serializer, row) for row in rows]
    return render(fast), render(slow)


@pytest.mark.parametrize("unit", UNITS)
@pytest.mark.parametrize("read", [listed_page, single_offerings], ids=["listed", "single"])
def test_the_written_out_json_is_the_fields_json_byte_for_byte(every_kind, unit, read):
    rows = read(unit)
    assert len(rows) == 6
    fast, slow = both_ways(rows)
    assert fast == slow


@pytest.mark.parametrize("zone", [UTC, timezone.get_fixed_timezone(-150)], ids=["utc", "-02:30"])
def test_instants_are_written_as_the_fields_write_them_in_any_time_zone(every_kind, zone):
    # UTC is written with a Z, other zones with their offset.
    with timezone.override(zone):
        fast, slow = both_ways(listed_page("hour"))
    assert fast == slow
    assert (b'Z"' in fast) == (zone is UTC)


def test_the_comparison_sees_one_digit_of_difference(every_kind, monkeypatch):
    # The tests above could pass by comparing a path with itself; they do not.
    written = api_serializers._Formats.decimal

    def one_place_short(self, value, places):
        text = written(self, value, places)
        return text[:-1] if text and "." in text else text

    monkeypatch.setattr(api_serializers._Formats, "decimal", one_place_short)
    fast, slow = both_ways(listed_page("hour"))
    assert fast != slow


def test_with_other_api_formats_the_fields_serialize(every_kind):
    numbers = {**settings.REST_FRAMEWORK, "COERCE_DECIMAL_TO_STRING": False}
    with override_settings(REST_FRAMEWORK=numbers):
        serializer = OfferingSerializer(context={"now": NOW})
        [row, *_] = listed_page("hour")
        data = serializer.to_representation(row)
        assert data == field_by_field(serializer, row)
    assert isinstance(data["vram_per_gpu_gib"], Decimal)


@pytest.mark.parametrize("unit", [None, *UNITS])
def test_the_list_answers_with_the_fields_json(anon_client, every_kind, frozen, unit):
    query = {"page_size": 200} if unit is None else {"page_size": 200, "unit": unit}
    response = anon_client.get("/api/v1/offerings/", query)
    assert response.status_code == 200
    results = json.loads(response.content)["results"]
    rows = {row.pk: row for row in listed_page(unit or "hour")}
    serializer = OfferingSerializer(context={"now": NOW})
    expected = [field_by_field(serializer, rows[result["id"]]) for result in results]
    assert render(results) == render(expected)
    # Asked for, a unit lists only the offerings with a current list price in it.
    assert len(results) == {None: 6, "hour": 5, "month": 2, "second": 1}[unit]


def test_a_listed_offering_is_the_same_json_as_the_offering_alone(anon_client, every_kind, frozen):
    listed = json.loads(anon_client.get("/api/v1/offerings/", {"page_size": 200}).content)
    for result in listed["results"]:
        alone = anon_client.get(f"/api/v1/offerings/{result['id']}/")
        assert render(result) == render(json.loads(alone.content))
