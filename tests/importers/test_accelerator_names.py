"""Catalog GPU names resolve through the alias table: memory and form factor choose, no guesses."""

from __future__ import annotations

from decimal import Decimal

import pytest

from platforms.importers.accelerators import AcceleratorResolver, Unresolved
from platforms.models import Accelerator

from .conftest import run


@pytest.fixture
def resolver(accelerators) -> AcceleratorResolver:
    return AcceleratorResolver()


@pytest.mark.parametrize(
    ("name", "memory", "hint", "slug"),
    [
        ("A100-80GB", None, "", "a100-80gb"),
        ("NVIDIA A100-SXM4-80GB", None, "", "a100-80gb"),
        ("nvidia a100 sxm4 80gb", Decimal("80"), "", "a100-80gb"),
        ("A100-80GB-SXM", Decimal("80"), "1x_A100-80GB-SXM_SECURE A100 SXM", "a100-80gb"),
        # Lambda's bare "A100": the per-GPU memory picks the size.
        ("A100", Decimal("40"), "gpu_1x_a100", "a100-40gb"),
        ("A100", Decimal("80"), "", "a100-80gb"),
        # A name that is a prefix of another card's name never matches it.
        ("A10", Decimal("24"), "gpu_1x_a10", "a10-24gb"),
        ("H20", None, "", "h20-96gb"),
        # Form factor from the instance type when name and memory leave two cards.
        ("H100", Decimal("80"), "gpu_1x_h100_pcie", "h100-pcie-80gb"),
        ("H100", Decimal("80"), "gpu_8x_h100_sxm5", "h100-sxm-80gb"),
        ("H100", Decimal("94"), "", "h100-nvl-94gb"),
        # Memory beats a bare alias that names the smaller card.
        ("RTX 4090", Decimal("48"), "", "rtx-4090-48gb"),
        ("RTX 4090", Decimal("24"), "", "rtx-4090-24gb"),
        ("B200", Decimal("179.06"), "p6-b200.48xlarge", "b200-180gb"),
        # Another model whose name starts with this one's is never this one.
        ("L40", Decimal("48"), "", "l40-48gb"),
        ("L40S", Decimal("48"), "", "l40s-48gb"),
        ("RTX 3080", Decimal("10"), "", "rtx-3080-10gb"),
        ("RTX 3080 Ti", Decimal("12"), "", "rtx-3080ti-12gb"),
        # A form or memory the listing does not state: the "not stated" row, never a guess.
        ("H100", Decimal("80"), "p5.48xlarge", "h100-80gb"),
        ("H100", None, "", "h100-80gb"),
        ("A100", None, "", "a100-memory-not-stated"),
        ("V100", None, "", "v100-memory-not-stated"),
        # The SkyPilot Lambda catalog's names, with their per-GPU memory.
        ("V100", Decimal("16"), "gpu_8x_v100", "v100-16gb"),
        ("V100", Decimal("32"), "", "v100-32gb"),
        ("A6000", Decimal("48"), "gpu_4x_a6000", "rtx-a6000-48gb"),
        ("RTX6000", Decimal("24"), "gpu_1x_rtx6000", "quadro-rtx-6000-24gb"),
        ("GH200", Decimal("96"), "gpu_1x_gh200", "gh200-96gb"),
        ("MTT S4000", Decimal("48"), "", "mtt-s4000-48gb"),
    ],
)
def test_a_catalog_name_resolves_to_one_accelerator(resolver, name, memory, hint, slug):
    assert resolver.resolve(name, memory, hint).slug == slug


@pytest.mark.parametrize(
    ("name", "memory", "hint", "message"),
    [
        ("Tesla P100", Decimal("16"), "", "unknown accelerator 'Tesla P100' with 16 GiB per GPU"),
        # "RTX 6000" alone may be the 24 GB Quadro or the 48 GB RTX 6000 Ada: only memory says.
        ("RTX 6000", None, "", "unknown accelerator 'RTX 6000'"),
        ("RTX 6000", Decimal("48"), "", "unknown accelerator 'RTX 6000' with 48 GiB per GPU"),
        # A known name with memory no size of it has is not forced onto the nearest card.
        ("A100", Decimal("64"), "", "unknown accelerator 'A100' with 64 GiB per GPU"),
        ("---", None, "", "no accelerator name"),
    ],
)
def test_unknown_or_ambiguous_names_are_refused_with_a_reason(
    resolver, name, memory, hint, message
):
    with pytest.raises(Unresolved) as excinfo:
        resolver.resolve(name, memory, hint)
    assert str(excinfo.value) == message


def test_strict_mode_makes_an_unknown_accelerator_an_error_and_writes_nothing(lambda_cloud):
    text = (
        "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo\n"
        "gpu_1x_a10,A10,1,30,200,1.29,us-east-1,\n"
        "gpu_8x_p100,P100,8,92,448,6.32,us-east-1,\n"
    )

    lenient = run(text, "skypilot", lambda_cloud, dry_run=True)
    strict = run(text, "skypilot", lambda_cloud, strict=True)

    assert (lenient.ok, lenient.created, [p.line for p in lenient.skipped]) == (True, 1, [3])
    assert [(p.line, p.message) for p in strict.errors] == [(3, "unknown accelerator 'P100'")]
    assert not strict.applied


def test_a_prefix_never_resolves_to_another_model(accelerators):
    """Without an L40 row, "L40" is unknown: the L40S (a different card, 362 against 181 dense
    BF16 TFLOPS in NVIDIA's L40/L40S datasheet table) is not a form of it."""
    Accelerator.objects.get(slug="l40-48gb").aliases.all().delete()
    resolver = AcceleratorResolver()

    with pytest.raises(Unresolved) as excinfo:
        resolver.resolve("L40", Decimal("48"))
    assert str(excinfo.value) == "unknown accelerator 'L40' with 48 GiB per GPU"
    assert resolver.resolve("L40S", Decimal("48")).slug == "l40s-48gb"


def test_without_the_form_not_stated_row_a_bare_h100_is_ambiguous_not_guessed(accelerators):
    Accelerator.objects.get(slug="h100-80gb").aliases.all().delete()

    with pytest.raises(Unresolved) as excinfo:
        AcceleratorResolver().resolve("H100", Decimal("80"), "p5.48xlarge")
    assert str(excinfo.value) == (
        "ambiguous accelerator 'H100' with 80 GiB per GPU: could be h100-pcie-80gb, h100-sxm-80gb"
    )


def test_the_form_not_stated_row_has_the_lower_figure_of_each_form(accelerators):
    """H100 SXM5: 3,350 GB/s, 989 dense BF16 TFLOPS; H100 PCIe: 2,000 GB/s, 756 TFLOPS (NVIDIA
    H100 datasheet figures in the accelerator table): an unstated form is planned on the PCIe's."""
    forms = Accelerator.objects.in_bulk(
        ["h100-80gb", "h100-sxm-80gb", "h100-pcie-80gb"], field_name="slug"
    )
    unstated = forms["h100-80gb"]
    for figure in ("memory_bandwidth_gbps", "bf16_tflops", "fp32_tflops", "vram_gib"):
        lowest = min(getattr(forms[slug], figure) for slug in ("h100-sxm-80gb", "h100-pcie-80gb"))
        assert getattr(unstated, figure) == lowest, figure
