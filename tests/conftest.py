"""Shared fixtures: a chain source -> platform -> accelerator -> offering -> price history."""

from __future__ import annotations

import os
from datetime import datetime, timedelta
from decimal import Decimal

import pytest
from django.utils import timezone, translation
from hypothesis import settings as hypothesis_settings

from platforms import services
from platforms.models import Accelerator, Offering, Platform, PlatformFact, Source

# Hypothesis searches wide in CI (.ci/run sets CI=true): each property's full example count; a
# tenth of it locally (at least 10), so that `make test` stays quick. Properties without a count
# of their own take the profile's.
FULL_EXAMPLES = os.environ.get("CI", "").lower() == "true"
hypothesis_settings.register_profile("ci", max_examples=100)
hypothesis_settings.register_profile("dev", max_examples=20)
hypothesis_settings.load_profile("ci" if FULL_EXAMPLES else "dev")

# Tests that start, stop, freeze or consume an outside service shared by the machine (Redis, a
# Celery worker on it), or time a request against a limit: `make test` runs them after the rest,
# in one process with nothing beside them ("serial"), the rest on every core (pytest-xdist).
SERIAL = ("tests/ops/", "tests/feeds/test_recovery.py")


def pytest_collection_modifyitems(config, items):
    for item in items:
        path = item.nodeid.replace("\\", "/")
        if path.startswith(SERIAL) or item.get_closest_marker("celery_worker"):
            item.add_marker(pytest.mark.serial)


def examples(full: int) -> int:
    """A property's example count: `full` in CI, a tenth of it (at least 10) elsewhere."""
    return full if FULL_EXAMPLES else max(10, full // 10)


# A fixed moment in the past: prices are never dated after the real clock.
NOW = datetime(2026, 11, 20, 12, 0, tzinfo=timezone.get_fixed_timezone(0))


def local(moment, fmt=None):
    """`moment` in the site's time zone, as the API (ISO) or a chart (fmt) writes it."""
    value = timezone.localtime(moment)
    return value.strftime(fmt) if fmt else value.isoformat()


@pytest.fixture(autouse=True)
def english():
    """Start each test in English: a request in Chinese leaves its language active in the thread."""
    with translation.override("en"):
        yield


@pytest.fixture(autouse=True)
def no_kept_catalogue():
    """Start each test as a fresh worker process starts: no engine inputs or page data kept from
    another test (advisor.snapshot), whose rolled-back database they were built from."""
    from advisor.services import HOST_SNAPSHOTS, SNAPSHOTS
    from api.filters import LISTED_RELATIONS
    from platforms.views import SEEN_LAST

    kept = (SNAPSHOTS, HOST_SNAPSHOTS, SEEN_LAST, LISTED_RELATIONS)
    for snapshots in kept:
        snapshots.clear()
    yield
    for snapshots in kept:
        snapshots.clear()


@pytest.fixture
def source(db) -> Source:
    return Source.objects.create(
        title="Test price list", url="https://example.com/prices", kind="manual"
    )


@pytest.fixture
def vendor_source(db) -> Source:
    return Source.objects.create(title="A vendor's article", kind="vendor_claim")


@pytest.fixture
def platform(source) -> Platform:
    platform = Platform.objects.create(
        slug="testcloud",
        name="测试云",
        name_en="Test Cloud",
        multi_task="instance",
        delivery_forms=["cloud_vm"],
        interconnects=["pcie"],
        source=source,
    )
    PlatformFact.objects.create(
        platform=platform,
        attribute="multi_task",
        value="Instance level",
        value_zh="实例级",
        source=source,
    )
    return platform


@pytest.fixture
def accelerator(source) -> Accelerator:
    return Accelerator.objects.create(
        slug="rtx-4090-24gb",
        name="GeForce RTX 4090",
        vendor="NVIDIA",
        vram_gib=Decimal("24"),
        memory_bandwidth_gbps=1008,
        bf16_tflops=165.2,
        source=source,
    )


def make_offering(platform, accelerator, source, name="RTX 4090 VM", **extra) -> Offering:
    return Offering.objects.create(
        platform=platform,
        accelerator=accelerator,
        name=name,
        delivery_form=extra.pop("delivery_form", "cloud_vm"),
        source=source,
        **extra,
    )


@pytest.fixture
def offering(platform, accelerator, source) -> Offering:
    return make_offering(platform, accelerator, source)


@pytest.fixture
def price_history(offering, source):
    """Two hourly prices a month apart: 2.19 then 1.88 CNY."""
    old = services.price_observation_create(
        offering=offering,
        unit="hour",
        amount=Decimal("2.19"),
        currency="CNY",
        source=source,
        observed_at=NOW - timedelta(days=30),
    )
    new = services.price_observation_create(
        offering=offering,
        unit="hour",
        amount=Decimal("1.88"),
        currency="CNY",
        source=source,
        observed_at=NOW - timedelta(days=1),
    )
    return old, new
