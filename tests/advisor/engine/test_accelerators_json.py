"""fixtures/accelerators.json: the single source of accelerator figures, each row naming its
sources (docs/accelerators.md)."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

from advisor.engine.errors import InvalidWorkload
from advisor.engine.hardware import (
    DEFAULT_PATH,
    accelerators_from_dicts,
    load_accelerators,
    normalise_name,
    resolve_accelerator,
)
from advisor.engine.messages import Code, msg

REQUIRED_SLUGS = {
    "rtx-3090-24gb",
    "rtx-4090-24gb",
    "rtx-4090d-24gb",
    "rtx-4090-48gb",
    "rtx-5090-32gb",
    "a10-24gb",
    "a30-24gb",
    "a40-48gb",
    "l20-48gb",
    "l40s-48gb",
    "a100-40gb",
    "a100-80gb",
    "a800-80gb",
    "h100-sxm-80gb",
    "h100-pcie-80gb",
    "h100-nvl-94gb",
    "h800-80gb",
    "h20-96gb",
    "h200-141gb",
    "b200-180gb",
    "ascend-910b-64gb",
    "biren-br104-32gb",
}
KEYS = {
    "slug",
    "name",
    "aliases",
    "vendor",
    "architecture",
    "vram_gib",
    "memory_bandwidth_gbps",
    "bf16_tflops",
    "fp32_tflops",
    "fp64_tflops",
    "rt_cores",
    "nvenc",
    "nvlink",
    "nvlink_bandwidth_gbps",
    "pcie_gen",
    "tdp_w",
    "domestic",
    "confidence",
    "figure_confidence",
    "source",
    "mig",
    "stack",
    "compute_capability",
    "precisions",
    "stack_source",
    "stack_confidence",
}
FIGURES = {
    "vram_gib",
    "memory_bandwidth_gbps",
    "bf16_tflops",
    "fp16_tflops",
    "fp32_tflops",
    "fp64_tflops",
    "rt_cores",
    "nvenc",
    "nvlink_bandwidth_gbps",
    "pcie_gen",
    "tdp_w",
}
TAGS = {"verified", "secondary", "unverified"}


@pytest.fixture(scope="module")
def rows() -> list[dict[str, Any]]:
    with open(DEFAULT_PATH, encoding="utf-8") as handle:
        return list(json.load(handle)["accelerators"])


def test_there_are_at_least_20_accelerators_including_every_required_slug(rows) -> None:
    slugs = [row["slug"] for row in rows]
    assert len(rows) >= 20
    assert set(slugs) >= REQUIRED_SLUGS
    assert len(slugs) == len(set(slugs))


def test_every_row_has_the_contract_keys_and_tagged_figures(rows) -> None:
    for row in rows:
        assert set(row) >= KEYS, row["slug"]
        assert row["confidence"] in TAGS
        assert row["source"] and ".md" not in row["source"]  # the original documents
        assert set(row["figure_confidence"]) <= FIGURES
        assert set(row["figure_confidence"].values()) <= TAGS
        for figure in FIGURES:
            tagged = figure in row["figure_confidence"]
            # fp16_tflops is given only where it differs from bf16_tflops (absent: the same).
            assert tagged == (row.get(figure) is not None), (row["slug"], figure)


def test_aliases_are_unique_across_accelerators_after_normalising(rows) -> None:
    owner: dict[str, str] = {}
    for row in rows:
        for label in [row["slug"], *row["aliases"]]:
            key = normalise_name(label)
            assert owner.setdefault(key, row["slug"]) == row["slug"], (label, owner[key])


def test_bare_names_are_aliases_only_of_their_form_not_stated_rows(rows) -> None:
    """Bare "A100" (40 or 80 GB), "H100" (SXM or PCIe) and "V100" (16 or 32 GB) name rows of their
    own whose figures are the lower of the forms they may be, never one of the forms: a listing
    that does not say is planned on what every form can do (NVIDIA H100 datasheet: SXM 3,350 GB/s
    and 989 dense BF16 TFLOPS, PCIe 2,000 GB/s and 756)."""
    owner = {normalise_name(a): row["slug"] for row in rows for a in row["aliases"]}
    assert owner["a100"] == "a100-memory-not-stated"
    assert owner["h100"] == "h100-80gb"
    assert owner["v100"] == "v100-memory-not-stated"
    by_slug = {row["slug"]: row for row in rows}
    for unstated, forms in {
        "h100-80gb": ("h100-sxm-80gb", "h100-pcie-80gb"),
        "a100-memory-not-stated": ("a100-40gb", "a100-80gb"),
        "v100-memory-not-stated": ("v100-16gb", "v100-32gb"),
    }.items():
        specs = load_accelerators()
        for figure in ("vram_gib", "memory_bandwidth_gbps", "bf16_tflops", "fp16_tflops"):
            values = [getattr(specs[form], figure) for form in forms]
            lowest = None if None in values else min(values)
            assert getattr(specs[unstated], figure) == lowest, (unstated, figure)
        for figure in ("fp32_tflops",):
            lowest = min(by_slug[form][figure] for form in forms)
            assert by_slug[unstated][figure] == lowest, (unstated, figure)


def test_a_model_whose_name_extends_another_is_a_row_of_its_own(rows) -> None:
    """L40 and L40S are different cards (NVIDIA's L40/L40S datasheet: 181.05 against 362.05 dense
    BF16 TFLOPS, 300 against 350 W): neither name is an alias of the other."""
    by_slug = {row["slug"]: row for row in rows}
    l40, l40s = by_slug["l40-48gb"], by_slug["l40s-48gb"]
    assert (l40["bf16_tflops"], l40["tdp_w"]) == (181.05, 300)
    assert (l40s["bf16_tflops"], l40s["tdp_w"]) == (362.05, 350)
    assert "l40" not in {normalise_name(a) for a in l40s["aliases"]}


def test_mig_profiles_are_consistent_with_the_slots(rows) -> None:
    """MIG placement rule (`nvidia-smi mig -lgipp`, docs/accelerators.md): starts within the
    slots, size fits, g <= max compute."""
    for row in rows:
        mig = row["mig"]
        if mig is None:
            continue
        assert (mig["slots"], mig["max_compute"]) in {(8, 7), (4, 4)}
        for profile in mig["profiles"]:
            size, starts = profile["memory_slices"], profile["starts"]
            assert all(s >= 0 and s + size <= mig["slots"] for s in starts), profile["name"]
            assert profile["compute_slices"] <= mig["max_compute"]
            assert profile["name"].startswith(f"{profile['compute_slices']}g.")
            assert profile["memory_gib"] <= row["vram_gib"]
            assert 1 <= profile["max_count"] <= len(starts)
            if profile["media_extensions"]:
                assert profile["max_count"] == 1 and profile["name"].endswith("+me")
            # max_count is reachable: that many non-overlapping starts exist
            assert any(
                all(b >= a + size for a, b in itertools.pairwise(combo))
                for combo in itertools.combinations(starts, profile["max_count"])
            ), profile["name"]


def test_a100_40gb_mig_profiles_are_those_of_the_mig_user_guide() -> None:
    """NVIDIA MIG User Guide, supported profiles: A100-40GB 1g.5gb (7), 1g.5gb+me (1), 1g.10gb (4),
    2g.10gb (3), 3g.20gb (2), 4g.20gb (1), 7g.40gb (1); 3g takes 4 memory slots."""
    spec = load_accelerators()["a100-40gb"]
    counts = {p.name: p.max_count for p in spec.mig_profiles}
    assert counts == {
        "1g.5gb": 7,
        "1g.5gb+me": 1,
        "1g.10gb": 4,
        "2g.10gb": 3,
        "3g.20gb": 2,
        "4g.20gb": 1,
        "7g.40gb": 1,
    }
    three_g = next(p for p in spec.mig_profiles if p.name == "3g.20gb")
    assert (three_g.memory_slices, three_g.starts) == (4, (0, 4))


def test_a30_has_four_slots() -> None:
    """MIG placement on the A30: 1g {0,1,2,3}, 2g {0,2}, 4g {0} (docs/accelerators.md)."""
    spec = load_accelerators()["a30-24gb"]
    starts = {p.name: p.starts for p in spec.mig_profiles}
    assert spec.mig_slots == 4
    assert starts["1g.6gb"] == (0, 1, 2, 3)
    assert starts["2g.12gb"] == (0, 2)
    assert starts["4g.24gb"] == (0,)


@pytest.mark.parametrize(
    ("slug", "bandwidth", "bf16", "confidence"),
    [
        ("h100-sxm-80gb", 3350, 989, "verified"),
        ("rtx-4090-24gb", 1008, 165.2, "secondary"),
        ("l40s-48gb", 864, 362.05, "verified"),
        ("h20-96gb", 4000, 148, "secondary"),
        ("rtx-4090d-24gb", 1008, 147, "unverified"),
    ],
)
def test_figures_are_the_published_dense_figures(slug, bandwidth, bf16, confidence) -> None:
    """Memory bandwidth, dense BF16 TFLOPS and the row's grade: H100 SXM and L40S from NVIDIA's
    datasheet tables, RTX 4090 and H20 from secondary spec pages, RTX 4090 D unverified."""
    spec = load_accelerators()[slug]
    assert (spec.memory_bandwidth_gbps, spec.bf16_tflops, spec.confidence) == (
        bandwidth,
        bf16,
        confidence,
    )


def test_ascend_bandwidth_is_left_empty_because_sources_conflict() -> None:
    """Ascend 910B: secondary sources give 400 GB/s, 768 GB/s and 1.2-1.6 TB/s, so none is kept."""
    spec = load_accelerators()["ascend-910b-64gb"]
    assert spec.memory_bandwidth_gbps is None and spec.domestic


def test_specs_built_from_rows_equal_those_loaded_from_the_file(rows) -> None:
    assert accelerators_from_dicts(rows) == load_accelerators()


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("A100-80GB", "a100-80gb"),
        ("A100 80G", "a100-80gb"),
        ("NVIDIA A100-SXM4-80GB", "a100-80gb"),
        ("a100_80gb_pcie", "a100-80gb"),
        ("RTX4090", "rtx-4090-24gb"),
        ("NVIDIA GeForce RTX 4090", "rtx-4090-24gb"),
        ("RTX 4090D", "rtx-4090d-24gb"),
        ("H100 SXM5", "h100-sxm-80gb"),
        ("l40s", "l40s-48gb"),
        ("H20-96GB", "h20-96gb"),
    ],
)
def test_names_resolve_case_and_separator_insensitively(name: str, slug: str) -> None:
    assert resolve_accelerator(name, load_accelerators()).slug == slug


def test_an_unknown_name_names_the_field_and_lists_close_matches() -> None:
    with pytest.raises(InvalidWorkload) as caught:
        resolve_accelerator("A100 48G", load_accelerators(), field="tasks[0].on.accelerator")
    assert caught.value.field == "tasks[0].on.accelerator"
    assert caught.value.code is Code.UNKNOWN_ACCELERATOR_DID_YOU_MEAN
    assert caught.value.detail.params["name"] == "A100 48G"
    suggestions = caught.value.detail.params["suggestions"]
    assert isinstance(suggestions, tuple) and {"a100-40gb", "a100-80gb"} <= set(suggestions)
    assert caught.value.message.startswith("unknown accelerator 'A100 48G'; did you mean ")


def test_an_unknown_name_with_nothing_close_has_no_hint() -> None:
    with pytest.raises(InvalidWorkload) as caught:
        resolve_accelerator("zzz", load_accelerators())
    assert caught.value.detail == msg(Code.UNKNOWN_ACCELERATOR, name="zzz")
    assert (caught.value.field, caught.value.message) == (
        "accelerator",
        "unknown accelerator 'zzz'",
    )


def test_unambiguous_catalog_names_from_the_skypilot_samples_resolve() -> None:
    """AcceleratorName values with one meaning in shared/data/skypilot-v8-*-vms.csv.

    Bare "A100" and "H100" name the "not stated" rows (Lambda sells H100 PCIe and SXM5 both as
    "H100"): importers pick a form from the instance type or memory first.
    """
    accelerators = load_accelerators()
    resolved = {
        name: resolve_accelerator(name, accelerators).slug
        for name in ("A100-80GB", "A100-80GB-SXM", "H200", "B200", "A10")
    }
    assert resolved == {
        "A100-80GB": "a100-80gb",
        "A100-80GB-SXM": "a100-80gb",
        "H200": "h200-141gb",
        "B200": "b200-180gb",
        "A10": "a10-24gb",
    }
