"""Query counts are part of the contract: the same at 1 and at 50 offerings."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.urls import reverse

from platforms import services
from platforms.models import Offering, PriceObservation
from platforms.selectors import CHART_OFFERINGS
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
        current = list(PriceObservation.objects.current())
    assert len(current) == n
    assert {p.amount for p in current} == {Decimal("1.90")}


@pytest.mark.parametrize("n", [1, 50])
def test_the_catalog_queryset_is_two_queries(
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
    # 1 platform with its billing rules, 2 facts, 3 storage prices, 4 how many offerings it
    # lists, 5 the first of them, 6 their current prices with sources, 7 how many platforms
    # list each card (the chart's picker), 8 where their history begins, 9 each bucket's last
    # price, 10 its buckets, 11 the sources it cites, 12 the catalogue's version, 13 the current
    # price seen last (kept at that version), 14 its feeds, 15 its no-GPU-mode price, 16 the
    # feeds that confirmed the prices listed (how each was last confirmed)
    with django_assert_num_queries(16):
        response = client.get(reverse("platforms:detail", args=[platform.slug]))
    assert response.status_code == 200
    assert len(response.context["offerings"]) == n
    assert len(response.context["history"]) == min(n, CHART_OFFERINGS)


def test_current_by_offering_finds_the_same_prices_as_current(platform, accelerator, source):
    """Two ways to the latest observation per (offering, unit): they must agree, for every unit,
    for offerings without prices and for a restricted set of offerings."""
    add_offerings(platform, accelerator, source, 3)
    first = Offering.objects.order_by("pk").first()
    services.price_observation_create(
        offering=first,
        unit="month",
        amount=Decimal("900"),
        currency="CNY",
        source=source,
        observed_at=NOW - timedelta(days=5),
    )
    make_offering(platform, accelerator, source, name="unpriced")
    every = set(PriceObservation.objects.current())
    assert set(PriceObservation.objects.current_by_offering()) == every
    assert len(every) == 4
    only_first = Offering.objects.filter(pk=first.pk)
    assert set(PriceObservation.objects.current_by_offering(only_first)) == {
        p for p in every if p.offering_id == first.pk
    }


@pytest.mark.parametrize("n", [1, 50])
def test_the_advisor_loads_the_catalogue_in_a_fixed_number_of_queries(
    platform, accelerator, source, n, django_assert_num_queries
):
    from advisor import services

    add_offerings(platform, accelerator, source, n)
    accelerators = services.accelerator_specs()
    # platforms (with billing rules and no-GPU-mode price), offerings, their current prices,
    # the prices' sources
    with django_assert_num_queries(4):
        specs = services.offering_specs(accelerators, now=NOW)
    assert [p.amount for s in specs for p in s.prices] == [Decimal("1.90")] * n
