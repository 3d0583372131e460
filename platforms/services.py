"""Writes to the catalogue: keyword-only functions that validate, then save.

Prices are only ever added (`price_observation_create`, `price_observations_create`); the history
is never rewritten. The bulk forms are what an import of thousands of rows calls: the same rules as
the single ones, checked without a query per row, one insert per batch.

Every write here keeps two things right in its own transaction: the stored current prices
(CurrentPrice, re-pointed by `current_prices_advance` or `current_prices_recompute`) and the
catalogue's version (`catalogue_changed`, which every write calls first: the version row is the
first lock a catalogue write takes, so concurrent writers queue on it instead of deadlocking).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import (
    Case,
    F,
    FloatField,
    Min,
    OuterRef,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import Cast
from django.utils import timezone
from django.utils.translation import gettext as _

from advisor.engine import vocab

from .models import (
    EARLIEST_PRICE_AT,
    EARLIEST_PRICE_MESSAGE,
    CatalogueVersion,
    CurrentPrice,
    IdleModePrice,
    Offering,
    PriceBasis,
    PriceObservation,
    PriceTier,
    Source,
    SourceKind,
    StoragePrice,
)

# Hours in one billing unit (a month is 720 h), for the stored price per GPU-hour.
HOURS_PER_UNIT = {unit.value: float(unit.hours) for unit in vocab.BillingUnit}

if TYPE_CHECKING:
    from django.contrib.auth.models import User

# Clocks of the machines that send prices differ a little; more than this ahead is a mistake.
FUTURE_TOLERANCE = timedelta(minutes=5)
# Relations are left to the database's foreign keys: validating them in Python costs a query per
# row and per relation.
_OBSERVATION_RELATIONS = ["offering", "source", "created_by"]
_OFFERING_RELATIONS = ["platform", "accelerator", "source"]
# Rows per `pk IN (...)`: below SQLite's oldest limit on query parameters (999).
_IDS_PER_QUERY = 500


# (offering id, billing unit, price tier): what a current price is the current price of.
PriceKey = tuple[int, str, str]


def catalogue_changed() -> None:
    """Give the catalogue a new version inside the caller's transaction (CatalogueVersion): the
    advisor's kept engine inputs are rebuilt at the next request of every worker. Call it before
    the write it announces (see the module's docstring)."""
    token = uuid.uuid4().hex
    moved = CatalogueVersion.objects.filter(pk=1).update(
        number=F("number") + 1, token=token, changed_at=timezone.now()
    )
    if not moved:
        # A database emptied by hand (or by a test's flush): start the row again.
        CatalogueVersion.objects.bulk_create(
            [CatalogueVersion(pk=1, number=1, token=token)], ignore_conflicts=True
        )


def catalogue_version() -> str | None:
    """The catalogue's current version token (one primary-key read); None without the row.

    Written as SQL: most requests ask it, and the ORM took longer to build the statement than the
    database to answer it (0.55 ms against 0.15 ms on Postgres)."""
    with connection.cursor() as cursor:
        cursor.execute(_VERSION_SQL)
        row = cursor.fetchone()
    return None if row is None else str(row[0])


def _version_sql() -> str:
    meta = CatalogueVersion._meta
    quote = connection.ops.quote_name
    token, pk = meta.get_field("token").column, meta.pk.column if meta.pk else None
    assert token is not None and pk is not None  # concrete fields have columns
    return f"SELECT {quote(token)} FROM {quote(meta.db_table)} WHERE {quote(pk)} = 1"


_VERSION_SQL = _version_sql()


_CURRENT_FIELDS = (
    "offering",
    "unit",
    "tier",
    "observation",
    "amount",
    "currency",
    "observed_at",
    "basis",
)


def current_prices_advance(*, observations: Iterable[PriceObservation]) -> None:
    """Point each (offering, unit, tier) of the new, saved `observations` at the newest of them,
    where that is newer than its current price: one upsert per batch, whose condition is checked
    by the database against the row it locks, so two concurrent writers never move a current
    price back in time. An older observation (a dated series imported late) joins the history
    without becoming current."""
    newest: dict[PriceKey, PriceObservation] = {}
    for observation in observations:
        key = (observation.offering_id, observation.unit, observation.tier)
        known = newest.get(key)
        if known is None or observation.observed_at > known.observed_at:
            newest[key] = observation
    if not newest:
        return
    table = connection.ops.quote_name(CurrentPrice._meta.db_table)
    fields: list[Any] = [CurrentPrice._meta.get_field(name) for name in _CURRENT_FIELDS]
    columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    updates = ", ".join(
        f"{name} = excluded.{name}"
        for name in (connection.ops.quote_name(f.column) for f in fields[3:])
    )
    observed = connection.ops.quote_name("observed_at")
    rows = [
        (o.offering_id, o.unit, o.tier, o.pk, o.amount, o.currency, o.observed_at, o.basis)
        for o in newest.values()
    ]
    limit = connection.features.max_query_params or 10_000
    per_batch = max(1, min(500, limit // len(fields)))
    placeholders = "(" + ", ".join(["%s"] * len(fields)) + ")"
    with connection.cursor() as cursor:
        for start in range(0, len(rows), per_batch):
            batch = rows[start : start + per_batch]
            params = [
                field.get_db_prep_save(value, connection)
                for row in batch
                for field, value in zip(fields, row, strict=True)
            ]
            cursor.execute(
                f"INSERT INTO {table} ({columns}) VALUES "
                + ", ".join([placeholders] * len(batch))
                + f" ON CONFLICT (offering_id, unit, tier) DO UPDATE SET {updates}"
                f" WHERE excluded.{observed} > {table}.{observed}",
                params,
            )
    current_price_keys_refresh(offering_ids={key[0] for key in newest})


def current_price_keys_refresh(*, offering_ids: Iterable[int] | None = None) -> int:
    """Set the stored sort key of the current prices of `offering_ids` (all with None) from their
    amounts, units and the offerings' GPU counts, in SQL: `per_gpu_hour` is the amount over the
    unit's hours (a month is 720 h: advisor.engine.vocab) and the GPUs, as the list API shows it
    (api/filters.py). Called by every write that moves a current price or changes an offering's
    GPU count. Returns the rows set."""
    gpus = Offering.objects.filter(pk=OuterRef("offering_id")).values("gpu_count")[:1]
    key = Cast("amount", FloatField()) / (
        Case(
            *[When(unit=unit, then=Value(hours)) for unit, hours in HOURS_PER_UNIT.items()],
            output_field=FloatField(),
        )
        * Subquery(gpus)
    )
    if offering_ids is None:
        done = CurrentPrice.objects.update(per_gpu_hour=key)
        explorer_keys_refresh()
        return done
    wanted = sorted(set(offering_ids))
    done = 0
    for start in range(0, len(wanted), _IDS_PER_QUERY):
        batch = wanted[start : start + _IDS_PER_QUERY]
        done += CurrentPrice.objects.filter(offering_id__in=batch).update(per_gpu_hour=key)
    explorer_keys_refresh(offering_ids=wanted)
    return done


def explorer_keys_refresh(*, offering_ids: Iterable[int] | None = None) -> int:
    """Set the explorer's stored sort keys of `offering_ids` (all with None), in SQL: of each
    offering's current list prices, the cheapest hourly equivalent in CNY (each amount times the
    latest rate to CNY, as the explorer converts: platforms.selectors.display_conversion, over the
    unit's hours) and that over the GPU count. Called with the current prices' keys, and for every
    offering when an exchange rate is written. Returns the offerings set."""
    from .selectors import REFERENCE_CURRENCY, display_conversion  # the explorer's own rule

    factors = display_conversion(REFERENCE_CURRENCY).factors
    factor = Case(
        *[When(currency=currency, then=Value(float(f))) for currency, f in factors.items()],
        default=None,
        output_field=FloatField(),
    )
    hours = Case(
        *[When(unit=unit, then=Value(h)) for unit, h in HOURS_PER_UNIT.items()],
        output_field=FloatField(),
    )
    cheapest = (
        CurrentPrice.objects.filter(offering=OuterRef("pk"), tier=PriceTier.LIST)
        .values("offering")
        .annotate(hourly=Min(Cast("amount", FloatField()) * factor / hours))
        .values("hourly")[:1]
    )
    batches: list[QuerySet[Offering]] = []
    if offering_ids is None:
        batches = [Offering.objects.all()]
    else:
        wanted = sorted(set(offering_ids))
        batches = [
            Offering.objects.filter(pk__in=wanted[start : start + _IDS_PER_QUERY])
            for start in range(0, len(wanted), _IDS_PER_QUERY)
        ]
    done = 0
    for offerings in batches:
        done += offerings.update(list_hourly_cny=Subquery(cheapest, output_field=FloatField()))
        offerings.update(list_gpu_hour_cny=F("list_hourly_cny") / F("gpu_count"))
    return done


def current_prices_recompute(*, keys: Iterable[PriceKey]) -> None:
    """Point each (offering, unit, tier) at its latest observation again, read from the history:
    after a correction or a deletion, which may make an older observation current (or none)."""
    wanted = sorted(set(keys))
    if not wanted:
        return
    # Every pointer first: an observation that moved to another key is pointed to only once.
    for offering_id, unit, tier in wanted:
        CurrentPrice.objects.filter(offering_id=offering_id, unit=unit, tier=tier).delete()
    latest = [
        PriceObservation.objects.filter(offering_id=offering_id, unit=unit, tier=tier)
        .order_by("-observed_at")
        .first()
        for offering_id, unit, tier in wanted
    ]
    current_prices_advance(observations=[o for o in latest if o is not None])
    # A key left with no observation has no row now: its offering's sort keys change too.
    current_price_keys_refresh(offering_ids={offering_id for offering_id, _, _ in wanted})


def price_date_check(*, moment: datetime, now: datetime | None = None) -> None:
    """Refuse a price dated in the future (it would stay "current" until that moment passed) or
    before EARLIEST_PRICE_AT (a mistyped year; the database refuses it too).

    Every write of a price date meets this rule: a new observation and a price seen again alike,
    from the admin, the API, an import or a feed.
    """
    if moment > (now or timezone.now()) + FUTURE_TOLERANCE:
        raise ValidationError({"observed_at": _("A price cannot be observed in the future.")})
    if moment < EARLIEST_PRICE_AT:
        raise ValidationError({"observed_at": EARLIEST_PRICE_MESSAGE})


def price_observation_check(*, observation: PriceObservation, now: datetime | None = None) -> None:
    """Check a new observation's values and date without a query; its relations are not looked at.

    For callers that check before the offering exists (an import's dry run) or write in bulk.
    Raises ValidationError with field messages.
    """
    errors: dict[str, Any] = {}
    try:
        observation.clean_fields(exclude=_OBSERVATION_RELATIONS)
    except ValidationError as exc:
        errors = exc.update_error_dict(errors)
    try:
        price_date_check(moment=observation.observed_at, now=now)
    except ValidationError as exc:
        errors = exc.update_error_dict(errors)
    if errors:
        raise ValidationError(errors)


@transaction.atomic
def price_observation_create(
    *,
    offering: Offering,
    unit: str,
    amount: Decimal,
    currency: str,
    source: Source,
    observed_at: datetime | None = None,
    created_by: User | None = None,
    tier: str = PriceTier.LIST,
    basis: str = PriceBasis.OFFER,
) -> PriceObservation:
    """Record a new observed price (for `tier`: list, or a member, student or enterprise price;
    `basis`: what it is, a bookable offer, a market floor or statistic, a competitor's claim).
    Raises ValidationError with field messages on bad data."""
    now = timezone.now()
    observed_at = observed_at or now
    price_date_check(moment=observed_at, now=now)
    catalogue_changed()
    observation = PriceObservation(
        offering=offering,
        unit=unit,
        amount=amount,
        currency=currency,
        tier=tier,
        basis=basis,
        source=source,
        observed_at=observed_at,
        last_seen_at=observed_at,
        created_by=created_by,
    )
    observation.full_clean()
    observation.save()
    current_prices_advance(observations=[observation])
    return observation


@transaction.atomic
def prices_still_current(
    *, observations: Sequence[PriceObservation], by: User, at: datetime | None = None
) -> list[PriceObservation]:
    """Record that each of `observations` still holds (the staff's price desk, "still this
    price"): a new observation of the same offering, unit, tier, amount and currency from the same
    source, dated `at` (default now) and recorded by `by`, each through `price_observation_create`
    (history kept, current prices re-pointed, the catalogue's version moved); all or none."""
    at = at or timezone.now()
    return [
        price_observation_create(
            offering=observation.offering,
            unit=observation.unit,
            amount=observation.amount,
            currency=observation.currency,
            tier=observation.tier,
            basis=observation.basis,
            source=observation.source,
            observed_at=at,
            created_by=by,
        )
        for observation in observations
    ]


@transaction.atomic
def price_observation_update(*, observation: PriceObservation, was: PriceKey | None) -> None:
    """Save a superuser's correction of a past observation (the admin's) and re-point the current
    prices it may move: those of its key before (`was`, None for a new one) and after."""
    catalogue_changed()
    observation.save()
    keys = [(observation.offering_id, observation.unit, observation.tier)]
    current_prices_recompute(keys=[*keys, was] if was is not None else keys)


@transaction.atomic
def price_observations_delete(*, observations: QuerySet[PriceObservation]) -> int:
    """Delete observations (a superuser's, in the admin) and re-point the current prices of their
    keys at what is left of each history; returns how many went."""
    catalogue_changed()
    keys = set(observations.values_list("offering_id", "unit", "tier"))
    deleted, _ = observations.delete()
    current_prices_recompute(keys=keys)
    return deleted


@transaction.atomic
def price_observations_create(
    *, observations: Sequence[PriceObservation]
) -> list[PriceObservation]:
    """Record many new observed prices, each last seen when observed (or later, where the caller
    saw it again); all or none are written.

    Each must have its offering and source saved. Values and dates are checked as by
    `price_observation_check`; one price per offering, unit and time is the database's to refuse
    (IntegrityError).
    """
    now = timezone.now()
    catalogue_changed()
    for observation in observations:
        # An import's dated series may already have seen the same price again later.
        seen = observation.last_seen_at
        observed = observation.observed_at
        observation.last_seen_at = max(seen, observed) if seen else observed
        price_observation_check(observation=observation, now=now)
    created = PriceObservation.objects.bulk_create(observations)
    current_prices_advance(observations=created)
    return created


def price_observation_seen(*, observation: PriceObservation, seen_at: datetime) -> bool:
    """Note that an unchanged price was still listed at `seen_at`; returns whether it moved."""
    return price_observations_seen(observations=[observation], seen_at=seen_at) > 0


@transaction.atomic
def price_observations_seen(*, observations: Sequence[PriceObservation], seen_at: datetime) -> int:
    """Note that unchanged prices were still listed at `seen_at`; returns how many moved.

    `last_seen_at` only ever moves forward, also against a concurrent write of a later sighting.
    The current price a sighting refreshes stays the same observation: no pointer moves.
    """
    price_date_check(moment=seen_at)
    behind = [observation for observation in observations if seen_at > observation.last_seen_at]
    ids = [observation.pk for observation in behind]
    if ids:
        # A price seen again is no longer stale: the advisor's inputs change.
        catalogue_changed()
    moved = 0
    for start in range(0, len(ids), _IDS_PER_QUERY):
        moved += PriceObservation.objects.filter(
            pk__in=ids[start : start + _IDS_PER_QUERY], last_seen_at__lt=seen_at
        ).update(last_seen_at=seen_at)
    for observation in behind:
        observation.last_seen_at = seen_at
    return moved


@transaction.atomic
def platform_prices_create(
    *, prices: Sequence[StoragePrice | IdleModePrice]
) -> list[StoragePrice | IdleModePrice]:
    """Add storage and no-GPU-mode prices (append-only series), each with its platform and source
    saved; all or none. Values and dates are checked as for offering prices."""
    now = timezone.now()
    catalogue_changed()
    for price in prices:
        price_date_check(moment=price.observed_at, now=now)
        price.full_clean(exclude=["platform", "source"], validate_unique=False)
    storage = [price for price in prices if isinstance(price, StoragePrice)]
    idle = [price for price in prices if isinstance(price, IdleModePrice)]
    return [*StoragePrice.objects.bulk_create(storage), *IdleModePrice.objects.bulk_create(idle)]


def offering_check(*, offering: Offering) -> None:
    """Check an offering's values without a query; its relations are not looked at.

    Uniqueness and the check constraints are left to the database: validating them in Python is a
    query each, too slow for a catalog of thousands of rows. Raises ValidationError.
    """
    offering.full_clean(
        exclude=_OFFERING_RELATIONS, validate_unique=False, validate_constraints=False
    )


@transaction.atomic
def offerings_create(*, offerings: Sequence[Offering]) -> list[Offering]:
    """Add many offerings, each with its platform, accelerator and source saved; all or none."""
    catalogue_changed()
    for offering in offerings:
        offering_check(offering=offering)
    return Offering.objects.bulk_create(offerings)


def offering_update(*, offering: Offering, fields: Sequence[str]) -> None:
    """Save the named fields of an existing offering after checking its values."""
    offering_check(offering=offering)
    with transaction.atomic():
        catalogue_changed()
        offering.save(update_fields=list(fields))
        if "gpu_count" in fields:
            current_price_keys_refresh(offering_ids=[offering.pk])


def manual_source() -> Source:
    """The source recorded for prices staff type into the admin without naming one."""
    title = "Entered in the admin"
    source, _ = Source.objects.get_or_create(
        title=title,
        url="",
        defaults={"kind": "manual", "publisher": "staff", "confidence": "secondary"},
    )
    return source


def import_source(*, label: str, filename: str, url: str, day: date) -> Source:
    """The source every price of one import points to: one per (file or URL, format, date)."""
    title = f"Import of {filename[-200:]} ({label}), {day.isoformat()}"
    source = Source.objects.filter(title=title, url=url).first()
    if source is None:
        source = Source(
            title=title,
            # Chinese pages show the kind ("导入") before the title: the file and its date.
            title_zh=f"{filename[-200:]}，{day.isoformat()}",
            url=url,
            kind=SourceKind.IMPORT,
            publisher=label,
            retrieved_on=day,
            notes="Created by import_offers.",
        )
        source.full_clean()
        source.save()
    return source
