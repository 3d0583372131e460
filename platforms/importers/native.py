"""Our own CSV format, for staff who copy prices from a platform's price page (docs/native-csv.md).

One row per offering and billing unit: an offering sold by the hour and by the month is two rows
with the same `offering_key`, whose other columns must agree. Unknown column names are an error, so
a misspelt column is never silently ignored.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from platforms.models import BillingUnit, Currency, DeliveryForm, Interconnect, SharingMode

from .interconnect import interconnect_for
from .rows import (
    OfferRow,
    Parsed,
    PriceRow,
    RowError,
    bool_value,
    choice_value,
    decimal_value,
    merge_duplicates,
    observed_at_value,
    parse_rows,
    price_value,
    ram_value,
    url_value,
    whole_number,
)

REQUIRED = (
    "offering_key",
    "name",
    "accelerator",
    "gpu_count",
    "billing_unit",
    "amount",
    "currency",
)
OPTIONAL = (
    "platform",
    "gpu_memory_gib",
    "vcpus",
    "ram_gib",
    "disk_gb",
    "delivery_form",
    "sharing_mode",
    "interconnect",
    "pooled_vram_gib",
    "mig_profile",
    "region",
    "interruptible",
    "observed_at",
    "source_url",
)
COLUMNS = REQUIRED + OPTIONAL

T = TypeVar("T")


def parse(text: str) -> Parsed:
    parsed = parse_rows(text, required=REQUIRED, allowed=COLUMNS, offers=_offers)
    return merge_duplicates(parsed, same_unit="error")


def _named(column: str, read: Callable[[str], T], row: dict[str, str]) -> T:
    """`read(row[column])`, with the column named in its error."""
    try:
        return read(row.get(column, ""))
    except RowError as exc:
        raise RowError(f"{column}: {exc}") from None


def _offers(line: int, row: dict[str, str]) -> list[OfferRow]:
    for column in ("offering_key", "name", "accelerator"):
        if not row[column]:
            raise RowError(f"{column} is empty")
    unit = choice_value(row, "billing_unit", BillingUnit)
    currency = choice_value(row, "currency", Currency)
    if unit is None or currency is None:
        raise RowError("billing_unit and currency are required")
    observed_at = _named("observed_at", observed_at_value, row) if row.get("observed_at") else None
    source_url = _named("source_url", url_value, row)
    gpu_count = whole_number(row, "gpu_count")
    interconnect = choice_value(row, "interconnect", Interconnect)
    bandwidth = None
    if interconnect is None:
        # Left blank: the sourced family table may know the key's instance type ("p5.48xlarge",
        # "gpu_8x_h100_sxm5"); unknown stays None, so a stored value is kept.
        interconnect, bandwidth = interconnect_for(
            row["offering_key"].split("@")[0],
            gpu_count,
            row["accelerator"],
            provider=row.get("platform", ""),
        )
    return [
        OfferRow(
            lines=[line],
            external_id=row["offering_key"],
            name=row["name"],
            accelerator_name=row["accelerator"],
            gpu_count=gpu_count,
            gpu_memory_gib=decimal_value(row, "gpu_memory_gib", required=False),
            platform_slug=row.get("platform", ""),
            prices=[
                PriceRow(
                    unit=unit,
                    amount=price_value(row, "amount"),
                    currency=currency,
                    observed_at=observed_at,
                    source_url=source_url,
                )
            ],
            vcpus=whole_number(row, "vcpus", required=False),
            ram_gib=ram_value(decimal_value(row, "ram_gib", required=False)),
            disk_gb=whole_number(row, "disk_gb", required=False),
            region=row.get("region", ""),
            interruptible=bool_value(row, "interruptible"),
            delivery_form=choice_value(row, "delivery_form", DeliveryForm),
            sharing_mode=choice_value(row, "sharing_mode", SharingMode),
            interconnect=interconnect,
            interconnect_bandwidth_gbps=bandwidth,
            pooled_vram_gib=decimal_value(row, "pooled_vram_gib", required=False),
            mig_profile=row.get("mig_profile") or None,
        )
    ]
