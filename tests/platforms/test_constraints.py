"""Each database constraint rejects bad data, and full_clean() reports it with its message."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from platforms import services
from platforms.models import (
    Accelerator,
    AcceleratorAlias,
    ExchangeRate,
    Offering,
    PlatformFact,
    PriceObservation,
    StoragePrice,
)
from tests.conftest import NOW, make_offering


def assert_rejected(instance, message: str, constraint: str) -> None:
    """full_clean() names the problem; the database refuses the row by the named constraint."""
    with pytest.raises(ValidationError) as excinfo:
        instance.full_clean()
    assert message in str(excinfo.value)
    # Postgres names the constraint; SQLite names the columns of a unique one.
    with (
        pytest.raises(IntegrityError, match=f"{constraint}|UNIQUE constraint failed"),
        transaction.atomic(),
    ):
        instance.save()


def price(offering, source, **overrides) -> PriceObservation:
    fields = {
        "offering": offering,
        "unit": "hour",
        "amount": Decimal("1.50"),
        "currency": "CNY",
        "observed_at": NOW,
        "last_seen_at": NOW,
        "source": source,
    }
    fields.update(overrides)
    return PriceObservation(**fields)


def test_it_rejects_a_negative_price(offering, source):
    assert_rejected(
        price(offering, source, amount=Decimal("-0.01")),
        "A price cannot be negative.",
        "price_amount_not_negative",
    )


def test_it_rejects_an_unknown_currency(offering, source):
    assert_rejected(
        price(offering, source, currency="EUR"), "is not a valid choice", "price_currency_known"
    )


def test_it_rejects_an_unknown_billing_unit(offering, source):
    assert_rejected(
        price(offering, source, unit="fortnight"), "is not a valid choice", "price_unit_known"
    )


def test_it_rejects_two_observations_for_the_same_offering_unit_tier_and_time(offering, source):
    price(offering, source).save()
    assert_rejected(
        price(offering, source, amount=Decimal("2")),
        "This offering already has a price for this billing unit and tier at this time.",
        "price_one_per_offering_unit_time",
    )


def test_it_accepts_a_member_price_beside_the_list_price_at_the_same_time(offering, source):
    """AutoDL on 2026-10-04: RTX 4090 list 1.98, member 1.88 (95 % of list), the same moment."""
    listed = price(offering, source, amount=Decimal("1.98"))
    listed.save()
    member = price(offering, source, amount=Decimal("1.88"), tier="member")
    member.full_clean()
    member.save()
    # Saved by hand, not through a write service: the stored current prices are ours to point.
    services.current_prices_advance(observations=[listed, member])
    assert PriceObservation.objects.current().count() == 2


def test_it_rejects_an_unknown_price_tier(offering, source):
    assert_rejected(
        price(offering, source, tier="vip"), "is not a valid choice", "price_tier_known"
    )


def test_it_stores_a_per_second_price_exactly(offering, source):
    """Modal's T4 is $0.000164 a second (modal.com/pricing): six decimal places keep it."""
    observation = price(offering, source, unit="second", amount=Decimal("0.000164"))
    observation.full_clean()
    observation.save()
    assert PriceObservation.objects.get().amount == Decimal("0.000164")


def test_it_accepts_the_same_time_for_another_billing_unit(offering, source):
    price(offering, source).save()
    other = price(offering, source, unit="month", amount=Decimal("1000"))
    other.full_clean()
    other.save()
    assert PriceObservation.objects.count() == 2


def test_it_rejects_a_price_last_seen_before_it_was_observed(offering, source):
    assert_rejected(
        price(offering, source, last_seen_at=NOW - timedelta(days=1)),
        "A price cannot be last seen before it was observed.",
        "price_seen_after_observed",
    )


def test_it_rejects_an_offering_without_gpus(platform, accelerator, source):
    offering = Offering(
        platform=platform,
        accelerator=accelerator,
        name="No GPU",
        delivery_form="cloud_vm",
        gpu_count=0,
        source=source,
    )
    assert_rejected(offering, "An offering has at least one GPU.", "offering_gpu_count_positive")


def test_it_rejects_an_unknown_sharing_mode(platform, accelerator, source):
    offering = Offering(
        platform=platform,
        accelerator=accelerator,
        name="Odd",
        delivery_form="cloud_vm",
        sharing_mode="timeshare",
        source=source,
    )
    assert_rejected(offering, "is not a valid choice", "offering_sharing_mode_known")


def test_it_rejects_a_duplicate_catalog_key_on_one_platform(platform, accelerator, source):
    make_offering(platform, accelerator, source, external_id="gpu_1x")
    duplicate = Offering(
        platform=platform,
        accelerator=accelerator,
        name="Again",
        delivery_form="cloud_vm",
        external_id="gpu_1x",
        source=source,
    )
    assert_rejected(
        duplicate,
        "This platform already has an offering with this key.",
        "offering_external_id_unique_per_platform",
    )


def test_it_allows_many_offerings_without_a_catalog_key(platform, accelerator, source):
    make_offering(platform, accelerator, source, name="a")
    make_offering(platform, accelerator, source, name="b")


def test_it_rejects_a_second_value_for_one_comparison_attribute(platform, source):
    fact = PlatformFact(platform=platform, attribute="multi_task", value="MIG", source=source)
    assert_rejected(
        fact,
        "This platform already has a value for this attribute.",
        "platformfact_one_per_attribute",
    )


def test_it_rejects_a_negative_storage_price(platform, source):
    storage = StoragePrice(
        platform=platform,
        kind="data_disk",
        unit="gb_hour",
        amount=Decimal("-1"),
        currency="CNY",
        source=source,
    )
    assert_rejected(storage, "A price cannot be negative.", "storage_amount_not_negative")


def test_it_rejects_an_exchange_rate_of_zero(source):
    rate = ExchangeRate(base="USD", quote="CNY", rate=Decimal("0"), as_of=NOW.date(), source=source)
    assert_rejected(rate, "An exchange rate must be more than zero.", "exchangerate_rate_positive")


def test_it_rejects_an_exchange_rate_between_one_currency(source):
    rate = ExchangeRate(base="CNY", quote="CNY", rate=Decimal("1"), as_of=NOW.date(), source=source)
    assert_rejected(
        rate,
        "An exchange rate converts between two currencies.",
        "exchangerate_distinct_currencies",
    )


def test_it_rejects_an_accelerator_without_memory(source):
    accelerator = Accelerator(slug="x", name="X", vendor="X", vram_gib=Decimal("0"), source=source)
    assert_rejected(accelerator, "VRAM must be more than zero.", "accelerator_vram_positive")


def test_it_rejects_an_alias_that_already_names_an_accelerator(accelerator):
    AcceleratorAlias(accelerator=accelerator, alias="RTX 4090", normalised="rtx4090").save()
    duplicate = AcceleratorAlias(accelerator=accelerator, alias="rtx-4090")
    with pytest.raises(ValidationError, match=r"This alias already names"):
        duplicate.full_clean()
    duplicate.normalised = "rtx4090"
    with (
        pytest.raises(
            IntegrityError, match=r"acceleratoralias_normalised_unique|UNIQUE constraint failed"
        ),
        transaction.atomic(),
    ):
        duplicate.save()
