"""The only Django-aware layer of the advisor: loads the catalogue, builds engine inputs, calls the
engine. Views, the API and the `advise` command all come through here (one code path).

Query budget per call, whatever the size of the catalogue: accelerators (3: rows, aliases, MIG
profiles), platforms, offerings, current prices and their sources (4), exchange rates (1), storage
prices (1).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, cast

from django.conf import settings
from django.db.models import Prefetch
from django.utils import timezone

from advisor.engine import vocab
from advisor.engine.errors import AdvisorError, NoFit
from advisor.engine.estimate import Estimate, estimate
from advisor.engine.hardware import accelerators_from_dicts
from advisor.engine.placement import PlacementCache
from advisor.engine.ranking import Advice, advise
from advisor.engine.scenario import parse_scenario
from advisor.engine.types import (
    AcceleratorSpec,
    ExchangeRateSpec,
    OfferingSpec,
    PriceSpec,
    Scenario,
    StoragePriceSpec,
)
from platforms.models import (
    Accelerator,
    AcceleratorAlias,
    ExchangeRate,
    MigProfile,
    Offering,
    Platform,
    PriceObservation,
    Source,
    StoragePrice,
    in_page_language,
)

__all__ = [
    "AdviceReport",
    "AdvisorError",
    "Catalogue",
    "accelerator_specs",
    "advise_scenario",
    "estimate_scenario",
]


def _accelerator_row(acc: Accelerator) -> dict[str, Any]:
    profiles = list(acc.mig_profiles.all())
    return {
        "slug": acc.slug,
        "name": acc.name,
        "aliases": [a.alias for a in acc.aliases.all()],
        "vendor": acc.vendor,
        "architecture": acc.architecture,
        "vram_gib": acc.vram_gib,
        "memory_bandwidth_gbps": acc.memory_bandwidth_gbps,
        "bf16_tflops": acc.bf16_tflops,
        "fp32_tflops": acc.fp32_tflops,
        "nvlink": acc.nvlink,
        "nvlink_bandwidth_gbps": acc.nvlink_bandwidth_gbps,
        "pcie_gen": acc.pcie_gen,
        "tdp_w": acc.tdp_w,
        "domestic": acc.domestic,
        "confidence": acc.confidence,
        "mig": {
            "slots": acc.mig_slots,
            "max_compute": acc.mig_max_compute,
            "profiles": [
                {
                    "name": p.name,
                    "memory_gib": p.memory_gib,
                    "memory_slices": p.memory_slices,
                    "compute_slices": p.compute_slices,
                    "max_count": p.max_count,
                    "starts": p.starts,
                    "media_extensions": p.media_extensions,
                }
                for p in profiles
            ],
        }
        if profiles and acc.mig_slots
        else None,
    }


def accelerator_specs() -> dict[str, AcceleratorSpec]:
    """The accelerator table as the engine sees it, from the database (staff edits included)."""
    accelerators = Accelerator.objects.prefetch_related(
        Prefetch("aliases", queryset=AcceleratorAlias.objects.order_by("alias")),
        Prefetch("mig_profiles", queryset=MigProfile.objects.all()),
    )
    return accelerators_from_dicts(_accelerator_row(a) for a in accelerators)


def _price_spec(
    row: dict[str, Any], sources: Mapping[int, tuple[str, str]], stale_before: datetime
) -> PriceSpec:
    label, kind = sources[row["source_id"]]
    return PriceSpec(
        unit=row["unit"],
        amount=row["amount"],
        currency=row["currency"],
        observed_at=row["last_seen_at"],
        source=label,
        source_kind=kind,
        stale=row["last_seen_at"] < stale_before,
    )


_OFFERING_COLUMNS = (
    "pk",
    "platform_id",
    "accelerator__slug",
    "source__kind",
    "name",
    "name_zh",
    "gpu_count",
    "pooled_vram_gib",
    "mig_profile",
    "sharing_mode",
    "interconnect",
    "network",
    "network_gbps",
    "interruptible",
    "region",
)
_PRICE_COLUMNS = ("offering_id", "unit", "amount", "currency", "last_seen_at", "source_id")


def offering_specs(
    accelerators: Mapping[str, AcceleratorSpec],
    *,
    now: datetime,
    platforms: tuple[str, ...] = (),
) -> list[OfferingSpec]:
    """Every listed offering with its current prices, as engine inputs.

    Plain rows, not model instances: a catalogue of 10,000 offerings is 10,000 specs, and building
    model instances for them (with platform, accelerator and source objects) cost over a second.
    Four queries: platforms, offerings, current prices (driven per offering, not per
    observation), and the sources those prices cite.
    """
    offerings = Offering.objects.filter(is_active=True).order_by()
    if platforms:
        offerings = offerings.filter(platform__slug__in=platforms)
    platform_of = {p.pk: p for p in Platform.objects.select_related("source")}
    rows = list(offerings.values(*_OFFERING_COLUMNS))
    prices: dict[int, list[dict[str, Any]]] = defaultdict(list)
    current = PriceObservation.objects.current_by_offering(offerings).order_by()
    for price in current.values(*_PRICE_COLUMNS):
        prices[price["offering_id"]].append(price)
    cited = Source.objects.in_bulk({p["source_id"] for group in prices.values() for p in group})
    sources = {pk: (str(source), source.kind) for pk, source in cited.items()}
    stale_before = vocab.stale_before(now, settings.PRICE_STALE_AFTER_DAYS)
    return [
        _offering_spec(
            row, platform_of[row["platform_id"]], accelerators, prices, sources, stale_before
        )
        for row in rows
    ]


def _offering_spec(
    row: dict[str, Any],
    platform: Platform,
    accelerators: Mapping[str, AcceleratorSpec],
    prices: Mapping[int, list[dict[str, Any]]],
    sources: Mapping[int, tuple[str, str]],
    stale_before: datetime,
) -> OfferingSpec:
    accelerator = accelerators[row["accelerator__slug"]]
    nvlink = row["interconnect"] == "nvlink"
    return OfferingSpec(
        id=row["pk"],
        platform=platform.slug,
        platform_name=str(platform),
        name=in_page_language(row["name"], row["name_zh"]),
        accelerator=accelerator,
        gpu_count=row["gpu_count"],
        sharing=row["sharing_mode"],
        pooled_vram_gib=float(row["pooled_vram_gib"]) if row["pooled_vram_gib"] else None,
        mig_profile=row["mig_profile"] or None,
        interconnect=row["interconnect"],
        interconnect_bandwidth_gbps=accelerator.nvlink_bandwidth_gbps if nvlink else None,
        # Blank: not stated; timing.default_network assumes one, and says so.
        network=vocab.Network(row["network"]) if row["network"] else None,
        network_gbps=float(row["network_gbps"]) if row["network_gbps"] else None,
        # The columns hold the vocab's values (their choices are derived from it).
        multi_task=cast(vocab.MultiTask, platform.multi_task),
        physically_exclusive=bool(platform.physically_exclusive),
        interruptible=row["interruptible"],
        region=row["region"],
        retention_after_expiry=platform.retention_after_expiry,
        vendor_claim="vendor_claim" in (row["source__kind"], platform.source.kind),
        prices=tuple(_price_spec(p, sources, stale_before) for p in prices.get(row["pk"], ())),
    )


def exchange_rates() -> list[ExchangeRateSpec]:
    return [
        ExchangeRateSpec(
            base=r.base,
            quote=r.quote,
            rate=r.rate,
            as_of=datetime.combine(r.as_of, datetime.min.time(), tzinfo=UTC),
            source=str(r.source),
        )
        for r in ExchangeRate.objects.select_related("source").order_by("as_of")
    ]


def storage_specs() -> list[StoragePriceSpec]:
    """The latest price of each (platform, kind) of storage."""
    rows = StoragePrice.objects.latest_per_kind().select_related("platform", "source")
    return [
        StoragePriceSpec(
            platform=row.platform.slug,
            unit=cast(vocab.StorageUnit, row.unit),
            amount=row.amount,
            currency=cast(vocab.Currency, row.currency),
            observed_at=row.observed_at,
            free_gb=float(row.free_gb),
            billed_while_stopped=row.billed_when_stopped is not False,
            name=row.get_kind_display(),
            source=str(row.source),
        )
        for row in rows.order_by("platform_id", "kind")
    ]


@dataclass(frozen=True)
class Catalogue:
    """The engine's inputs read from the database once per request: the page's charts reuse them."""

    accelerators: dict[str, AcceleratorSpec]
    offerings: list[OfferingSpec]
    rates: list[ExchangeRateSpec]
    storage: list[StoragePriceSpec]


@dataclass(frozen=True)
class AdviceReport:
    """What the advisor says of a valid scenario: its memory plan, and either the ranked advice
    or why nothing fits (`no_fit`), with the catalogue both were computed on."""

    scenario: Scenario
    estimate: Estimate
    catalogue: Catalogue
    now: datetime
    advice: Advice | None = None
    no_fit: NoFit | None = None


# Placements depend only on the tasks and the offering's shape, never on prices or time: one
# bounded cache per process lets a scenario asked again (a page reload, a preset) skip them.
PLACEMENTS = PlacementCache()


def parse(data: Any) -> Scenario:
    """Validate scenario JSON; raises InvalidWorkload naming the field."""
    return parse_scenario(data)


def estimate_scenario(data: Any) -> Estimate:
    """Memory (and, with `on`, fit, time and decode rate) per task."""
    return estimate(parse(data), accelerator_specs())


def load_catalogue(scenario: Scenario, *, now: datetime) -> Catalogue:
    accelerators = accelerator_specs()
    return Catalogue(
        accelerators=accelerators,
        offerings=offering_specs(accelerators, now=now, platforms=scenario.constraints.platforms),
        rates=exchange_rates(),
        storage=storage_specs(),
    )


def advise_scenario(data: Any, *, now: datetime | None = None) -> AdviceReport:
    """The memory plan and ranked recommendations for a scenario.

    Raises InvalidWorkload (a field the user can fix); nothing that fits is `report.no_fit`, so
    the page can still show the memory plan. The catalogue is read once.
    """
    scenario = parse(data)
    now = now or timezone.now()
    catalogue = load_catalogue(scenario, now=now)
    plan = estimate(scenario, catalogue.accelerators)
    report = AdviceReport(scenario, plan, catalogue, now)
    try:
        advice = advise(
            scenario,
            catalogue.offerings,
            catalogue.accelerators,
            now=now,
            placements=PLACEMENTS,
            rates=catalogue.rates,
            storage_prices=catalogue.storage,
            stale_after_days=settings.PRICE_STALE_AFTER_DAYS,
        )
    except NoFit as error:
        return replace(report, no_fit=error)
    return replace(report, advice=advice)
