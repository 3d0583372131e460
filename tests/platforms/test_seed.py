"""The seed catalogue loads, holds the vendor article's platforms and prices, loads only once."""

from __future__ import annotations

import csv
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.utils import timezone

from platforms.importers import observed_at_value
from platforms.models import (
    Accelerator,
    BillingRules,
    CreditRate,
    ExchangeRate,
    IdleModePrice,
    MigProfile,
    Offering,
    Platform,
    PriceObservation,
    StoragePrice,
)
from platforms.seed import PRICE_FILES, load_seed

FIXTURES = Path(settings.BASE_DIR) / "fixtures"
SAMPLES = Path(settings.BASE_DIR) / "tests" / "importers" / "data"


def price_rows() -> list[dict[str, str]]:
    """The offering rows of the committed sourced price files (fixtures/prices-2026/)."""
    rows = []
    for name in PRICE_FILES:
        with open(FIXTURES / name, encoding="utf-8", newline="") as handle:
            rows += [
                r for r in csv.DictReader(handle) if (r.get("record") or "offering") == "offering"
            ]
    return rows


@pytest.fixture
def seeded(db):
    return load_seed()


def current(
    platform: str, accelerator: str, unit: str, gpus: int = 1, tier: str = "list"
) -> PriceObservation:
    return PriceObservation.objects.current().get(
        offering__platform__slug=platform,
        offering__accelerator__slug=accelerator,
        offering__gpu_count=gpus,
        offering__interruptible=False,
        unit=unit,
        tier=tier,
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


def test_matpools_day_price_is_its_hourly_price_times_the_stated_break_even(seeded):
    """矩池云's A100 40GB: 2.80 an hour 按时, and 包日 "pays off only above 21.6 h/day" (a public
    runbook of 2026-08-27), so its 包日 is 2.80 × 21.6 = 60.48 a day, stored with that source;
    the platform meters per second (its billing rules)."""
    day = current("matpool", "a100-40gb", "day")
    assert day.amount == Decimal("60.48") == Decimal("2.80") * Decimal("21.6")
    assert "PrivShield" in day.source.title
    assert BillingRules.objects.get(platform__slug="matpool").metering_seconds == 1


def test_the_article_storage_prices_are_seeded(seeded):
    storage = StoragePrice.objects.filter(platform__slug="zhixingyun")
    assert storage.get(kind="data_disk").amount == Decimal("0.0005")
    shared = storage.get(kind="shared")
    assert (shared.amount, shared.unit) == (Decimal("200"), "tb_month")


def test_autodl_prices_keep_their_history_per_tier(seeded):
    """AutoDL's 4090 (autodl.com/home): list 2.19 in 2026-04 and 1.98 on 2026-10-04; 1.88 on
    2026-10-01 and 2026-10-04 is the member price, 95 % of list (libtv 03, 2026-10-04; AutoDL
    search report, 2026-08-06)."""
    offering = Offering.objects.get(platform__slug="autodl", external_id="adl-4090")
    hourly = offering.prices.filter(unit="hour").order_by("observed_at")
    assert [(p.tier, p.amount) for p in hourly] == [
        ("list", Decimal("2.19")),
        ("member", Decimal("1.88")),
        ("list", Decimal("1.98")),
    ]
    assert current("autodl", "rtx-4090-24gb", "hour").amount == Decimal("1.98")
    assert current("autodl", "rtx-4090-24gb", "hour", tier="member").amount == Decimal("1.88")
    member = offering.prices.get(tier="member")
    # Seen again on 2026-10-04: one observation whose last sighting moved, not a second row.
    assert timezone.localtime(member.last_seen_at).date() == date(2026, 10, 4)
    assert current("autodl", "rtx-4090-24gb", "month").amount == Decimal("1052")


def test_at_least_twenty_accelerators_with_mig_profiles(seeded):
    assert Accelerator.objects.count() >= 20
    # The cards the 2026 price rows name, each with its datasheet source and grade.
    added = {
        "l4-24gb",
        "l40-48gb",
        "t4-16gb",
        "v100-16gb",
        "v100-32gb",
        "rtx-pro-6000-96gb",
        "b300-288gb",
        "gb200-186gb",
        "gh200-96gb",
        "mtt-s4000-48gb",
        "rtx-a4000-16gb",
        "rtx-a5000-24gb",
        "rtx-a6000-48gb",
        "quadro-rtx-6000-24gb",
        "h100-80gb",
    }
    found = Accelerator.objects.filter(slug__in=added)
    assert {a.slug for a in found} == added
    assert all(a.source_note and a.confidence for a in found)
    assert Accelerator.objects.get(slug="mtt-s4000-48gb").domestic
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


def test_the_seed_holds_every_sourced_price_row_as_history(seeded):
    """Each row of fixtures/prices-2026/ is an observation of its offering, unit and tier, observed
    on the row's date or re-seen then (the same price again moves its last sighting)."""
    rows = price_rows()
    assert len(rows) == 25 + 109 + 49
    for row in rows:
        when = observed_at_value(row["observed_at"])
        assert PriceObservation.objects.filter(
            offering__platform__slug=row["platform"],
            offering__external_id=row["offering_key"],
            unit=row["billing_unit"],
            tier=row["tier"],
            amount=Decimal(row["amount"]),
            currency=row["currency"],
            observed_at__lte=when,
            last_seen_at__gte=when,
        ).exists(), row


def test_the_seed_counts_platforms_and_priced_offerings_of_the_committed_data(seeded):
    """At least 19 platforms and 140 priced offerings; exactly the offerings the committed files
    price (fixtures/catalogue.json and fixtures/prices-2026/)."""
    import json

    catalogue = json.loads((FIXTURES / "catalogue.json").read_text(encoding="utf-8"))
    priced = {(r["platform"], r["offering_key"]) for r in price_rows()}
    priced |= {
        (p["slug"], o["key"])
        for p in catalogue["platforms"]
        for o in p.get("offerings", [])
        if o.get("prices")
    }
    priced |= catalog_offerings()
    slugs = {p["slug"] for p in catalogue["platforms"]}
    with_prices = Offering.objects.filter(prices__isnull=False).distinct()
    assert Platform.objects.count() == len(slugs) >= 19
    assert with_prices.count() == len(priced) >= 300
    assert set(with_prices.values_list("platform__slug", "external_id")) == priced


def catalog_offerings() -> set[tuple[str, str]]:
    """The offerings of fixtures/catalogs/ whose GPU the accelerator table knows, read as their
    platform's dialect."""
    import json

    from platforms.importers.accelerators import AcceleratorResolver, Unresolved
    from platforms.importers.skypilot import parse

    manifest = json.loads((FIXTURES / "catalogs" / "catalogs.json").read_text(encoding="utf-8"))
    resolver = AcceleratorResolver()
    found = set()
    for entry in manifest["catalogs"]:
        text = (FIXTURES / "catalogs" / entry["file"]).read_text(encoding="utf-8")
        for row in parse(text, entry["platform"]).rows:
            try:
                resolver.resolve(row.accelerator_name, row.gpu_memory_gib, row.hint)
            except Unresolved:
                continue
            found.add((entry["platform"], row.external_id))
    return found


def test_the_seed_prices_the_global_clouds_from_their_skypilot_catalogs(seeded):
    """AWS, Google Cloud and Azure had no offering: the seed imports their SkyPilot catalog
    extracts (fixtures/catalogs/), each price dated and linked to the catalog's commit."""
    counts = {
        slug: Offering.objects.filter(platform__slug=slug, prices__isnull=False).count()
        for slug in ("aws", "gcp", "azure")
    }
    assert counts == {"aws": 164, "gcp": 312, "azure": 242}
    p5 = PriceObservation.objects.get(offering__external_id="p5.48xlarge@us-east-1")
    assert p5.observed_at == observed_at_value("2026-11-01")
    assert p5.source.url == (
        "https://github.com/skypilot-org/skypilot-catalog/blob/"
        "e385a0d348eda9cefd9806423e7725944dc249e4/catalogs/v8/aws/vms.csv"
    )
    assert "date was not read" in p5.source.notes
    # GCP: the host VM plus its GPUs (0.73948 + 2.93391), on the 40 GB A100.
    a2 = Offering.objects.get(platform__slug="gcp", external_id="a2-highgpu-1g@us-central1")
    assert a2.accelerator.slug == "a100-40gb"
    assert a2.prices.get().amount == Decimal("3.67339")
    nd40 = Offering.objects.get(platform__slug="azure", external_id="Standard_ND40rs_v2@eastus")
    assert (nd40.accelerator.slug, nd40.gpu_count) == ("v100-32gb", 8)


def test_domestic_accelerators_are_priced_on_autodl(seeded):
    """AutoDL list prices, 2026-10-04 (libtv 03): Ascend 910B2 64G 3.87, MTT S4000 48G 1.96 (member
    1.86) per hour."""
    assert current("autodl", "ascend-910b-64gb", "hour").amount == Decimal("3.87")
    assert current("autodl", "mtt-s4000-48gb", "hour").amount == Decimal("1.96")
    assert current("autodl", "mtt-s4000-48gb", "hour", tier="member").amount == Decimal("1.86")


def test_virtaicloud_has_its_memory_slices_but_no_sourced_price(seeded):
    """No dated source prices 趋动云 or converts its 算力点 to CNY; its slices are sold by memory
    (user logs: 6,062 MiB and 24,258 MiB on RTX 3090-class cards)."""
    slices = Offering.objects.filter(platform__slug="virtaicloud").order_by("pooled_vram_gib")
    assert [(o.sharing_mode, o.pooled_vram_gib) for o in slices] == [
        ("pooled", Decimal("5.92")),
        ("pooled", Decimal("23.69")),
    ]
    assert not PriceObservation.objects.filter(offering__platform__slug="virtaicloud").exists()
    rules = BillingRules.objects.get(platform__slug="virtaicloud")
    assert (rules.credit_name, rules.idle_shutdown_seconds) == ("算力点", 3600)
    assert not CreditRate.objects.exists()


def test_per_second_prices_and_conflicts_are_kept_as_listed(seeded):
    """Modal bills per second (modal.com/pricing): T4 $0.000164/s, stored exactly. Conflicting
    readings stay history, never averaged: RunPod Secure H100 SXM 3.49 (2026-09-25) then 3.99
    (2026-11-09); fal.ai B200 6.25 (2026-09-20) then 7.99 (2026-10-04)."""
    t4 = PriceObservation.objects.get(offering__external_id="md-t4")
    assert (t4.unit, t4.amount) == ("second", Decimal("0.000164"))
    for key, amounts in {
        "rp-h100-sxm-secure": ["3.49", "3.99"],
        "fal-b200": ["6.25", "7.99"],
        "vast-h100-sxm-median": ["6.1489", "2.4024"],
        "nb-h100": ["3.85", "4.50"],
    }.items():
        history = PriceObservation.objects.filter(offering__external_id=key).order_by("observed_at")
        assert [p.amount for p in history] == [Decimal(a) for a in amounts], key


def test_billing_rules_storage_and_no_gpu_prices_are_seeded(seeded):
    """AutoDL: per-second metering, minimum 0.01 CNY (docs.gpuhub.com billing), no-GPU mode
    ¥0.10/h (libtv 03); Lambda per minute (api-evangelist plans); Modal storage $0.09 per
    GiB-month, stored per GB."""
    autodl = BillingRules.objects.get(platform__slug="autodl")
    assert (autodl.metering_seconds, autodl.min_charge, autodl.min_charge_currency) == (
        1,
        Decimal("0.01"),
        "CNY",
    )
    assert autodl.release_after_stopped_days == 15
    assert BillingRules.objects.get(platform__slug="lambda").metering_seconds == 60
    idle = IdleModePrice.objects.get(platform__slug="autodl")
    assert (idle.unit, idle.amount, idle.currency) == ("hour", Decimal("0.1"), "CNY")
    modal = StoragePrice.objects.get(platform__slug="modal")
    assert (modal.unit, modal.amount, modal.free_gb) == ("gb_month", Decimal("0.083819"), 1099)


@pytest.mark.parametrize(
    "args",
    [
        ["--format", "skypilot", "--platform", "lambda", "skypilot-v8-lambda-vms.csv"],
        ["--format", "skypilot", "--platform", "runpod", "skypilot-v8-runpod-vms.csv"],
        ["--format", "gpuhunt", "--platform", "runpod", "gpuhunt-sample.csv"],
        ["--format", "native", "native-sample.csv"],
    ],
)
def test_the_sample_catalogs_import_into_the_seeded_platforms(seeded, args, capsys):
    """README's import commands work on a fresh clone: every platform they name is seeded."""
    *options, name = args
    call_command("import_offers", str(SAMPLES / name), *options, "--observed-at", "2026-11-01")
    out = capsys.readouterr().out
    assert "errors 0" in out
    assert "offerings created 0," not in out


def test_the_aws_sample_imports_again_onto_the_seeded_aws_offerings(seeded, capsys):
    """The seed imported the same extract (fixtures/catalogs/) on the same date: nothing new."""
    call_command(
        "import_offers",
        str(SAMPLES / "skypilot-v8-aws-vms.csv"),
        "--format",
        "skypilot",
        "--platform",
        "aws",
        "--observed-at",
        "2026-11-01",
    )
    out = capsys.readouterr().out
    assert "errors 0" in out
    assert "offerings created 0, updated 0, unchanged 164" in out


def test_host_sizes_are_seeded_only_where_a_source_states_them(seeded):
    """The most cards one instance takes on one host: AutoDL (8, a guide's 8-card hosts) and
    优云智算 (its API: "1~8 或 1~10, 因卡型号而异", so 8 for every card). 矩池云, 共绩算力 and
    算家云 state no limit in any source read: no row, so the advisor rents them one card per
    instance and says so."""
    from platforms.models import HostSize

    sizes = {
        size.platform.slug: size
        for size in HostSize.objects.select_related("platform", "source", "accelerator")
    }
    assert set(sizes) == {"autodl", "compshare"}
    compshare = sizes["compshare"]
    assert (compshare.accelerator, compshare.max_cards, compshare.interconnect) == (
        None,
        8,
        "pcie",
    )
    assert compshare.source.url == (
        "https://www.compshare.cn/docs/gpus/instance/createcompshareinstance"
    )
    assert compshare.source.speaker.slug == "compshare"
    assert "1~8" in compshare.notes and "1~8" in compshare.notes_zh
