"""Query parameters of the catalogue lists and price history: validated by serializers, run in SQL.

Each parameter set is a serializer, so a bad value (`?vram_min=abc`, an unknown ordering) is a 400
naming the parameter, and the same serializer documents the parameters in the OpenAPI schema. The
querysets compute everything they filter or order on as annotations: VRAM per GPU and in total, the
current price in the asked billing unit (a join to the stored current price) and its price per
GPU-hour.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Any, TypedDict, TypeVar

from django.db.models import (
    Avg,
    Count,
    DateField,
    DecimalField,
    ExpressionWrapper,
    F,
    FilteredRelation,
    FloatField,
    Max,
    Min,
    Q,
    QuerySet,
    Value,
)
from django.db.models.functions import Cast, Coalesce, Trunc
from django.http import QueryDict
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

from advisor.engine import vocab
from advisor.snapshot import ALWAYS, Snapshots
from platforms.models import (
    Accelerator,
    BillingUnit,
    Currency,
    CurrentPrice,
    DeliveryForm,
    Interconnect,
    Offering,
    Platform,
    PriceObservation,
    PriceTier,
    SharingMode,
    Source,
    price_age_days,
    price_is_stale,
)
from platforms.renting import renting_filtered
from platforms.selectors import unit_tier_order

# Hours in one billing unit, for the SQL price per GPU-hour (a month is 720 h: vocab).
HOURS_PER_UNIT = {unit.value: float(unit.hours) for unit in vocab.BillingUnit}
DEFAULT_UNIT = BillingUnit.HOUR

OFFERING_ORDERINGS = {
    # The price orders read stored columns of CurrentPrice, which its indexes serve: the amount
    # and the stored price per GPU-hour (platforms.services.current_price_keys_refresh).
    "price": "listing_price",
    "price_per_gpu_hour": "listing_sort_key",
    "vram": "vram_per_gpu",
    "total_vram": "total_vram",
    "gpu_count": "gpu_count",
}
# Keys that are null for an offering without a current list price in the asked unit.
NULLABLE_ORDERINGS = {"price", "price_per_gpu_hour"}
# The default order: platform, accelerator (by id: the order they were added in), GPUs, name;
# the index `offering_listed_order` serves it.
DEFAULT_ORDER_KEYS = ("platform_id", "accelerator_id", "gpu_count", "name")


@dataclass(frozen=True)
class OfferingOrder:
    """How the offering list is ordered, for its keyset pages (api/pagination.py): `keys` compared
    in turn (all ascending, or one key descending), then the id, ascending (equal keys keep the
    order offerings were added in); rows whose key is null (`nullable`) come after the others,
    by id."""

    name: str  # the `ordering` parameter, "" for the default order
    keys: tuple[str, ...]
    descending: bool = False
    nullable: bool = False


def offering_order(ordering: str | None) -> OfferingOrder:
    if not ordering:
        return OfferingOrder("", DEFAULT_ORDER_KEYS)
    name = ordering.lstrip("-")
    return OfferingOrder(
        ordering,
        (OFFERING_ORDERINGS[name],),
        descending=ordering.startswith("-"),
        nullable=name in NULLABLE_ORDERINGS,
    )


# Bounds that keep a date inside what every database and Python's datetime can convert to UTC.
EARLIEST_DATE = date(1900, 1, 1)
LATEST_DATE = date(9999, 12, 30)


class _Amount(TypedDict):
    max_digits: int
    decimal_places: int
    min_value: Decimal
    required: bool


GIB: _Amount = {"max_digits": 9, "decimal_places": 2, "min_value": Decimal(0), "required": False}
PER_GPU: _Amount = {
    "max_digits": 9,
    "decimal_places": 2,
    "min_value": Decimal(0),
    "required": False,
}
MONEY: _Amount = {"max_digits": 12, "decimal_places": 4, "min_value": Decimal(0), "required": False}


def query_data(params: QueryDict, many: tuple[str, ...] = ()) -> dict[str, Any]:
    """A plain dict of the query string: the last value of each key, all values of `many` keys.

    Passing the QueryDict itself would make DRF treat it as an HTML form, where a missing boolean
    means False; here a missing parameter means "no filter".
    """
    return {key: params.getlist(key) if key in many else params.get(key) for key in params}


def _check_range(
    attrs: dict[str, Any], low: str, high: str, names: tuple[str, str] | None = None
) -> None:
    low_name, high_name = names or (low, high)
    if attrs.get(low) is not None and attrs.get(high) is not None and attrs[low] > attrs[high]:
        raise serializers.ValidationError({high_name: [_("Must not be less than %s.") % low_name]})


class OfferingUnitSerializer(serializers.Serializer[Any]):
    unit = serializers.ChoiceField(
        choices=BillingUnit.choices,
        required=False,
        help_text="Billing unit of the offering's `price`; default hour.",
    )

    MANY: tuple[str, ...] = ()


class OfferingQuerySerializer(OfferingUnitSerializer):
    unit = serializers.ChoiceField(
        choices=BillingUnit.choices,
        required=False,
        help_text="Billing unit of `price`, the price filters and price orderings; given, only "
        "offerings with a current price in it are listed. Default: hour, and no such filter.",
    )
    vram_min = serializers.DecimalField(**GIB, help_text="Least VRAM per GPU (GiB).")
    vram_max = serializers.DecimalField(**GIB, help_text="Most VRAM per GPU (GiB).")
    total_vram_min = serializers.DecimalField(**GIB, help_text="Least VRAM in total (GiB).")
    total_vram_max = serializers.DecimalField(**GIB, help_text="Most VRAM in total (GiB).")
    price_min = serializers.DecimalField(**MONEY, help_text="Least current price in `unit`.")
    price_max = serializers.DecimalField(**MONEY, help_text="Most current price in `unit`.")
    currency = serializers.ChoiceField(
        choices=Currency.choices, required=False, help_text="Currency of the current price."
    )
    accelerator = serializers.ListField(
        child=serializers.SlugField(max_length=50),
        required=False,
        help_text="Accelerator slug; repeat for several.",
    )
    platform = serializers.ListField(
        child=serializers.SlugField(max_length=50),
        required=False,
        help_text="Platform slug; repeat for several.",
    )
    interconnect = serializers.ChoiceField(choices=Interconnect.choices, required=False)
    sharing_mode = serializers.ChoiceField(choices=SharingMode.choices, required=False)
    interruptible = serializers.BooleanField(required=False, help_text="Spot instances or not.")
    ordering = serializers.ChoiceField(
        choices=[name for key in OFFERING_ORDERINGS for name in (key, f"-{key}")],
        required=False,
        help_text="Sort key, `-` for descending; offerings without a price in `unit` come last, "
        "equal keys by id. Default: platform and accelerator (in the order they were added), GPU "
        "count, name.",
    )

    # ---- renters' filters (as the advisor's constraints; README "The scenario"): an offering
    # that does not state what one reads is not listed.
    country = serializers.ListField(
        child=serializers.RegexField(r"^[A-Za-z]{2}$", max_length=2),
        required=False,
        help_text="ISO 3166-1 alpha-2 code (CN, US): the offering's region's country, else its "
        "platform's market's; repeat for several.",
    )
    region = serializers.ListField(
        child=serializers.CharField(max_length=64),
        required=False,
        help_text="Region code as the platform names it (us-east-1, eastus); repeat for several.",
    )
    delivery_form = serializers.ListField(
        child=serializers.ChoiceField(choices=DeliveryForm.choices),
        required=False,
        help_text="The offering's delivery form, else its platform's only one; repeat for several.",
    )
    min_vcpus_per_gpu = serializers.DecimalField(
        **PER_GPU, help_text="Least vCPUs per GPU (the instance's over its GPUs)."
    )
    min_ram_gib_per_gpu = serializers.DecimalField(**PER_GPU, help_text="Least RAM per GPU (GiB).")
    min_disk_gb_per_gpu = serializers.DecimalField(**PER_GPU, help_text="Least disk per GPU (GB).")
    foreign_renter = serializers.BooleanField(
        required=False,
        help_text="true: only platforms a source says take a renter without a mainland Chinese "
        "ID card or phone who pays with a card issued abroad.",
    )

    MANY = ("accelerator", "platform", "country", "region", "delivery_form")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        _check_range(attrs, "vram_min", "vram_max")
        _check_range(attrs, "total_vram_min", "total_vram_max")
        _check_range(attrs, "price_min", "price_max")
        return attrs


# What the list shows of an offering (api/serializers.py: OfferingSerializer) and no more; its
# platform, accelerator and source come from `ListedRelations`, not from joins.
_LISTED_COLUMNS = (
    *("name", "gpu_count", "pooled_vram_gib", "mig_profile", "vcpus", "ram_gib", "disk_gb"),
    *("delivery_form", "sharing_mode", "interconnect", "network", "network_gbps", "region"),
    *("interruptible", "is_active", "platform_id", "accelerator_id", "source_id"),
)


def offerings_listed() -> QuerySet[Offering]:
    """Offering.objects.for_catalog() with only the columns the list shows, without its
    relations and current prices: a page's come from `listed_page_attach`."""
    return Offering.objects.filter(is_active=True).only(*_LISTED_COLUMNS)


@dataclass(frozen=True, slots=True)
class ListedPrice:
    """A current price as the offering list shows it (api/serializers.py: CurrentPriceSerializer),
    read as values: building model instances for a page's prices (a CurrentPrice, its observation
    and the observation's source for each) took as long as reading the page's offerings."""

    unit: str
    amount: Decimal
    currency: str
    tier: str
    observed_at: datetime
    last_seen_at: datetime
    source: Source
    basis: str = "offer"

    def age_days(self, now: datetime | None = None) -> int:
        return price_age_days(self.last_seen_at, now or timezone.now())

    def is_stale(self, now: datetime | None = None) -> bool:
        return price_is_stale(self.last_seen_at, now or timezone.now())


_R = TypeVar("_R", Platform, Accelerator, Source)


@dataclass(frozen=True)
class ListedRelations:
    """Every platform, accelerator and source by id, as a listed page shows them.

    Small tables (a few dozen platforms and accelerators; the sources of the seed, of the staff's
    entries and one per import), read once per catalogue version (`listed_relations`) instead of
    three more joins in every page's query: the planner weighed five tables for each page (some
    1 ms of planning on Postgres) and the ORM built three related instances per offering.
    """

    platforms: dict[int, Platform]
    accelerators: dict[int, Accelerator]
    sources: dict[int, Source]

    @classmethod
    def read(cls) -> ListedRelations:
        return cls(
            platforms={p.pk: p for p in Platform.objects.only(*_PLATFORM_COLUMNS)},
            accelerators={a.pk: a for a in Accelerator.objects.only(*_ACCELERATOR_COLUMNS)},
            sources={s.pk: s for s in Source.objects.only(*_SOURCE_COLUMNS)},
        )

    def platform(self, pk: int) -> Platform:
        return _kept_or_read(self.platforms, Platform, pk, _PLATFORM_COLUMNS)

    def accelerator(self, pk: int) -> Accelerator:
        return _kept_or_read(self.accelerators, Accelerator, pk, _ACCELERATOR_COLUMNS)

    def source(self, pk: int) -> Source:
        return _kept_or_read(self.sources, Source, pk, _SOURCE_COLUMNS)


def _kept_or_read(kept: dict[int, _R], model: type[_R], pk: int, columns: Sequence[str]) -> _R:
    """`kept[pk]`, or the row read now and kept: saved after this version was read by a write
    that gave no new version (the write services save a source before the prices that name it,
    and those give one; a row created outside them)."""
    found = kept.get(pk)
    if found is None:
        found = kept[pk] = model._default_manager.only(*columns).get(pk=pk)
    return found


# The columns a listed page shows of each (api/serializers.py: PlatformBriefSerializer,
# AcceleratorBriefSerializer, SourceBriefSerializer).
_PLATFORM_COLUMNS = ("slug", "name", "name_en", "region")  # region: the offering's country
_ACCELERATOR_COLUMNS = ("slug", "name", "vram_gib")
_SOURCE_COLUMNS = ("title", "kind")


# Kept per catalogue version: every write of a platform, accelerator or source gives a new one
# (platforms.services.catalogue_changed; the admin's CatalogueAdminMixin).
LISTED_RELATIONS = Snapshots(size=1)


def listed_relations() -> ListedRelations:
    return LISTED_RELATIONS.get(
        "relations", timezone.now(), lambda: (ListedRelations.read(), ALWAYS)
    )


# The observation's columns, as the serializer reads them from a PriceObservation.
_LISTED_PRICE_COLUMNS = (
    *("offering_id", "observation__unit", "observation__amount", "observation__currency"),
    *("observation__tier", "observation__observed_at", "observation__last_seen_at"),
    "observation__source_id",
    "basis",
)

_PLATFORM = Offering._meta.get_field("platform")
_ACCELERATOR = Offering._meta.get_field("accelerator")
_SOURCE = Offering._meta.get_field("source")


def listed_page_attach(offerings: Sequence[Offering]) -> None:
    """Give each offering of a page its platform, accelerator and source (`listed_relations`)
    and its current prices as `listed_prices` (ListedPrice, in current_prices_by_unit's order):
    one query for the page's prices and one for the catalogue's version, none for an empty page.
    """
    if not offerings:
        return
    related = listed_relations()
    prices: dict[int, list[ListedPrice]] = {offering.pk: [] for offering in offerings}
    rows = CurrentPrice.objects.filter(offering_id__in=list(prices)).values_list(
        *_LISTED_PRICE_COLUMNS
    )
    for offering_id, unit, amount, currency, tier, observed, seen, source_id, basis in rows:
        source = related.source(source_id)
        price = ListedPrice(unit, amount, currency, tier, observed, seen, source, basis)
        prices[offering_id].append(price)
    for offering in offerings:
        # As select_related would have: the related instances in the offering's field cache.
        _PLATFORM.set_cached_value(offering, related.platform(offering.platform_id))
        _ACCELERATOR.set_cached_value(offering, related.accelerator(offering.accelerator_id))
        _SOURCE.set_cached_value(offering, related.source(offering.source_id))
        # An attribute the model does not declare, as the queryset's annotations.
        listed: Any = offering
        listed.listed_prices = sorted(prices[offering.pk], key=unit_tier_order)


def offerings_annotated(queryset: QuerySet[Offering], unit: str) -> QuerySet[Offering]:
    """VRAM per GPU and total, and the current price in `unit` with its price per GPU-hour: a
    join to the stored current price (CurrentPrice, one row per offering, unit and tier), so the
    database filters and orders every row without a subquery per offering."""
    # The list price: member, student and enterprise prices are in each offering's `prices`.
    listing = FilteredRelation(
        "current_price_rows",
        condition=Q(current_price_rows__unit=unit, current_price_rows__tier=PriceTier.LIST),
    )
    gib = DecimalField(max_digits=12, decimal_places=2)
    return queryset.annotate(listing=listing).annotate(
        vram_per_gpu=Coalesce(F("pooled_vram_gib"), F("accelerator__vram_gib"), output_field=gib),
        total_vram=ExpressionWrapper(F("vram_per_gpu") * F("gpu_count"), output_field=gib),
        listing_unit=Value(unit),
        listing_price=F("listing__amount"),
        listing_currency=F("listing__currency"),
        # A ratio to sort and compare by, not money to add up, so a float is exact enough; and
        # SQLite would divide a whole-number price by the GPU count as integers.
        price_per_gpu_hour=ExpressionWrapper(
            Cast("listing_price", FloatField()) / (Value(HOURS_PER_UNIT[unit]) * F("gpu_count")),
            output_field=FloatField(),
        ),
        listing_sort_key=F("listing__per_gpu_hour"),
    )


def filter_offerings(queryset: QuerySet[Offering], query: dict[str, Any]) -> QuerySet[Offering]:
    """Apply validated OfferingQuerySerializer data to an `offerings_annotated` queryset."""
    lookups = {
        "vram_min": "vram_per_gpu__gte",
        "vram_max": "vram_per_gpu__lte",
        "total_vram_min": "total_vram__gte",
        "total_vram_max": "total_vram__lte",
        "price_min": "listing_price__gte",
        "price_max": "listing_price__lte",
        "currency": "listing_currency",
        "accelerator": "accelerator__slug__in",
        "platform": "platform__slug__in",
        "interconnect": "interconnect",
        "sharing_mode": "sharing_mode",
        "interruptible": "interruptible",
    }
    conditions = {lookup: query[key] for key, lookup in lookups.items() if key in query}
    if "unit" in query:
        conditions["listing_price__isnull"] = False
    # The order is the keyset pagination's (api/pagination.py: offering_order).
    return renting_filtered(queryset.filter(**conditions), query)


# The list's parameters besides its filters: the keyset pages' (api/pagination.py) and DRF's
# format override.
PAGE_PARAMETERS = frozenset({"cursor", "page_size", "page", "format"})


def unknown_parameters(params: QueryDict, known: Sequence[str]) -> None:
    """A 400 naming the first parameter the list does not take (as the advisor refuses a field
    it does not know), with the nearest it does take where one is close: a misspelt filter
    would otherwise list every offering, unfiltered."""
    allowed = set(known) | PAGE_PARAMETERS
    unknown = sorted(key for key in params if key not in allowed)
    if not unknown:
        return
    close = difflib.get_close_matches(unknown[0], sorted(allowed), n=1)
    message = (
        _("Unknown parameter; did you mean '%(suggestion)s'?") % {"suggestion": close[0]}
        if close
        else _("Unknown parameter.")
    )
    raise serializers.ValidationError({unknown[0]: [message]})


class PriceHistoryQuerySerializer(serializers.Serializer[Any]):
    date_from = serializers.DateField(
        source="date_from", required=False, help_text="First day (inclusive)."
    )
    date_to = serializers.DateField(
        source="date_to", required=False, help_text="Last day (inclusive)."
    )
    bucket = serializers.ChoiceField(
        choices=["day", "week", "month"], default="day", help_text="Width of a bucket."
    )
    unit = serializers.ChoiceField(
        choices=BillingUnit.choices, required=False, help_text="Only this billing unit."
    )

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        # `from` and `to` are keywords in Python, so the fields are declared under other names.
        fields = super().get_fields()
        renamed = {"date_from": "from", "date_to": "to"}
        return {renamed.get(name, name): field for name, field in fields.items()}

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        for key in ("date_from", "date_to"):
            day = attrs.get(key)
            if day is not None and not EARLIEST_DATE <= day <= LATEST_DATE:
                name = key.removeprefix("date_")
                raise serializers.ValidationError(
                    {name: [_("Must be between %s and %s.") % (EARLIEST_DATE, LATEST_DATE)]}
                )
        _check_range(attrs, "date_from", "date_to", names=("from", "to"))
        return attrs


def _start_of(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day, time.min))


def price_history(
    offering: Offering,
    *,
    bucket: str = "day",
    unit: str | None = None,
    date_from: date | None = None,
    date_to: date | None = None,
) -> QuerySet[PriceObservation, Mapping[str, Any]]:
    """Min, max, mean and count of an offering's observed prices per bucket, unit and currency.

    One aggregate query. Buckets are calendar days, weeks (from Monday) or months in the site's
    time zone; a bucket holds the observations made in it.
    """
    prices = PriceObservation.objects.filter(offering=offering)
    if unit:
        prices = prices.filter(unit=unit)
    # Bounds as instants, not `observed_at__date`, so the (offering, unit, observed_at) index helps.
    if date_from:
        prices = prices.filter(observed_at__gte=_start_of(date_from))
    if date_to:
        prices = prices.filter(observed_at__lt=_start_of(date_to + timedelta(days=1)))
    return (
        # The day itself from the database (local midnight's date): no time zone per row here.
        prices.annotate(period_start=Trunc("observed_at", bucket, output_field=DateField()))
        .values("unit", "tier", "currency", "period_start")
        .annotate(min=Min("amount"), max=Max("amount"), avg=Avg("amount"), count=Count("id"))
        .order_by("unit", "tier", "currency", "period_start")
    )
