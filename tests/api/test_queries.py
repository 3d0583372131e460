"""Query counts are part of the contract: the same for a page of 1 row as for a page of 50."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import transaction

from platforms import services
from platforms.models import (
    Accelerator,
    AcceleratorAlias,
    MigProfile,
    Offering,
    Platform,
    PlatformFact,
    PriceObservation,
    Source,
    StoragePrice,
)
from tests.conftest import NOW, make_offering


def add_offerings(platform, accelerator, source, n: int) -> list:
    offerings = []
    for i in range(n):
        offering = make_offering(platform, accelerator, source, name=f"o{i}")
        for unit, days, amount in (("hour", 20, "2.00"), ("hour", 2, "1.90"), ("month", 2, "900")):
            services.price_observation_create(
                offering=offering,
                unit=unit,
                amount=Decimal(amount),
                currency="CNY",
                source=source,
                observed_at=NOW - timedelta(days=days),
            )
        offerings.append(offering)
    return offerings


@pytest.mark.parametrize("n", [1, 50])
def test_the_offering_list_is_four_queries(
    anon_client, platform, accelerator, source, n, django_assert_num_queries
):
    add_offerings(platform, accelerator, source, n)
    query = {"ordering": "price_per_gpu_hour", "vram_min": "8"}
    # The first page at a catalogue version also reads every platform, accelerator and source
    # once (api/filters.py: listed_relations).
    with django_assert_num_queries(7):
        first = anon_client.get("/api/v1/offerings/", query)
    # 1 the offerings with a price per GPU-hour (the accelerator and the listing price joined),
    # 2 the offerings without one (they come after), 3 the catalogue's version, 4 the page's
    # current prices; no count: the list is walked by cursor.
    with django_assert_num_queries(4):
        again = anon_client.get("/api/v1/offerings/", query)
    assert len(again.json()["results"]) == n
    assert again.content == first.content


def test_a_listed_page_shows_a_renamed_platform_and_a_new_source(
    anon_client, platform, accelerator, source
):
    """Platforms, accelerators and sources are kept per catalogue version: a write through the
    services or the admin (which give a new version) shows on the next page."""
    add_offerings(platform, accelerator, source, 1)
    assert anon_client.get("/api/v1/offerings/").json()["results"][0]["platform"]["name"] == (
        platform.name
    )
    with transaction.atomic():
        services.catalogue_changed()
        Platform.objects.filter(pk=platform.pk).update(name="改名的平台")
    [offering] = anon_client.get("/api/v1/offerings/").json()["results"]
    assert offering["platform"]["name"] == "改名的平台"

    # Rows saved after the version was read, named with no new version (outside the write
    # services): read when a page names them.
    newer = Source.objects.create(title="A newer list", kind="manual")
    other = Platform.objects.create(slug="newcloud", name="新云", source=newer)
    card = Accelerator.objects.create(
        slug="new-card-48gb", name="New card 48GB", vram_gib=48, source=newer
    )
    PriceObservation.objects.filter(offering_id=offering["id"]).update(source=newer)
    Offering.objects.filter(pk=offering["id"]).update(platform=other, accelerator=card)
    [listed] = anon_client.get("/api/v1/offerings/").json()["results"]
    assert {p["source"]["title"] for p in listed["current_prices"]} == {"A newer list"}
    assert (listed["platform"]["slug"], listed["accelerator"]["slug"]) == (
        "newcloud",
        "new-card-48gb",
    )


@pytest.mark.parametrize("n", [1, 50])
def test_the_platform_list_is_two_queries(
    anon_client, source, accelerator, n, django_assert_num_queries
):
    for i in range(n):
        platform = Platform.objects.create(slug=f"p{i}", name=f"平台{i}", source=source)
        add_offerings(platform, accelerator, source, 1)
    # 1 count, 2 platforms with sources and their offering counts.
    with django_assert_num_queries(2):
        response = anon_client.get("/api/v1/platforms/")
    assert [p["offering_count"] for p in response.json()["results"]] == [1] * n


@pytest.mark.parametrize("n", [1, 50])
def test_a_platform_is_three_queries_whatever_it_holds(
    anon_client, platform, accelerator, source, n, django_assert_num_queries
):
    add_offerings(platform, accelerator, source, n)
    for i in range(n):
        StoragePrice.objects.create(
            platform=platform,
            kind="data_disk",
            unit="gb_month",
            amount=Decimal("0.5"),
            currency="CNY",
            observed_at=NOW - timedelta(days=i),
            source=source,
        )
    PlatformFact.objects.create(platform=platform, attribute="billing", value="x", source=source)
    # 1 platform with source and offering count, 2 facts with sources, 3 latest storage prices.
    with django_assert_num_queries(3):
        response = anon_client.get(f"/api/v1/platforms/{platform.slug}/")
    assert response.json()["offering_count"] == n
    assert len(response.json()["storage_prices"]) == 1


@pytest.mark.parametrize("n", [1, 50])
def test_the_accelerator_list_is_four_queries(anon_client, source, n, django_assert_num_queries):
    for i in range(n):
        accelerator = Accelerator.objects.create(
            slug=f"gpu-{i}", name=f"GPU {i}", vendor="V", vram_gib=Decimal(40), source=source
        )
        AcceleratorAlias.objects.create(accelerator=accelerator, alias=f"G{i}", normalised=f"g{i}")
        MigProfile.objects.create(
            accelerator=accelerator,
            name="1g.5gb",
            memory_gib=Decimal(5),
            memory_slices=1,
            compute_slices=1,
            max_count=7,
            starts=[0],
        )
    # 1 count, 2 accelerators with sources, 3 aliases, 4 MIG profiles.
    with django_assert_num_queries(4):
        response = anon_client.get("/api/v1/accelerators/")
    aliases = sorted(alias for a in response.json()["results"] for alias in a["aliases"])
    assert aliases == sorted(f"G{i}" for i in range(n))


@pytest.mark.parametrize("n", [1, 50])
def test_price_history_is_two_queries_however_many_observations(
    anon_client, offering, source, n, django_assert_num_queries
):
    for i in range(n):
        services.price_observation_create(
            offering=offering,
            unit="hour",
            amount=Decimal(2) + Decimal(i) / 100,
            currency="CNY",
            source=source,
            observed_at=NOW - timedelta(days=i),
        )
    # 1 the offering, 2 the aggregate over its observations.
    with django_assert_num_queries(2):
        response = anon_client.get(f"/api/v1/offerings/{offering.pk}/prices/", {"bucket": "month"})
    assert sum(b["count"] for b in response.json()["buckets"]) == n
