"""Reads for the catalogue pages: named, bounded queries that the views call.

The offering explorer's filtering and sorting happen in SQL: the price of each offering in the
chosen billing unit (or its cheapest per hour) is an aggregate over its stored current prices
(CurrentPrice), converted into the display currency at the latest exchange rate, so the database
filters, orders and pages the rows whatever the price history holds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any, Protocol

from django.core.paginator import Page, Paginator
from django.db.models import (
    Case,
    Count,
    Exists,
    ExpressionWrapper,
    F,
    FloatField,
    Min,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import Cast, Coalesce, NullIf
from django.utils.functional import Promise, cached_property
from django.utils.translation import gettext_lazy as _

from advisor.engine import vocab

from .models import (
    Accelerator,
    BillingRules,
    CreditRate,
    Currency,
    CurrentPrice,
    ExchangeRate,
    IdleModePrice,
    Offering,
    Platform,
    PlatformFact,
    PriceObservation,
    PriceTier,
    Source,
    StoragePrice,
)
from .renting import PER_GPU, renting_filtered

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
        return "" if self.fact is None else self.fact.text


@dataclass(frozen=True)
class ComparisonRow:
    attribute: str
    label: str | Promise  # a lazy translation
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
    """The vendor article's comparison table: one row per attribute, one column per platform."""
    rows = []
    for attribute in COMPARISON_ATTRIBUTES:
        cells = []
        for platform in platforms:
            fact = next((f for f in platform.facts.all() if f.attribute == attribute), None)
            cells.append(Cell(fact))
        rows.append(ComparisonRow(attribute.value, attribute.label, cells))
    return rows


def comparison_sources(rows: list[ComparisonRow]) -> list[Source]:
    """The distinct sources cited by the table, in order of first use, for footnotes."""
    seen: dict[int, Source] = {}
    for row in rows:
        for cell in row.cells:
            if cell.fact is not None and cell.fact.source_id not in seen:
                seen[cell.fact.source_id] = cell.fact.source
    return list(seen.values())


def platform_detail(slug: str) -> Platform:
    """A platform with its billing rules, facts and storage prices: three queries. Its offerings
    come page by page (`platform_offerings`)."""
    return (
        Platform.objects.select_related("source", "billing_rules", "billing_rules__source")
        .prefetch_related(
            Prefetch("facts", queryset=PlatformFact.objects.select_related("source__speaker")),
            Prefetch(
                "storage_prices",
                queryset=StoragePrice.objects.latest_per_kind()
                .select_related("source")
                .order_by("kind"),
            ),
        )
        .get(slug=slug)
    )


# The platform page lists this many offerings (the smallest first) with their current prices, and
# charts the price history of CHART_OFFERINGS of them unless the reader picks others (at most
# CHART_MAX lines, each named in the legend); the explorer lists them all.
PLATFORM_OFFERINGS = 100
CHART_OFFERINGS = 12
CHART_MAX = 24


@dataclass(frozen=True)
class PlatformOfferings:
    """The first of a platform's listed offerings, each with its current prices, and how many it
    lists in all."""

    offerings: list[tuple[Offering, list[PriceObservation]]]
    total: int

    @property
    def more(self) -> int:
        return self.total - len(self.offerings)


def platform_offerings(platform: Platform, limit: int | None = None) -> PlatformOfferings:
    """The first `limit` (default PLATFORM_OFFERINGS) listed offerings of `platform` (by VRAM, GPU
    count and name) with their current prices (the stored pointers, with sources and who
    recorded them: feeds.selectors.price_confirmations reads both): three
    queries, whatever the platform lists or its history holds."""
    limit = PLATFORM_OFFERINGS if limit is None else limit
    listed = Offering.objects.filter(platform=platform, is_active=True)
    total = listed.count()
    offerings = list(
        listed.select_related("accelerator", "source")
        .prefetch_related(
            Prefetch(
                "current_price_rows",
                queryset=CurrentPrice.objects.select_related(
                    "observation__source", "observation__created_by"
                ),
                to_attr="current_price_list",
            )
        )
        .order_by("accelerator__vram_gib", "gpu_count", "name", "pk")[:limit]
    )
    return PlatformOfferings([(o, current_prices_by_unit(o)) for o in offerings], total)


def chart_order(offerings: Sequence[Offering]) -> list[Offering]:
    """`offerings` in the order the price-history picker lists them: the cards listed by the
    most platforms first (the catalogue keeps no rental counts; a card many platforms rent out
    is the one most renters compare), then as listed. One query."""
    listing = dict(
        Offering.objects.filter(
            is_active=True, accelerator__in={o.accelerator_id for o in offerings}
        )
        .values("accelerator")
        .annotate(platforms=Count("platform", distinct=True))
        .values_list("accelerator", "platforms")
    )
    position = {o.pk: i for i, o in enumerate(offerings)}
    return sorted(offerings, key=lambda o: (-listing.get(o.accelerator_id, 0), position[o.pk]))


def _seen_last(platform: Platform | OuterRef) -> QuerySet[PriceObservation]:
    """Current prices of the platform's listed offerings, the one seen last first."""
    return PriceObservation.objects.filter(
        current_row__offering__platform=platform, current_row__offering__is_active=True
    ).order_by("-last_seen_at", "-pk")


def latest_seen_price(platform: Platform) -> PriceObservation | None:
    """Of the current prices of the platform's listed offerings, the one seen last (with its
    source): one query over the stored pointers."""
    return _seen_last(platform).select_related("source").first()


def latest_seen_prices(platforms: Sequence[Platform]) -> dict[int, PriceObservation]:
    """latest_seen_price of each of `platforms` that has one, by platform pk: two queries
    whatever their number (the comparison page)."""
    latest = (
        Platform.objects.filter(pk__in=[p.pk for p in platforms])
        .annotate(latest=Subquery(_seen_last(OuterRef("pk")).values("pk")[:1]))
        .values_list("pk", "latest")
    )
    pks = {platform: price for platform, price in latest if price is not None}
    prices = PriceObservation.objects.select_related("source").in_bulk(pks.values())
    return {platform: prices[price] for platform, price in pks.items()}


@dataclass(frozen=True)
class PlatformBilling:
    """What the platform page says about how a platform bills: its rules (None: none recorded),
    its latest no-GPU-mode price and, for a platform that prices in credits, the latest rate."""

    rules: BillingRules | None
    idle_mode_price: IdleModePrice | None
    credit_rate: CreditRate | None

    @property
    def metering(self) -> Promise | str:
        seconds = self.rules.metering_seconds if self.rules else None
        if seconds is None:
            return ""
        return METERING_LABELS.get(seconds) or _("every %(n)s s") % {"n": seconds}


METERING_LABELS: dict[int, Promise] = {
    1: _("per second"),
    60: _("per minute"),
    3600: _("per started hour"),
}


def platform_billing(platform: Platform) -> PlatformBilling:
    """The billing rules (read with the platform), the latest no-GPU-mode price (one query) and,
    where the rules name a credit unit, its latest CNY rate (one more)."""
    try:
        rules: BillingRules | None = platform.billing_rules
    except BillingRules.DoesNotExist:
        rules = None
    idle = (
        IdleModePrice.objects.filter(platform=platform)
        .select_related("source")
        .order_by("-observed_at")
        .first()
    )
    rate = None
    if rules is not None and rules.credit_name:
        rate = (
            CreditRate.objects.filter(platform=platform, credit_name=rules.credit_name)
            .select_related("source")
            .order_by("-as_of")
            .first()
        )
    return PlatformBilling(rules, idle, rate)


# Billing units from the shortest to the longest (vocab's declaration order).
UNIT_ORDER = {unit.value: i for i, unit in enumerate(vocab.BillingUnit)}


# Price tiers in vocab's declaration order: the list price first.
TIER_ORDER = {tier.value: i for i, tier in enumerate(vocab.PriceTier)}


class _UnitAndTier(Protocol):
    @property
    def unit(self) -> str: ...
    @property
    def tier(self) -> str: ...


def unit_tier_order(price: _UnitAndTier) -> tuple[int, int]:
    """Sort key of an offering's prices: the shortest billing unit first, the list price before
    the other tiers."""
    return UNIT_ORDER[price.unit], TIER_ORDER[price.tier]


def current_prices_by_unit(offering: Offering) -> list[PriceObservation]:
    """The offering's current prices from the shortest billing unit to the longest, the list
    price before the other tiers."""
    return sorted(offering.current_prices, key=unit_tier_order)


# Hours in one billing unit, for prices per hour. A month is 30 days (720 h) and a week 168 h: the
# convention the platforms themselves use when they quote a monthly price as "per card-hour".
HOURS_PER_UNIT: dict[str, Fraction] = {unit.value: unit.hours for unit in vocab.BillingUnit}
EXPLORER_PAGE_SIZE = 25
# The currency of the explorer's stored sort keys (Offering.list_hourly_cny, list_gpu_hour_cny).
REFERENCE_CURRENCY = Currency.CNY
# Ratios (per GPU-hour, per GiB-hour) to four places; a converted price to four places, or to as
# many as the listed price has, up to the six prices are stored with (a per-second $0.000164 is
# ¥0.001105, not ¥0.0011).
MONEY_PLACES = Decimal("0.0001")
PRICE_PLACES = 6


def _converted_places(amount: Decimal) -> Decimal:
    exponent = amount.normalize().as_tuple().exponent
    listed = -exponent if isinstance(exponent, int) else 0
    return Decimal(1).scaleb(-min(max(4, listed), PRICE_PLACES))


def per_hour(amount: Decimal, unit: str) -> Decimal:
    return vocab.price_per_gpu_hour(amount, unit, 1)


@dataclass(frozen=True)
class Conversion:
    """How to show every price in one currency: a factor per listed currency, from the latest rate.

    `rates` holds the exchange rates used (their dates are shown on the page); a currency without a
    rate has no factor and its prices are listed but not converted.
    """

    display: str
    factors: dict[str, Decimal]
    rates: list[ExchangeRate] = field(default_factory=list)

    def convert(self, amount: Decimal, currency: str) -> Decimal | None:
        factor = self.factors.get(currency)
        if factor is None:
            return None
        return (amount * factor).quantize(_converted_places(amount))

    @property
    def missing(self) -> list[str]:
        return [c for c in Currency.values if c not in self.factors]


def display_conversion(display: str) -> Conversion:
    """Factors into `display` at the latest rate for each other currency: one query per currency."""
    factors = {display: Decimal(1)}
    rates = []
    for other in Currency.values:
        if other == display:
            continue
        rate = (
            ExchangeRate.objects.filter(Q(base=other, quote=display) | Q(base=display, quote=other))
            .select_related("source")
            .order_by("-as_of", "-pk")
            .first()
        )
        if rate is None:
            continue
        rates.append(rate)
        factors[other] = rate.rate if rate.base == other else Decimal(1) / rate.rate
    return Conversion(display=display, factors=factors, rates=rates)


def explorer_choices() -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(slug, label) of the platforms and accelerators that have listed offerings: two queries."""
    # An index probe per platform and accelerator (EXISTS), not a join over every offering.
    listed = Offering.objects.filter(is_active=True)
    platforms = [
        (p.slug, f"{p.name} · {p.name_en}" if p.name_en and p.name_en != p.name else p.name)
        for p in Platform.objects.filter(Exists(listed.filter(platform=OuterRef("pk")))).order_by(
            "name_en", "name"
        )
    ]
    accelerators = [
        (slug, name)
        for slug, name in Accelerator.objects.filter(
            Exists(listed.filter(accelerator=OuterRef("pk")))
        )
        .order_by("vendor", "vram_gib", "name")
        .values_list("slug", "name")
    ]
    return platforms, accelerators


def _case(field_name: str, values: Mapping[str, Decimal | Fraction]) -> Case:
    return Case(
        *[When(**{field_name: key}, then=Value(float(value))) for key, value in values.items()],
        default=None,
        output_field=FloatField(),
    )


def tier_prices(tier: str) -> Q:
    """On a join to an offering's stored current prices (`current_price_rows`), the rows a renter
    of `tier` is quoted: per billing unit the tier's own price where the platform states one,
    else the list price (an AutoDL member sees 1.88, everyone else 1.98)."""
    if tier == PriceTier.LIST:
        return Q(current_price_rows__tier=PriceTier.LIST)
    own = CurrentPrice.objects.filter(
        offering=OuterRef("offering"), unit=OuterRef("unit"), tier=tier
    )
    quoted = CurrentPrice.objects.filter(Q(tier=tier) | (Q(tier=PriceTier.LIST) & ~Exists(own)))
    return Q(current_price_rows__in=quoted.values("pk"))


def explorer_offerings(filters: dict[str, Any], conversion: Conversion) -> QuerySet[Offering]:
    """Listed offerings filtered and sorted as the explorer form asks, every step in SQL, on the
    stored current prices (one grouped join, whatever the price history holds).

    Annotations: `vram_per_gpu` (pooled slice memory, else the card's), `vram_total` (x GPUs),
    `price_value` (the price in the chosen unit in the display currency; with no unit, none),
    `price_hourly` (its hourly equivalent, or with no unit the cheapest hourly equivalent of the
    offering's current prices), `price_gpu_hour`, `price_per_gib` (per GiB of total VRAM per hour)
    and `tflops_per_price` (dense BF16 TFLOPS of all GPUs per display-currency unit per hour). The
    ratios are floats: they order and filter rows; the page shows Decimal figures (`explorer_rows`,
    which picks the same price for each row shown).
    """
    unit = filters.get("unit") or ""
    # Amounts are cast to float so that SQLite does not divide an integer amount (12000) as an int.
    in_display = Cast("current_price_rows__amount", FloatField()) * _case(
        "current_price_rows__currency", conversion.factors
    )
    tier = filters.get("tier") or PriceTier.LIST
    quoted = tier_prices(tier)
    # By default (list prices, any unit, every currency convertible) the keys are stored on the
    # offering in CNY (services.explorer_keys_refresh) and an index orders by them; in another
    # display currency they are the same keys times one factor, so the same order.
    stored = not unit and tier == PriceTier.LIST and not conversion.missing
    if stored:
        prices: dict[str, Any] = {}
        to_display = Value(float(conversion.factors[REFERENCE_CURRENCY]))
        hourly: Any = F("list_hourly_cny") * to_display
    elif unit:
        # The current price in the chosen unit: one row per offering, unit and tier.
        in_unit = quoted & Q(current_price_rows__unit=unit)
        prices = {
            "price_count": Count("current_price_rows", filter=in_unit),
            "price_value": Min(in_display, filter=in_unit),
        }
        hourly = F("price_value") / Value(float(HOURS_PER_UNIT[unit]))
    else:
        # Otherwise the offering's current price whose hourly equivalent is cheapest.
        per_hour = in_display / _case("current_price_rows__unit", HOURS_PER_UNIT)
        prices = {"price_hourly_min": Min(per_hour, filter=quoted)}
        hourly = F("price_hourly_min")

    offerings = (
        _explorer_filtered(filters)
        .select_related("platform", "accelerator")
        .annotate(**prices)
        .annotate(price_hourly=ExpressionWrapper(hourly, output_field=FloatField()))
        .annotate(
            price_gpu_hour=F("price_hourly") / F("gpu_count"),
            price_per_gib=F("price_hourly") / NullIf(F("vram_total"), 0.0),
            tflops_per_price=Cast("accelerator__bf16_tflops", FloatField())
            * F("gpu_count")
            / NullIf(F("price_hourly"), 0.0),
        )
    )
    bounds = {"price_min": "price_value__gte", "price_max": "price_value__lte"}
    for name, lookup in bounds.items():
        if filters.get(name) is not None:
            offerings = offerings.filter(**{lookup: float(filters[name])})
    if unit:
        offerings = offerings.filter(**{"price_count__gt": 0})  # an annotation of `prices`

    sort = filters.get("sort") or "gpu_hour"
    ordering = {
        # Within one unit, ordering by the hourly equivalent is ordering by the listed price.
        "price": F("list_hourly_cny" if stored else "price_hourly").asc(nulls_last=True),
        "gpu_hour": F("list_gpu_hour_cny" if stored else "price_gpu_hour").asc(nulls_last=True),
        "gib": F("price_per_gib").asc(nulls_last=True),
        "tflops": F("tflops_per_price").desc(nulls_last=True),
    }[sort]
    return offerings.order_by(ordering, "platform__name_en", "platform__name", "name", "pk")


def _explorer_filtered(filters: dict[str, Any], *, counting: bool = False) -> QuerySet[Offering]:
    """Listed offerings with `vram_per_gpu` and `vram_total`, filtered as the form asks on all
    but prices; `counting`, without the VRAM figures (and their join) unless a filter needs them."""
    bounds = {
        "vram_min": "vram_per_gpu__gte",
        "vram_max": "vram_per_gpu__lte",
        "total_vram_min": "vram_total__gte",
        "total_vram_max": "vram_total__lte",
    }
    offerings = Offering.objects.filter(is_active=True)
    if not counting or any(filters.get(name) is not None for name in bounds):
        offerings = offerings.annotate(
            vram_per_gpu=Cast(Coalesce("pooled_vram_gib", "accelerator__vram_gib"), FloatField()),
            vram_total=F("vram_per_gpu") * F("gpu_count"),
        )
    for name, lookup in bounds.items():
        if filters.get(name) is not None:
            offerings = offerings.filter(**{lookup: float(filters[name])})
    exact = {
        "platform": "platform__slug",
        "accelerator": "accelerator__slug",
        "interconnect": "interconnect",
        "sharing": "sharing_mode",
    }
    for name, lookup in exact.items():
        if filters.get(name):
            offerings = offerings.filter(**{lookup: filters[name]})
    if filters.get("interruptible"):
        offerings = offerings.filter(interruptible=filters["interruptible"] == "yes")
    # The renters' filters, as the list API and the advisor read them.
    renting = {
        "country": [filters["country"]] if filters.get("country") else [],
        "region": [filters["region"]] if filters.get("region") else [],
        "delivery_form": [filters["delivery_form"]] if filters.get("delivery_form") else [],
        **{key: filters.get(key) for key in PER_GPU},
        "foreign_renter": filters.get("foreign_renter"),
    }
    return renting_filtered(offerings, renting)


class _ExplorerPaginator(Paginator):  # type: ignore[type-arg]  # of ids, then offerings
    """Counts `counted`, a cheaper queryset with the same rows (no price aggregate) where the
    filters allow one."""

    def __init__(self, object_list: Any, per_page: int, counted: QuerySet[Offering]) -> None:
        super().__init__(object_list, per_page)
        self.counted = counted

    @cached_property
    def count(self) -> int:
        return self.counted.count()


def shown_price(
    current: list[PriceObservation], unit: str, tier: str, conversion: Conversion
) -> PriceObservation | None:
    """The price a row of the explorer shows, of an offering's current prices (list and `tier`):
    the one explorer_offerings() ranked it by. Per unit the tier's own price where there is one;
    in `unit`, or else the cheapest per hour in the display currency (one that cannot be converted
    last), the newest of equals."""
    quoted: dict[str, PriceObservation] = {}
    for price in current:
        kept = quoted.get(price.unit)
        if kept is None or (price.tier == tier and kept.tier != tier):
            quoted[price.unit] = price
    if unit:
        return quoted.get(unit)

    def key(price: PriceObservation) -> tuple[bool, Decimal, float]:
        amount = conversion.factors.get(price.currency)
        hourly = None if amount is None else per_hour(price.amount * amount, price.unit)
        return (hourly is None, hourly or Decimal(0), -price.observed_at.timestamp())

    return min(quoted.values(), key=key, default=None)


@dataclass(frozen=True)
class ExplorerRow:
    """One offering on the explorer page, with its shown price and the ratios in Decimal."""

    offering: Offering
    price: PriceObservation | None
    amount: Decimal | None  # in the display currency; None when it cannot be converted
    per_gpu_hour: Decimal | None
    per_gib_hour: Decimal | None
    tflops_per_unit: Decimal | None

    @property
    def converted(self) -> bool:
        return (
            self.price is not None
            and self.amount is not None
            and (self.amount != self.price.amount)
        )


def explorer_rows(
    offerings: list[Offering], conversion: Conversion, unit: str = "", tier: str = PriceTier.LIST
) -> list[ExplorerRow]:
    """The page's rows with their shown prices and sources: one query for all the prices (the
    stored current prices of the page's offerings)."""
    current: dict[int, list[PriceObservation]] = {}
    if offerings:
        rows = CurrentPrice.objects.filter(
            offering__in=[o.pk for o in offerings], tier__in={tier, PriceTier.LIST}
        ).select_related("observation__source")
        for row in rows.order_by("observation_id"):
            current.setdefault(row.offering_id, []).append(row.observation)
    out = []
    for offering in offerings:
        price = shown_price(current.get(offering.pk, []), unit, tier, conversion)
        amount = per_gpu = per_gib = tflops = None
        if price is not None:
            amount = conversion.convert(price.amount, price.currency)
        if price is not None and amount is not None:
            hourly = per_hour(amount, price.unit)
            per_gpu = (hourly / offering.gpu_count).quantize(MONEY_PLACES)
            total = offering.vram_per_gpu_gib * offering.gpu_count
            per_gib = (hourly / total).quantize(MONEY_PLACES)
            if offering.accelerator.bf16_tflops and hourly > 0:
                tflops = (
                    Decimal(str(offering.accelerator.bf16_tflops)) * offering.gpu_count / hourly
                ).quantize(Decimal("0.1"))
        out.append(ExplorerRow(offering, price, amount, per_gpu, per_gib, tflops))
    return out


@dataclass(frozen=True)
class ExplorerPage:
    page: Page[Offering]
    rows: list[ExplorerRow]
    conversion: Conversion


def explorer_page(filters: dict[str, Any], page_number: int | str | None) -> ExplorerPage:
    """One page of the explorer: exchange rates, a count, the page's offerings and their prices."""
    conversion = display_conversion(filters.get("currency") or Currency.CNY)
    ranked = explorer_offerings(filters, conversion)
    # Without a price filter every listed offering that passes the others is a row: count those
    # without the price aggregate.
    priced = filters.get("unit") or any(
        filters.get(name) is not None for name in ("price_min", "price_max")
    )
    counted = ranked if priced else _explorer_filtered(filters, counting=True)
    # The order is found on ids alone (narrow rows through the aggregate and the sort), then the
    # page's offerings are read with their annotations.
    paginator = _ExplorerPaginator(ranked.values_list("pk", flat=True), EXPLORER_PAGE_SIZE, counted)
    page = paginator.get_page(page_number)
    ids = list(page.object_list)
    by_id = {offering.pk: offering for offering in ranked.filter(pk__in=ids)} if ids else {}
    offerings = [by_id[pk] for pk in ids]
    page.object_list = offerings
    rows = explorer_rows(
        offerings,
        conversion,
        unit=filters.get("unit") or "",
        tier=filters.get("tier") or PriceTier.LIST,
    )
    return ExplorerPage(page, rows, conversion)


def desk_prices(platform: Platform | None = None) -> QuerySet[CurrentPrice]:
    """The current prices the staff's price desk lists (of all platforms' listed offerings, or
    one's), the one seen longest ago first, so the stale ones (last seen more than
    PRICE_STALE_AFTER_DAYS days ago: PriceObservation.is_stale) lead; each with its observation,
    source, recorder and offering. An offering no longer listed has nothing to re-check."""
    rows = (
        CurrentPrice.objects.filter(offering__is_active=True)
        .select_related(
            "observation__source",
            "observation__created_by",
            "offering__platform",
            "offering__accelerator",
        )
        .order_by("observation__last_seen_at", "offering__platform__slug", "offering__name", "pk")
    )
    return rows if platform is None else rows.filter(offering__platform=platform)
