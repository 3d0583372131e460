"""dstack gpuhunt catalog files (the v2 CSV of `gpuhunt._internal.storage.CATALOG_V2_FIELDS`).

One file per provider, so the platform is given on the command line. `price` is USD per
instance-hour, `memory` and `gpu_memory` (per GPU) are GB as gpuhunt rounds them (24, 80), `spot` is
"True" or "False". `flags`, `cpu_arch` and `provider_data` are read past: nothing in the catalogue
stores them. Rows with gpu_count 0 are CPU instances and are skipped. Interconnect comes from the
instance family (`interconnect_for`), as for SkyPilot files.
"""

from __future__ import annotations

from collections.abc import Iterator

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
    whole_number,
)

REQUIRED = (
    "instance_name",
    "location",
    "price",
    "cpu",
    "memory",
    "gpu_count",
    "gpu_name",
    "gpu_memory",
    "spot",
)


# Rows of one instance and location fold into one offering, at the lowest price.
SAME_UNIT = "lowest"


def read(text: Text, parsed: Parsed) -> Iterator[OfferRow]:
    return offer_rows(text, parsed, required=REQUIRED, offers=_offers)


def parse(text: Text) -> Parsed:
    return parse_all(text, read, same_unit=SAME_UNIT)


def _spot(raw: str) -> bool:
    # gpuhunt writes Python's str(bool); anything else means the file is not what we think it is.
    if raw.lower() == "true":
        return True
    if raw.lower() == "false":
        return False
    raise RowError(f"spot must be True or False, not {raw!r}")


def _offers(line: int, row: dict[str, str]) -> list[OfferRow]:
    instance = row["instance_name"]
    if not instance:
        raise RowError("instance_name is empty")
    gpu_count = whole_number(row, "gpu_count")
    if gpu_count == 0:
        raise Skip("CPU-only instance (gpu_count 0)")
    if not row["gpu_name"]:
        raise RowError("gpu_name is empty but gpu_count is not 0")
    spot = _spot(row["spot"])
    price = price_value(row, "price")
    if price == 0:
        raise Skip("price is 0")
    location = row["location"]
    disk = decimal_value(row, "disk_size", required=False)
    key = f"{instance}@{location}" + (":spot" if spot else "")
    # gpuhunt says nothing about links: the sourced family table does (interconnect.py).
    interconnect, bandwidth = interconnect_for(instance, gpu_count, row["gpu_name"])
    return [
        OfferRow(
            lines=[line],
            external_id=key,
            name=f"{instance} ({location}{', spot' if spot else ''})",
            accelerator_name=row["gpu_name"],
            gpu_count=gpu_count,
            gpu_memory_gib=decimal_value(row, "gpu_memory", required=False),
            prices=[PriceRow(unit="hour", amount=price, currency="USD")],
            vcpus=whole_number(row, "cpu", required=False),
            ram_gib=ram_value(decimal_value(row, "memory", required=False)),
            disk_gb=None if disk is None else int(disk.to_integral_value()),
            region=location,
            interruptible=spot,
            interconnect=interconnect,
            interconnect_bandwidth_gbps=bandwidth,
            hint=f"{instance} {row['gpu_name']}",
        )
    ]
