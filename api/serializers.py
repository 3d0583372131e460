"""Serializers of the JSON API: explicit fields, read-only views of annotated querysets.

Catalogue serializers only read what the viewset's queryset has already fetched or annotated (no
queries of their own). The estimate and advise serializers describe the engine's JSON for the
schema; the engine itself validates the scenario.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from decimal import Decimal
from functools import cached_property
from typing import Any, TypedDict, cast

from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.settings import api_settings

from advisor.engine import scenario, vocab
from platforms.choices import values
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
    PriceObservation,
    PriceTier,
    Source,
    StoragePrice,
)
from platforms.selectors import current_prices_by_unit

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
            "fp32_tflops",
            "fp64_tflops",
            "rt_cores",
            "nvenc",
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
            "interruptible",
            "price",
            "current_prices",
            "source",
        ]

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
        prices = current_prices_by_unit(offering)
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
    """The day a bucket starts, from the database's truncated instant (local midnight)."""

    def to_representation(self, value: datetime) -> str:  # type: ignore[override]
        # `value` is the truncated instant, a datetime; DateField's stubs say a date.
        return super().to_representation(timezone.localtime(value).date())


class PriceBucketSerializer(serializers.Serializer[Any]):
    unit = serializers.ChoiceField(choices=BillingUnit.choices)
    currency = serializers.ChoiceField(choices=Currency.choices)
    period_start = BucketStartField(help_text="First day of the bucket (weeks start Monday).")
    tier = serializers.ChoiceField(choices=PriceTier.choices)
    min = serializers.DecimalField(max_digits=None, decimal_places=AMOUNT["decimal_places"])
    max = serializers.DecimalField(max_digits=None, decimal_places=AMOUNT["decimal_places"])
    avg = serializers.DecimalField(max_digits=None, decimal_places=AMOUNT["decimal_places"])
    count = serializers.IntegerField(help_text="Observations in the bucket.")


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
    model = serializers.CharField(**OPTIONAL, help_text="Preset id, e.g. llama-3.1-70b.")
    params = serializers.FloatField(**OPTIONAL, help_text="Parameter count, without `model`.")
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
    micro_batch = serializers.IntegerField(**OPTIONAL)
    gradient_accumulation = serializers.IntegerField(
        **OPTIONAL,
        help_text="Micro-batches per optimizer step; default 1. Gradients sync (and offloaded "
        "optimizers run) once per step.",
    )
    seq_len = serializers.IntegerField(**OPTIONAL)
    lora_rank = serializers.IntegerField(**OPTIONAL)
    tokens = serializers.FloatField(**OPTIONAL, help_text="Training tokens, for time.")
    context_len = serializers.IntegerField(**OPTIONAL)
    concurrent_sequences = serializers.IntegerField(**OPTIONAL)
    kv_precision = serializers.ChoiceField(choices=scenario.PRECISIONS, **OPTIONAL)
    serving = serializers.ChoiceField(
        choices=scenario.SERVINGS,
        **OPTIONAL,
        help_text="paged (default: vLLM or SGLang, 16-token KV blocks, 90 % of the GPU claimed) or "
        "hf_generate (Transformers generate, concatenated cache held twice).",
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
    gpus = serializers.IntegerField(**OPTIONAL, help_text="GPUs the task spans; default 1.")
    when = serializers.ChoiceField(choices=WHENS, **OPTIONAL)
    hours_per_month = serializers.FloatField(
        **OPTIONAL,
        help_text="Above 0. A service: busy hours a month (default 720, always on). A job "
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
    allow_interruptible = serializers.BooleanField(
        **OPTIONAL, help_text="Propose interruptible (spot) capacity for always-on services too."
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
