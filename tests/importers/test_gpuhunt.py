"""gpuhunt v2 CSV: the sample from dstackai/gpuhunt's storage tests."""

from __future__ import annotations

from decimal import Decimal

from platforms.models import Offering

from .conftest import run, sample

GPUHUNT = "gpuhunt-sample.csv"
HEADER = (
    "instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot,disk_size,"
    "gpu_vendor,flags,cpu_arch,provider_data\n"
)


def test_the_gpuhunt_sample_skips_the_cpu_row_and_imports_the_a10_and_the_h100(aws):
    report = run(sample(GPUHUNT), "gpuhunt", aws)

    assert report.ok and report.total_rows == 3
    assert report.created == 2
    offering = Offering.objects.get(interruptible=False)
    assert offering.external_id == "test-instance@eu-west-1"
    assert offering.accelerator.slug == "a10-24gb"
    assert (offering.gpu_count, offering.vcpus, offering.ram_gib, offering.disk_gb) == (
        1,
        1,
        Decimal("32.0"),
        100,
    )
    assert offering.interruptible is False
    price = offering.prices.get()
    assert (price.unit, price.amount, price.currency) == ("hour", Decimal("1"), "USD")
    # The 8x H100 row names no form (PCIe or SXM): kept on the "form not stated" H100.
    assert report.skipped_by_reason() == [("CPU-only instance (gpu_count 0)", 1, "2")]


def test_a_gpuhunt_spot_row_becomes_an_interruptible_offering_with_its_own_key(aws):
    run(sample(GPUHUNT), "gpuhunt", aws)

    spot = Offering.objects.get(external_id="test-instance@eu-west-1:spot")
    assert (spot.interruptible, spot.gpu_count, spot.accelerator.slug) == (
        True,
        8,
        "h100-80gb",
    )
    assert spot.prices.get().amount == Decimal("12")


def test_spot_must_be_true_or_false_and_gpu_rows_need_a_gpu_name(aws):
    text = HEADER + (
        "a,loc,1.0,1,1.0,1,A10,24.0,maybe,,nvidia,,x86,{}\n"
        "b,loc,1.0,1,1.0,1,,24.0,False,,nvidia,,x86,{}\n"
        "c,loc,1.0,1,1.0,1,A10,24.0,True,,nvidia,,x86,{}\n"
    )

    report = run(text, "gpuhunt", aws)

    assert [(p.line, p.message) for p in report.errors] == [
        (2, "spot must be True or False, not 'maybe'"),
        (3, "gpu_name is empty but gpu_count is not 0"),
    ]
    assert Offering.objects.count() == 0
