"""SkyPilot catalog files (`catalogs/v8/<cloud>/vms.csv` in skypilot-org/skypilot-catalog).

Columns are found by name: each cloud orders them differently (Lambda puts Price before Region,
RunPod SpotPrice before Price) and some add columns (AWS `Arch`), which are ignored. Prices are USD
per instance-hour, for all the instance's GPUs together.

Traps, each with a test in tests/importers/test_skypilot.py:
- Memory per GPU is read from `GpuInfo["Gpus"][0]["MemoryInfo"]["SizeInMiB"]`, never derived from
  `TotalGpuMemoryInMiB`: Lambda writes the per-GPU figure there, RunPod the total.
- RunPod writes GiB into the MiB field (`SizeInMiB: 80` for an 80 GB A100). No GPU has less than
  1 GiB, so a "MiB" value under 1024 is read as GiB.
- AWS lists one row per availability zone. Zones collapse into one offering per (instance type,
  region); where their prices differ (spot prices do) the lowest is kept, as SkyPilot's optimizer
  picks the cheapest zone. The folded rows are counted as merged.
- A row without a Price (AWS p5e) is skipped with its reason, even when it has a SpotPrice: a spot
  price alone does not describe an offering anyone can rent on demand. A SpotPrice of 0 (Vast) means
  no spot offer.
- A SpotPrice makes a second, interruptible offering whose key ends in `:spot`.
- Interconnect is not in the file: it comes from the instance family (`interconnect_for`), so
  p4d/p5/p6-b200 and Lambda's gpu_8x_a100 (SXM4, though its name does not say so) are NVLink.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import replace
from decimal import Decimal
from functools import lru_cache

from .interconnect import interconnect_for
from .rows import (
    OfferRow,
    Parsed,
    PriceRow,
    RowError,
    Skip,
    Text,
    decimal_value,
    offer_rows,
    parse_all,
    price_value,
    ram_value,
)

# SpotPrice and AvailabilityZone are optional: not every cloud's file has them.
REQUIRED = (
    "InstanceType",
    "AcceleratorName",
    "AcceleratorCount",
    "vCPUs",
    "MemoryGiB",
    "GpuInfo",
    "Price",
    "Region",
)
# GpuInfo is a small dict; anything much longer is not a catalog row and could make the literal
# parser recurse deeply.
MAX_GPU_INFO = 10_000
MIB_PER_GIB = Decimal(1024)


# Zones of one instance type and region fold into one offering, at the lowest price.
SAME_UNIT = "lowest"


def read(text: Text, parsed: Parsed) -> Iterator[OfferRow]:
    return offer_rows(text, parsed, required=REQUIRED, offers=_offers)


def parse(text: Text) -> Parsed:
    return parse_all(text, read, same_unit=SAME_UNIT)


# A catalog repeats a few GpuInfo values over all its rows; reading one is most of a row's cost.
@lru_cache(maxsize=256)
def gpu_info(raw: str) -> tuple[str, Decimal | None]:
    """(GPU name, memory per GPU in GiB) from a GpuInfo literal; ("", None) when empty.

    `ast.literal_eval` only accepts literals (no names, calls or attributes), so a crafted cell
    cannot run code; anything else is a row error.
    """
    if not raw:
        return "", None
    if len(raw) > MAX_GPU_INFO:
        raise RowError(f"GpuInfo is longer than {MAX_GPU_INFO} characters")
    try:
        info = ast.literal_eval(raw)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise RowError("GpuInfo is not a Python literal") from None
    gpus = info.get("Gpus") if isinstance(info, dict) else None
    if not isinstance(gpus, list) or not gpus or not isinstance(gpus[0], dict):
        raise RowError("GpuInfo has no 'Gpus' list")
    first = gpus[0]
    memory = first.get("MemoryInfo")
    size = memory.get("SizeInMiB") if isinstance(memory, dict) else None
    return str(first.get("Name") or ""), memory_per_gpu_gib(size)


def memory_per_gpu_gib(size_in_mib: object) -> Decimal | None:
    """GiB per GPU from a SizeInMiB value; values under 1024 are GiB already (RunPod's catalog)."""
    if isinstance(size_in_mib, bool) or not isinstance(size_in_mib, int | float):
        return None
    size = Decimal(str(size_in_mib))
    if size <= 0:
        return None
    if size < MIB_PER_GIB:
        return size
    return (size / MIB_PER_GIB).quantize(Decimal("0.01"))


def _offers(line: int, row: dict[str, str]) -> list[OfferRow]:
    instance = row["InstanceType"]
    if not instance:
        raise RowError("InstanceType is empty")
    accelerator = row["AcceleratorName"]
    if not accelerator and not row["GpuInfo"]:
        raise Skip("CPU-only instance (no GPU)")
    count = decimal_value(row, "AcceleratorCount")
    if count == 0:
        raise Skip("CPU-only instance (no GPU)")
    if count != count.to_integral_value():
        raise Skip("fractional GPU count (a share of one GPU)")
    gpu_name, memory = gpu_info(row["GpuInfo"])
    region = row["Region"]
    if not region:
        raise RowError("Region is empty")
    if not row["Price"]:
        raise Skip("no on-demand price (Price is empty)")
    price = price_value(row, "Price")
    if price == 0:
        raise Skip("on-demand price is 0")
    vcpus = decimal_value(row, "vCPUs", required=False)
    hint = f"{instance} {gpu_name}"
    gpu_count = int(count)
    interconnect, bandwidth = interconnect_for(instance, gpu_count, f"{accelerator} {gpu_name}")
    key = f"{instance}@{region}"
    offer = OfferRow(
        lines=[line],
        external_id=key,
        name=f"{instance} ({region})",
        accelerator_name=accelerator or gpu_name,
        gpu_count=gpu_count,
        gpu_memory_gib=memory,
        prices=[PriceRow(unit="hour", amount=price, currency="USD")],
        vcpus=None if vcpus is None else max(1, int(vcpus.to_integral_value())),
        ram_gib=ram_value(decimal_value(row, "MemoryGiB", required=False)),
        region=region,
        # The catalog says nothing about links: the sourced family table (interconnect.py) does.
        interconnect=interconnect,
        interconnect_bandwidth_gbps=bandwidth,
        hint=hint,
    )
    offers = [offer]
    spot = price_value(row, "SpotPrice") if row.get("SpotPrice") else None
    if spot:
        offers.append(
            replace(
                offer,
                lines=[line],
                external_id=f"{key}:spot",
                name=f"{instance} ({region}, spot)",
                interruptible=True,
                prices=[PriceRow(unit="hour", amount=spot, currency="USD")],
            )
        )
    return offers
