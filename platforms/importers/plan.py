"""Planning an import: every change a parsed file would make to the catalogue, checked against the
database and the catalogue's rules without writing anything (a dry run stops here).

History is kept, never rewritten: per (offering, billing unit) a price that differs from the one
observed before becomes a new observation; the same price seen again only moves that observation's
`last_seen_at` forward, so staleness is right without a row per sighting.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from itertools import islice

from django.core.exceptions import ValidationError
from django.db.models import OuterRef, Subquery
from django.utils import timezone

from platforms import services
from platforms.models import (
    Accelerator,
    DeliveryForm,
    IdleModePrice,
    Offering,
    Platform,
    PriceObservation,
    PriceTier,
    StoragePrice,
)

from .accelerators import AcceleratorResolver, Unresolved
from .report import Change, ImportReport
from .rows import IdleModeRow, OfferRow, PriceRow, RowProblem, StorageRow, choice_values

# Written only when a row states them (name, accelerator, GPU count, region and spot always are):
# a catalog that says nothing about interconnect must not undo a correction made in the admin.
WHEN_STATED = (
    "name_zh",
    "vcpus",
    "ram_gib",
    "disk_gb",
    "delivery_form",
    "sharing_mode",
    "interconnect",
    "pooled_vram_gib",
    "mig_profile",
)
# Keys per `IN (...)` query: below SQLite's oldest limit on query parameters (999).
KEYS_PER_QUERY = 500


@dataclass
class PlannedPrice:
    price: PriceRow
    observed_at: datetime
    # New: an unsaved observation, checked; its offering and source are set when it is written.
    # Not new: the stored observation the same price is seen again on.
    observation: PriceObservation
    is_new: bool


@dataclass
class PlannedOffering:
    row: OfferRow
    offering: Offering  # unsaved when new; otherwise the stored one, changed in memory
    is_new: bool
    changed_fields: list[str]
    prices: list[PlannedPrice]
    change: Change


# Rows planned (and, on apply, written) together: the offerings, prices and changes of one batch
# are all that is held at a time, so memory follows the batch, not the catalog.
BATCH = 500


def plan(
    rows: Iterable[OfferRow],
    *,
    report: ImportReport,
    platform: Platform | None,
    observed_at: datetime,
    strict: bool,
    batch: int = BATCH,
) -> Iterator[list[PlannedOffering]]:
    """The offerings to write, in the order `rows` gives them, a batch of `batch` rows at a time
    (`rows` is read as the batches are asked for); every problem found goes into `report`. Each
    batch is planned against the catalogue as it is when the batch is asked for: an import that
    writes a batch before asking for the next sees its own writes only in offerings of that
    batch (each offering is in one row, so in one batch)."""
    now = timezone.now()
    resolver = AcceleratorResolver()
    platforms: dict[str, Platform] = {}
    if platform is not None:
        platforms[platform.slug] = platform
    looked_up: set[str] = set()
    skipped_lines: set[tuple[int, str]] = set()
    found = iter(rows)
    while chunk := list(islice(found, batch)):
        # Platforms named by rows, looked up as they first appear (a file names a few).
        slugs = {row.platform_slug for row in chunk if row.platform_slug} - looked_up
        if slugs:
            platforms.update((p.slug, p) for p in Platform.objects.filter(slug__in=slugs))
            looked_up |= slugs
        yield _plan_batch(
            chunk,
            report=report,
            platform=platform,
            platforms=platforms,
            resolver=resolver,
            skipped_lines=skipped_lines,
            observed_at=observed_at,
            strict=strict,
            now=now,
        )


def _plan_batch(
    rows: list[OfferRow],
    *,
    report: ImportReport,
    platform: Platform | None,
    platforms: dict[str, Platform],
    resolver: AcceleratorResolver,
    skipped_lines: set[tuple[int, str]],
    observed_at: datetime,
    strict: bool,
    now: datetime,
) -> list[PlannedOffering]:
    ready: list[tuple[OfferRow, Platform, Accelerator]] = []
    for row in rows:
        target = platforms.get(row.platform_slug) if row.platform_slug else platform
        if target is None:
            report.errors.append(
                RowProblem(
                    row.line,
                    "unknown platform",
                    f"no platform with slug {row.platform_slug!r}"
                    if row.platform_slug
                    else "no platform: give --platform or a platform column",
                )
            )
            continue
        try:
            accelerator = resolver.resolve(row.accelerator_name, row.gpu_memory_gib, row.hint)
        except Unresolved as exc:
            if strict:
                report.errors.append(RowProblem(row.line, "unresolved accelerator", str(exc)))
            else:
                # The on-demand and spot offers of one line fail alike: report the line once.
                report.skipped += [
                    RowProblem(line, str(exc))
                    for line in row.lines
                    if (line, str(exc)) not in skipped_lines
                ]
                skipped_lines.update((line, str(exc)) for line in row.lines)
            continue
        ready.append((row, target, accelerator))

    existing = existing_offerings({(p.pk, row.external_id) for row, p, _ in ready})
    times = {
        (
            existing[(p.pk, row.external_id)].pk,
            price.unit,
            price.tier,
            price.observed_at or observed_at,
        )
        for row, p, _ in ready
        if (p.pk, row.external_id) in existing
        for price in row.prices
    }
    previous = previous_observations(times)

    planned_offerings = []
    for row, target, accelerator in ready:
        offering = existing.get((target.pk, row.external_id))
        planned = plan_offering(
            row, target, accelerator, offering, observed_at, previous, report, now=now
        )
        if planned is not None:
            planned_offerings.append(planned)
            report.add_change(planned.change)
    return planned_offerings


def existing_offerings(keys: set[tuple[int, str]]) -> dict[tuple[int, str], Offering]:
    """The stored offerings with these (platform id, catalog key)s."""
    found = {}
    by_platform: dict[int, list[str]] = defaultdict(list)
    for platform_id, external_id in keys:
        by_platform[platform_id].append(external_id)
    for platform_id, external_ids in by_platform.items():
        for start in range(0, len(external_ids), KEYS_PER_QUERY):
            chunk = external_ids[start : start + KEYS_PER_QUERY]
            for offering in Offering.objects.filter(
                platform_id=platform_id, external_id__in=chunk
            ).select_related("accelerator"):
                found[(platform_id, offering.external_id)] = offering
    return found


PriceKey = tuple[int, str, str, datetime]


def previous_observations(keys: set[PriceKey]) -> dict[PriceKey, PriceObservation]:
    """Per (offering, unit, tier, time): the latest observation at or before that time.

    One query per distinct time in the file (a catalog snapshot has one), not per offering.
    """
    found = {}
    by_time: dict[datetime, set[int]] = defaultdict(set)
    for offering_id, _unit, _tier, when in keys:
        by_time[when].add(offering_id)
    for when, offering_ids in by_time.items():
        latest = (
            PriceObservation.objects.filter(
                offering=OuterRef("offering"),
                unit=OuterRef("unit"),
                tier=OuterRef("tier"),
                observed_at__lte=when,
            )
            .order_by("-observed_at")
            .values("observed_at")[:1]
        )
        ids = sorted(offering_ids)
        for start in range(0, len(ids), KEYS_PER_QUERY):
            for observation in PriceObservation.objects.filter(
                offering_id__in=ids[start : start + KEYS_PER_QUERY], observed_at=Subquery(latest)
            ):
                key = (observation.offering_id, observation.unit, observation.tier, when)
                found[key] = observation
    return found


def plan_offering(
    row: OfferRow,
    platform: Platform,
    accelerator: Accelerator,
    offering: Offering | None,
    observed_at: datetime,
    previous: dict[PriceKey, PriceObservation],
    report: ImportReport,
    *,
    now: datetime,
) -> PlannedOffering | None:
    """What one row does to its offering and prices; None (and errors in `report`) if it cannot."""
    stated = {
        "name": row.name,
        "accelerator": accelerator,
        "gpu_count": row.gpu_count,
        "region": row.region,
        "interruptible": row.interruptible,
        **{name: getattr(row, name) for name in WHEN_STATED if getattr(row, name) is not None},
    }
    is_new = offering is None
    changed: list[str] = []
    details: list[str] = []
    if offering is None:
        offering = Offering(platform=platform, external_id=row.external_id, **stated)
        if row.delivery_form is None:
            offering.delivery_form = default_delivery_form(platform)
        details.append(f"new offering: {row.gpu_count}x {accelerator.slug}")
    else:
        for name, value in stated.items():
            current = getattr(offering, name)
            if current != value:
                changed.append(name)
                details.append(f"{name}: {_show(current)} -> {_show(value)}")
                setattr(offering, name, value)
    try:
        # Platform and accelerator came from the database and existing offerings were looked up by
        # key, so the values are what is left to check.
        services.offering_check(offering=offering)
    except ValidationError as exc:
        _refuse(report, row, "invalid offering", exc)
        return None
    if row.gpu_count < 1:
        report.errors.append(RowProblem(row.line, "invalid offering", "gpu_count must be >= 1"))
        return None

    prices = []
    # A dated series in one file: each price is compared with the one before it, in the file or
    # stored, whichever is later, so the series becomes history in date order.
    in_file: dict[tuple[str, str], PlannedPrice] = {}
    dated = sorted(row.prices, key=lambda p: (p.unit, p.tier, p.observed_at or observed_at))
    for price in dated:
        when = price.observed_at or observed_at
        series = (price.unit, price.tier)
        prior = None if is_new else previous.get((offering.pk, price.unit, price.tier, when))
        earlier = in_file.get(series)
        if earlier is not None and earlier.observed_at == when:
            report.errors.append(
                RowProblem(
                    row.line,
                    "duplicate price",
                    f"two {price.unit} prices for {row.external_id!r} on {when:%Y-%m-%d}",
                )
            )
            return None
        label = f"{_show(price.amount)} {price.currency}/{price.unit}"
        if price.tier != PriceTier.LIST:
            label += f" ({price.tier})"
        if earlier is not None and (prior is None or earlier.observed_at >= prior.observed_at):
            # The file's own earlier price is the one before: the same again moves its last
            # sighting (a new observation's, or the stored one it re-saw) forward.
            seen = earlier.observation
            if (seen.amount, seen.currency) == (price.amount, price.currency):
                if earlier.is_new:
                    seen.last_seen_at = when
                else:
                    prices.append(PlannedPrice(price, when, seen, is_new=False))
                details.append(f"{label} unchanged, seen again {when:%Y-%m-%d}")
                continue
            prior = None
        if prior is not None and (prior.amount, prior.currency) == (price.amount, price.currency):
            if when > prior.last_seen_at:
                try:
                    services.price_date_check(moment=when, now=now)
                except ValidationError as exc:
                    _refuse(report, row, "invalid price", exc)
                    return None
                planned_again = PlannedPrice(price, when, prior, is_new=False)
                prices.append(planned_again)
                in_file[series] = planned_again
                details.append(f"{label} unchanged, seen again {when:%Y-%m-%d}")
            continue
        if prior is not None and prior.observed_at == when:
            report.errors.append(
                RowProblem(
                    row.line,
                    "conflicting price",
                    f"{row.external_id!r} already has {_show(prior.amount)} {prior.currency}/"
                    f"{price.unit} observed at {when:%Y-%m-%d %H:%M}; history is not rewritten",
                )
            )
            return None
        observation = PriceObservation(
            unit=price.unit,
            amount=price.amount,
            currency=price.currency,
            tier=price.tier,
            basis=price.basis,
            observed_at=when,
            last_seen_at=when,
        )
        try:
            services.price_observation_check(observation=observation, now=now)
        except ValidationError as exc:
            _refuse(report, row, "invalid price", exc)
            return None
        planned_price = PlannedPrice(price, when, observation, is_new=True)
        prices.append(planned_price)
        in_file[series] = planned_price
        before = prior if prior is not None or earlier is None else earlier.observation
        was = "" if before is None else f" (was {_show(before.amount)} {before.currency})"
        details.append(f"price {label}{was}")

    added = [p for p in prices if p.is_new]
    if is_new:
        action = "created"
    elif changed or added:
        action = "updated"
    else:
        action = "unchanged"
    report.prices_added += len(added)
    report.prices_seen += len(prices) - len(added)
    change = Change(action, platform.slug, row.external_id, list(row.lines), details)
    return PlannedOffering(row, offering, is_new, changed, prices, change)


@dataclass
class PlannedPlatformPrice:
    """A new storage or no-GPU-mode price of a platform; its source is set when it is written."""

    line: int
    price: StoragePrice | IdleModePrice
    source_url: str


def plan_platform_prices(
    storage: list[StorageRow],
    idle_modes: list[IdleModeRow],
    *,
    report: ImportReport,
    platform: Platform | None,
    observed_at: datetime,
) -> list[PlannedPlatformPrice]:
    """The storage and no-GPU-mode prices to add. As with offering prices, a price that differs
    from the one before it (in the file or stored) is added, the same price again changes nothing,
    and a different price for a moment that already has one is an error: history is not
    rewritten."""
    if not storage and not idle_modes:
        return []
    now = timezone.now()
    rows: list[StorageRow | IdleModeRow] = [*storage, *idle_modes]
    slugs = {row.platform_slug for row in rows if row.platform_slug}
    platforms = {p.slug: p for p in Platform.objects.filter(slug__in=slugs)}
    if platform is not None:
        platforms.setdefault(platform.slug, platform)
    stored: dict[tuple[int, str], list[StoragePrice | IdleModePrice]] = defaultdict(list)
    ids = [p.pk for p in platforms.values()]
    for kept in StoragePrice.objects.filter(platform_id__in=ids):
        stored[(kept.platform_id, kept.kind)].append(kept)
    for idle in IdleModePrice.objects.filter(platform_id__in=ids):
        stored[(idle.platform_id, NO_GPU_SERIES)].append(idle)

    planned: list[PlannedPlatformPrice] = []
    for row in sorted(rows, key=lambda r: r.observed_at or observed_at):
        target = platforms.get(row.platform_slug) if row.platform_slug else platform
        if target is None:
            report.errors.append(
                RowProblem(
                    row.line,
                    "unknown platform",
                    f"no platform with slug {row.platform_slug!r}"
                    if row.platform_slug
                    else "no platform: give --platform or a platform column",
                )
            )
            continue
        when = row.observed_at or observed_at
        price: StoragePrice | IdleModePrice
        if isinstance(row, StorageRow):
            series = (target.pk, row.kind)
            price = StoragePrice(
                platform=target,
                kind=row.kind,
                unit=row.unit,
                amount=row.amount,
                currency=row.currency,
                free_gb=row.free_gb or 0,
                billed_when_stopped=row.billed_when_stopped,
                notes=row.notes[:300],
                notes_zh=row.notes_zh[:300],
                observed_at=when,
            )
        else:
            series = (target.pk, NO_GPU_SERIES)
            price = IdleModePrice(
                platform=target,
                unit=row.unit,
                amount=row.amount,
                currency=row.currency,
                description=row.description[:200],
                description_zh=row.description_zh[:200],
                observed_at=when,
            )
        before = [p for p in stored[series] if p.observed_at <= when]
        prior = max(before, key=lambda p: p.observed_at, default=None)
        if prior is not None and _same_price(prior, price):
            continue
        if prior is not None and prior.observed_at == when:
            report.errors.append(
                RowProblem(
                    row.line,
                    "conflicting price",
                    f"{target.slug} already has a {_series_name(price)} price observed at "
                    f"{when:%Y-%m-%d %H:%M}; history is not rewritten",
                )
            )
            continue
        try:
            services.price_date_check(moment=when, now=now)
            price.full_clean(exclude=["source"], validate_unique=False, validate_constraints=False)
        except ValidationError as exc:
            for field_name, messages in exc.message_dict.items():
                report.errors.append(
                    RowProblem(row.line, "invalid price", f"{field_name}: {' '.join(messages)}")
                )
            continue
        stored[series].append(price)
        planned.append(PlannedPlatformPrice(row.line, price, row.source_url))
        report.platform_prices_added += 1
    return planned


# The no-GPU-mode prices of a platform are one series, beside its storage kinds.
NO_GPU_SERIES = "no_gpu_mode"


def _same_price(a: StoragePrice | IdleModePrice, b: StoragePrice | IdleModePrice) -> bool:
    same = (a.unit, a.amount, a.currency) == (b.unit, b.amount, b.currency)
    if isinstance(a, StoragePrice) and isinstance(b, StoragePrice):
        return same and (a.free_gb, a.billed_when_stopped) == (b.free_gb, b.billed_when_stopped)
    return same


def _series_name(price: StoragePrice | IdleModePrice) -> str:
    return price.kind if isinstance(price, StoragePrice) else NO_GPU_SERIES


def default_delivery_form(platform: Platform) -> str:
    """A row that states no delivery form: the platform's, where it has only one; else blank (not
    stated), never a guess."""
    forms = [form for form in platform.delivery_forms or [] if form in choice_values(DeliveryForm)]
    return forms[0] if len(forms) == 1 else ""


def _refuse(report: ImportReport, row: OfferRow, reason: str, exc: ValidationError) -> None:
    for field_name, messages in exc.message_dict.items():
        report.errors.append(RowProblem(row.line, reason, f"{field_name}: {' '.join(messages)}"))


def _show(value: object) -> str:
    if isinstance(value, Accelerator):
        return value.slug
    if isinstance(value, Decimal):
        return f"{value.normalize():f}"
    return str(value)
