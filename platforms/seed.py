"""Loads the seed catalogue (fixtures/accelerators.json and fixtures/catalogue.json).

Idempotent and conservative: rows are looked up by their natural keys and created when missing;
existing rows are never overwritten, so staff edits survive a second `make run`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction

from .models import (
    Accelerator,
    AcceleratorAlias,
    ExchangeRate,
    MigProfile,
    Offering,
    Platform,
    PlatformFact,
    PriceObservation,
    Source,
    StoragePrice,
    normalise_alias,
)

FIXTURES = Path(settings.BASE_DIR) / "fixtures"
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

    def add(self, kind: str, was_created: bool) -> None:
        if was_created:
            self.created[kind] = self.created.get(kind, 0) + 1

    def __str__(self) -> str:
        if not self.created:
            return "Seed data already present: nothing created."
        parts = ", ".join(f"{n} {kind}" for kind, n in sorted(self.created.items()))
        return f"Created {parts}."


def _date(value: str | None) -> date | None:
    return date.fromisoformat(value) if value else None


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
                "fp32_tflops": row.get("fp32_tflops"),
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
        _, created = PriceObservation.objects.get_or_create(
            offering=offering,
            unit=price["unit"],
            observed_at=observed_at,
            defaults={
                "amount": Decimal(price["amount"]),
                "currency": price["currency"],
                "last_seen_at": observed_at,
                "source": sources[price["source"]],
            },
        )
        report.add("prices", created)


@transaction.atomic
def load_seed(catalogue: Path | None = None, accelerators: Path | None = None) -> SeedReport:
    report = SeedReport()
    accelerator_rows = load_accelerators(report, accelerators)
    data = json.loads((catalogue or FIXTURES / "catalogue.json").read_text(encoding="utf-8"))
    sources = _sources(data["sources"], report)
    for row in data["platforms"]:
        platform = _platform(row, sources, report)
        for offering in row.get("offerings", []):
            _offering(platform, offering, accelerator_rows, sources, report)
    for rate in data.get("exchange_rates", []):
        _, created = ExchangeRate.objects.get_or_create(
            base=rate["base"],
            quote=rate["quote"],
            as_of=date.fromisoformat(rate["as_of"]),
            defaults={"rate": Decimal(rate["rate"]), "source": sources[rate["source"]]},
        )
        report.add("exchange rates", created)
    return report
