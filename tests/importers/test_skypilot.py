"""SkyPilot vms.csv: the real Lambda, RunPod and AWS samples, each with its trap."""

from __future__ import annotations

from decimal import Decimal

import pytest

from platforms.importers.rows import RowError
from platforms.importers.skypilot import GpuInfo, gpu_info, memory_per_gpu_gib, mib_to_gib, parse
from platforms.models import Offering, PriceObservation, Source

from .conftest import run, sample

LAMBDA = "skypilot-v8-lambda-vms.csv"
RUNPOD = "skypilot-v8-runpod-vms.csv"
AWS = "skypilot-v8-aws-vms.csv"


def price_of(offering: Offering) -> PriceObservation:
    return offering.prices.get()


# --- Lambda --------------------------------------------------------------------------------------


def test_the_lambda_sample_imports_the_gpu_instances_and_counts_the_rest(lambda_cloud):
    report = run(sample(LAMBDA), "skypilot", lambda_cloud)

    assert report.ok and report.applied
    assert report.total_rows == 408
    # Every one of the 22 GPU instance types, in 17 regions each: the A6000, V100, RTX6000
    # (Quadro RTX 6000) and GH200 rows resolve since the table has those cards.
    assert report.created == 374
    assert Offering.objects.filter(platform=lambda_cloud).count() == 374
    assert PriceObservation.objects.count() == 374
    assert report.skipped_by_reason() == [("CPU-only instance (no GPU)", 34, "2-35")]
    assert not Offering.objects.filter(external_id__startswith="cpu_").exists()


@pytest.mark.parametrize(
    ("external_id", "slug", "gpus", "vcpus", "ram", "price"),
    [
        ("gpu_1x_a100@us-east-1", "a100-40gb", 1, 30, "200.0", "1.9900"),
        ("gpu_1x_h100_sxm5@us-east-1", "h100-sxm-80gb", 1, 26, "225.0", "4.2900"),
        ("gpu_1x_h100_pcie@us-east-1", "h100-pcie-80gb", 1, 26, "200.0", "3.2900"),
        ("gpu_8x_h100_sxm5@us-east-1", "h100-sxm-80gb", 8, 208, "1800.0", "31.9200"),
        ("gpu_8x_a100_80gb_sxm4@us-east-1", "a100-80gb", 8, 240, "1800.0", "22.3200"),
        ("gpu_1x_b200_sxm6@us-east-1", "b200-180gb", 1, 26, "360.0", "6.9900"),
        ("gpu_1x_a10@us-east-1", "a10-24gb", 1, 30, "200.0", "1.2900"),
        ("gpu_8x_v100@us-east-1", "v100-16gb", 8, 92, "448.0", "6.32"),
        ("gpu_1x_rtx6000@us-east-1", "quadro-rtx-6000-24gb", 1, 14, "46.0", "0.69"),
        ("gpu_4x_a6000@us-east-1", "rtx-a6000-48gb", 4, 56, "400.0", "4.36"),
        ("gpu_1x_gh200@us-east-1", "gh200-96gb", 1, 64, "432.0", "2.29"),
    ],
)
def test_hand_checked_lambda_rows_become_these_offerings_and_prices(
    lambda_cloud, external_id, slug, gpus, vcpus, ram, price
):
    run(sample(LAMBDA), "skypilot", lambda_cloud)

    offering = Offering.objects.select_related("accelerator", "source").get(
        platform=lambda_cloud, external_id=external_id
    )
    assert offering.accelerator.slug == slug
    assert (offering.gpu_count, offering.vcpus, offering.ram_gib) == (gpus, vcpus, Decimal(ram))
    assert offering.region == "us-east-1"
    assert offering.interruptible is False
    assert offering.delivery_form == "cloud_vm"
    observation = price_of(offering)
    assert (observation.unit, observation.amount, observation.currency) == (
        "hour",
        Decimal(price),
        "USD",
    )
    assert observation.source.kind == "import"
    assert observation.source == offering.source


def test_lambda_8x_a100_is_the_40_gb_card_because_memory_is_per_gpu(lambda_cloud):
    """Lambda writes TotalGpuMemoryInMiB 40960 for 8 GPUs: the per-GPU figure, not the total.

    Divided by the count it would be 5 GiB per GPU and match nothing; multiplied, nothing either.
    """
    text = sample(LAMBDA)
    row = next(line for line in text.splitlines() if line.startswith("gpu_8x_a100,"))
    assert "'TotalGpuMemoryInMiB': 40960" in row

    run(text, "skypilot", lambda_cloud)

    offering = Offering.objects.get(external_id="gpu_8x_a100@us-east-1")
    assert offering.accelerator.slug == "a100-40gb"
    assert offering.gpu_count == 8
    assert offering.total_vram_gib == Decimal("320")


def test_multi_gpu_sxm_instances_are_recorded_on_nvlink_and_others_keep_pcie(lambda_cloud):
    """Lambda's gpu_8x_a100 is "8x A100 (40 GB SXM4)" (https://lambda.ai/instances) though its
    name does not say SXM; the 2x and 4x A100 sizes are PCIe. More in test_interconnect.py."""
    run(sample(LAMBDA), "skypilot", lambda_cloud)

    assert Offering.objects.get(external_id="gpu_8x_h100_sxm5@us-east-1").interconnect == "nvlink"
    assert Offering.objects.get(external_id="gpu_8x_a100@us-east-1").interconnect == "nvlink"
    assert Offering.objects.get(external_id="gpu_2x_a100@us-east-1").interconnect == "pcie"
    assert Offering.objects.get(external_id="gpu_1x_h100_sxm5@us-east-1").interconnect == "pcie"


def test_lambda_has_no_spot_prices_so_no_interruptible_offerings(lambda_cloud):
    run(sample(LAMBDA), "skypilot", lambda_cloud)

    assert not Offering.objects.filter(interruptible=True).exists()


def test_every_imported_price_points_to_one_import_source_naming_file_and_date(lambda_cloud):
    report = run(sample(LAMBDA), "skypilot", lambda_cloud, filename="lambda-vms.csv")

    source = Source.objects.get(kind="import")
    assert report.sources == [source]
    assert source.title == "Import of lambda-vms.csv (SkyPilot catalog (vms.csv)), 2026-11-01"
    assert source.retrieved_on.isoformat() == "2026-11-01"
    assert PriceObservation.objects.exclude(source=source).count() == 0


def test_a_source_url_is_recorded_on_the_import_source(lambda_cloud):
    url = "https://github.com/skypilot-org/skypilot-catalog/blob/0f40703/catalogs/v8/lambda/vms.csv"
    run(sample(LAMBDA), "skypilot", lambda_cloud, source_url=url)

    assert Source.objects.get(kind="import").url == url


# --- RunPod --------------------------------------------------------------------------------------


def test_runpod_writes_gib_into_the_mib_field_and_it_is_read_as_gib():
    info = gpu_info(
        "{'Gpus': [{'Name': 'A100 PCIe', 'Manufacturer': 'Nvidia', 'Count': 1, "
        "'MemoryInfo': {'SizeInMiB': 80}}], 'TotalGpuMemoryInMiB': 80}"
    )
    assert info == GpuInfo("A100 PCIe", Decimal(80), Decimal(80))
    assert memory_per_gpu_gib(info, 1, "runpod") == Decimal("80")
    assert mib_to_gib(Decimal(81920)) == Decimal("80.00")
    assert mib_to_gib(Decimal(1023)) == Decimal("1023")
    assert mib_to_gib(Decimal(1024)) == Decimal("1.00")


def test_the_runpod_sample_resolves_to_the_80_gb_a100_with_spot_offers(runpod):
    report = run(sample(RUNPOD), "skypilot", runpod)

    assert report.ok
    assert report.total_rows == 225
    assert report.skipped == []
    # Runpod lists zones (CA-MTL-1..3) under one region (CA): 9 instance types in 8 regions,
    # each with an on-demand and a spot offer.
    assert report.created == Offering.objects.count() == 144
    assert report.merged == 225 - 72
    assert set(Offering.objects.values_list("accelerator__slug", flat=True)) == {"a100-80gb"}

    on_demand = Offering.objects.get(external_id="1x_A100-80GB_SECURE@CA")
    spot = Offering.objects.get(external_id="1x_A100-80GB_SECURE@CA:spot")
    assert (on_demand.interruptible, spot.interruptible) == (False, True)
    assert price_of(on_demand).amount == Decimal("1.64")
    assert price_of(spot).amount == Decimal("0.82")
    assert on_demand.delivery_form == "cloud_container"  # the platform's only delivery form
    assert Offering.objects.get(external_id="8x_A100-80GB_SECURE@CA").gpu_count == 8


def test_without_the_gib_rule_the_runpod_rows_would_match_no_accelerator(runpod):
    """80 read as MiB is 0.08 GiB: the per-GPU memory check would reject every A100 80GB."""
    text = sample(RUNPOD).replace("'SizeInMiB': 80}", "'SizeInMiB': 81920}")
    assert run(text, "skypilot", runpod, dry_run=True).created == 144
    text = sample(RUNPOD).replace("'SizeInMiB': 80}", "'SizeInMiB': 2048}")
    report = run(text, "skypilot", runpod, dry_run=True)
    assert report.created == 0
    assert report.skipped[0].reason == "unknown accelerator 'A100-80GB' with 2 GiB per GPU"


# --- AWS -----------------------------------------------------------------------------------------


def test_aws_prices_are_per_instance_of_eight_gpus(aws):
    run(sample(AWS), "skypilot", aws)

    p4d = Offering.objects.get(external_id="p4d.24xlarge@us-east-1")
    assert (p4d.accelerator.slug, p4d.gpu_count, p4d.vcpus) == ("a100-40gb", 8, 96)
    # 21.957642 USD per instance-hour (stored to 6 places, as listed), not per GPU.
    assert price_of(p4d).amount == Decimal("21.957642")
    assert p4d.ram_gib == Decimal("1152.0")


def test_aws_zones_of_one_region_become_one_offering_with_the_lowest_spot_price(aws):
    report = run(sample(AWS), "skypilot", aws)

    # p4d.24xlarge in us-east-1 is listed for use1-az1, az2 and az6 (lines 106-108).
    offerings = Offering.objects.filter(external_id__startswith="p4d.24xlarge@us-east-1")
    assert sorted(offerings.values_list("external_id", flat=True)) == [
        "p4d.24xlarge@us-east-1",
        "p4d.24xlarge@us-east-1:spot",
    ]
    spot = offerings.get(interruptible=True)
    assert price_of(spot).amount == Decimal("6.2890")  # use1-az1; az2 14.1051, az6 12.4991
    change = next(c for c in report.changes if c.external_id == "p4d.24xlarge@us-east-1:spot")
    assert change.lines == [106, 107, 108]
    assert report.merged > 0


def test_aws_rows_without_a_price_are_skipped_with_their_reason_and_lines(aws):
    report = run(sample(AWS), "skypilot", aws)

    reasons = {reason: (n, lines) for reason, n, lines in report.skipped_by_reason()}
    assert reasons["no on-demand price (Price is empty)"] == (8, "178-185")
    # p5e rows all lack a Price, even those with a SpotPrice: no p5e offering at all.
    assert not Offering.objects.filter(external_id__startswith="p5e.").exists()


def test_an_empty_aws_spot_price_makes_no_spot_offering(aws):
    run(sample(AWS), "skypilot", aws)

    # p5.4xlarge in us-east-1: six zones, all with an empty SpotPrice.
    assert Offering.objects.filter(external_id="p5.4xlarge@us-east-1").exists()
    assert not Offering.objects.filter(external_id="p5.4xlarge@us-east-1:spot").exists()
    assert price_of(Offering.objects.get(external_id="p5.4xlarge@us-east-1")).amount == Decimal(
        "6.88"
    )


def test_the_aws_h100_whose_form_is_not_stated_is_kept_on_the_form_not_stated_row(aws):
    """AWS's catalog names the p5 GPU "H100" with no PCIe/SXM word: the row is kept, on the H100
    row whose figures are the lower of the two forms, not guessed as SXM nor dropped."""
    report = run(sample(AWS), "skypilot", aws)

    assert not any("H100" in reason for reason, _n, _lines in report.skipped_by_reason())
    p5 = Offering.objects.filter(external_id__startswith="p5.")
    assert p5.exists()
    assert set(p5.values_list("accelerator__slug", flat=True)) == {"h100-80gb"}


def test_the_extra_arch_column_is_ignored_and_columns_are_found_by_name(aws):
    text = sample(AWS)
    header, *rows = text.splitlines()
    assert header.endswith(",Arch")
    # The same rows with the columns in Lambda's order and no Arch column.
    import csv
    import io

    reader = csv.DictReader(io.StringIO(text))
    out = io.StringIO()
    lambda_order = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,"
    lambda_order += "GpuInfo,SpotPrice"
    writer = csv.DictWriter(out, lambda_order.split(","), extrasaction="ignore")
    writer.writeheader()
    writer.writerows(reader)

    as_given = parse(text)
    reordered = parse(out.getvalue())
    assert [r.external_id for r in as_given.rows] == [r.external_id for r in reordered.rows]
    assert [r.prices for r in as_given.rows] == [r.prices for r in reordered.rows]
    assert len(rows) == as_given.total == 208


# --- bad input -----------------------------------------------------------------------------------


HEADER = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,Region\n"
GOOD_INFO = "\"{'Gpus': [{'Name': 'A10', 'MemoryInfo': {'SizeInMiB': 24576}}]}\""


def test_gpu_info_that_is_not_a_literal_is_an_error_and_is_never_evaluated(lambda_cloud):
    text = HEADER + (
        f"ok,A10,1,30,200,{GOOD_INFO},1.29,us-east-1\n"
        "evil,A10,1,30,200,\"__import__('os').system('touch /tmp/pwned')\",1.29,us-east-1\n"
        'call,A10,1,30,200,"dict(Gpus=[])",1.29,us-east-1\n'
    )
    report = run(text, "skypilot", lambda_cloud)

    assert [(p.line, p.message) for p in report.errors] == [
        (3, "GpuInfo is not a Python literal"),
        (4, "GpuInfo is not a Python literal"),
    ]
    assert not report.applied
    assert Offering.objects.count() == 0


def test_gpu_info_of_the_wrong_shape_is_an_error():
    with pytest.raises(RowError, match="no 'Gpus' list"):
        gpu_info("{'Accelerators': []}")
    with pytest.raises(RowError, match="longer than"):
        gpu_info("{'Gpus': [" + "{}, " * 5000 + "]}")


def test_a_file_without_a_required_column_is_one_error_on_line_1(lambda_cloud):
    report = run("InstanceType,Price\ngpu_1x_a10,1.29\n", "skypilot", lambda_cloud)

    assert [(p.line, p.message) for p in report.errors] == [
        (
            1,
            "missing column(s): AcceleratorCount, AcceleratorName, GpuInfo, MemoryGiB, Region, "
            "vCPUs",
        )
    ]
