"""Query counts are part of the contract: the same at 1 and at 50 offerings."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.urls import reverse

from platforms import services
from platforms.models import Offering, PriceObservation
from tests.conftest import NOW, make_offering


def add_offerings(platform, accelerator, source, n: int) -> None:
    for i in range(n):
        offering = make_offering(platform, accelerator, source, name=f"o{i}")
        for days, amount in ((20, "2.00"), (2, "1.90")):
            services.price_observation_create(
                offering=offering,
                unit="hour",
                amount=Decimal(amount),
                currency="CNY",
                source=source,
                observed_at=NOW - timedelta(days=days),
            )


@pytest.mark.parametrize("n", [1, 50])
def test_latest_price_per_offering_is_one_query(
    platform, accelerator, source, n, django_assert_num_queries
):
    add_offerings(platform, accelerator, source, n)
    with django_assert_num_queries(1):  # the latest observation per (offering, unit)
        current = list(PriceObservation.objects.latest_per_offering())
    assert len(current) == n
    assert {p.amount for p in current} == {Decimal("1.90")}


@pytest.mark.parametrize("n", [1, 50])
def test_the_catalog_queryset_is_three_queries(
    platform, accelerator, source, n, django_assert_num_queries
):
    add_offerings(platform, accelerator, source, n)
    # 1: offerings with platform, accelerator and source; 2: their current prices with sources.
    with django_assert_num_queries(2):
        offerings = list(Offering.objects.for_catalog())
        prices = [p.amount for o in offerings for p in o.current_prices]
    assert prices == [Decimal("1.90")] * n


@pytest.mark.parametrize("n", [1, 50])
def test_the_platform_page_query_count_does_not_grow(
    client, platform, accelerator, source, n, django_assert_num_queries
):
    add_offerings(platform, accelerator, source, n)
    # 1 platform, 2 facts, 3 offerings, 4 current prices, 5 storage prices
    with django_assert_num_queries(5):
        response = client.get(reverse("platforms:detail", args=[platform.slug]))
    assert response.status_code == 200
