"""Every price has an age; last seen more than PRICE_STALE_AFTER_DAYS days ago it is stale (the same
rule in the model, the stale() query and the advisor engine); seen again, it is fresh."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.test import override_settings
from django.utils import timezone

from platforms.importers import observed_at_value
from platforms.models import PriceObservation

from .conftest import DAY_1, run

N = 90
CATALOG = (
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo\n"
    "gpu_1x_a10,A10,1,30,200,1.29,us-east-1,\n"
)
SEEN = observed_at_value(DAY_1)


@pytest.fixture
def imported(lambda_cloud) -> PriceObservation:
    run(CATALOG, "skypilot", lambda_cloud, day=DAY_1)
    return PriceObservation.objects.get()


@override_settings(PRICE_STALE_AFTER_DAYS=N)
def test_a_price_is_fresh_at_n_days_and_stale_just_after(imported):
    with time_machine.travel(SEEN + timedelta(days=N), tick=False):
        assert (imported.age_days(), imported.is_stale()) == (N, False)
        assert not PriceObservation.objects.stale().exists()
    with time_machine.travel(SEEN + timedelta(days=N, hours=1), tick=False):
        assert (imported.age_days(), imported.is_stale()) == (N, True)
        assert list(PriceObservation.objects.stale()) == [imported]


@override_settings(PRICE_STALE_AFTER_DAYS=N)
def test_the_stale_query_finds_prices_last_seen_more_than_n_days_ago(imported):
    now = timezone.now()
    long_ago = now - timedelta(days=N + 2)
    PriceObservation.objects.update(observed_at=long_ago, last_seen_at=long_ago)
    assert list(PriceObservation.objects.stale()) == [imported]

    PriceObservation.objects.update(last_seen_at=now - timedelta(days=N - 1))
    assert not PriceObservation.objects.stale().exists()


@override_settings(PRICE_STALE_AFTER_DAYS=N)
def test_an_unchanged_price_seen_again_by_an_import_is_fresh_again(imported, lambda_cloud):
    later = DAY_1 + timedelta(days=N + 10)
    with time_machine.travel(observed_at_value(later) + timedelta(hours=9), tick=False):
        imported.refresh_from_db()
        assert imported.is_stale()

        report = run(CATALOG, "skypilot", lambda_cloud, day=later)

        assert report.prices_seen == 1
        imported.refresh_from_db()
        assert (imported.age_days(), imported.is_stale()) == (0, False)
        assert imported.last_seen_at == observed_at_value(later)
        assert PriceObservation.objects.count() == 1


@override_settings(PRICE_STALE_AFTER_DAYS=7)
def test_the_stale_threshold_comes_from_the_setting(imported):
    with time_machine.travel(SEEN + timedelta(days=8), tick=False):
        assert imported.is_stale()
        assert PriceObservation.objects.stale(days=30).count() == 0
