"""How an instance's GPUs are joined, NVLink/NVSwitch or PCIe: a sourced table of instance families.

Catalogs (SkyPilot, gpuhunt) say nothing about links, so every importer asks `interconnect_for`.
The table is `data/interconnect_families.csv`, one row per instance family (a regular expression
the whole instance type must match, case ignored), each with the vendor page it comes from:

- AWS: https://aws.amazon.com/ec2/instance-types/p3/, /p4/, /p5/, /p6/ (NVLink/NVSwitch), /g4/,
  /g5/, /g6/, /g6e/ (PCIe);
- Google Cloud: https://cloud.google.com/compute/docs/gpus (A2, A3, A4 on NVLink; G2 PCIe);
- Azure: the ND and NC size pages under
  https://learn.microsoft.com/en-us/azure/virtual-machines/sizes/gpu-accelerated/;
- Lambda: https://lambda.ai/instances; RunPod: https://www.runpod.io/pricing.

`nvlink_bandwidth_gbps` is NVLink bandwidth per GPU, total bidirectional as NVIDIA quotes it
(A100 SXM 600 GB/s, H100/H200 SXM 900 GB/s, B200 1800 GB/s). `confidence` grades each row as
docs/accelerators.md grades figures (verified, secondary, unverified).

The rule, in order:
1. One GPU: nothing to say (None, None). With one GPU there is no peer, so the instance is never
   "nvlink" for scaling, whatever its family; the stored value (or the model's default) stands.
2. The first table row whose pattern matches the instance type (and whose provider is the one
   given, when the table knows that provider) and whose `min_gpus` the count reaches decides.
3. Otherwise the old guess: SXM in the instance or GPU name with more than one GPU is NVLink,
   bandwidth unknown.
4. Otherwise (None, None): unknown. An importer must not state a guess, so plan.py keeps the value
   an admin set (WHEN_STATED).
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

from platforms.models import normalise_alias

TABLE = Path(__file__).parent / "data" / "interconnect_families.csv"
COLUMNS = (
    "provider",
    "pattern",
    "interconnect",
    "nvlink_bandwidth_gbps",
    "min_gpus",
    "gpu",
    "example",
    "confidence",
    "source_url",
    "note",
)
CONFIDENCE = ("verified", "secondary", "unverified")

Link = Literal["nvlink", "pcie"]


@dataclass(frozen=True)
class Family:
    """One row of the table."""

    provider: str
    pattern: re.Pattern[str]
    interconnect: Link
    nvlink_bandwidth_gbps: float | None
    min_gpus: int
    gpu: str
    example: str
    confidence: str
    source_url: str
    note: str

    def matches(self, instance_type: str) -> bool:
        return self.pattern.fullmatch(instance_type) is not None


def _family(line: int, row: dict[str, str]) -> Family:
    """A table row, checked: a broken table is a programming error, named by its line."""

    def fail(message: str) -> ValueError:
        return ValueError(f"{TABLE.name} line {line}: {message}")

    link: Link
    if row["interconnect"] == "nvlink":
        link = "nvlink"
    elif row["interconnect"] == "pcie":
        link = "pcie"
    else:
        raise fail(f"interconnect must be nvlink or pcie, not {row['interconnect']!r}")
    bandwidth = float(row["nvlink_bandwidth_gbps"]) if row["nvlink_bandwidth_gbps"] else None
    if (link == "nvlink") != (bandwidth is not None and bandwidth > 0):
        raise fail("an nvlink row needs a bandwidth above 0 and a pcie row none")
    if row["confidence"] not in CONFIDENCE:
        raise fail(f"confidence must be one of {', '.join(CONFIDENCE)}")
    if not row["source_url"].startswith("https://"):
        raise fail("source_url must be an https address")
    min_gpus = int(row["min_gpus"])
    if min_gpus < 2:
        raise fail("min_gpus must be at least 2: one GPU has no peer")
    try:
        pattern = re.compile(row["pattern"], re.IGNORECASE)
    except re.error as exc:
        raise fail(f"pattern does not compile: {exc}") from None
    return Family(
        provider=row["provider"],
        pattern=pattern,
        interconnect=link,
        nvlink_bandwidth_gbps=bandwidth,
        min_gpus=min_gpus,
        gpu=row["gpu"],
        example=row["example"],
        confidence=row["confidence"],
        source_url=row["source_url"],
        note=row["note"],
    )


@cache
def families() -> tuple[Family, ...]:
    """The table, in file order (the first matching row wins)."""
    with TABLE.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        if tuple(reader.fieldnames or ()) != COLUMNS:
            raise ValueError(f"{TABLE.name}: the columns must be {', '.join(COLUMNS)}")
        # Line 1 is the header.
        return tuple(_family(line, row) for line, row in enumerate(reader, start=2))


def family_for(instance_type: str, provider: str = "") -> Family | None:
    """The first row whose pattern matches `instance_type`, whatever the GPU count.

    A provider the table knows ("aws", "gcp", "azure", "lambda", "runpod") limits the search to its
    rows; any other (a platform slug the table does not use) or none searches them all, since the
    patterns are instance-type names no two clouds share.
    """
    table = families()
    known = {family.provider for family in table}
    wanted = provider.strip().lower()
    for family in table:
        if wanted in known and family.provider != wanted:
            continue
        if family.matches(instance_type.strip()):
            return family
    return None


def interconnect_for(
    instance_type: str, gpu_count: int, accelerator_hint: str = "", provider: str = ""
) -> tuple[Link | None, float | None]:
    """(interconnect, NVLink GB/s per GPU) for an instance; (None, None) when not known.

    `accelerator_hint` is the GPU's name as the catalog writes it ("H100", "A100 SXM"), used only by
    the SXM fallback.
    """
    # With one GPU there is no peer: never "nvlink" for scaling, and nothing worth stating.
    if gpu_count < 2:
        return None, None
    family = family_for(instance_type, provider)
    if family is not None:
        if gpu_count < family.min_gpus:
            return None, None
        return family.interconnect, family.nvlink_bandwidth_gbps
    # Fallback for families the table lacks: SXM parts in a multi-GPU machine sit on an HGX board,
    # joined by NVLink. The bandwidth depends on the generation, so it is left unknown.
    if "sxm" in normalise_alias(f"{instance_type} {accelerator_hint}"):
        return "nvlink", None
    return None, None
