"""The seed catalogue loads, holds the vendor article's platforms and prices, loads only once."""

from __future__ import annotations

from decimal import Decimal

import pytest

from platforms.models import (
    Accelerator,
    ExchangeRate,
    MigProfile,
    Offering,
    Platform,
    PriceObservation,
    StoragePrice,
)
from platforms.seed import load_seed


@pytest.fixture
def seeded(db):
    return load_seed()


def current(platform: str, accelerator: str, unit: str, gpus: int = 1) -> PriceObservation:
    return PriceObservation.objects.current().get(
        offering__platform__slug=platform,
        offering__accelerator__slug=accelerator,
        offering__gpu_count=gpus,
        offering__interruptible=False,
        unit=unit,
    )


def test_the_four_platforms_of_the_seed_article_are_there(seeded):
    slugs = set(Platform.objects.values_list("slug", flat=True))
    assert {"zhixingyun", "hengyuanyun", "matpool", "virtaicloud"} <= slugs
    assert Platform.objects.get(slug="virtaicloud").multi_task == "pooled"
    assert Platform.objects.get(slug="zhixingyun").multi_task == "mig"
    assert Platform.objects.get(slug="matpool").multi_task == "instance"


def test_every_comparison_attribute_of_the_article_is_seeded(seeded):
    for slug in ("zhixingyun", "hengyuanyun", "matpool", "virtaicloud"):
        attributes = set(Platform.objects.get(slug=slug).facts.values_list("attribute", flat=True))
        assert {
            "delivery",
            "scheduling",
            "interconnect",
            "stability",
            "domestic",
            "storage",
            "multi_task",
        } <= attributes, slug


def test_the_article_prices_are_seeded_with_their_source(seeded):
    """The vendor article "2026多任务GPU平台怎么选" (智星云, 2026-05-26): 4090 1.32/h (恒源云),
    1.50/h (智星云), 4090 48G x8 12,000/month, A100 80G x8 28,000/month, A100 40G 1,710/month
    per card."""
    assert current("hengyuanyun", "rtx-4090-24gb", "hour").amount == Decimal("1.32")
    zxy_4090 = current("zhixingyun", "rtx-4090-24gb", "hour")
    assert zxy_4090.amount == Decimal("1.50")
    assert zxy_4090.source.kind == "vendor_claim"
    assert current("zhixingyun", "rtx-4090-48gb", "month", gpus=8).amount == Decimal("12000")
    assert current("zhixingyun", "a100-80gb", "month", gpus=8).amount == Decimal("28000")
    assert current("zhixingyun", "a100-40gb", "month").amount == Decimal("1710")
    assert str(zxy_4090.observed_at.date()) in {"2026-05-25", "2026-05-26"}


def test_the_article_storage_prices_are_seeded(seeded):
    storage = StoragePrice.objects.filter(platform__slug="zhixingyun")
    assert storage.get(kind="data_disk").amount == Decimal("0.0005")
    shared = storage.get(kind="shared")
    assert (shared.amount, shared.unit) == (Decimal("200"), "tb_month")


def test_autodl_prices_keep_their_history(seeded):
    """AutoDL's 4090 listing (autodl.com), recorded at 2.19 in 2026-04 and 1.88 on 2026-10-01."""
    offering = Offering.objects.get(platform__slug="autodl", external_id="adl-4090")
    hourly = offering.prices.filter(unit="hour").order_by("observed_at")
    assert [p.amount for p in hourly] == [Decimal("2.19"), Decimal("1.88")]
    assert current("autodl", "rtx-4090-24gb", "hour").amount == Decimal("1.88")
    assert current("autodl", "rtx-4090-24gb", "month").amount == Decimal("1052")


def test_at_least_twenty_accelerators_with_mig_profiles(seeded):
    assert Accelerator.objects.count() >= 20
    a100 = Accelerator.objects.get(slug="a100-80gb")
    assert {"1g.10gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"} <= set(
        a100.mig_profiles.values_list("name", flat=True)
    )
    assert MigProfile.objects.get(accelerator=a100, name="3g.40gb").starts == [0, 4]
    assert not Accelerator.objects.get(slug="rtx-4090-24gb").mig_profiles.exists()


def test_the_exchange_rate_names_its_date(seeded):
    rate = ExchangeRate.objects.get(as_of="2026-09-30")
    assert (rate.base, rate.quote, rate.rate) == ("USD", "CNY", Decimal("6.7351"))


def test_loading_twice_creates_nothing_new(seeded):
    counts = (Offering.objects.count(), PriceObservation.objects.count(), Platform.objects.count())
    report = load_seed()
    assert report.created == {}
    assert counts == (
        Offering.objects.count(),
        PriceObservation.objects.count(),
        Platform.objects.count(),
    )


def test_loading_again_keeps_staff_edits(seeded):
    Platform.objects.filter(slug="autodl").update(notes="edited by staff")
    load_seed()
    assert Platform.objects.get(slug="autodl").notes == "edited by staff"
