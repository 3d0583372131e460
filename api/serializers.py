"""Serializers of the JSON API: explicit fields, read-only views of annotated querysets.

Catalogue serializers only read what the viewset's queryset has already fetched or annotated (no
queries of their own). The estimate and advise serializers describe the engine's JSON for the
schema; the engine itself validates the scenario.
"""

from __future__ import annotations

import dataclasses
import decimal
from collections.abc import Mapping
from datetime import UTC, date, datetime, tzinfo
from decimal import Decimal
from enum import Enum
from functools import cached_property
from typing import Any, TypedDict, cast

from django.conf import settings
from django.db.models import Model
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import ISO_8601, serializers
from rest_framework.settings import api_settings

from advisor.engine import scenario, vocab
from platforms.models import (
    Accelerator,
    AcceleratorAlias,
    BillingUnit,
    Confidence,
    Currency,
    DeliveryForm,
    ExchangeRate,
    Interconnect,
    MigProfile,
    Offering,
    Platform,
    PlatformFact,
    PriceBasis,
    PriceObservation,
    PriceTier,
    Source,
    StoragePrice,
)
from platforms.renting import country_of
from platforms.selectors import current_prices_by_unit
from wording.choices import values

from .filters import ListedPrice

NON_FIELD = api_settings.NON_FIELD_ERRORS_KEY
# The scenario's closed sets (advisor/engine/vocab.py), as the values the JSON carries.
KINDS = values(vocab.TaskKind)
WHENS = values(vocab.When)
ISOLATIONS = values(vocab.Isolation)
OBJECTIVES = values(vocab.Objective)
# A price's digits as the catalogue stores them (six places: a per-second $0.000164).
_amount = PriceObservation._meta.get_field("amount")
AMOUNT: dict[str, Any] = {
    "max_digits": _amount.max_digits,
    "decimal_places": _amount.decimal_places,
}
# Instants whose conversion to UTC (and any time zone) stays inside datetime's range.
EARLIEST_INSTANT = datetime(1900, 1, 1, tzinfo=UTC)
LATEST_INSTANT = datetime(9999, 12, 30, tzinfo=UTC)

# The figures of an accelerator that carry their own confidence grade (fixtures/accelerators.json).
GRADED_FIGURES = (
    "vram_gib",
    "memory_bandwidth_gbps",
    "bf16_tflops",
    "fp16_tflops",
    "fp32_tflops",
    "fp64_tflops",
    "rt_cores",
    "nvenc",
    "nvlink_bandwidth_gbps",
    "pcie_gen",
    "tdp_w",
)


def _now(context: Mapping[str, Any]) -> datetime:
    # One "now" per response, so every price in it is aged against the same instant. The stubs
    # type a serializer's context as a Mapping; it is the dict the view gave it.
    now: datetime = cast(dict[str, Any], context).setdefault("now", timezone.now())
    return now


class SourceSerializer(serializers.ModelSerializer[Source]):
    speaker = serializers.SlugRelatedField[Platform](
        slug_field="slug",
        read_only=True,
        allow_null=True,
        help_text="Whose statement it is (the platform that made it), for a vendor claim, a "
        "competitor claim or documentation; null otherwise.",
    )

    class Meta:
        model = Source
        fields = [
            "title",
            "url",
            "publisher",
            "kind",
            "speaker",
            "confidence",
            "published_on",
            "retrieved_on",
        ]


class SourceBriefSerializer(serializers.ModelSerializer[Source]):
    class Meta:
        model = Source
        fields = ["title", "kind"]


# Catalogue: platforms


class PlatformFactSerializer(serializers.ModelSerializer[PlatformFact]):
    label = serializers.CharField(source="get_attribute_display")  # type: ignore[assignment]  # a field named like Field.label
    source = SourceSerializer()  # type: ignore[assignment]  # a field named like Field.source

    class Meta:
        model = PlatformFact
        fields = ["attribute", "label", "value", "value_zh", "source"]


class StoragePriceSerializer(serializers.ModelSerializer[StoragePrice]):
    platform = serializers.SlugRelatedField[Platform](slug_field="slug", read_only=True)
    source = SourceBriefSerializer()  # type: ignore[assignment]  # a field named like Field.source

    class Meta:
        model = StoragePrice
        fields = [
            "platform",
            "kind",
            "unit",
            "amount",
            "currency",
            "free_gb",
            "billed_when_stopped",
            "observed_at",
            "notes",
            "source",
        ]


class PlatformSerializer(serializers.HyperlinkedModelSerializer[Platform]):
    url = serializers.HyperlinkedIdentityField(view_name="api:platform-detail", lookup_field="slug")
    delivery_forms = serializers.ListField(child=serializers.ChoiceField(DeliveryForm.choices))
    interconnects = serializers.ListField(child=serializers.ChoiceField(Interconnect.choices))
    offering_count = serializers.IntegerField(help_text="Listed (active) offerings.")
    source = SourceSerializer()  # type: ignore[assignment]  # a field named like Field.source

    class Meta:
        model = Platform
        fields = [
            "url",
            "slug",
            "name",
            "name_en",
            "website",
            "region",
            "delivery_forms",
            "scheduling",
            "multi_task",
            "interconnects",
            "physically_exclusive",
            "retention_after_expiry",
            # Who may rent (null: no source says; the detail's facts do not repeat them).
            "cn_identity_required",
            "foreign_cards",
            "offering_count",
            "source",
        ]


class PlatformDetailSerializer(PlatformSerializer):
    facts = PlatformFactSerializer(many=True)
    storage_prices = StoragePriceSerializer(
        many=True,
        source="current_storage_prices",
        help_text="The latest price of each storage kind.",
    )

    class Meta(PlatformSerializer.Meta):
        fields = [
            *PlatformSerializer.Meta.fields,
            "stability_claim",
            "domestic_accelerators",
            "data_retention",
            "idle_policy",
            "notes",
            "facts",
            "storage_prices",
        ]


# Catalogue: accelerators


class MigProfileSerializer(serializers.ModelSerializer[MigProfile]):
    starts = serializers.ListField(
        child=serializers.IntegerField(), help_text="Allowed start slots."
    )

    class Meta:
        model = MigProfile
        fields = [
            "name",
            "memory_gib",
            "memory_slices",
            "compute_slices",
            "max_count",
            "starts",
            "media_extensions",
        ]


class AcceleratorSerializer(serializers.HyperlinkedModelSerializer[Accelerator]):
    url = serializers.HyperlinkedIdentityField(
        view_name="api:accelerator-detail", lookup_field="slug"
    )
    aliases = serializers.SlugRelatedField[AcceleratorAlias](
        many=True, read_only=True, slug_field="alias"
    )
    mig_profiles = MigProfileSerializer(many=True)
    figure_confidence = serializers.SerializerMethodField(
        help_text="Confidence grade of each figure (the accelerator's grade where none is given)."
    )
    source = SourceSerializer()  # type: ignore[assignment]  # a field named like Field.source

    class Meta:
        model = Accelerator
        fields = [
            "url",
            "slug",
            "name",
            "vendor",
            "architecture",
            "vram_gib",
            "memory_bandwidth_gbps",
            "bf16_tflops",
            "fp16_tflops",
            "fp32_tflops",
            "fp64_tflops",
            "rt_cores",
            "nvenc",
            "stack",
            "compute_capability",
            "precisions",
            "stack_source",
            "stack_confidence",
            "nvlink",
            "nvlink_bandwidth_gbps",
            "pcie_gen",
            "tdp_w",
            "domestic",
            "confidence",
            "figure_confidence",
            "mig_slots",
            "mig_max_compute",
            "aliases",
            "mig_profiles",
            "source_note",
            "source",
        ]

    @extend_schema_field(
        serializers.DictField(child=serializers.ChoiceField(choices=Confidence.choices))
    )
    def get_figure_confidence(self, accelerator: Accelerator) -> dict[str, str]:
        return {figure: accelerator.figure_grade(figure) for figure in GRADED_FIGURES}


# Catalogue: offerings and prices


class CurrentPriceSerializer(serializers.ModelSerializer[PriceObservation]):
    age_days = serializers.SerializerMethodField(help_text="Whole days since last seen.")
    stale = serializers.SerializerMethodField(
        help_text="Last seen more than PRICE_STALE_AFTER_DAYS days ago."
    )
    source = SourceBriefSerializer()  # type: ignore[assignment]  # a field named like Field.source

    class Meta:
        model = PriceObservation
        fields = [
            "unit",
            "amount",
            "currency",
            "tier",
            "basis",
            "observed_at",
            "last_seen_at",
            "age_days",
            "stale",
            "source",
        ]

    def get_age_days(self, price: PriceObservation) -> int:
        return price.age_days(_now(self.context))

    def get_stale(self, price: PriceObservation) -> bool:
        return price.is_stale(_now(self.context))


class PriceObservationSerializer(CurrentPriceSerializer):
    """A price observation as stored (the answer to adding one)."""

    class Meta(CurrentPriceSerializer.Meta):
        fields = ["id", "offering", *CurrentPriceSerializer.Meta.fields]


class ListingPriceSerializer(serializers.Serializer[Any]):
    """The current price in the billing unit the list was asked for (`unit`, default hour)."""

    unit = serializers.ChoiceField(choices=BillingUnit.choices)
    amount = serializers.DecimalField(**AMOUNT)
    currency = serializers.ChoiceField(choices=Currency.choices)
    per_gpu_hour = serializers.DecimalField(
        max_digits=None,
        decimal_places=4,
        help_text="amount ÷ (hours in the unit × GPUs); a month is 720 hours.",
    )


class PlatformBriefSerializer(serializers.ModelSerializer[Platform]):
    class Meta:
        model = Platform
        fields = ["slug", "name", "name_en"]


class AcceleratorBriefSerializer(serializers.ModelSerializer[Accelerator]):
    class Meta:
        model = Accelerator
        fields = ["slug", "name", "vram_gib"]


# The offering list's values written out (OfferingSerializer.to_representation) with the rules
# of DRF's fields, which a page of 50 offerings could not afford to call some 400 times. Each
# decimal is (decimal places, max digits) of its declared field: the model field's where the
# ModelSerializer builds the field from it.
def _places(model: type[Model], name: str) -> tuple[int, int | None]:
    column = model._meta.get_field(name)
    return column.decimal_places, column.max_digits  # type: ignore[union-attr]  # a DecimalField


VRAM_GIB = _places(Accelerator, "vram_gib")
POOLED_GIB = _places(Offering, "pooled_vram_gib")
RAM_GIB = _places(Offering, "ram_gib")
AMOUNT_SHOWN = _places(PriceObservation, "amount")
GIB_SHOWN = (2, None)  # OfferingSerializer.vram_per_gpu_gib and total_vram_gib
PER_GPU_HOUR = (4, None)  # ListingPriceSerializer.per_gpu_hour


def _text(value: Any) -> str | None:
    # CharField: str() of what is there.
    return None if value is None else str(value)


def _integer(value: Any) -> int | None:
    return None if value is None else int(value)


def _boolean(value: Any) -> bool | None:
    # BooleanField: the stored boolean (the field would also read strings such as "false", which
    # a model's BooleanField never holds).
    return None if value is None else bool(value)


def _choice(value: Any) -> Any:
    # ChoiceField: a choice comes back as its key, which for TextChoices is the stored string;
    # an unknown value comes back as it is. The JSON is the string either way.
    if value is None or value == "" or not isinstance(value, Enum):
        return value
    return value.value


def _current_prices(offering: Offering) -> list[PriceObservation] | list[ListedPrice]:
    """A listed page's prices as the view attached them (api/filters.py: listed_page_attach),
    else the offering's prefetched current prices (a single offering)."""
    listed: list[ListedPrice] | None = getattr(offering, "listed_prices", None)
    return current_prices_by_unit(offering) if listed is None else listed


def _source_brief(source: Source | None) -> dict[str, Any] | None:
    # SourceBriefSerializer, written out.
    if source is None:
        return None
    return {"title": _text(source.title), "kind": _choice(source.kind)}


@dataclasses.dataclass
class _Formats:
    """DecimalField's and DateTimeField's output for one response, under the API settings this
    project runs with; `for_response` gives None under others, and the fields then format."""

    now: datetime
    zone: tzinfo
    contexts: dict[int | None, decimal.Context] = dataclasses.field(default_factory=dict)
    steps: dict[int, Decimal] = dataclasses.field(default_factory=dict)

    @classmethod
    def for_response(cls, context: Mapping[str, Any]) -> _Formats | None:
        iso = isinstance(api_settings.DATETIME_FORMAT, str) and (
            api_settings.DATETIME_FORMAT.lower() == ISO_8601
        )
        if not (api_settings.COERCE_DECIMAL_TO_STRING and iso and settings.USE_TZ):
            return None
        return cls(now=_now(context), zone=timezone.get_current_timezone())

    def decimal(self, value: Any, places: tuple[int, int | None]) -> str | None:
        """DecimalField(decimal_places, max_digits).to_representation, coercing to a string:
        quantized to the places (in a copy of the current context, with max_digits as its
        precision where given) and written without an exponent."""
        if value is None:
            return None
        if not isinstance(value, Decimal):
            value = Decimal(str(value).strip())
        decimal_places, max_digits = places
        context = self.contexts.get(max_digits)
        if context is None:
            context = decimal.getcontext().copy()
            if max_digits is not None:
                context.prec = max_digits
            self.contexts[max_digits] = context
        step = self.steps.get(decimal_places)
        if step is None:
            step = self.steps[decimal_places] = Decimal(".1") ** decimal_places
        return f"{value.quantize(step, context=context):f}"

    def instant(self, value: datetime | None) -> str | None:
        """DateTimeField.to_representation in ISO 8601: in the current time zone, UTC as Z."""
        if not value:
            return None
        text = value.astimezone(self.zone).isoformat()
        return text[:-6] + "Z" if text.endswith("+00:00") else text


class OfferingSerializer(serializers.ModelSerializer[Offering]):
    platform = PlatformBriefSerializer()
    accelerator = AcceleratorBriefSerializer()
    vram_per_gpu_gib = serializers.DecimalField(
        max_digits=None,
        decimal_places=2,
        help_text="The pooled slice's memory if sold by memory, else the accelerator's.",
    )
    total_vram_gib = serializers.DecimalField(
        max_digits=None, decimal_places=2, help_text="VRAM per GPU × GPUs."
    )
    price = serializers.SerializerMethodField()
    current_prices = serializers.SerializerMethodField()
    country = serializers.SerializerMethodField(
        help_text="ISO 3166-1 alpha-2 code of the offering's region, else of its platform's "
        "market; null where nothing states it (platforms/renting.py)."
    )
    source = SourceBriefSerializer()  # type: ignore[assignment]  # a field named like Field.source

    class Meta:
        model = Offering
        fields = [
            "id",
            "name",
            "platform",
            "accelerator",
            "gpu_count",
            "vram_per_gpu_gib",
            "total_vram_gib",
            "pooled_vram_gib",
            "mig_profile",
            "vcpus",
            "ram_gib",
            "disk_gb",
            "delivery_form",
            "sharing_mode",
            "interconnect",
            "network",
            "network_gbps",
            "region",
            "country",
            "interruptible",
            "price",
            "current_prices",
            "source",
        ]

    def to_representation(self, offering: Offering) -> dict[str, Any]:
        """The declared fields written out by hand: the same JSON as the field-by-field path
        (`serializers.ModelSerializer.to_representation`), at a fraction of its cost.

        A page of 50 offerings has some 400 values; reading each through DRF's fields (attribute
        lookup, None check, field's own formatting, a nested serializer per relation and price)
        took most of the list's time (bench/bench_http.py). The fields stay declared for the
        schema and for the field-by-field path, which tests/api/test_offering_json.py compares
        with this one on every kind of row. With API settings other than the formats written here
        (decimals as strings, ISO 8601 instants in the current time zone), the generic path runs.
        """
        formats = self._formats
        if formats is None:
            return super().to_representation(offering)
        decimal = formats.decimal
        platform = offering.platform
        accelerator = offering.accelerator
        return {
            "id": offering.pk,
            "name": _text(offering.name),
            "platform": None
            if platform is None
            else {
                "slug": _text(platform.slug),
                "name": _text(platform.name),
                "name_en": _text(platform.name_en),
            },
            "accelerator": None
            if accelerator is None
            else {
                "slug": _text(accelerator.slug),
                "name": _text(accelerator.name),
                "vram_gib": decimal(accelerator.vram_gib, VRAM_GIB),
            },
            "gpu_count": _integer(offering.gpu_count),
            "vram_per_gpu_gib": decimal(offering.vram_per_gpu_gib, GIB_SHOWN),
            "total_vram_gib": decimal(offering.total_vram_gib, GIB_SHOWN),
            "pooled_vram_gib": decimal(offering.pooled_vram_gib, POOLED_GIB),
            "mig_profile": _text(offering.mig_profile),
            "vcpus": _integer(offering.vcpus),
            "ram_gib": decimal(offering.ram_gib, RAM_GIB),
            "disk_gb": _integer(offering.disk_gb),
            "delivery_form": _choice(offering.delivery_form),
            "sharing_mode": _choice(offering.sharing_mode),
            "interconnect": _choice(offering.interconnect),
            "network": _choice(offering.network),
            "network_gbps": _integer(offering.network_gbps),
            "region": _text(offering.region),
            "country": self.get_country(offering),
            "interruptible": _boolean(offering.interruptible),
            "price": self._fast_price(offering, formats),
            "current_prices": [
                self._fast_current_price(price, formats) for price in _current_prices(offering)
            ],
            "source": _source_brief(offering.source),
        }

    @staticmethod
    def _fast_price(offering: Offering, formats: _Formats) -> dict[str, Any] | None:
        # get_price, written out.
        listing: Any = offering
        if listing.listing_price is None:
            return None
        return {
            "unit": _choice(listing.listing_unit),
            "amount": formats.decimal(listing.listing_price, AMOUNT_SHOWN),
            "currency": _choice(listing.listing_currency),
            "per_gpu_hour": formats.decimal(Decimal(listing.price_per_gpu_hour), PER_GPU_HOUR),
        }

    @staticmethod
    def _fast_current_price(
        price: PriceObservation | ListedPrice, formats: _Formats
    ) -> dict[str, Any]:
        # CurrentPriceSerializer, written out.
        return {
            "unit": _choice(price.unit),
            "amount": formats.decimal(price.amount, AMOUNT_SHOWN),
            "currency": _choice(price.currency),
            "tier": _choice(price.tier),
            "basis": _choice(price.basis),
            "observed_at": formats.instant(price.observed_at),
            "last_seen_at": formats.instant(price.last_seen_at),
            "age_days": price.age_days(formats.now),
            "stale": price.is_stale(formats.now),
            "source": _source_brief(price.source),
        }

    @cached_property
    def _formats(self) -> _Formats | None:
        return _Formats.for_response(self.context)

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_country(self, offering: Offering) -> str | None:
        platform = offering.platform
        return country_of(platform.slug, platform.region, offering.region) or None

    @extend_schema_field(ListingPriceSerializer(allow_null=True))
    def get_price(self, offering: Offering) -> dict[str, Any] | None:
        # listing_* and price_per_gpu_hour: api/filters.py's annotations, unknown to the model type.
        listing: Any = offering
        if listing.listing_price is None:
            return None
        data = {
            "unit": listing.listing_unit,
            "amount": listing.listing_price,
            "currency": listing.listing_currency,
            "per_gpu_hour": Decimal(listing.price_per_gpu_hour),
        }
        return self._listing_price.to_representation(data)

    @extend_schema_field(CurrentPriceSerializer(many=True))
    def get_current_prices(self, offering: Offering) -> list[dict[str, Any]]:
        # ListedPrice has the attributes and methods the serializer reads of a PriceObservation.
        prices = cast(list[PriceObservation], _current_prices(offering))
        return [self._current_price.to_representation(p) for p in prices]

    # One child serializer per list, not one per row: building a ModelSerializer's fields for
    # every offering of a page doubled the time of the offerings list (bench/bench_http.py).
    @cached_property
    def _current_price(self) -> CurrentPriceSerializer:
        return CurrentPriceSerializer(context=self.context)

    @cached_property
    def _listing_price(self) -> ListingPriceSerializer:
        return ListingPriceSerializer(context=self.context)


class ExchangeRateSerializer(serializers.ModelSerializer[ExchangeRate]):
    source = SourceBriefSerializer()  # type: ignore[assignment]  # a field named like Field.source

    class Meta:
        model = ExchangeRate
        fields = ["base", "quote", "rate", "as_of", "source"]


# Price history


class BucketStartField(serializers.DateField):
    """The day a bucket starts (its local midnight's date, as the database truncates it)."""

    def to_representation(self, value: date) -> str:
        return str(super().to_representation(value))


class PriceBucketSerializer(serializers.Serializer[Any]):
    unit = serializers.ChoiceField(choices=BillingUnit.choices)
    currency = serializers.ChoiceField(choices=Currency.choices)
    period_start = BucketStartField(help_text="First day of the bucket (weeks start Monday).")
    tier = serializers.ChoiceField(choices=PriceTier.choices)
    min = serializers.DecimalField(max_digits=None, decimal_places=AMOUNT["decimal_places"])
    max = serializers.DecimalField(max_digits=None, decimal_places=AMOUNT["decimal_places"])
    avg = serializers.DecimalField(max_digits=None, decimal_places=AMOUNT["decimal_places"])
    count = serializers.IntegerField(help_text="Observations in the bucket.")

    def to_representation(self, instance: Mapping[str, Any]) -> dict[str, Any]:
        """What Serializer.to_representation gives for a row of price_history's values (each
        field's own to_representation of the row's value under its name, None as None), without
        its per-field attribute lookups: a three-year day history has thousands of rows."""
        return {
            name: None if (value := instance[name]) is None else field.to_representation(value)
            for name, field in self._row_fields
        }

    @cached_property
    def _row_fields(self) -> list[tuple[str, serializers.Field[Any, Any, Any, Any]]]:
        fields = list(self._readable_fields)
        # The shortcut reads each field's value under its own name: true of every field here.
        assert all(f.source == f.field_name and not f.source_attrs[1:] for f in fields)
        return [(str(f.field_name), f) for f in fields]


class PriceHistorySerializer(serializers.Serializer[Any]):
    offering = serializers.IntegerField()
    bucket = serializers.ChoiceField(choices=["day", "week", "month"])
    date_from = serializers.DateField(
        source="date_from", allow_null=True, help_text="First day included, if asked."
    )
    date_to = serializers.DateField(
        source="date_to", allow_null=True, help_text="Last day included, if asked."
    )
    unit = serializers.ChoiceField(choices=BillingUnit.choices, allow_null=True)
    buckets = PriceBucketSerializer(
        many=True, help_text="By unit, price tier, currency, then period."
    )

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        # The query parameters are `from` and `to`; the response echoes them under the same names,
        # which cannot be attribute names here ("from" is a keyword).
        fields = super().get_fields()
        renamed = {"date_from": "from", "date_to": "to"}
        return {renamed.get(name, name): field for name, field in fields.items()}


# Adding a price


class PriceObservationCreateSerializer(serializers.Serializer[Any]):
    unit = serializers.ChoiceField(choices=BillingUnit.choices)
    amount = serializers.DecimalField(**AMOUNT, min_value=Decimal(0))
    currency = serializers.ChoiceField(choices=Currency.choices)
    tier = serializers.ChoiceField(
        choices=PriceTier.choices,
        default=PriceTier.LIST,
        help_text="list (default), or a member, student or enterprise price.",
    )
    basis = serializers.ChoiceField(
        choices=PriceBasis.choices,
        default=PriceBasis.OFFER,
        help_text='What the price is: offer (default, bookable), floor (a "from" price, the '
        "lowest listed offer), statistic (a median) or claim (a competitor's statement).",
    )
    observed_at = serializers.DateTimeField(
        required=False, help_text="When the price was seen; default now."
    )
    source = serializers.PrimaryKeyRelatedField(  # type: ignore[assignment]  # named like Field.source
        queryset=Source.objects.all(),
        required=False,
        help_text="Id of the source; default the manual-entry source.",
    )

    def validate_observed_at(self, value: datetime) -> datetime:
        # Converting to UTC for the database must not leave the range datetime can represent.
        if not EARLIEST_INSTANT <= value <= LATEST_INSTANT:
            raise serializers.ValidationError(
                _("Must be between %s and %s.") % (EARLIEST_INSTANT.year, LATEST_INSTANT.year)
            )
        return value


# The advisor: the scenario (README.md, "The scenario") and the engine's answers. These serializers
# document the JSON for the schema; the engine validates the scenario and writes the answers.


class _Optional(TypedDict):
    required: bool
    allow_null: bool


# The engine reads a null the same as a missing field.
OPTIONAL: _Optional = {"required": False, "allow_null": True}


class ArchSerializer(serializers.Serializer[Any]):
    layers = serializers.IntegerField(**OPTIONAL)
    hidden = serializers.IntegerField(**OPTIONAL)
    heads = serializers.IntegerField(**OPTIONAL)
    kv_heads = serializers.IntegerField(**OPTIONAL)
    head_dim = serializers.IntegerField(**OPTIONAL)
    intermediate = serializers.IntegerField(**OPTIONAL)
    vocab = serializers.IntegerField(**OPTIONAL)
    mla_kv_lora_rank = serializers.IntegerField(**OPTIONAL)
    mla_rope_head_dim = serializers.IntegerField(**OPTIONAL)
    active_params = serializers.IntegerField(**OPTIONAL)
    experts = serializers.IntegerField(
        **OPTIONAL, help_text="Mixture of experts: routed experts per MoE layer."
    )
    experts_per_token = serializers.IntegerField(
        **OPTIONAL, help_text="Mixture of experts: experts each token is sent to (default 8)."
    )


class OnHardwareSerializer(serializers.Serializer[Any]):
    accelerator = serializers.CharField(help_text="Accelerator slug or alias, e.g. a100-80gb.")
    count = serializers.IntegerField(**OPTIONAL)
    mig_profile = serializers.CharField(**OPTIONAL, help_text="e.g. 3g.40gb")
    mfu = serializers.FloatField(
        **OPTIONAL,
        help_text="Model FLOPs utilisation, 0-1; default from published runs of the hardware "
        "class and model size, with a range.",
    )
    gpus_per_node = serializers.IntegerField(
        **OPTIONAL, help_text="GPUs per machine when `count` spans several; default 8."
    )
    network = serializers.ChoiceField(
        choices=values(vocab.Network),
        **OPTIONAL,
        help_text="Network between machines; default InfiniBand for NVSwitch boards (one NIC "
        "per GPU, as NVIDIA's DGX), else Ethernet.",
    )
    network_gbps = serializers.FloatField(
        **OPTIONAL,
        help_text="Gb/s per machine between machines; default 200 or 400 per GPU on NVSwitch "
        "boards (A100 / H100 and later), else 100.",
    )


class TaskSerializer(serializers.Serializer[Any]):
    name = serializers.CharField(**OPTIONAL)
    kind = serializers.ChoiceField(choices=KINDS)
    # Any model by name, or its Hugging Face config.json (advisor/engine/model_catalogue.py,
    # hf_config.py): one of model, config or params/arch.
    model = serializers.CharField(
        **OPTIONAL,
        help_text="A model of the catalogue (GET /api/v1/models/ lists them) by id, name or "
        "Hugging Face repository, e.g. llama-3.1-70b, Qwen3 30B-A3B or Qwen/Qwen3-30B-A3B.",
    )
    config = serializers.DictField(
        **OPTIONAL,
        help_text="A Hugging Face config.json, as a JSON object, instead of `model`: its "
        "architecture (hidden_size, num_hidden_layers, heads, experts, MLA ranks) is read and "
        "its parameters counted. A vision-language model's text_config is read.",
    )
    params = serializers.FloatField(
        **OPTIONAL, help_text="Parameter count, without `model` or `config`."
    )
    arch = ArchSerializer(**OPTIONAL)
    precision = serializers.ChoiceField(choices=scenario.PRECISIONS, **OPTIONAL)
    optimizer = serializers.ChoiceField(choices=scenario.OPTIMIZERS, **OPTIONAL)
    master_weights = serializers.BooleanField(**OPTIONAL)
    sharding = serializers.ChoiceField(
        choices=[*scenario.SHARDINGS, *scenario.SHARDING_ALIASES], **OPTIONAL
    )
    offload = serializers.ChoiceField(choices=scenario.OFFLOADS, **OPTIONAL)
    activation_checkpointing = serializers.ChoiceField(choices=scenario.CHECKPOINTING, **OPTIONAL)
    activation_offload = serializers.BooleanField(
        **OPTIONAL,
        help_text="Saved activations (with full checkpointing, the checkpoints) kept in host RAM, "
        "as Unsloth's gradient checkpointing and torchtune's activation offloading do; default "
        "false.",
    )
    attention = serializers.ChoiceField(
        choices=scenario.ATTENTIONS,
        **OPTIONAL,
        help_text="flash (default: FlashAttention-2 or PyTorch SDPA, no s² scores kept) or eager.",
    )
    framework = serializers.ChoiceField(
        choices=scenario.FRAMEWORKS,
        **OPTIONAL,
        help_text="The trainer, for its loss, kernels and QLoRA path: hf (default: Transformers "
        "Trainer, TRL, PEFT, LLaMA-Factory), pytorch (a plain PyTorch loop: cross_entropy on "
        "fp32-upcast logits, no fused kernels), liger (Hugging Face with Liger kernels), "
        "torchtune, unsloth.",
    )
    lora_targets = serializers.ChoiceField(
        choices=scenario.LORA_TARGETS,
        **OPTIONAL,
        help_text="all_linear (default, as LLaMA-Factory and Unsloth) or attention (q, k, v, o).",
    )
    fused_optimizer_step = serializers.BooleanField(
        **OPTIONAL,
        help_text="Optimizer step inside the backward pass (torchtune optimizer_in_bwd): no full "
        "gradient buffer; default false.",
    )
    moe_implementation = serializers.ChoiceField(
        choices=scenario.MOE_IMPLEMENTATIONS,
        **OPTIONAL,
        help_text="Mixture of experts only: expert_loop (default: Transformers' loop over the "
        "experts; under ZeRO-3 each expert is gathered as its own module), grouped_gemm or "
        "expert_parallel (experts split over each machine's GPUs, never gathered, tokens sent "
        "by all-to-all).",
    )
    micro_batch = serializers.IntegerField(**OPTIONAL)
    gradient_accumulation = serializers.IntegerField(
        **OPTIONAL,
        help_text="Micro-batches per optimizer step; default 1. Gradients sync (and offloaded "
        "optimizers run) once per step.",
    )
    seq_len = serializers.IntegerField(**OPTIONAL)
    lora_rank = serializers.IntegerField(**OPTIONAL)
    tokens = serializers.FloatField(
        **OPTIONAL,
        help_text="Training tokens, for time; an image model's tokens ÷ seq_len is its number of "
        "training images.",
    )
    context_len = serializers.IntegerField(**OPTIONAL)
    concurrent_sequences = serializers.IntegerField(**OPTIONAL)
    kv_precision = serializers.ChoiceField(choices=scenario.PRECISIONS, **OPTIONAL)
    serving = serializers.ChoiceField(
        choices=scenario.SERVINGS,
        **OPTIONAL,
        help_text="paged (default: vLLM or SGLang, 16-token KV blocks, 90 % of the GPU claimed) or "
        "hf_generate (Transformers generate, concatenated cache held twice).",
    )
    # Serving workload (docs/time-model.md, "Serving"): inference tasks only.
    workload = serializers.ChoiceField(
        choices=scenario.WORKLOADS,
        **OPTIONAL,
        help_text="Inference: the kind of use whose request shape applies where prompt_tokens or "
        "output_tokens is not given: chat (default, 256 in and 256 out), rag (2,048 in, 256 "
        "out) or batch (offline generation, 500 in, 2,000 out).",
    )
    prompt_tokens = serializers.IntegerField(
        **OPTIONAL,
        help_text="Inference: prompt tokens per request; with the output, at most context_len.",
    )
    output_tokens = serializers.IntegerField(
        **OPTIONAL, help_text="Inference: output tokens per request."
    )
    serving_engine = serializers.ChoiceField(
        choices=scenario.SERVING_ENGINES,
        **OPTIONAL,
        help_text="Inference: the engine a language model is served with, whose published runs "
        "set the expected speed and whose software stacks decide which cards run it: vllm, "
        "sglang, tensorrt_llm, llama_cpp or hf; default vllm (hf with serving hf_generate).",
    )
    vram_gib = serializers.FloatField(**OPTIONAL, help_text='Memory of a "fixed" task.')
    resolution = serializers.IntegerField(
        **OPTIONAL,
        help_text="Diffusion models: the image's side in pixels, a multiple of 16; default the "
        "model's native size (512 for sd-1.5, 1024 for the others).",
    )
    text_encoders = serializers.ChoiceField(
        choices=scenario.TEXT_ENCODER_MODES,
        **OPTIONAL,
        help_text="Diffusion models: gpu (the inference default: a diffusers pipeline on CUDA), "
        "offload (enable_model_cpu_offload) or cached (the training default: outputs and "
        "latents computed beforehand, as kohya and SimpleTuner do).",
    )
    text_encoder_precision = serializers.ChoiceField(
        choices=scenario.PRECISIONS,
        **OPTIONAL,
        help_text="Diffusion models: the text encoders' weights; default the task's precision.",
    )
    frames = serializers.FloatField(
        **OPTIONAL, help_text='A "fixed" task\'s frames (or time steps), for a time and job cost.'
    )
    seconds_per_frame = serializers.FloatField(
        **OPTIONAL, help_text="Seconds per frame on reference_accelerator, one GPU."
    )
    reference_accelerator = serializers.CharField(
        **OPTIONAL, help_text="The card seconds_per_frame was measured on, e.g. rtx-4090-24gb."
    )
    scale_by = serializers.ChoiceField(
        choices=scenario.SCALE_BY,
        **OPTIONAL,
        help_text="The figure the time scales by from the reference card: fp32 (default, "
        "rendering), fp64 (double-precision simulation), bf16 or bandwidth.",
    )
    min_fp64_tflops = serializers.FloatField(
        **OPTIONAL, help_text="Fixed tasks: leave out cards below this dense FP64 rate."
    )
    needs_rt_cores = serializers.BooleanField(
        **OPTIONAL, help_text="Fixed tasks: leave out cards without RT cores (OptiX rendering)."
    )
    needs_nvenc = serializers.BooleanField(
        **OPTIONAL, help_text="Fixed tasks: leave out cards without a video encoder (NVENC)."
    )
    portable_code = serializers.BooleanField(
        **OPTIONAL,
        help_text="Fixed tasks: the code runs on any compute stack (default false: CUDA code, "
        "which runs on non-CUDA cards only through a port, with allow_ports).",
    )
    gpus = serializers.IntegerField(**OPTIONAL, help_text="GPUs the task spans; default 1.")
    when = serializers.ChoiceField(choices=WHENS, **OPTIONAL)
    hours_per_month = serializers.FloatField(
        **OPTIONAL,
        help_text="Above 0, at most 720 (the 30-day billing month). A service: busy hours a "
        "month (default 720, always on). A job "
        "(training with `tokens`): the window it may run in each month (default: any time).",
    )
    jobs_per_month = serializers.FloatField(
        **OPTIONAL, help_text="Above 0. A job that recurs; without it the job runs once."
    )
    isolation = serializers.ChoiceField(choices=ISOLATIONS, **OPTIONAL)
    on = OnHardwareSerializer(**OPTIONAL, help_text="Evaluate on this hardware.")


class ConstraintsSerializer(serializers.Serializer[Any]):
    budget_per_month = serializers.FloatField(**OPTIONAL)
    currency = serializers.ChoiceField(choices=Currency.choices, **OPTIONAL)
    deadline_hours = serializers.FloatField(**OPTIONAL)
    physically_exclusive = serializers.BooleanField(**OPTIONAL)
    require_nvlink = serializers.BooleanField(**OPTIONAL)
    domestic_only = serializers.BooleanField(**OPTIONAL)
    platforms = serializers.ListField(child=serializers.CharField(), **OPTIONAL)
    fresh_only = serializers.BooleanField(
        **OPTIONAL, help_text="Leave out stale prices (default: included, each with its age)."
    )
    # Spot capacity, three ways (README.md, "The scenario"); a job on spot is priced with restarts.
    allow_interruptible = serializers.BooleanField(
        **OPTIONAL,
        help_text="Interruptible (spot) capacity: not given (default), jobs may use it and "
        "user-facing services (inference, fixed tasks without frames) may not; true, every task "
        "may; false, no task may.",
    )
    checkpoint_minutes = serializers.FloatField(
        **OPTIONAL,
        help_text="A job on spot saves a checkpoint every this many minutes of work, 0 (none: a "
        "restart starts over) to 1440 (default 30).",
    )
    restart_minutes = serializers.FloatField(
        **OPTIONAL,
        help_text="Minutes a job on spot takes to run again after an interruption, 0 to 1440 "
        "(default 10).",
    )
    include_market_statistics = serializers.BooleanField(
        **OPTIONAL,
        help_text='Rank market floors ("from" prices, a marketplace\'s lowest listed offer) '
        "and statistics (a median) as if bookable (default false: shown, not ranked).",
    )
    allow_ports = serializers.BooleanField(
        **OPTIONAL,
        help_text="Propose cards that run the tasks' software only through a port to their "
        "compute stack (vLLM-Ascend, torch_npu, torch_musa...), each warned with the port and "
        "what is not verified; default false, implied by domestic_only.",
    )
    include_stale = serializers.BooleanField(
        **OPTIONAL, help_text="Deprecated: the opposite of `fresh_only`."
    )
    storage_gb = serializers.FloatField(**OPTIONAL)
    price_tier = serializers.ChoiceField(
        choices=PriceTier.choices,
        **OPTIONAL,
        help_text="Your price tier (default list): each offering is priced at this tier's price "
        "where the platform states one, else at its list price.",
    )
    startup_minutes = serializers.FloatField(
        **OPTIONAL,
        help_text="Start-up time of each run (boot, image pull, model load), 0 to 1440 minutes: "
        "billed per run where the platform bills start-up time (default 0, not counted).",
    )
    transfer_mbps = serializers.FloatField(
        **OPTIONAL,
        help_text="Link speed (Mbit/s) for moving the data between the legs of a plan across "
        "platforms; default 100, stated as an assumption.",
    )
    # ---- renters' filters: an offering that does not state what one reads is left out, and
    # counted, with a reason of its own (README "The scenario").
    countries = serializers.ListField(
        child=serializers.CharField(),
        **OPTIONAL,
        help_text="ISO 3166-1 alpha-2 codes (CN, US, DE): the offering's region's country, else "
        "its platform's market's.",
    )
    regions = serializers.ListField(
        child=serializers.CharField(),
        **OPTIONAL,
        help_text="Region codes as the platforms name them (us-east-1, eastus), case-blind.",
    )
    delivery_forms = serializers.ListField(
        child=serializers.ChoiceField(choices=DeliveryForm.choices),
        **OPTIONAL,
        help_text="The offering's delivery form, else its platform's only one.",
    )
    min_vcpus_per_gpu = serializers.FloatField(
        **OPTIONAL, help_text="Least vCPUs per GPU (the instance's vCPUs over its GPUs)."
    )
    min_ram_gib_per_gpu = serializers.FloatField(**OPTIONAL, help_text="Least RAM per GPU, GiB.")
    min_disk_gb_per_gpu = serializers.FloatField(**OPTIONAL, help_text="Least disk per GPU, GB.")
    foreign_renter = serializers.BooleanField(
        **OPTIONAL,
        help_text="The renter has no mainland Chinese ID card or phone and pays with a card "
        "issued abroad: only platforms a source says take such a renter.",
    )


class ScenarioSerializer(serializers.Serializer[Any]):
    """One or more tasks, constraints and an objective (README.md, "The scenario")."""

    tasks = TaskSerializer(many=True)
    constraints = ConstraintsSerializer(**OPTIONAL)
    objective = serializers.ChoiceField(choices=OBJECTIVES, **OPTIONAL)
    preset = serializers.CharField(
        **OPTIONAL,
        help_text="The seed article's scenario this is (an id of /api/v1/presets/): the answer "
        "then carries the article's claims checked (`checks`) and the verdict on its pick.",
    )

    def to_internal_value(self, data: object) -> dict[str, Any]:
        # The engine is the one authority on scenarios (the CLI and the form use it too), so
        # here only the outer shape is checked and the body goes to it untouched.
        if not isinstance(data, Mapping):
            raise serializers.ValidationError(
                {NON_FIELD: [_("Send the scenario as a JSON object with a tasks list.")]}
            )
        return dict(data)
