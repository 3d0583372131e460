"""SkyPilot vms.csv in each cloud's dialect: the real Azure, GCP, Hyperstack, Nebius, Vast and Verda
samples (tests/importers/data/README.md says where each comes from), each with the quirks of its
cloud. Lambda, RunPod and AWS are in test_skypilot.py.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from platforms.importers.skypilot import (
    GpuInfo,
    card_name,
    cloud_of,
    gpu_info,
    memory_per_gpu_gib,
    parse,
)
from platforms.models import Offering, Platform

from .conftest import make_platform, run, sample

AZURE = "skypilot-v8-azure-gpu-vms.csv"
GCP = "skypilot-v8-gcp-vms.csv"
HYPERSTACK = "skypilot-v8-hyperstack-vms.csv"
NEBIUS = "skypilot-v8-nebius-vms.csv"
VAST = "skypilot-v8-vast-vms.csv"
VERDA = "skypilot-v8-verda-vms.csv"


@pytest.fixture
def cloud(accelerators):
    """A platform named like the catalogue's (vastai) or like the SkyPilot cloud (verda)."""

    def make(slug: str) -> Platform:
        return make_platform(slug, slug, ["cloud_vm"])

    return make


def offering(external_id: str) -> Offering:
    return Offering.objects.select_related("accelerator").get(external_id=external_id)


def price(external_id: str) -> Decimal:
    return offering(external_id).prices.get().amount


def skipped(report) -> dict[str, tuple[int, str]]:
    return {reason: (n, lines) for reason, n, lines in report.skipped_by_reason()}


# --- Azure ---------------------------------------------------------------------------------------


def test_azure_imports_although_its_gpu_info_is_only_the_gpus_name(cloud):
    """189 of Azure's 210 rows used to be refused: "GpuInfo is not a Python literal"."""
    azure = cloud("azure")
    report = run(sample(AZURE), "skypilot", azure)

    assert report.ok and report.applied
    assert report.total_rows == 210
    assert report.created == Offering.objects.filter(platform=azure).count() == 242
    reasons = skipped(report)
    # GPU families the catalog names no GPU for (NC*ads_A10_v4, NCC40ads_H100_v5, ND40s_v3,
    # NG*_V620, NP*): reported, never given a guessed card.
    assert reasons["no GPU named (CPU-only, or a GPU the catalog leaves unnamed)"][0] == 21
    assert reasons["no on-demand price (Price is empty)"] == (4, "153, 167, 193, 209")
    # Cards the accelerator table lacks: reported by name.
    assert reasons["unknown accelerator 'K80'"][0] == 16
    assert reasons["unknown accelerator 'M60'"][0] == 21
    assert reasons["unknown accelerator 'Radeon MI25'"][0] == 24
    assert sum(n for n, _lines in reasons.values()) == 210 - 121


@pytest.mark.parametrize(
    ("external_id", "slug", "gpus", "vcpus", "ram", "amount"),
    [
        ("Standard_NC24ads_A100_v4@eastus", "a100-80gb", 1, 24, "220.0", "3.673"),
        ("Standard_ND40rs_v2@eastus", "v100-32gb", 8, 40, "672.0", "22.032"),
        # "V100" alone: the row whose figures are the lower of the V100's two sizes.
        ("Standard_NC6s_v3@eastus", "v100-memory-not-stated", 1, 6, "112.0", "3.06"),
        ("Standard_NC40ads_H100_v5@eastus", "h100-80gb", 1, 40, "320.0", "6.98"),
        ("Standard_NV36ads_A10_v5@eastus", "a10-24gb", 1, 36, "440.0", "3.2"),
        ("Standard_NC64as_T4_v3@eastus", "t4-16gb", 4, 64, "440.0", "4.352"),
    ],
)
def test_azure_rows_become_offerings_on_the_named_card(
    cloud, external_id, slug, gpus, vcpus, ram, amount
):
    run(sample(AZURE), "skypilot", cloud("azure"))

    found = offering(external_id)
    assert (found.accelerator.slug, found.gpu_count, found.vcpus) == (slug, gpus, vcpus)
    assert found.ram_gib == Decimal(ram)
    assert price(external_id) == Decimal(amount)


def test_azure_nd_h100_v5_listed_with_12_gpus_is_skipped_with_the_documented_8(cloud):
    report = run(sample(AZURE), "skypilot", cloud("azure"))

    problems = [p for p in report.skipped if p.line in (126, 127, 128)]
    assert [p.reason for p in problems] == [
        "GPU count contradicts the instance type's documentation"
    ] * 3
    assert "AcceleratorCount 12 for Standard_ND96isr_H100_v5, which has 8 GPUs" in str(problems[0])
    assert "learn.microsoft.com" in str(problems[0])
    assert not Offering.objects.filter(external_id__startswith="Standard_ND96isr_H100_v5").exists()


def test_azure_spot_prices_are_kept_as_stated_and_promo_skus_have_none(cloud):
    run(sample(AZURE), "skypilot", cloud("azure"))

    # H100 v5: SpotPrice equals Price in the catalog; stored as the catalog states it.
    assert price("Standard_NC40ads_H100_v5@eastus:spot") == Decimal("6.98")
    assert price("Standard_NC24ads_A100_v4@eastus:spot") == Decimal("0.444433")
    # Chinese pages name a spot offering in Chinese; the instance type and region stay as written.
    assert offering("Standard_NC40ads_H100_v5@eastus:spot").name_zh == (
        "Standard_NC40ads_H100_v5（eastus，抢占式）"
    )
    assert offering("Standard_NC40ads_H100_v5@eastus").name_zh == ""
    assert not Offering.objects.filter(external_id__contains="_Promo").exists()  # K80 promos


def test_a_gpu_info_that_is_only_a_name_still_refuses_code():
    assert gpu_info("A100-80GB") == GpuInfo("A100-80GB")
    assert gpu_info("Radeon MI25") == GpuInfo("Radeon MI25")
    for evil in ("__import__('os').system('true')", "dict(Gpus=[])", "a;b"):
        with pytest.raises(ValueError, match="not a Python literal"):
            gpu_info(evil)


# --- GCP -----------------------------------------------------------------------------------------


def test_gcp_gpu_rows_are_joined_to_their_host_vm_rows(cloud):
    """GCP prices the GPU apart from the host VM: 278 of 278 GPU rows used to be refused."""
    gcp = cloud("gcp")
    report = run(sample(GCP), "skypilot", gcp)

    assert report.ok and report.applied
    assert report.total_rows == 580
    assert report.created == Offering.objects.filter(platform=gcp).count() == 312
    reasons = skipped(report)
    assert reasons["GCP host VM: priced with the rows of its GPUs"][0] == 247
    # a3-edgegpu and the -nolssd variants: hosts SkyPilot joins no GPU row to.
    assert reasons["no GPU named (CPU-only, or a GPU the catalog leaves unnamed)"] == (
        55,
        "109-154, 284-292",
    )
    # Zones where the GPU is sold but its host VM is not (a2-megagpu-16g in asia-northeast1).
    missing = "GPU priced apart from its host VM, and the host has no priced row in its zone"
    assert reasons[missing][0] == 36
    line_376 = next(p for p in report.skipped if p.line == 376)
    assert str(line_376) == (
        "line 376: no priced a2-megagpu-16g row for zone asia-northeast1-a before this line"
    )
    # Every GPU row is either an offering or one of those.
    gpu_rows = [p for p in report.skipped if p.line > 303]
    assert {p.reason for p in gpu_rows} == {missing}
    assert not report.errors


@pytest.mark.parametrize(
    ("external_id", "slug", "gpus", "vcpus", "ram", "amount", "formula"),
    [
        # a2-highgpu-1g host 0.73948 + A100 2.93391 (us-central1, lines 12 and 314).
        ("a2-highgpu-1g@us-central1", "a100-40gb", 1, 12, "85.0", "3.67339", "host + GPU"),
        # a4-highgpu-8g host 0.0 + 8x B200 90.216 (lines 297 and 426): SkyPilot's sum.
        ("a4-highgpu-8g@us-central1", "b200-180gb", 8, 224, "3968.0", "90.216", "0 + GPU"),
        # a3-megagpu-8g host 9.46006 + H100-MEGA 82.75421 (lines 265 and 563).
        ("a3-megagpu-8g@us-central1", "h100-80gb", 8, 208, "1872.0", "92.21427", "host + GPU"),
        # a3-ultragpu-8g host 13.81519 + 8x H200 36.60258 (lines 281 and 579).
        ("a3-ultragpu-8g@us-east5", "h200-141gb", 8, 224, "2952.0", "50.41777", "host + GPU"),
    ],
)
def test_a_gcp_offering_costs_its_host_plus_its_gpus(
    cloud, external_id, slug, gpus, vcpus, ram, amount, formula
):
    run(sample(GCP), "skypilot", cloud("gcp"))

    found = offering(external_id)
    assert (found.accelerator.slug, found.gpu_count, found.vcpus) == (slug, gpus, vcpus), formula
    assert found.ram_gib == Decimal(ram)
    assert price(external_id) == Decimal(amount)


def test_gcp_spot_is_host_spot_plus_gpu_spot_and_absent_when_the_gpu_has_none(cloud):
    run(sample(GCP), "skypilot", cloud("gcp"))

    # 0.36975 + 1.4341 (lines 12 and 314).
    assert price("a2-highgpu-1g@us-central1:spot") == Decimal("1.80385")
    # H200 in us-east5 has an empty SpotPrice (line 579): no spot offering.
    assert not Offering.objects.filter(external_id="a3-ultragpu-8g@us-east5:spot").exists()
    assert offering("a2-megagpu-16g@us-central1").interconnect == "nvlink"


def test_gcp_gpu_rows_without_their_host_rows_are_skipped_never_priced_alone(cloud):
    text = sample(GCP)
    header, *rows = text.splitlines(keepends=True)
    gpu_only = header + "".join(row for row in rows if row.startswith(","))

    report = run(gpu_only, "skypilot", cloud("gcp"))

    assert report.ok and report.created == 0
    assert report.skipped_by_reason() == [
        (
            "GPU priced apart from its host VM, and the host has no priced row in its zone",
            278,
            "2-279",
        )
    ]


def test_a_gcp_gpu_attached_to_a_vm_of_the_renters_choosing_is_skipped(cloud):
    header = sample(GCP).splitlines()[0]
    text = (
        f"{header}\n"
        ",,,T4,1,\"{'Gpus': [{'MemoryInfo': {'SizeInMiB': 16384}}]}\",us-central1,"
        "us-central1-a,0.35,0.07\n"
        ",,,tpu-v5p-8,1,tpu-v5p-8,us-central1,us-central1-a,4.2,1.68\n"
    )
    report = run(text, "skypilot", cloud("gcp"))

    assert [(p.line, p.reason) for p in report.skipped] == [
        (2, "GPU priced apart from a host VM of the renter's choosing"),
        (3, "TPU (not a GPU)"),
    ]


# --- Hyperstack ----------------------------------------------------------------------------------


def test_hyperstack_imports_whole_although_manufacturer_is_null(cloud):
    hyperstack = cloud("hyperstack")
    report = run(sample(HYPERSTACK), "skypilot", hyperstack)

    assert report.ok and report.total_rows == 25
    assert report.skipped == []
    # One offering per row: SpotPrice is always empty.
    assert report.created == 25
    assert not Offering.objects.filter(interruptible=True).exists()
    assert gpu_info(
        "{'Gpus': [{'Name': 'L40', 'Manufacturer': null, 'Count': 1, "
        "'MemoryInfo': {'SizeInMiB': 49152}}], 'TotalGpuMemoryInMiB': 49152}"
    ) == GpuInfo("L40", Decimal(49152), Decimal(49152))


def test_hyperstack_nvlink_skus_and_regions_are_their_own_offerings(cloud):
    run(sample(HYPERSTACK), "skypilot", cloud("hyperstack"))

    pcie = offering("n3-A100x8@CANADA-1")
    bridged = offering("n3-A100x8-NVLink@CANADA-1")
    assert (pcie.accelerator.slug, pcie.gpu_count) == ("a100-80gb", 8)
    assert (price("n3-A100x8@CANADA-1"), price("n3-A100x8-NVLink@CANADA-1")) == (
        Decimal("10.8"),
        Decimal("11.2"),
    )
    assert bridged.ram_gib == Decimal("1920.0")
    assert offering("n3-H100x1@CANADA-1").accelerator.slug == "h100-pcie-80gb"
    # n3-H100-SXM5x8 twice, with 1800 and 960 GiB of RAM: one offering per region.
    assert offering("n3-H100-SXM5x8@CANADA-1").ram_gib == Decimal("1800.0")
    assert offering("n3-H100-SXM5x8@US-1").ram_gib == Decimal("960.0")
    assert offering("n3-H100-SXM5x8@US-1").accelerator.slug == "h100-sxm-80gb"
    assert offering("n3-H100-SXM5x8@US-1").interconnect == "nvlink"
    assert price("n3-RTX-A4000x10@NORWAY-1") == Decimal("1.5")
    assert offering("n3-RTX-A4000x10@NORWAY-1").gpu_count == 10


# --- Nebius --------------------------------------------------------------------------------------


def test_nebius_imports_its_gpu_rows_and_skips_the_cpu_rows_with_count_0(cloud):
    nebius = cloud("nebius")
    report = run(sample(NEBIUS), "skypilot", nebius)

    assert report.ok and report.total_rows == 61
    assert report.skipped_by_reason() == [("CPU-only instance (no GPU)", 40, "2-41")]
    # 21 GPU rows, 8 of them with a spot price (none for L40S and B200).
    assert report.created == 29
    assert price("gpu-h200-sxm_8gpu-128vcpu-1600gb@eu-north1") == Decimal("28")  # "28.00"
    assert price("gpu-h100-sxm_8gpu-128vcpu-1600gb@eu-north1:spot") == Decimal("10")
    assert not Offering.objects.filter(external_id__startswith="gpu-l40s", interruptible=True)
    assert not Offering.objects.filter(external_id__startswith="gpu-b200", interruptible=True)
    b200 = offering("gpu-b200-sxm_8gpu-160vcpu-1792gb@us-central1")
    assert (b200.accelerator.slug, b200.gpu_count, b200.vcpus) == ("b200-180gb", 8, 160)


# --- Vast ----------------------------------------------------------------------------------------


def test_vast_sizes_are_totals_so_two_4090s_are_two_24_gb_cards(cloud):
    """SizeInMiB is the total of all GPUs: 2x-RTX_4090 states 49,128 MiB, two 24 GB cards. Read per
    GPU it was "two RTX 4090 48GB", and a 70 GB model would have been placed on 48 GB."""
    vast = cloud("vastai")
    report = run(sample(VAST), "skypilot", vast)

    assert report.ok and report.total_rows == 63
    assert report.created == 60
    # SpotPrice 0.00 on every row means none: no interruptible offering.
    assert not Offering.objects.filter(interruptible=True).exists()
    two = offering("2x-RTX_4090-32-65536@France, FR, EU")
    assert (two.accelerator.slug, two.gpu_count, two.total_vram_gib) == ("rtx-4090-24gb", 2, 48)
    assert offering("2x-A100_SXM4-32-65536@Georgia, US, NA").accelerator.slug == "a100-40gb"
    assert offering("2x-Tesla_V100-32-65536@North Carolina, US, NA").accelerator.slug == (
        "v100-16gb"
    )
    assert offering("1x-A100_PCIE-32-65536@Oklahoma, US, NA").accelerator.slug == "a100-80gb"
    assert offering("16x-RTX_5090-32-65536@Taiwan, TW, AS").gpu_count == 16
    assert offering("2x-H100_SXM-32-65536@Florida, US, NA").accelerator.slug == "h100-sxm-80gb"
    assert offering("1x-H100_NVL-32-65536@Bulgaria, BG, EU").accelerator.slug == "h100-nvl-94gb"
    assert offering("2x-L40S-32-65536@Taichung City, TW, AS").accelerator.slug == "l40s-48gb"


def test_one_vast_instance_type_with_two_memories_is_two_cards(cloud):
    run(sample(VAST), "skypilot", cloud("vastai"))

    # 1x-RTX_4090: 24,564 MiB in Germany, 49,140 MiB (a 48 GB 4090) in Hong Kong.
    assert offering("1x-RTX_4090-32-65536@Germany, DE, EU").accelerator.slug == "rtx-4090-24gb"
    assert offering("1x-RTX_4090-32-65536@Hong Kong, HK, AS").accelerator.slug == "rtx-4090-48gb"


def test_vast_host_figures_are_placeholders_and_regions_lose_an_empty_state(cloud):
    run(sample(VAST), "skypilot", cloud("vastai"))

    # vCPUs 32 and MemoryGiB 64 on every row: not the host's, not stored.
    assert not Offering.objects.exclude(vcpus=None).exists()
    assert not Offering.objects.exclude(ram_gib=None).exists()
    # ", US, NA" (no state) and a non-ASCII state.
    four = offering("4x-RTX_4090-32-65536@US, NA")
    assert four.region == "US, NA"
    assert price("4x-RTX_4090-32-65536@US, NA") == Decimal("1.49")
    assert offering("4x-RTX_5090-32-65536@Hafnarfjarðarkaupstaður, IS, EU").gpu_count == 4


def test_vast_cards_the_table_lacks_are_reported_not_guessed(cloud):
    report = run(sample(VAST), "skypilot", cloud("vastai"))

    assert report.skipped_by_reason() == [
        ("unknown accelerator 'RTX6000-Ada' with 47.99 GiB per GPU", 2, "21, 31"),
        ("unknown accelerator 'RTX3070' with 8 GiB per GPU", 1, "64"),
    ]


def test_vast_rows_read_for_a_platform_of_unknown_dialect_are_errors_not_guesses(cloud):
    """The same file under a platform that names no known cloud: a multi-GPU row whose SizeInMiB
    equals its TotalGpuMemoryInMiB may be per GPU (Lambda) or a total (Vast)."""
    report = run(sample(VAST), "skypilot", cloud("some-market"))

    assert not report.applied and Offering.objects.count() == 0
    first = report.errors[0]
    assert first.line == 2
    assert "287542 MiB both as SizeInMiB and as TotalGpuMemoryInMiB for 2 GPUs" in first.message


# --- Verda ---------------------------------------------------------------------------------------


def test_verda_json_gpu_info_and_total_sizes_give_per_gpu_cards(cloud):
    """Verda's GpuInfo is JSON; SizeInMiB is the total and TotalGpuMemoryInMiB multiplies it again
    (8x B300: 2,150,400 and 17,203,200 MiB). Its V100 rows are 16 GB cards, never 32."""
    verda = cloud("verda")
    report = run(sample(VERDA), "skypilot", verda)

    assert report.ok and report.total_rows == 45
    assert report.created == 75
    assert report.skipped_by_reason() == [
        ("unknown accelerator 'RTX-6000-Ada' with 48 GiB per GPU", 4, "38-41")
    ]
    b300 = offering("8B300.240V@FIN-03")
    assert (b300.accelerator.slug, b300.gpu_count, b300.vcpus) == ("b300-288gb", 8, 240)
    # 1x B300 states 268,288 MiB, the multi-GPU rows 268,800 per GPU: the same card.
    assert offering("1B300.30V@FIN-03").accelerator.slug == "b300-288gb"
    for key in ("1V100.6V@FIN-03", "2V100.10V@FIN-03", "8V100.48V@FIN-03"):
        assert offering(key).accelerator.slug == "v100-16gb"
    assert price("8V100.48V@FIN-03") == Decimal("1.1")


def test_verda_names_that_end_with_the_instance_total_name_the_card(cloud):
    run(sample(VERDA), "skypilot", cloud("verda"))

    # "A100-80GB-160GB" for 2 GPUs, "A100-40GB-320GB" for 8.
    assert offering("2A100.44V@FIN-01").accelerator.slug == "a100-80gb"
    assert offering("8A100.176V@FIN-03").accelerator.slug == "a100-80gb"
    assert offering("8A100.40S.176V@FIN-03").accelerator.slug == "a100-40gb"
    assert card_name("A100-80GB-640GB", 8) == "A100-80GB"
    assert card_name("A100-80GB-640GB", 4) == "A100-80GB-640GB"  # not a total: kept
    assert card_name("A100-80GB", 1) == "A100-80GB"


def test_verda_rows_without_a_spot_price_have_no_spot_offering(cloud):
    run(sample(VERDA), "skypilot", cloud("verda"))

    assert price("8B200.240V@FIN-03") == Decimal("30.32")
    assert not Offering.objects.filter(external_id="8B200.240V@FIN-03:spot").exists()
    assert price("1B300.30V@FIN-03:spot") == Decimal("1.24")


def test_the_catalogues_slugs_name_their_skypilot_clouds():
    assert cloud_of("vastai") == "vast"
    assert cloud_of("datacrunch") == "verda"
    assert cloud_of("Lambda") == "lambda"
    info = GpuInfo("RTX4090", Decimal(49128), Decimal(49128))
    assert memory_per_gpu_gib(info, 2, "vast") == Decimal("23.99")
    assert memory_per_gpu_gib(info, 2, "lambda") == Decimal("47.98")


# --- values that are not memory ------------------------------------------------------------------


HEADER = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,Region\n"


@pytest.mark.parametrize(
    ("info", "message"),
    [
        ("1e400", "GpuInfo has no 'Gpus' list"),
        ("\"{'Gpus': [{'Name': 'A10', 'MemoryInfo': {'SizeInMiB': 1e400}}]}\"", "not a finite"),
        (
            "\"{'Gpus': [{'Name': 'A10', 'MemoryInfo': {'SizeInMiB': 1" + "0" * 400 + '}}]}"',
            "too large",
        ),
        (
            "\"{'Gpus': [{'Name': 'A10', 'MemoryInfo': {'SizeInMiB': 24576}}], "
            "'TotalGpuMemoryInMiB': -1e400}\"",
            "TotalGpuMemoryInMiB is not a finite number",
        ),
    ],
)
def test_a_gpu_info_number_out_of_range_is_an_error_on_its_line(cloud, info, message):
    text = (
        HEADER
        + "ok,A10,1,30,200,\"{'Gpus': [{'Name': 'A10'}]}\",1.29,r\n"
        + f"x,A10,1,30,200,{info},1.29,r\n"
    )
    report = run(text, "skypilot", cloud("lambda"))

    assert [p.line for p in report.errors] == [3]
    assert message in str(report.errors[0])
    assert str(report.errors[0]).startswith("line 3: ")
    assert not report.applied


def test_parse_without_a_platform_reads_per_gpu_sizes():
    """The dialect of no cloud: sizes per GPU, and the Lambda/Vast ambiguity an error."""
    parsed = parse(sample(NEBIUS))
    assert not parsed.errors
    assert {row.gpu_memory_gib for row in parsed.rows} == {
        Decimal(80),
        Decimal(141),
        Decimal(48),
        Decimal(180),
    }
