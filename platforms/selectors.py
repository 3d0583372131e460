"""Reads for the catalogue pages: named, bounded queries that the views call."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Prefetch, QuerySet
from django.utils.translation import get_language

from .models import Offering, Platform, PlatformFact, PriceObservation, StoragePrice

COMPARISON_ATTRIBUTES = [
    PlatformFact.Attribute.DELIVERY,
    PlatformFact.Attribute.SCHEDULING,
    PlatformFact.Attribute.INTERCONNECT,
    PlatformFact.Attribute.STABILITY,
    PlatformFact.Attribute.DOMESTIC,
    PlatformFact.Attribute.STORAGE,
    PlatformFact.Attribute.MULTI_TASK,
]


@dataclass(frozen=True)
class Cell:
    fact: PlatformFact | None

    @property
    def text(self) -> str:
        if self.fact is None:
            return ""
        if (get_language() or "").startswith("zh") and self.fact.value_zh:
            return self.fact.value_zh
        return self.fact.value


@dataclass(frozen=True)
class ComparisonRow:
    attribute: str
    label: str
    cells: list[Cell]


def platforms_with_facts(slugs: list[str] | None = None) -> QuerySet[Platform]:
    """Platforms (all, or the chosen ones) with their facts and sources: two queries."""
    platforms = Platform.objects.select_related("source").prefetch_related(
        Prefetch("facts", queryset=PlatformFact.objects.select_related("source"))
    )
    if slugs:
        platforms = platforms.filter(slug__in=slugs)
    return platforms


def comparison_table(platforms: list[Platform]) -> list[ComparisonRow]:
    """The seed article's comparison table: one row per attribute, one column per platform."""
    rows = []
    for attribute in COMPARISON_ATTRIBUTES:
        cells = []
        for platform in platforms:
            fact = next((f for f in platform.facts.all() if f.attribute == attribute), None)
            cells.append(Cell(fact))
        rows.append(ComparisonRow(attribute.value, attribute.label, cells))
    return rows


def comparison_sources(rows: list[ComparisonRow]) -> list:
    """The distinct sources cited by the table, in order of first use, for footnotes."""
    seen: dict[int, object] = {}
    for row in rows:
        for cell in row.cells:
            if cell.fact is not None and cell.fact.source_id not in seen:
                seen[cell.fact.source_id] = cell.fact.source
    return list(seen.values())


def platform_detail(slug: str) -> Platform:
    """A platform with its offerings, their current prices, and its latest storage prices."""
    return (
        Platform.objects.select_related("source")
        .prefetch_related(
            Prefetch("facts", queryset=PlatformFact.objects.select_related("source")),
            Prefetch(
                "offerings",
                queryset=Offering.objects.for_catalog().order_by(
                    "accelerator__vram_gib", "gpu_count", "name"
                ),
                to_attr="catalog_offerings",
            ),
            Prefetch(
                "storage_prices",
                queryset=StoragePrice.objects.select_related("source").order_by(
                    "kind", "-observed_at"
                ),
            ),
        )
        .get(slug=slug)
    )


def current_prices_by_unit(offering: Offering) -> list[PriceObservation]:
    order = ["second", "minute", "hour", "day", "week", "month"]
    return sorted(offering.current_prices, key=lambda p: order.index(p.unit))
