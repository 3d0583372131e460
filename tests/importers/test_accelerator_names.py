"""Catalog GPU names resolve through the alias table: memory and form factor choose, no guesses."""

from __future__ import annotations

from decimal import Decimal

import pytest

from platforms.importers.accelerators import AcceleratorResolver, Unresolved

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
    ],
)
def test_a_catalog_name_resolves_to_one_accelerator(resolver, name, memory, hint, slug):
    assert resolver.resolve(name, memory, hint).slug == slug


@pytest.mark.parametrize(
    ("name", "memory", "hint", "message"),
    [
        ("V100", Decimal("16"), "", "unknown accelerator 'V100' with 16 GiB per GPU"),
        ("A6000", None, "", "unknown accelerator 'A6000'"),
        ("A100", None, "", "ambiguous accelerator 'A100': could be a100-40gb, a100-80gb"),
        (
            "H100",
            Decimal("80"),
            "p5.48xlarge",
            "ambiguous accelerator 'H100' with 80 GiB per GPU: could be h100-pcie-80gb, "
            "h100-sxm-80gb",
        ),
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
        "gpu_8x_v100,V100,8,92,448,6.32,us-east-1,\n"
    )

    lenient = run(text, "skypilot", lambda_cloud, dry_run=True)
    strict = run(text, "skypilot", lambda_cloud, strict=True)

    assert (lenient.ok, lenient.created, [p.line for p in lenient.skipped]) == (True, 1, [3])
    assert [(p.line, p.message) for p in strict.errors] == [(3, "unknown accelerator 'V100'")]
    assert not strict.applied
