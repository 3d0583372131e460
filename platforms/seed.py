"""Loads the seed catalogue: fixtures/accelerators.json, fixtures/catalogue.json, the sourced
price files in fixtures/prices-2026/ (native CSV, imported through the same `offers_import` as any
price file, so their dated rows become real price history; fixtures/prices-2026/README.md says
where each row came from), and the SkyPilot catalog extracts of fixtures/catalogs/ (AWS, Google
Cloud, Azure; fixtures/catalogs/README.md), imported the same way on their platforms.

Idempotent and conservative: rows are looked up by their natural keys and created when missing;
existing rows are never overwritten, so staff edits survive a second `make run`. A price file is
imported once per version of its content (its import Source names the file and a hash of it), so
a second run does not re-state its values over staff edits, and a changed file is imported again.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction
from django.dispatch import Signal
from django.utils import timezone

from .models import (
    Accelerator,
    AcceleratorAlias,
    BillingRules,
    ExchangeRate,
    HostSize,
    MigProfile,
    Offering,
    Platform,
    PlatformFact,
    PriceObservation,
    Source,
    StoragePrice,
    normalise_alias,
)
from .services import catalogue_changed, current_prices_advance, explorer_keys_refresh

FIXTURES = Path(settings.BASE_DIR) / "fixtures"
# Sent at the end of `load_seed` (in its transaction) with `report`: the layers above the
# catalogue add what they ship (the price feeds: feeds.seed), which this module may not import.
seed_loaded = Signal()
# The sourced 2026 price files, in the order they are imported: older observations first, so each
# later file's prices become history after them (fixtures/prices-2026/README.md).
PRICE_FILES = (
    "prices-2026/history.csv",
    "prices-2026/latest.csv",
    "prices-2026/needs-accelerators.csv",
    "prices-2026/platform-prices.csv",
)
# The catalog extracts the seed imports, with the platform, source URL and date of each.
CATALOGS = "catalogs/catalogs.json"
ACCELERATOR_SOURCE = {
    "title": "GPU specification table: public datasheets, NVIDIA MIG guide, measured NCCL figures",
    "title_zh": "GPU 规格表：公开数据手册、NVIDIA MIG 指南、实测 NCCL 数据",
    "url": "",
    "publisher": "compiled from public sources (per-figure grades on each accelerator)",
    "kind": "third_party",
    "confidence": "secondary",
    "retrieved_on": date(2026, 11, 1),
}


@dataclass
class SeedReport:
    created: dict[str, int] = field(default_factory=dict)

    def add(self, kind: str, was_created: bool, count: int = 1) -> None:
        if was_created and count:
            self.created[kind] = self.created.get(kind, 0) + count

    def __str__(self) -> str:
        if not self.created:
            return "Seed data already present: nothing created."
        parts = ", ".join(f"{n} {kind}" for kind, n in sorted(self.created.items()))
        return f"Created {parts}."


def _date(value: str | None) -> date | None:
    return date.fromisoformat(value) if value else None


def _decimal(value: str | None) -> Decimal | None:
    return Decimal(value) if value else None


def stack_fields(row: dict[str, Any]) -> dict[str, Any]:
    """An accelerators.json row's FP16 rate (absent: the BF16 rate), compute stack, compute
    capability and precisions, as Accelerator's fields."""
    return {
        "fp16_tflops": row.get("fp16_tflops", row.get("bf16_tflops")),
        "stack": row.get("stack") or "cuda",
        "compute_capability": row.get("compute_capability") or "",
        "precisions": row.get("precisions") or {},
        "stack_source": row.get("stack_source", ""),
        "stack_confidence": row.get("stack_confidence", "unverified"),
    }


def load_accelerators(report: SeedReport, path: Path | None = None) -> dict[str, Accelerator]:
    data = json.loads((path or FIXTURES / "accelerators.json").read_text(encoding="utf-8"))
    source, created = Source.objects.get_or_create(
        title=ACCELERATOR_SOURCE["title"],
        url=ACCELERATOR_SOURCE["url"],
        defaults={k: v for k, v in ACCELERATOR_SOURCE.items() if k not in {"title", "url"}},
    )
    report.add("sources", created)
    accelerators = {}
    for row in data["accelerators"]:
        mig = row.get("mig") or {}
        accelerator, created = Accelerator.objects.get_or_create(
            slug=row["slug"],
            defaults={
                "name": row["name"],
                "vendor": row["vendor"],
                "architecture": row.get("architecture") or "",
                "vram_gib": Decimal(str(row["vram_gib"])),
                "memory_bandwidth_gbps": row.get("memory_bandwidth_gbps"),
                "bf16_tflops": row.get("bf16_tflops"),
                **stack_fields(row),
                "fp32_tflops": row.get("fp32_tflops"),
                "fp64_tflops": row.get("fp64_tflops"),
                "rt_cores": row.get("rt_cores"),
                "nvenc": row.get("nvenc"),
                "nvlink": bool(row.get("nvlink")),
                "nvlink_bandwidth_gbps": row.get("nvlink_bandwidth_gbps"),
                "pcie_gen": row.get("pcie_gen"),
                "tdp_w": row.get("tdp_w"),
                "domestic": bool(row.get("domestic")),
                "confidence": row.get("confidence", "secondary"),
                "figure_confidence": row.get("figure_confidence") or {},
                "mig_slots": mig.get("slots", 0),
                "mig_max_compute": mig.get("max_compute", 0),
                "source_note": row.get("source", ""),
                "source": source,
            },
        )
        report.add("accelerators", created)
        accelerators[accelerator.slug] = accelerator
        for alias in [row["slug"], row["name"], *row.get("aliases", [])]:
            normalised = normalise_alias(alias)
            if not normalised:
                continue
            _, created = AcceleratorAlias.objects.get_or_create(
                normalised=normalised, defaults={"alias": alias, "accelerator": accelerator}
            )
            report.add("aliases", created)
        for profile in mig.get("profiles", []):
            _, created = MigProfile.objects.get_or_create(
                accelerator=accelerator,
                name=profile["name"],
                defaults={
                    "memory_gib": Decimal(str(profile["memory_gib"])),
                    "memory_slices": profile["memory_slices"],
                    "compute_slices": profile["compute_slices"],
                    "max_count": profile["max_count"],
                    "starts": list(profile["starts"]),
                    "media_extensions": bool(profile.get("media_extensions")),
                },
            )
            report.add("MIG profiles", created)
    return accelerators


def _sources(rows: list[dict[str, Any]], report: SeedReport) -> dict[str, Source]:
    sources = {}
    for row in rows:
        source, created = Source.objects.get_or_create(
            title=row["title"],
            url=row.get("url", ""),
            defaults={
                "title_zh": row.get("title_zh", ""),
                "publisher": row.get("publisher", ""),
                "published_on": _date(row.get("published_on")),
                "retrieved_on": _date(row.get("retrieved_on")),
                "kind": row["kind"],
                "confidence": row.get("confidence", "secondary"),
                "notes": row.get("notes", ""),
            },
        )
        report.add("sources", created)
        sources[row["key"]] = source
    return sources


def _speakers(rows: list[dict[str, Any]], sources: dict[str, Source]) -> None:
    """Whose statement each platform's own source is (vendor claim, competitor claim,
    documentation): set once the platforms exist, and only where no one has set it."""
    for row in rows:
        source = sources[row["key"]]
        if row.get("speaker") and source.speaker_id is None:
            source.speaker = Platform.objects.get(slug=row["speaker"])
            source.save(update_fields=["speaker"])


def _platform(row: dict[str, Any], sources: dict[str, Source], report: SeedReport) -> Platform:
    fields = {
        key: row[key]
        for key in (
            "name",
            "name_en",
            "website",
            "region",
            "delivery_forms",
            "scheduling",
            "multi_task",
            "interconnects",
            "stability_claim",
            "domestic_accelerators",
            "physically_exclusive",
            "retention_after_expiry",
            "data_retention",
            "idle_policy",
            "notes",
        )
    }
    # Chinese texts of the descriptions, where the catalogue has them.
    fields.update(
        {key: row.get(key, "") for key in ("data_retention_zh", "idle_policy_zh", "notes_zh")}
    )
    # Its spot capacity's interruption rate, with the source that states it (restarts.py).
    spot = row.get("spot_interruptions")
    if spot is not None:
        fields["spot_interruptions_per_day"] = spot["per_day"]
        fields["spot_interruptions_source"] = sources[spot["source"]]
    # Who may rent, where a source says (null: no source says).
    renting = row.get("renting") or {}
    fields.update(
        {key: renting.get(key) for key in ("cn_identity_required", "foreign_cards")},
        renting_source=sources[renting["source"]] if renting.get("source") else None,
    )
    platform, created = Platform.objects.get_or_create(
        slug=row["slug"], defaults={**fields, "source": sources[row["source"]]}
    )
    report.add("platforms", created)
    for fact in row.get("facts", []):
        _, created = PlatformFact.objects.get_or_create(
            platform=platform,
            attribute=fact["attribute"],
            defaults={
                "value": fact["value"],
                "value_zh": fact.get("value_zh", ""),
                "source": sources[fact["source"]],
            },
        )
        report.add("facts", created)
    for storage in row.get("storage", []):
        _, created = StoragePrice.objects.get_or_create(
            platform=platform,
            kind=storage["kind"],
            observed_at=datetime.fromisoformat(storage["observed_at"]),
            defaults={
                "unit": storage["unit"],
                "amount": Decimal(storage["amount"]),
                "currency": storage["currency"],
                "free_gb": storage.get("free_gb", 0),
                "billed_when_stopped": storage.get("billed_when_stopped"),
                "notes": storage.get("notes", ""),
                "notes_zh": storage.get("notes_zh", ""),
                "source": sources[storage["source"]],
            },
        )
        report.add("storage prices", created)
    return platform


def _offering(
    platform: Platform,
    row: dict[str, Any],
    accelerators: dict[str, Accelerator],
    sources: dict[str, Source],
    report: SeedReport,
) -> None:
    offering, created = Offering.objects.get_or_create(
        platform=platform,
        external_id=row["key"],
        defaults={
            "accelerator": accelerators[row["accelerator"]],
            "name": row["name"],
            "name_zh": row.get("name_zh", ""),
            "gpu_count": row.get("gpu_count", 1),
            "vcpus": row.get("vcpus"),
            "ram_gib": Decimal(row["ram_gib"]) if row.get("ram_gib") else None,
            "disk_gb": row.get("disk_gb"),
            "delivery_form": row["delivery_form"],
            "sharing_mode": row.get("sharing_mode", "exclusive"),
            "pooled_vram_gib": _decimal(row.get("pooled_vram_gib")),
            "mig_profile": row.get("mig_profile", ""),
            "interconnect": row.get("interconnect", "pcie"),
            "network": row.get("network", ""),
            "network_gbps": row.get("network_gbps"),
            "region": row.get("region", ""),
            "interruptible": row.get("interruptible", False),
            "notes": row.get("notes", ""),
            "source": sources[row["source"]],
        },
    )
    report.add("offerings", created)
    for price in row.get("prices", []):
        observed_at = datetime.fromisoformat(price["observed_at"])
        observation, created = PriceObservation.objects.get_or_create(
            offering=offering,
            unit=price["unit"],
            observed_at=observed_at,
            defaults={
                "amount": Decimal(price["amount"]),
                "currency": price["currency"],
                "tier": price.get("tier", "list"),
                # What the price is, as the catalogue records it (a competitor's claim of it).
                "basis": price.get("basis", "offer"),
                "last_seen_at": observed_at,
                "source": sources[price["source"]],
            },
        )
        if created:
            current_prices_advance(observations=[observation])
        report.add("prices", created)


BILLING_FIELDS = (
    "metering_seconds",
    "min_charge_currency",
    "startup_billed",
    "idle_mode",
    "storage_billed_while_stopped",
    "release_after_stopped_days",
    "release_after_expiry_days",
    "system_disk_kept_on_delete",
    "idle_shutdown_seconds",
    "credit_name",
    "credit_name_en",
    "notes",
    "notes_zh",
)


def _billing_rules(row: dict[str, Any], sources: dict[str, Source], report: SeedReport) -> None:
    defaults: dict[str, Any] = {
        name: row[name] for name in BILLING_FIELDS if row.get(name) is not None
    }
    if row.get("min_charge") is not None:
        defaults["min_charge"] = Decimal(row["min_charge"])
    _, created = BillingRules.objects.get_or_create(
        platform=Platform.objects.get(slug=row["platform"]),
        defaults={**defaults, "source": sources[row["source"]]},
    )
    report.add("billing rules", created)


def _host_size(row: dict[str, Any], sources: dict[str, Source], report: SeedReport) -> None:
    """How many cards of a per-card platform one host rents together (HostSize)."""
    slug = row.get("accelerator")
    _, created = HostSize.objects.get_or_create(
        platform=Platform.objects.get(slug=row["platform"]),
        accelerator=Accelerator.objects.get(slug=slug) if slug else None,
        defaults={
            "max_cards": row["max_cards"],
            "interconnect": row.get("interconnect", "pcie"),
            "notes": row.get("notes", ""),
            "notes_zh": row.get("notes_zh", ""),
            "source": sources[row["source"]],
        },
    )
    report.add("host sizes", created)


class SeedError(RuntimeError):
    """A committed seed file that does not import cleanly: a bug in the repository's data."""


def load_price_file(name: str, report: SeedReport) -> None:
    """Import one native-CSV price file through `offers_import`, once per version of its content.

    Strict: an accelerator the table lacks is an error, so every sourced row is loaded or the
    seed fails loudly.
    """
    # Imported here: the importers import the models, and this module is imported by apps early.
    from .importers import offers_import

    path = FIXTURES / name
    data = path.read_bytes()
    label = f"fixtures/{name}@{hashlib.sha256(data).hexdigest()[:8]}"
    if Source.objects.filter(title__startswith=f"Import of {label} ").exists():
        return
    result = offers_import(
        text=data.decode("utf-8"),
        fmt="native",
        filename=label,
        observed_at=timezone.now(),
        strict=True,
    )
    if not result.ok:
        problems = "; ".join(str(problem) for problem in result.errors[:10])
        raise SeedError(f"{name} does not import: {problems}")
    report.add("offerings", True, result.created)
    report.add("prices", True, result.prices_added)
    report.add("storage and no-GPU-mode prices", True, result.platform_prices_added)


def load_catalog_file(entry: dict[str, str], report: SeedReport) -> None:
    """Import one catalog extract of fixtures/catalogs/ on its platform, dated by its manifest,
    once per version of its content. Unknown accelerators are skipped with their reason (a cloud
    sells cards the table lacks); any bad row fails the seed."""
    from .importers import observed_at_value, offers_import

    data = (FIXTURES / "catalogs" / entry["file"]).read_bytes()
    # One token (the catalog's repository, commit and path, then the extract's hash): pages in
    # either language show it as an identifier.
    label = f"{entry['label']}#{hashlib.sha256(data).hexdigest()[:8]}"
    if Source.objects.filter(title__startswith=f"Import of {label} ").exists():
        return
    result = offers_import(
        text=data.decode("utf-8"),
        fmt=entry["format"],
        filename=label,
        observed_at=observed_at_value(entry["observed_on"]),
        platform=Platform.objects.get(slug=entry["platform"]),
        source_url=entry["url"],
    )
    if not result.ok:
        problems = "; ".join(str(problem) for problem in result.errors[:10])
        raise SeedError(f"{entry['file']} does not import: {problems}")
    for source in result.sources:
        source.notes = entry["date_note"]
        source.save(update_fields=["notes"])
    report.add("offerings", True, result.created)
    report.add("prices", True, result.prices_added)


@transaction.atomic
def load_seed(catalogue: Path | None = None, accelerators: Path | None = None) -> SeedReport:
    catalogue_changed()
    report = SeedReport()
    accelerator_rows = load_accelerators(report, accelerators)
    data = json.loads((catalogue or FIXTURES / "catalogue.json").read_text(encoding="utf-8"))
    sources = _sources(data["sources"], report)
    for row in data["platforms"]:
        platform = _platform(row, sources, report)
        for offering in row.get("offerings", []):
            _offering(platform, offering, accelerator_rows, sources, report)
    _speakers(data["sources"], sources)
    for rules in data.get("billing_rules", []):
        _billing_rules(rules, sources, report)
    for row in data.get("host_sizes", []):
        _host_size(row, sources, report)
    for name in PRICE_FILES:
        load_price_file(name, report)
    manifest = json.loads((FIXTURES / CATALOGS).read_text(encoding="utf-8"))
    for entry in manifest["catalogs"]:
        load_catalog_file(entry, report)
    for rate in data.get("exchange_rates", []):
        _, created = ExchangeRate.objects.get_or_create(
            base=rate["base"],
            quote=rate["quote"],
            as_of=date.fromisoformat(rate["as_of"]),
            defaults={"rate": Decimal(rate["rate"]), "source": sources[rate["source"]]},
        )
        report.add("exchange rates", created)
    explorer_keys_refresh()  # the explorer's stored keys convert at the latest rates
    seed_loaded.send(sender=load_seed, report=report)
    return report
