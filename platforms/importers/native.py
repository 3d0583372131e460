"""Our own CSV format, for staff who copy prices from a platform's price page (docs/native-csv.md).

One row per offering, billing unit, price tier and date: an offering sold by the hour and by the
month is two rows with the same `offering_key`, whose other columns must agree; the same unit on
several dates is a dated series, kept as history. A row whose `record` is `storage` or
`no_gpu_mode` is a platform's storage or no-GPU-mode price, so one file holds a platform's whole
price page. Unknown column names are an error, so a misspelt column is never silently ignored.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime
from typing import TypeVar

from platforms.models import (
    BillingUnit,
    Currency,
    DeliveryForm,
    Interconnect,
    PriceBasis,
    PriceTier,
    SharingMode,
    StorageKind,
    StorageUnit,
)

from .interconnect import interconnect_for
from .rows import (
    IdleModeRow,
    OfferRow,
    Parsed,
    PriceRow,
    RowError,
    StorageRow,
    Text,
    bool_value,
    choice_value,
    decimal_value,
    observed_at_value,
    offer_rows,
    optional_bool_value,
    parse_all,
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
    "name_zh",
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
    "tier",
    "basis",
    "record",
    "storage_kind",
    "free_gb",
    "billed_when_stopped",
)
COLUMNS = REQUIRED + OPTIONAL

# What a row records: an offering's price (the default), or a platform's storage or no-GPU price.
OFFERING, STORAGE, NO_GPU_MODE = "offering", "storage", "no_gpu_mode"
RECORDS = (OFFERING, STORAGE, NO_GPU_MODE)
# Columns only an offering row fills; a storage or no-GPU row leaves them empty.
OFFERING_ONLY = (
    "offering_key",
    "accelerator",
    "gpu_count",
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
    "tier",
    "basis",
)
STORAGE_ONLY = ("storage_kind", "free_gb", "billed_when_stopped")

T = TypeVar("T")


# One row per billing unit, tier and date: the same one twice is an error.
SAME_UNIT = "error"


def read(text: Text, parsed: Parsed) -> Iterator[OfferRow]:
    """The offering rows; storage and no-GPU-mode rows go into `parsed`."""

    def rows(line: int, row: dict[str, str]) -> list[OfferRow]:
        record = row.get("record", "").lower() or OFFERING
        if record not in RECORDS:
            raise RowError(f"record must be one of {', '.join(RECORDS)}, not {row['record']!r}")
        if record == OFFERING:
            _unused(row, STORAGE_ONLY, record)
            return _offers(line, row)
        _unused(row, OFFERING_ONLY if record == STORAGE else OFFERING_ONLY + STORAGE_ONLY, record)
        if record == STORAGE:
            parsed.storage.append(_storage(line, row))
        else:
            parsed.idle_modes.append(_idle_mode(line, row))
        return []

    return offer_rows(text, parsed, required=REQUIRED, allowed=COLUMNS, offers=rows)


def parse(text: Text) -> Parsed:
    return parse_all(text, read, same_unit=SAME_UNIT)


def _unused(row: dict[str, str], columns: tuple[str, ...], record: str) -> None:
    """Columns another kind of row fills must be empty: a value there is a mistake, not noise."""
    stated = [column for column in columns if row.get(column)]
    if stated:
        article = "an" if record[0] in "aeiou" else "a"
        raise RowError(f"{article} {record} row leaves {', '.join(stated)} empty")


def _dated(row: dict[str, str]) -> tuple[datetime | None, str]:
    observed_at = _named("observed_at", observed_at_value, row) if row.get("observed_at") else None
    return observed_at, _named("source_url", url_value, row)


def _storage(line: int, row: dict[str, str]) -> StorageRow:
    kind = choice_value(row, "storage_kind", StorageKind)
    unit = choice_value(row, "billing_unit", StorageUnit)
    currency = choice_value(row, "currency", Currency)
    if kind is None or unit is None or currency is None:
        raise RowError("a storage row needs storage_kind, billing_unit and currency")
    observed_at, source_url = _dated(row)
    return StorageRow(
        line=line,
        platform_slug=row.get("platform", ""),
        kind=kind,
        unit=unit,
        amount=price_value(row, "amount"),
        currency=currency,
        free_gb=whole_number(row, "free_gb", required=False),
        billed_when_stopped=optional_bool_value(row, "billed_when_stopped"),
        notes=row.get("name", ""),
        notes_zh=row.get("name_zh", ""),
        observed_at=observed_at,
        source_url=source_url,
    )


def _idle_mode(line: int, row: dict[str, str]) -> IdleModeRow:
    unit = choice_value(row, "billing_unit", BillingUnit)
    currency = choice_value(row, "currency", Currency)
    if unit is None or currency is None:
        raise RowError("billing_unit and currency are required")
    observed_at, source_url = _dated(row)
    return IdleModeRow(
        line=line,
        platform_slug=row.get("platform", ""),
        unit=unit,
        amount=price_value(row, "amount"),
        currency=currency,
        description=row.get("name", ""),
        description_zh=row.get("name_zh", ""),
        observed_at=observed_at,
        source_url=source_url,
    )


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
    observed_at, source_url = _dated(row)
    tier = choice_value(row, "tier", PriceTier) or PriceTier.LIST
    basis = choice_value(row, "basis", PriceBasis) or PriceBasis.OFFER
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
            name_zh=row.get("name_zh") or None,
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
                    tier=tier,
                    basis=basis,
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
