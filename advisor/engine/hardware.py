"""Accelerator reference data: loading fixtures/accelerators.json and resolving names to specs.

The JSON file is the single source of the figures (each row names its sources; docs/accelerators.md
says how they were chosen and graded): the engine reads it directly when there is no database
(the CLI), and the seed loader copies it into the database, from which the service layer rebuilds
the same specs with `accelerators_from_dicts`.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, cast

from advisor.engine.errors import InvalidWorkload
from advisor.engine.messages import Code
from advisor.engine.types import AcceleratorSpec, Confidence, MigProfile

DEFAULT_PATH = Path(__file__).resolve().parents[2] / "fixtures" / "accelerators.json"

# Compute stacks an accelerator row may name, as their vendors write them (docs/accelerators.md,
# "Compute stacks and precisions"), and the grades of a precision's support.
STACK_NAMES = {
    "cuda": "CUDA",
    "rocm": "ROCm",
    "cann": "CANN",
    "musa": "MUSA",
    "supa": "BIRENSUPA",
}
PRECISIONS = ("fp64", "tf32", "bf16", "fp16", "fp8", "fp4", "int8")
PRECISION_SUPPORT = ("native", "partial", "none", "unverified")
FP64_CLASSES = ("full", "cut", "consumer", "none", "unverified")

# Catalogues write the same card as "NVIDIA GeForce RTX 4090", "RTX4090" or "rtx_4090": the vendor
# and brand words carry no information, separators vary.
_NOISE_PREFIX = re.compile(r"^(nvidia)?(geforce)?")
_SEPARATORS = re.compile(r"[\s_\-]+")


def normalise_name(name: str) -> str:
    """Lower-case `name`, drop spaces, underscores, hyphens and a leading NVIDIA/GeForce."""
    compact = _SEPARATORS.sub("", name.strip().lower())
    return _NOISE_PREFIX.sub("", compact)


def _mig_profiles(mig: Mapping[str, Any]) -> tuple[MigProfile, ...]:
    return tuple(
        MigProfile(
            name=str(p["name"]),
            memory_gib=float(p["memory_gib"]),
            memory_slices=int(p["memory_slices"]),
            compute_slices=int(p["compute_slices"]),
            max_count=int(p["max_count"]),
            starts=tuple(int(s) for s in p["starts"]),
            media_extensions=bool(p.get("media_extensions", False)),
        )
        for p in mig["profiles"]
    )


def _optional_float(value: Any) -> float | None:
    return None if value is None else float(value)


def _optional_int(value: Any) -> int | None:
    return None if value is None else int(value)


def accelerator_from_dict(row: Mapping[str, Any]) -> AcceleratorSpec:
    """Build one spec from a row shaped like an entry of fixtures/accelerators.json."""
    mig = row.get("mig")
    bf16 = row.get("bf16_tflops")
    return AcceleratorSpec(
        slug=str(row["slug"]),
        name=str(row["name"]),
        vendor=str(row["vendor"]),
        vram_gib=float(row["vram_gib"]),
        memory_bandwidth_gbps=_optional_float(row.get("memory_bandwidth_gbps")),
        bf16_tflops=_optional_float(row.get("bf16_tflops")),
        fp32_tflops=_optional_float(row.get("fp32_tflops")),
        nvlink=bool(row.get("nvlink", False)),
        nvlink_bandwidth_gbps=_optional_float(row.get("nvlink_bandwidth_gbps")),
        pcie_gen=None if row.get("pcie_gen") is None else int(row["pcie_gen"]),
        tdp_w=None if row.get("tdp_w") is None else int(row["tdp_w"]),
        domestic=bool(row.get("domestic", False)),
        aliases=tuple(str(a) for a in row.get("aliases") or ()),
        architecture=str(row.get("architecture") or ""),
        mig_slots=int(mig["slots"]) if mig else 0,
        mig_max_compute=int(mig["max_compute"]) if mig else 0,
        mig_profiles=_mig_profiles(mig) if mig else (),
        confidence=cast(Confidence, row.get("confidence", "secondary")),
        nvlink_bridge=bool(row.get("nvlink_bridge", False)),
        fp64_tflops=_optional_float(row.get("fp64_tflops")),
        rt_cores=_optional_int(row.get("rt_cores")),
        nvenc=_optional_int(row.get("nvenc")),
        # Absent: the BF16 rate; null: no FP16 tensor rate (Pascal, Maxwell).
        fp16_tflops=_optional_float(row.get("fp16_tflops", bf16)),
        stack=str(row.get("stack") or "cuda"),
        compute_capability=_optional_float(row.get("compute_capability")),
        precisions=tuple((str(k), str(v)) for k, v in (row.get("precisions") or {}).items()),
    )


def accelerators_from_dicts(rows: Iterable[Mapping[str, Any]]) -> dict[str, AcceleratorSpec]:
    """Specs keyed by slug, from rows with the keys of fixtures/accelerators.json."""
    specs = (accelerator_from_dict(row) for row in rows)
    return {spec.slug: spec for spec in specs}


def load_accelerators(path: str | Path | None = None) -> dict[str, AcceleratorSpec]:
    """Read the accelerator table from `path` (default: the repository's fixtures file)."""
    with open(path or DEFAULT_PATH, encoding="utf-8") as handle:
        data = json.load(handle)
    return accelerators_from_dicts(data["accelerators"])


def resolve_accelerator(
    name: str,
    accelerators: Mapping[str, AcceleratorSpec],
    *,
    field: str = "accelerator",
) -> AcceleratorSpec:
    """The accelerator whose slug or alias matches `name` (case and separators ignored)."""
    index: dict[str, AcceleratorSpec] = {}
    for spec in accelerators.values():
        for label in (spec.slug, *spec.aliases):
            index.setdefault(normalise_name(label), spec)
    key = normalise_name(name)
    if key in index:
        return index[key]
    close = difflib.get_close_matches(key, list(index), n=5, cutoff=0.6)
    slugs = sorted({index[c].slug for c in close})
    if slugs:
        raise InvalidWorkload(
            Code.UNKNOWN_ACCELERATOR_DID_YOU_MEAN, field, name=name, suggestions=tuple(slugs)
        )
    raise InvalidWorkload(Code.UNKNOWN_ACCELERATOR, field, name=name)
