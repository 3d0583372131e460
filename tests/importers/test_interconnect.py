"""Interconnect by instance family (platforms/importers/interconnect.py), on the real samples.

The family table cites the vendors' pages: AWS https://aws.amazon.com/ec2/instance-types/p4/,
/p5/, /p6/ (NVSwitch 600, 900 and 1800 GB/s per GPU), /p3/ (V100 NVLink 300 GB/s), /g5/ and /g6/
(PCIe); Google https://cloud.google.com/compute/docs/gpus (A2/A3/A4); Azure's ND and NC size pages
on learn.microsoft.com; Lambda https://lambda.ai/instances ("8x A100 (40 GB SXM4)", H100 SXM,
B200 SXM6); RunPod https://www.runpod.io/pricing. Bandwidths are NVIDIA's per-GPU, bidirectional
figures (A100 SXM 600 GB/s, H100/H200 SXM 900 GB/s, B200 1800 GB/s).
"""

from __future__ import annotations

import csv
import io
from urllib.parse import urlparse

import pytest

from platforms.importers import gpuhunt, native, skypilot
from platforms.importers.interconnect import families, family_for, interconnect_for
from platforms.importers.rows import OfferRow
from platforms.models import Offering

from .conftest import DAY_2, run, sample

AWS = "skypilot-v8-aws-vms.csv"
LAMBDA = "skypilot-v8-lambda-vms.csv"
RUNPOD = "skypilot-v8-runpod-vms.csv"
GPUHUNT = "gpuhunt-sample.csv"

VENDOR_HOSTS = {
    "aws.amazon.com",
    "cloud.google.com",
    "learn.microsoft.com",
    "lambda.ai",
    "www.runpod.io",
    "www.nvidia.com",
}


def instance(row: OfferRow) -> str:
    return row.external_id.split("@")[0]


def by_instance(rows: list[OfferRow]) -> dict[str, set[tuple[str | None, float | None]]]:
    found: dict[str, set[tuple[str | None, float | None]]] = {}
    for row in rows:
        found.setdefault(instance(row), set()).add(
            (row.interconnect, row.interconnect_bandwidth_gbps)
        )
    return found


# --- the table -----------------------------------------------------------------------------------


def test_every_row_cites_a_vendor_page_and_its_example_falls_to_that_row():
    table = families()
    assert len(table) >= 40
    for family in table:
        assert urlparse(family.source_url).hostname in VENDOR_HOSTS, family.source_url
        # First match wins: no row may be shadowed by an earlier one.
        assert family_for(family.example) is family, family.example
        assert family.min_gpus >= 2
        assert (family.interconnect == "nvlink") == (family.nvlink_bandwidth_gbps is not None)


@pytest.mark.parametrize(
    ("instance_type", "gpus", "expected"),
    [
        # AWS (aws.amazon.com/ec2/instance-types/p3/, /p4/, /p5/, /p6/, /g5/, /g6/).
        ("p3.16xlarge", 8, ("nvlink", 300)),
        ("p4d.24xlarge", 8, ("nvlink", 600)),
        ("p4de.24xlarge", 8, ("nvlink", 600)),
        ("p5.48xlarge", 8, ("nvlink", 900)),
        ("p5e.48xlarge", 8, ("nvlink", 900)),
        ("p5en.48xlarge", 8, ("nvlink", 900)),
        ("p6-b200.48xlarge", 8, ("nvlink", 1800)),
        ("p6e-gb200.36xlarge", 4, ("nvlink", 1800)),
        ("g5.48xlarge", 8, ("pcie", None)),
        ("g5.12xlarge", 4, ("pcie", None)),
        ("g6.48xlarge", 8, ("pcie", None)),
        ("g6e.12xlarge", 4, ("pcie", None)),
        # Google Cloud (cloud.google.com/compute/docs/gpus).
        ("a2-highgpu-8g", 8, ("nvlink", 600)),
        ("a2-megagpu-16g", 16, ("nvlink", 600)),
        ("a2-ultragpu-4g", 4, ("nvlink", 600)),
        ("a3-highgpu-8g", 8, ("nvlink", 900)),
        ("a3-megagpu-8g", 8, ("nvlink", 900)),
        ("a3-edgegpu-8g", 8, ("nvlink", 900)),
        ("a3-ultragpu-8g", 8, ("nvlink", 900)),
        ("a4-highgpu-8g", 8, ("nvlink", 1800)),
        ("g2-standard-48", 4, ("pcie", None)),
        # Azure (learn.microsoft.com ND and NC size pages); case as catalogs vary it.
        ("Standard_ND96asr_v4", 8, ("nvlink", 600)),
        ("Standard_ND96amsr_A100_v4", 8, ("nvlink", 600)),
        ("standard_nd96isr_h100_v5", 8, ("nvlink", 900)),
        ("Standard_ND96isr_H200_v5", 8, ("nvlink", 900)),
        ("Standard_ND128isr_NDR_GB200_v6", 4, ("nvlink", 1800)),
        ("Standard_NC96ads_A100_v4", 4, ("pcie", None)),
        ("Standard_NC80adis_H100_v5", 2, ("pcie", None)),
        # Lambda (lambda.ai/instances) and RunPod (runpod.io/pricing).
        ("gpu_8x_a100", 8, ("nvlink", 600)),
        ("gpu_2x_b200_sxm6", 2, ("nvlink", 1800)),
        ("gpu_4x_a100", 4, ("pcie", None)),
        ("8x_H100-SXM_SECURE", 8, ("nvlink", 900)),
        ("4x_A100-80GB_SECURE", 4, ("pcie", None)),
    ],
)
def test_families_give_their_interconnect_and_bandwidth(instance_type, gpus, expected):
    assert interconnect_for(instance_type, gpus) == expected


@pytest.mark.parametrize(
    ("instance_type", "gpus"),
    [("p5.4xlarge", 1), ("g5.xlarge", 1), ("gpu_1x_h100_sxm5", 1), ("a3-highgpu-1g", 1)],
)
def test_one_gpu_is_never_nvlink_and_states_nothing(instance_type, gpus):
    # No peer to talk to: the stored value (or the model's default) stands.
    assert interconnect_for(instance_type, gpus, "H100 SXM") == (None, None)


def test_outside_the_table_sxm_with_several_gpus_is_nvlink_and_anything_else_unknown():
    assert interconnect_for("bm.gpu.h100.8", 8, "H100 SXM5") == ("nvlink", None)
    assert interconnect_for("8x-h100-80gb-sxm", 8) == ("nvlink", None)
    assert interconnect_for("bm.gpu.h100.8", 8, "H100") == (None, None)
    assert interconnect_for("n1-standard-8", 4, "V100") == (None, None)


def test_a_known_provider_limits_the_table_to_its_rows_and_an_unknown_one_does_not():
    assert interconnect_for("p5.48xlarge", 8, "H100", provider="aws") == ("nvlink", 900)
    assert interconnect_for("p5.48xlarge", 8, "H100", provider="lambda") == (None, None)
    assert interconnect_for("p5.48xlarge", 8, "H100", provider="some-reseller") == ("nvlink", 900)


# --- SkyPilot AWS sample (every p-family row of catalogs/v8/aws/vms.csv) --------------------------


def test_the_aws_sample_p4d_p4de_p5_p5en_and_p6_b200_rows_are_nvlink_with_the_table_bandwidth():
    rows = skypilot.parse(sample(AWS)).rows
    found = by_instance(rows)

    assert found["p4d.24xlarge"] == {("nvlink", 600)}
    assert found["p4de.24xlarge"] == {("nvlink", 600)}
    assert found["p5.48xlarge"] == {("nvlink", 900)}
    assert found["p5en.48xlarge"] == {("nvlink", 900)}
    assert found["p6-b200.48xlarge"] == {("nvlink", 1800)}
    # 87 file lines (21 + 11 + 31 + 19 + 5), folded by zone into 78 on-demand and spot offers.
    eight_gpu = ("p4d.", "p4de.", "p5.48xlarge", "p5en.", "p6-b200.")
    assert sum(1 for row in rows if instance(row).startswith(eight_gpu)) == 78
    # V100 SXM2 (aws.amazon.com/ec2/instance-types/p3/): 300 GB/s on 8 GPUs, 200 on 4.
    assert found["p3.16xlarge"] == {("nvlink", 300)}
    assert found["p3.8xlarge"] == {("nvlink", 200)}
    assert found["p3dn.24xlarge"] == {("nvlink", 300)}
    # One GPU: p5.4xlarge (1 H100) and p3.2xlarge (1 V100) state nothing.
    assert found["p5.4xlarge"] == {(None, None)}
    assert found["p3.2xlarge"] == {(None, None)}
    # All 164 offers: 130 NVLink, 34 single-GPU; none PCIe (the sample is all p-family).
    assert len(rows) == 164
    links = [row.interconnect for row in rows]
    assert (links.count("nvlink"), links.count(None), links.count("pcie")) == (130, 34, 0)


def test_aws_g5_and_g6_rows_in_the_skypilot_format_are_pcie_not_nvlink():
    """The sample holds only p-family rows; these are the AWS header with g5/g6 instance types."""
    header = sample(AWS).splitlines()[0]
    gpu_info = "\"{'Gpus': [{'Name': '%s', 'Manufacturer': 'NVIDIA', 'Count': %d, " + (
        "'MemoryInfo': {'SizeInMiB': 24576}}], 'TotalGpuMemoryInMiB': %d}\""
    )
    lines = [header]
    for name, gpu, count in [
        ("g5.xlarge", "A10G", 1),
        ("g5.48xlarge", "A10G", 8),
        ("g6.xlarge", "L4", 1),
        ("g6.48xlarge", "L4", 8),
    ]:
        info = gpu_info % (gpu, count, 24576 * count)
        lines.append(f"{name},{gpu},{count}.0,4.0,16.0,{info},1.0,,us-east-1,use1-az1,x86_64")
    found = by_instance(skypilot.parse("\n".join(lines) + "\n").rows)

    assert found == {
        "g5.xlarge": {(None, None)},
        "g5.48xlarge": {("pcie", None)},
        "g6.xlarge": {(None, None)},
        "g6.48xlarge": {("pcie", None)},
    }


def test_importing_the_aws_sample_stores_nvlink_on_the_nvswitch_offerings(aws):
    report = run(sample(AWS), "skypilot", aws)

    assert report.ok
    offerings = Offering.objects.filter(platform=aws)
    nvswitch = offerings.filter(
        external_id__regex=r"^(p4d|p4de|p5en|p6-b200)\.|^p5\.48xlarge"
    ).values_list("interconnect", flat=True)
    assert len(nvswitch) == 78
    assert set(nvswitch) == {"nvlink"}
    # The single-H100 p5.4xlarge is stated nothing and keeps the model's default.
    assert set(
        offerings.filter(external_id__startswith="p5.4xlarge@").values_list(
            "interconnect", flat=True
        )
    ) == {"pcie"}


# --- SkyPilot Lambda and RunPod samples ----------------------------------------------------------


def test_lambda_gpu_8x_sxm_rows_are_nvlink_and_gpu_1x_rows_are_not():
    """lambda.ai/instances: 8x A100 SXM 40 GB (gpu_8x_a100), A100 SXM 80 GB, H100 SXM, B200 SXM6."""
    found = by_instance(skypilot.parse(sample(LAMBDA), "lambda").rows)

    assert found["gpu_8x_a100"] == {("nvlink", 600)}
    assert found["gpu_8x_a100_80gb_sxm4"] == {("nvlink", 600)}
    assert found["gpu_8x_h100_sxm5"] == {("nvlink", 900)}
    assert found["gpu_8x_b200_sxm6"] == {("nvlink", 1800)}
    # Not in the table and no SXM in the name: unknown, not guessed.
    assert found["gpu_8x_v100"] == found["gpu_8x_v100_n"] == {(None, None)}
    gpu_1x = {name: links for name, links in found.items() if name.startswith("gpu_1x_")}
    assert len(gpu_1x) == 9
    assert all(links == {(None, None)} for links in gpu_1x.values())
    # Several SXM GPUs are NVLink at any size; Lambda's 2x/4x A100 are PCIe.
    assert found["gpu_2x_h100_sxm5"] == found["gpu_4x_h100_sxm5"] == {("nvlink", 900)}
    assert found["gpu_2x_b200_sxm6"] == {("nvlink", 1800)}
    assert found["gpu_2x_a100"] == found["gpu_4x_a100"] == {("pcie", None)}


def test_importing_the_lambda_sample_stores_nvlink_only_on_multi_gpu_sxm_machines(lambda_cloud):
    run(sample(LAMBDA), "skypilot", lambda_cloud)

    links = dict(
        Offering.objects.filter(external_id__endswith="@us-east-1").values_list(
            "external_id", "interconnect"
        )
    )
    nvlink = sorted(key.split("@")[0] for key, link in links.items() if link == "nvlink")
    assert nvlink == [
        "gpu_2x_b200_sxm6",
        "gpu_2x_h100_sxm5",
        "gpu_4x_h100_sxm5",
        "gpu_8x_a100",
        "gpu_8x_a100_80gb_sxm4",
        "gpu_8x_b200_sxm6",
        "gpu_8x_h100_sxm5",
    ]
    assert Offering.objects.filter(interconnect="nvlink").count() == 7 * 17
    assert not Offering.objects.filter(
        external_id__startswith="gpu_1x_", interconnect="nvlink"
    ).exists()


def test_the_runpod_sample_has_no_nvlink_its_a100s_are_pcie_and_its_one_sxm_pod_a_single_gpu():
    found = by_instance(skypilot.parse(sample(RUNPOD)).rows)

    assert found["1x_A100-80GB-SXM_SECURE"] == {(None, None)}
    assert found["1x_A100-80GB_SECURE"] == {(None, None)}
    for count in range(2, 9):
        assert found[f"{count}x_A100-80GB_SECURE"] == {("pcie", None)}
    # A multi-GPU RunPod SXM pod, as RunPod names them, would be NVLink.
    assert interconnect_for("2x_A100-80GB-SXM_SECURE", 2, "A100 SXM") == ("nvlink", 600)


# --- gpuhunt -------------------------------------------------------------------------------------


def test_the_gpuhunt_sample_holds_no_known_family_and_states_nothing():
    rows = gpuhunt.parse(sample(GPUHUNT)).rows

    # "test-instance" with an A10 and 8 H100: no family, no SXM in the names.
    assert [(r.gpu_count, r.interconnect, r.interconnect_bandwidth_gbps) for r in rows] == [
        (1, None, None),
        (8, None, None),
    ]


def test_gpuhunt_rows_with_real_instance_names_use_the_table():
    # The sample's header with real instance names; prices and sizes only fill the columns.
    header, *_ = sample(GPUHUNT).splitlines()
    text = "\n".join(
        [
            header,
            "p5.48xlarge,us-east-1,98.32,192,2048.0,8,H100,80.0,False,,nvidia,,x86,{}",
            "a3-highgpu-8g,us-central1,88.25,208,1872.0,8,H100,80.0,False,,nvidia,,x86,{}",
            "g5.48xlarge,us-east-1,16.29,192,768.0,8,A10G,24.0,False,,nvidia,,x86,{}",
            "gpu_1x_h100_sxm5,us-east-1,3.29,26,225.0,1,H100,80.0,False,,nvidia,,x86,{}",
        ]
    )
    found = by_instance(gpuhunt.parse(text + "\n").rows)

    assert found == {
        "p5.48xlarge": {("nvlink", 900)},
        "a3-highgpu-8g": {("nvlink", 900)},
        "g5.48xlarge": {("pcie", None)},
        "gpu_1x_h100_sxm5": {(None, None)},
    }


# --- native CSV ----------------------------------------------------------------------------------


def native_rows(*rows: str) -> list[OfferRow]:
    header = "platform,offering_key,name,accelerator,gpu_count,interconnect,billing_unit,amount,"
    header += "currency"
    return native.parse("\n".join([header, *rows]) + "\n").rows


def test_native_rows_that_leave_interconnect_blank_get_the_table_and_stated_values_win():
    rows = native_rows(
        "aws,p5.48xlarge@us-east-1,p5 x8,H100 SXM,8,,hour,98.32,USD",
        "aws,g5.48xlarge@us-east-1,g5 x8,A10G,8,,hour,16.29,USD",
        "aws,p4d.24xlarge@us-east-1,p4d x8,A100,8,pcie,hour,21.96,USD",
        "autodl,a800-8x,A800 x8,NVIDIA A800-SXM4-80GB,8,,hour,40.0,CNY",
        "autodl,rtx4090-8x,RTX 4090 x8,RTX 4090,8,,hour,15.0,CNY",
    )

    assert [(r.interconnect, r.interconnect_bandwidth_gbps) for r in rows] == [
        ("nvlink", 900),
        ("pcie", None),
        ("pcie", None),  # stated in the file: the table does not overrule it
        ("nvlink", None),  # SXM in the GPU name, 8 GPUs: the fallback
        (None, None),  # unknown: not guessed
    ]


def test_the_native_sample_is_unchanged_by_the_table():
    rows = native.parse(sample("native-sample.csv")).rows
    # Stated pcie on the AutoDL rows, blank (one GPU) on the others.
    assert [r.interconnect for r in rows] == ["pcie", "pcie", None, None]


# --- the write rule (plan.WHEN_STATED) -----------------------------------------------------------


def test_a_reimport_corrects_an_old_pcie_guess_and_leaves_admin_values_the_table_cannot_know(
    lambda_cloud,
):
    run(sample(LAMBDA), "skypilot", lambda_cloud)
    # As the old importer stored it, and an admin correction on a one-GPU machine.
    Offering.objects.filter(external_id__startswith="gpu_8x_a100@").update(interconnect="pcie")
    Offering.objects.filter(external_id__startswith="gpu_1x_h100_sxm5@").update(interconnect="none")

    report = run(sample(LAMBDA), "skypilot", lambda_cloud, day=DAY_2)

    assert report.ok
    assert set(
        Offering.objects.filter(external_id__startswith="gpu_8x_a100@").values_list(
            "interconnect", flat=True
        )
    ) == {"nvlink"}
    change = next(c for c in report.changes if c.external_id == "gpu_8x_a100@us-east-1")
    assert "interconnect: pcie -> nvlink" in change.details
    # One GPU: the table states nothing, so the admin's value survives.
    assert set(
        Offering.objects.filter(external_id__startswith="gpu_1x_h100_sxm5@").values_list(
            "interconnect", flat=True
        )
    ) == {"none"}


def test_the_table_file_is_read_as_csv_with_the_documented_columns():
    from platforms.importers.interconnect import COLUMNS, TABLE

    reader = csv.DictReader(io.StringIO(TABLE.read_text(encoding="utf-8")))
    assert tuple(reader.fieldnames or ()) == COLUMNS
    assert sum(1 for _ in reader) == len(families())
