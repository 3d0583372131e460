"""The native CSV staff write by hand (docs/native-csv.md)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from platforms.importers import observed_at_value
from platforms.models import Offering, PriceObservation, Source

from .conftest import DAY_1, make_platform, run, sample

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
    # Empty delivery form: the platform's first listed form.
    assert openbayes.offering.delivery_form == "cloud_container"


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
        (8, "amount: Ensure that there are no more than 12 digits in total."),
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
