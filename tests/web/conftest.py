"""A small catalogue for the page tests: two platforms, two accelerators, six offerings that differ
in every way the explorer filters and sorts, and a USD/CNY exchange rate history."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pytest

from platforms import services
from platforms.models import Accelerator, ExchangeRate, Platform
from tests.conftest import NOW, make_offering


def add_price(offering, source, amount, unit="hour", currency="CNY", days_ago=1):
    return services.price_observation_create(
        offering=offering,
        unit=unit,
        amount=Decimal(amount),
        currency=currency,
        source=source,
        observed_at=NOW - timedelta(days=days_ago),
    )


@pytest.fixture
def a100(source) -> Accelerator:
    return Accelerator.objects.create(
        slug="a100-80gb",
        name="A100 80GB",
        vendor="NVIDIA",
        vram_gib=Decimal("80"),
        bf16_tflops=312,
        nvlink=True,
        source=source,
    )


@pytest.fixture
def other_platform(source) -> Platform:
    return Platform.objects.create(
        slug="othercloud", name="另一云", name_en="Other Cloud", source=source
    )


@pytest.fixture
def rates(source):
    """1 USD = 7.2 CNY in January, 7.0 CNY on 30 September (the latest)."""
    ExchangeRate.objects.create(
        base="USD", quote="CNY", rate=Decimal("7.2"), as_of=date(2026, 1, 1), source=source
    )
    return ExchangeRate.objects.create(
        base="USD", quote="CNY", rate=Decimal("7.0"), as_of=date(2026, 9, 30), source=source
    )


@pytest.fixture
def catalogue(platform, other_platform, accelerator, a100, source, rates) -> dict:
    """Hourly equivalents in CNY: pooled 0.90, spot 1.19, single 1.88, 8x A100 28000/720 = 38.89,
    the USD A100 1.50 x 7.0 = 10.50; the 2x A100 has no price."""
    single = make_offering(platform, accelerator, source, name="4090 single")
    add_price(single, source, "2.19", days_ago=60)
    add_price(single, source, "1.88", days_ago=1)
    pooled = make_offering(
        platform,
        accelerator,
        source,
        name="4090 pooled 12G",
        pooled_vram_gib=Decimal("12"),
        sharing_mode="pooled",
        delivery_form="pooled_container",
        interconnect="none",
    )
    add_price(pooled, source, "0.90")
    unpriced = make_offering(
        platform, a100, source, name="A100 x2 unpriced", gpu_count=2, interconnect="nvlink"
    )
    eight = make_offering(
        other_platform,
        a100,
        source,
        name="A100 x8 bare metal",
        gpu_count=8,
        interconnect="nvlink",
        delivery_form="bare_metal",
    )
    add_price(eight, source, "28000", unit="month")
    spot = make_offering(other_platform, accelerator, source, name="4090 spot", interruptible=True)
    add_price(spot, source, "1.19")
    usd = make_offering(other_platform, a100, source, name="A100 USD", sharing_mode="virtualized")
    add_price(usd, source, "1.50", currency="USD")
    return {
        "single": single,
        "pooled": pooled,
        "unpriced": unpriced,
        "eight": eight,
        "spot": spot,
        "usd": usd,
    }
