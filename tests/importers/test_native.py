"""The native CSV staff write by hand (docs/native-csv.md)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from platforms.importers import observed_at_value
from platforms.models import IdleModePrice, Offering, PriceObservation, Source, StoragePrice

from .conftest import DAY_1, DAY_2, make_platform, run, sample

HEADER = "offering_key,name,accelerator,gpu_count,billing_unit,amount,currency"


@pytest.fixture
def chinese_platforms(accelerators):
    return {
        "autodl": make_platform("autodl", "AutoDL", ["cloud_container"]),
        "matpool": make_platform("matpool", "矩池云", ["cloud_container"]),
        "openbayes": make_platform("openbayes", "OpenBayes", ["cloud_container", "cloud_vm"]),
    }


def test_the_native_sample_imports_offerings_with_cny_prices_per_billing_unit(chinese_platforms):
    report = run(sample("native-sample.csv"), "native", None, filename="native-sample.csv")

    assert report.ok, report.errors
    assert (report.total_rows, report.created) == (5, 4)
    rtx = Offering.objects.get(platform__slug="autodl", external_id="rtx4090-1x")
    assert rtx.accelerator.slug == "rtx-4090-24gb"
    assert (rtx.vcpus, rtx.ram_gib, rtx.disk_gb, rtx.delivery_form) == (
        16,
        Decimal("120.0"),
        50,
        "cloud_container",
    )
    prices = {p.unit: (p.amount, p.currency) for p in rtx.prices.all()}
    assert prices == {"hour": (Decimal("1.88"), "CNY"), "day": (Decimal("42.00"), "CNY")}
    assert Offering.objects.get(external_id="a800-1x").accelerator.slug == "a800-80gb"


def test_native_rows_carry_their_own_date_and_source_url(chinese_platforms):
    run(sample("native-sample.csv"), "native", None, filename="native-sample.csv")

    autodl = PriceObservation.objects.filter(offering__platform__slug="autodl")
    assert {p.observed_at for p in autodl} == {observed_at_value("2026-10-01")}
    assert {p.source.url for p in autodl} == {"https://www.autodl.com/home"}
    matpool = PriceObservation.objects.get(offering__platform__slug="matpool")
    assert matpool.observed_at == observed_at_value("2026-08-09")
    assert matpool.source.url == ""
    # No date in the row: the import's date (DAY_1 in these tests).
    openbayes = PriceObservation.objects.get(offering__platform__slug="openbayes")
    assert openbayes.observed_at == observed_at_value(DAY_1)
    assert Source.objects.filter(kind="import").count() == 3
    # Empty delivery form on a platform of two forms: not stated (blank), never its first form
    # as a guess; a platform of one form gives it (test_an_unstated_delivery_form_*).
    assert openbayes.offering.delivery_form == ""


def test_without_a_platform_column_the_platform_option_applies(chinese_platforms):
    text = f"{HEADER}\nrtx4090-1x,RTX 4090,RTX 4090,1,hour,1.88,CNY\n"

    report = run(text, "native", chinese_platforms["autodl"])

    assert report.created == 1
    assert Offering.objects.get().platform.slug == "autodl"


def test_rows_without_any_platform_or_with_an_unknown_one_are_errors(chinese_platforms):
    text = (
        f"platform,{HEADER}\n"
        ",rtx4090-1x,RTX 4090,RTX 4090,1,hour,1.88,CNY\n"
        "nowhere,rtx4090-1x,RTX 4090,RTX 4090,1,hour,1.88,CNY\n"
    )

    report = run(text, "native", None)

    assert [(p.line, p.message) for p in report.errors] == [
        (2, "no platform: give --platform or a platform column"),
        (3, "no platform with slug 'nowhere'"),
    ]


def test_a_misspelt_column_is_an_error_not_silently_ignored(chinese_platforms):
    text = f"{HEADER},vcpu\nrtx4090-1x,RTX 4090,RTX 4090,1,hour,1.88,CNY,16\n"

    report = run(text, "native", chinese_platforms["autodl"])

    assert [(p.line, p.message) for p in report.errors] == [(1, "unknown column(s): vcpu")]
    assert Offering.objects.count() == 0


def test_every_bad_value_in_a_native_file_is_reported_with_its_line(chinese_platforms):
    text = (
        f"{HEADER},interruptible,observed_at,source_url\n"
        "a,A,RTX 4090,1,hour,1.88,EUR,,,\n"
        "b,B,RTX 4090,1,hourly,1.88,CNY,,,\n"
        "c,C,RTX 4090,1,hour,1.88,CNY,maybe,,\n"
        "d,D,RTX 4090,1,hour,1.88,CNY,,last week,\n"
        "e,E,RTX 4090,1,hour,1.88,CNY,,,www.autodl.com\n"
        "f,F,RTX 4090,0,hour,1.88,CNY,,,\n"
        "g,G,RTX 4090,1,hour,123456789012.5,CNY,,,\n"
        "h,,RTX 4090,1,hour,1.88,CNY,,,\n"
        "ok,OK,RTX 4090,1,hour,1.88,CNY,,,\n"
    )

    report = run(text, "native", chinese_platforms["autodl"])

    assert [(p.line, p.message) for p in report.errors] == [
        (2, "currency must be one of CNY, USD, not 'EUR'"),
        (3, "billing_unit must be one of second, minute, hour, day, week, month, not 'hourly'"),
        (4, "interruptible must be true or false, not 'maybe'"),
        (5, "observed_at: not a date (YYYY-MM-DD) or a date and time (ISO 8601): 'last week'"),
        (6, "source_url: not a web address (http or https): 'www.autodl.com'"),
        (7, "gpu_count must be >= 1"),
        (8, "amount: Ensure that there are no more than 14 digits in total."),
        (9, "name is empty"),
    ]
    assert Offering.objects.count() == 0


def test_two_prices_for_one_unit_or_two_descriptions_of_one_key_are_errors(chinese_platforms):
    text = (
        f"{HEADER}\n"
        "rtx4090-1x,RTX 4090,RTX 4090,1,hour,1.88,CNY\n"
        "rtx4090-1x,RTX 4090,RTX 4090,1,hour,1.98,CNY\n"
        "rtx4090-1x,RTX 4090,RTX 4090,2,day,42,CNY\n"
    )

    report = run(text, "native", chinese_platforms["autodl"])

    assert [(p.line, p.reason) for p in report.errors] == [
        (3, "duplicate price"),
        (4, "conflicting rows"),
    ]
    assert "already on line 2" in report.errors[0].message


def test_memory_per_gpu_picks_the_modified_48_gb_4090(chinese_platforms):
    text = (
        f"{HEADER},gpu_memory_gib\n"
        "rtx4090-48g,RTX 4090 48G,RTX 4090,1,hour,2.50,CNY,48\n"
        "rtx4090-24g,RTX 4090,RTX 4090,1,hour,1.88,CNY,24\n"
    )

    run(text, "native", chinese_platforms["autodl"])

    slugs = dict(Offering.objects.values_list("external_id", "accelerator__slug"))
    assert slugs == {"rtx4090-48g": "rtx-4090-48gb", "rtx4090-24g": "rtx-4090-24gb"}


# --- tiers, dated series, per-second prices, Chinese names ---------------------------------------

SERIES_HEADER = f"{HEADER},name_zh,tier,observed_at"


def test_a_tier_column_stores_member_prices_beside_the_list_price(chinese_platforms):
    """AutoDL, 2026-10-04 (libtv 03): RTX 4090 list 1.98, member 1.88 (95 % of list)."""
    text = (
        f"{SERIES_HEADER}\n"
        "adl-4090,RTX 4090 24GB,RTX 4090,1,hour,1.98,CNY,,list,2026-10-04\n"
        "adl-4090,RTX 4090 24GB,RTX 4090,1,hour,1.88,CNY,,member,2026-10-04\n"
    )
    report = run(text, "native", chinese_platforms["autodl"])

    assert report.ok, report.errors
    prices = PriceObservation.objects.current().order_by("tier")
    assert [(p.tier, p.amount) for p in prices] == [
        ("list", Decimal("1.98")),
        ("member", Decimal("1.88")),
    ]


def test_a_dated_series_in_one_file_becomes_history_in_date_order(chinese_platforms):
    """RunPod Secure H100 SXM (runpod.io/pricing): 3.49 on 2026-09-25, 3.99 on 2026-11-09; the
    same 3.99 listed again on 2026-11-15 only moves its last sighting."""
    text = (
        f"{SERIES_HEADER}\n"
        "rp-h100,H100 SXM,H100 SXM,1,hour,3.99,USD,,,2026-11-15\n"
        "rp-h100,H100 SXM,H100 SXM,1,hour,3.49,USD,,,2026-09-25\n"
        "rp-h100,H100 SXM,H100 SXM,1,hour,3.99,USD,,,2026-11-09\n"
    )
    report = run(text, "native", chinese_platforms["autodl"], day=DAY_2)

    assert report.ok, report.errors
    assert (report.created, report.prices_added) == (1, 2)
    history = PriceObservation.objects.order_by("observed_at")
    assert [p.amount for p in history] == [Decimal("3.49"), Decimal("3.99")]
    assert history.last().last_seen_at == observed_at_value("2026-11-15")
    # The same file again changes nothing.
    again = run(text, "native", chinese_platforms["autodl"], day=DAY_2)
    assert (again.prices_added, PriceObservation.objects.count()) == (0, 2)


def test_a_series_after_a_stored_price_is_compared_with_the_latest_before_each_date(
    chinese_platforms,
):
    autodl = chinese_platforms["autodl"]
    run(f"{SERIES_HEADER}\nk,K,RTX 4090,1,hour,2.19,CNY,,,2026-04-29\n", "native", autodl)
    text = (
        f"{SERIES_HEADER}\n"
        "k,K,RTX 4090,1,hour,2.19,CNY,,,2026-06-01\n"
        "k,K,RTX 4090,1,hour,1.98,CNY,,,2026-10-04\n"
    )
    report = run(text, "native", autodl, day=DAY_2)

    assert (report.prices_added, report.prices_seen) == (1, 1)
    first, second = PriceObservation.objects.order_by("observed_at")
    assert first.last_seen_at == observed_at_value("2026-06-01")
    assert second.amount == Decimal("1.98")


def test_two_prices_for_one_unit_tier_and_date_are_an_error(chinese_platforms):
    text = (
        f"{SERIES_HEADER}\n"
        "k,K,RTX 4090,1,hour,1.98,CNY,,member,2026-10-04\n"
        "k,K,RTX 4090,1,hour,1.88,CNY,,member,2026-10-04\n"
    )
    report = run(text, "native", chinese_platforms["autodl"])

    assert [(p.line, p.reason) for p in report.errors] == [(3, "duplicate price")]
    assert report.errors[0].message == (
        "a hour member price dated 2026-10-04 for 'k' is already on line 2"
    )


def test_a_per_second_price_is_stored_as_listed(chinese_platforms):
    """Modal's T4: $0.000164 a second (modal.com/pricing), six decimal places."""
    text = f"{HEADER}\nmd-t4,NVIDIA T4,T4,1,second,0.000164,USD\n"
    run(text, "native", chinese_platforms["autodl"])

    price = PriceObservation.objects.get()
    assert (price.unit, price.amount) == ("second", Decimal("0.000164"))
    assert price.offering.accelerator.slug == "t4-16gb"


def test_name_zh_is_stored_and_kept_when_a_later_file_leaves_it_empty(chinese_platforms):
    autodl = chinese_platforms["autodl"]
    run(
        f"{SERIES_HEADER}\nk,RTX 4090 spot,RTX 4090,1,hour,1.19,CNY,RTX 4090 抢占式,,\n",
        "native",
        autodl,
    )
    run(f"{SERIES_HEADER}\nk,RTX 4090 spot,RTX 4090,1,hour,1.19,CNY,,,\n", "native", autodl)

    assert Offering.objects.get().name_zh == "RTX 4090 抢占式"


# --- a platform's whole price page: storage and no-GPU-mode rows ---------------------------------

PAGE_HEADER = (
    "record,offering_key,name,name_zh,accelerator,gpu_count,storage_kind,free_gb,"
    "billed_when_stopped,billing_unit,amount,currency,observed_at,source_url"
)


def test_storage_and_no_gpu_rows_are_priced_beside_the_offerings(chinese_platforms):
    """AutoDL's page (libtv 03, 2026-10-04): the 4090 at 1.98 an hour, file storage above 20 GB
    at ¥0.01 per GB-day, no-GPU mode at ¥0.10 an hour."""
    text = (
        f"{PAGE_HEADER}\n"
        ",adl-4090,RTX 4090 24GB,,RTX 4090,1,,,,hour,1.98,CNY,2026-10-04,https://www.autodl.com/home\n"
        "storage,,File storage,文件存储,,,shared,20,true,gb_day,0.01,CNY,2026-10-04,\n"
        "no_gpu_mode,,0.5 vCPU and 2 GB RAM,0.5 vCPU、2 GB 内存,,,,,,hour,0.10,CNY,2026-10-04,\n"
    )
    report = run(text, "native", chinese_platforms["autodl"])

    assert report.ok, report.errors
    assert (report.created, report.platform_prices_added) == (1, 2)
    assert "storage and no-GPU-mode prices added 2" in report.summary_lines()
    storage = StoragePrice.objects.get()
    assert (storage.kind, storage.unit, storage.amount, storage.free_gb) == (
        "shared",
        "gb_day",
        Decimal("0.01"),
        20,
    )
    assert (storage.billed_when_stopped, storage.notes_zh) == (True, "文件存储")
    assert storage.source.kind == "import"
    idle = IdleModePrice.objects.get()
    assert (idle.unit, idle.amount, idle.description) == (
        "hour",
        Decimal("0.1"),
        "0.5 vCPU and 2 GB RAM",
    )
    # Importing the page again adds nothing; a new storage price on a later date is history.
    assert run(text, "native", chinese_platforms["autodl"]).platform_prices_added == 0
    later = text.replace("gb_day,0.01,CNY,2026-10-04", "gb_day,0.012,CNY,2026-11-01")
    assert run(later, "native", chinese_platforms["autodl"], day=DAY_2).platform_prices_added == 1
    assert StoragePrice.objects.count() == 2


def test_storage_rows_are_checked_like_price_rows(chinese_platforms):
    text = (
        f"{PAGE_HEADER}\n"
        "storage,,Disk,,,,tape,,,gb_day,0.01,CNY,,\n"
        "storage,,Disk,,RTX 4090,,data_disk,,,gb_day,0.01,CNY,,\n"
        "storage,,Disk,,,,data_disk,,,hour,0.01,CNY,,\n"
        "rent,,Disk,,,,data_disk,,,gb_day,0.01,CNY,,\n"
        ",k,K,,RTX 4090,1,data_disk,,,hour,1.88,CNY,,\n"
    )
    report = run(text, "native", chinese_platforms["autodl"])

    assert [(p.line, p.message) for p in report.errors] == [
        (2, "storage_kind must be one of system_disk, data_disk, shared, not 'tape'"),
        (3, "a storage row leaves accelerator empty"),
        (4, "billing_unit must be one of gb_hour, gb_day, gb_month, tb_month, not 'hour'"),
        (5, "record must be one of offering, storage, no_gpu_mode, not 'rent'"),
        (6, "an offering row leaves storage_kind empty"),
    ]
    assert not StoragePrice.objects.exists() and not Offering.objects.exists()


def test_a_different_storage_price_for_a_stored_moment_is_an_error(chinese_platforms):
    text = f"{PAGE_HEADER}\nstorage,,Disk,,,,data_disk,,,gb_day,0.01,CNY,2026-10-04,\n"
    run(text, "native", chinese_platforms["autodl"])
    report = run(text.replace("0.01", "0.02"), "native", chinese_platforms["autodl"])

    assert [p.reason for p in report.errors] == ["conflicting price"]
    assert StoragePrice.objects.get().amount == Decimal("0.01")


def test_an_unstated_delivery_form_is_the_platforms_only_one(chinese_platforms):
    """A row without a delivery form: the platform's one form where it has only one (矩池云:
    containers), else left blank, not stated (OpenBayes: containers and VMs)."""
    text = f"{HEADER}\nrtx4090-1x,RTX 4090,RTX 4090,1,hour,1.88,CNY\n"
    assert run(text, "native", chinese_platforms["matpool"]).ok
    assert run(text, "native", chinese_platforms["openbayes"]).ok
    forms = dict(
        Offering.objects.filter(external_id="rtx4090-1x").values_list(
            "platform__slug", "delivery_form"
        )
    )
    assert forms == {"matpool": "cloud_container", "openbayes": ""}
