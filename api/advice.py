"""Output serializers of the advisor: the engine's typed results as JSON, the one place they are.

`EstimateSerializer(estimate)` and `AdviceReportSerializer(report)` read the engine's dataclasses
(advisor/engine/estimate.py, ranking.py) by attribute; the API views and the CLI commands both
use them, so the JSON is written once and documented by the same classes in the OpenAPI schema.
Every reason, warning, note, formula, fit verdict and suggestion is `{"code", "params",
"message"}` with the message in the active language (the API's `Accept-Language`, English by
default); money is a string with two decimals (a price with the six it is stored with), sizes
are bytes.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from decimal import ROUND_HALF_UP
from typing import Any, TypedDict, cast

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from advisor.engine import serving, vocab
from advisor.engine.messages import Code, Message
from advisor.engine.plans import SAVING_THRESHOLD, legs_of
from platforms.models import PriceObservation
from wording import messages
from wording.choices import values

COMPONENTS = ("weights", "gradients", "optimizer", "activations", "kv_cache", "overhead")
GiB = 2**30


class _Money(TypedDict):
    max_digits: None
    decimal_places: int
    rounding: str


MONEY: _Money = {"max_digits": None, "decimal_places": 2, "rounding": ROUND_HALF_UP}
# A price keeps the digits the catalogue stores it with (a per-second $0.000164, not $0.00).
PRICE: _Money = {
    "max_digits": None,
    "decimal_places": PriceObservation._meta.get_field("amount").decimal_places,
    "rounding": ROUND_HALF_UP,
}


class MessageSerializer(serializers.Serializer[Any]):
    """A message of the engine: a code, its parameters, and the sentence in the reader's
    language."""

    code = serializers.ChoiceField(
        choices=values(Code), help_text="Stable: decide on this, never on the message text."
    )
    params = serializers.DictField(
        help_text="Numbers stay numbers: a size or time is {value, unit}, money is "
        "{amount, currency, per}, a nested message is {code, params, message}."
    )
    message = serializers.CharField(help_text="The sentence in the language of Accept-Language.")

    def to_representation(self, instance: Message) -> dict[str, object]:
        return messages.as_json(instance)


def message_list(**kwargs: Any) -> MessageSerializer:
    return MessageSerializer(many=True, **kwargs)


class RoundedFloatField(serializers.FloatField):
    """A float rounded for output (the engine keeps full precision)."""

    def __init__(self, places: int, **kwargs: Any) -> None:
        self.places = places
        super().__init__(**kwargs)

    # DRF's FloatField represents a float as a float; its stubs say str.
    def to_representation(self, value: float) -> float:  # type: ignore[override]
        return round(float(value), self.places)


class OmitNoneSerializer(serializers.Serializer[Any]):
    """Leaves out the `optional` fields whose value is None, as the JSON always has."""

    optional: tuple[str, ...] = ()

    def to_representation(self, instance: Any) -> dict[str, Any]:
        out = super().to_representation(instance)
        for key in self.optional:
            if out.get(key) is None:
                out.pop(key, None)
        return out


class MemorySerializer(serializers.Serializer[Any]):
    weights = serializers.IntegerField()
    gradients = serializers.IntegerField()
    optimizer = serializers.IntegerField()
    activations = serializers.IntegerField()
    kv_cache = serializers.IntegerField()
    overhead = serializers.IntegerField()
    total = serializers.IntegerField()


class MemoryGibSerializer(serializers.Serializer[Any]):
    weights = serializers.FloatField()
    gradients = serializers.FloatField()
    optimizer = serializers.FloatField()
    activations = serializers.FloatField()
    kv_cache = serializers.FloatField()
    overhead = serializers.FloatField()
    total = serializers.FloatField()

    def to_representation(self, instance: Any) -> dict[str, float]:
        keys = (*COMPONENTS, "total")
        return {key: round(getattr(instance, key) / GiB, 2) for key in keys}


class OnResultSerializer(serializers.Serializer[Any]):
    accelerator = serializers.CharField()
    name = serializers.CharField()
    count = serializers.IntegerField()
    mig_profile = serializers.CharField(allow_null=True)
    capacity_gib = serializers.FloatField()
    confidence = serializers.CharField()


class FitSerializer(serializers.Serializer[Any]):
    fits = serializers.BooleanField()
    usable_bytes = serializers.IntegerField()
    headroom_bytes = serializers.IntegerField(help_text="Negative when it does not fit.")
    reason = MessageSerializer()
    suggestions = message_list(help_text="What would fit, when it does not.")


class TimeSerializer(serializers.Serializer[Any]):
    """A training run's time: expected, and the range published runs of the hardware class give
    (docs/time-model.md)."""

    hours = RoundedFloatField(2, help_text="Expected wall-clock hours of the run.")
    low_hours = RoundedFloatField(
        2, help_text="Fast end: the highest MFU published for the class, communication hidden."
    )
    high_hours = RoundedFloatField(
        2, help_text="Slow end: the lowest MFU published for the class, nothing hidden."
    )
    steps = serializers.IntegerField(
        help_text="Optimizer steps: tokens ÷ (micro_batch × gradient_accumulation × seq_len "
        "× GPUs)."
    )
    seconds_per_step = RoundedFloatField(
        3, help_text="Expected seconds per optimizer step (what a trainer prints as s/it)."
    )
    tokens_per_step = serializers.IntegerField(help_text="Tokens per optimizer step, all GPUs.")
    mfu = serializers.FloatField(help_text="Expected utilisation of the FLOPs executed.")
    mfu_low = serializers.FloatField(help_text="Utilisation at the slow end.")
    mfu_high = serializers.FloatField(help_text="Utilisation at the fast end.")
    compute_seconds = RoundedFloatField(1)
    comm_seconds = RoundedFloatField(1, help_text="Communication not hidden behind compute.")
    offload_seconds = RoundedFloatField(
        1, help_text="PCIe transfers and CPU optimizer steps of offloading, not hidden."
    )
    nodes = serializers.IntegerField(help_text="Machines the task spans.")
    scaling_efficiency = RoundedFloatField(3)
    warnings = message_list()
    notes = message_list()


class FixedTimeSerializer(serializers.Serializer[Any]):
    """A fixed task's time from frames × seconds per frame on its reference card, scaled by the
    stated figure; the range takes the other roofline (docs/time-model.md, "Fixed tasks")."""

    hours = RoundedFloatField(2, help_text="Expected wall-clock hours of all frames.")
    low_hours = RoundedFloatField(2, help_text="Fast end.")
    high_hours = RoundedFloatField(2, help_text="Slow end.")
    frames = serializers.FloatField()
    seconds_per_frame = RoundedFloatField(3, help_text="Expected seconds per frame, one GPU here.")
    speedup = RoundedFloatField(3, help_text="Against the reference card, by scale_by.")
    scale_by = serializers.CharField()
    gpus = serializers.IntegerField(help_text="GPUs rendering separate frames.")
    notes = message_list()


class SpreadSerializer(serializers.Serializer[Any]):
    """A serving figure at the ends of the engine's range and expected (serving.Spread)."""

    low = RoundedFloatField(4)
    expected = RoundedFloatField(4)
    high = RoundedFloatField(4)


class ServingSerializer(serializers.Serializer[Any]):
    """What an inference task serves on the hardware (advisor/engine/serving.py): the decode and
    prefill speeds are upper bounds; output_tokens_per_s and ttft what the engine family's
    published runs reach, as a range."""

    concurrency = serializers.IntegerField(help_text="The task's concurrent_sequences.")
    stream_tokens_per_s = RoundedFloatField(
        1, help_text="Each sequence's decode tokens/s at that concurrency: an upper bound."
    )
    aggregate_tokens_per_s = RoundedFloatField(
        1,
        help_text="Output tokens/s of all sequences together, an upper bound: decode only, each "
        "sequence halfway through its context on average.",
    )
    bound = serializers.ChoiceField(
        choices=["memory", "compute"], help_text="What limits a decode step."
    )
    step_seconds = RoundedFloatField(6, help_text="One decode step of all sequences.")
    comm_seconds = RoundedFloatField(
        6, help_text="Tensor-parallel all-reduces in each step (2 per layer)."
    )
    max_concurrency = serializers.IntegerField(
        help_text="Sequences of context_len that fit the free memory of the GPU or slice."
    )
    prompt_tokens = serializers.IntegerField(
        help_text="The workload's prompt per request (of the time to first token too)."
    )
    prefill_tokens_per_s = RoundedFloatField(
        0, allow_null=True, help_text="Prompt tokens/s at dense peak: an upper bound."
    )
    ttft_seconds = RoundedFloatField(
        4,
        allow_null=True,
        help_text="Time to first token of one such prompt alone at the engine's expected "
        "efficiency (ttft.expected).",
    )
    notes = message_list()
    output_tokens = serializers.IntegerField(help_text="The workload's output per request.")
    engine = serializers.CharField(
        help_text="The engine family whose published runs apply (the task's serving_engine): "
        + ", ".join(serving.ENGINES)
        + "."
    )
    output_tokens_per_s = SpreadSerializer(
        allow_null=True,
        help_text="Output tokens/s of all sequences with every prompt's prefill, at the engine's "
        "slow end (low), expected and fast end (high): what published runs reach.",
    )
    prefill_share = RoundedFloatField(
        3, help_text="Share of the GPU time the prompts' prefill takes (expected)."
    )
    ttft = SpreadSerializer(
        allow_null=True,
        help_text="Time to first token, seconds: fast end (low), expected, slow end (high).",
    )


@extend_schema_field(
    {"type": "object", "additionalProperties": {"$ref": "#/components/schemas/Message"}}
)
class FormulasField(serializers.Field[Any, Any, dict[str, object], Any]):
    """Component -> the arithmetic behind it, as a message."""

    def to_representation(self, value: dict[str, Message]) -> dict[str, object]:
        return {key: messages.as_json(m) for key, m in value.items()}


class TaskEstimateSerializer(OmitNoneSerializer):
    """One task's memory plan; with `on`, its fit, time and decode speed on that hardware."""

    optional = (
        "offloaded_bytes",
        "on",
        "fit",
        "time",
        "decode_tokens_per_s",
        "serving",
        "fixed_time",
    )

    name = serializers.CharField()
    kind = serializers.ChoiceField(choices=values(vocab.TaskKind))
    gpus = serializers.IntegerField()
    per_gpu = MemorySerializer(help_text="Bytes on each GPU by component.")
    per_gpu_gib = MemoryGibSerializer(source="per_gpu", help_text="The same in GiB, rounded.")
    sharded = serializers.BooleanField(source="plan.sharded")
    notes = message_list(source="plan.notes")
    formulas = FormulasField(source="plan.formulas", help_text="The arithmetic per component.")
    offloaded_bytes = serializers.IntegerField(
        source="plan.offloaded_bytes", required=False, help_text="Held in host RAM, when any."
    )
    on = OnResultSerializer(required=False, help_text="With `on`: the hardware evaluated.")
    fit = FitSerializer(required=False, help_text="With `on`: whether the task fits.")
    time = TimeSerializer(required=False, help_text="With `on`, for training with `tokens`.")
    decode_tokens_per_s = RoundedFloatField(
        1,
        required=False,
        help_text="With `on`, for inference: each stream's decode tokens/s at the task's "
        "concurrency (one stream when concurrent_sequences is 1), an upper bound.",
    )
    serving = ServingSerializer(
        required=False, help_text="With `on`, for inference: aggregate speed, concurrency, TTFT."
    )
    fixed_time = FixedTimeSerializer(
        required=False, help_text="With `on`, for a fixed task with frames: its time there."
    )

    def to_representation(self, instance: Any) -> dict[str, Any]:
        out = super().to_representation(instance)
        if not out.get("offloaded_bytes"):
            out.pop("offloaded_bytes", None)
        return out


class EstimateSerializer(serializers.Serializer[Any]):
    """`POST /api/v1/estimate/` and `manage.py estimate`: each task's memory plan."""

    tasks = TaskEstimateSerializer(many=True)
    warnings = message_list()


class DayField(serializers.DateField):
    """The day of a datetime (an exchange rate is dated by day)."""

    # None for no datetime, as DRF's DateField does; its stubs say str.
    def to_representation(self, value: Any) -> str | None:  # type: ignore[override]
        return None if value is None else value.date().isoformat()


class PlanSerializer(serializers.Serializer[Any]):
    unit = serializers.CharField(help_text='A billing unit, or "mixed".')
    units = serializers.ListField(
        child=serializers.CharField(), help_text="The unit each instance is billed by."
    )
    price = serializers.DecimalField(**PRICE, allow_null=True)
    basis = serializers.ChoiceField(
        choices=values(vocab.CostBasis), help_text="What `cost` covers: the whole job or a month."
    )
    cost = serializers.DecimalField(**MONEY, help_text="The plan on `basis`, in `currency`.")
    monthly = serializers.DecimalField(**MONEY, help_text="The plan in the busiest month.")
    currency = serializers.ChoiceField(choices=values(vocab.Currency))
    converted = serializers.DecimalField(**MONEY, help_text="`cost` in the scenario's currency.")
    converted_monthly = serializers.DecimalField(**MONEY)
    converted_currency = serializers.ChoiceField(
        source="target_currency", choices=values(vocab.Currency)
    )
    rate = serializers.CharField(allow_null=True)
    rate_date = DayField(allow_null=True, help_text="The exchange rate's date.")
    rate_source = serializers.CharField(allow_blank=True)


class AssignmentSerializer(serializers.Serializer[Any]):
    task = serializers.CharField()
    instance = serializers.IntegerField(help_text="0-based.")
    gpus = serializers.ListField(
        child=serializers.IntegerField(), help_text="GPU indices on `instance`."
    )
    machines = serializers.IntegerField(
        help_text="Instances the task runs on: `instance` and the ones after it, all its own (more "
        "than 1 for a task over more GPUs than an instance has)."
    )
    gpu_count = serializers.IntegerField(help_text="The task's GPUs over all its instances.")
    mode = serializers.ChoiceField(choices=values(vocab.PlacementMode))
    mig_profile = serializers.CharField(allow_null=True)
    mig_start = serializers.IntegerField(allow_null=True)
    pooled_share = RoundedFloatField(4, allow_null=True)
    usable_bytes = serializers.IntegerField()
    used_bytes = serializers.IntegerField()
    headroom_bytes = serializers.IntegerField()


@extend_schema_field({"type": "object", "additionalProperties": {"type": "number"}})
class DecodeField(serializers.Field[Any, Any, dict[str, float], Any]):
    """Task name -> each stream's decode tokens per second at the task's concurrency (an upper
    bound; one stream when concurrent_sequences is 1)."""

    def to_representation(self, value: tuple[tuple[str, float], ...]) -> dict[str, float]:
        return {name: round(v, 1) for name, v in value}


class TaskServingSerializer(serializers.Serializer[Any]):
    """An inference task on a recommendation: what it serves there and its output's cost."""

    task = serializers.CharField()
    estimate = ServingSerializer()
    cost_per_million_tokens = serializers.DecimalField(
        max_digits=None,
        decimal_places=4,
        rounding=ROUND_HALF_UP,
        allow_null=True,
        help_text="The busiest month's charge of the task's instance (its share by GPU-hours when "
        "other tasks share it) ÷ the output tokens it generates in its busy hours that month at "
        "the expected rate with its prompts' prefill, per million, in `currency`.",
    )
    currency = serializers.ChoiceField(choices=values(vocab.Currency))
    instance_shared = serializers.BooleanField(
        help_text="Other tasks share the instance: its charge is split among them by GPU-hours."
    )
    cost_low = serializers.DecimalField(
        max_digits=None,
        decimal_places=4,
        rounding=ROUND_HALF_UP,
        allow_null=True,
        help_text="The same at the engine's fast end (its published runs' best).",
    )
    cost_high = serializers.DecimalField(
        max_digits=None,
        decimal_places=4,
        rounding=ROUND_HALF_UP,
        allow_null=True,
        help_text="The same at the engine's slow end.",
    )
    input_cost_per_million = serializers.DecimalField(
        max_digits=None,
        decimal_places=4,
        rounding=ROUND_HALF_UP,
        allow_null=True,
        help_text="The charge split by GPU time: the prompts' prefill share per million input "
        "tokens (expected).",
    )
    output_cost_per_million = serializers.DecimalField(
        max_digits=None,
        decimal_places=4,
        rounding=ROUND_HALF_UP,
        allow_null=True,
        help_text="The decode's share per million output tokens (expected).",
    )


class IdleSerializer(serializers.Serializer[Any]):
    """The time between runs (advisor/engine/idle.py): how it is spent, the cheapest way the
    platform's billing rules allow, and what it and the billed start-ups cost."""

    way = serializers.ChoiceField(
        choices=values(vocab.IdleWay),
        help_text="stopped; idle_mode or kept_running: stopped, then kept powered on past the "
        "platform's release window; released: stopped and released with its data; prepaid: the "
        "plan already pays for it. Of the instance with the longest gap.",
    )
    hours = RoundedFloatField(
        3, help_text="Hours held but not busy on `cost_basis`, all instances."
    )
    runs = RoundedFloatField(3, help_text="Runs of that instance on `cost_basis`.")
    gap_hours = RoundedFloatField(3, help_text="Its time between two runs.")
    kept_hours = RoundedFloatField(
        3, help_text="Hours kept powered on past the release window, all instances."
    )
    cost = serializers.DecimalField(
        **MONEY, help_text="What keeping them on adds to `cost`, in the scenario's currency."
    )
    stopped_storage_cost = serializers.DecimalField(
        **MONEY,
        source="stopped_storage",
        allow_null=True,
        help_text="Of `storage_cost`, the part billed while the instances are stopped.",
    )
    startup_hours = RoundedFloatField(3, help_text="Start-up time billed, all instances.")
    startup_cost = serializers.DecimalField(
        **MONEY, help_text="What the billed start-up time adds to the plan (in `plan`)."
    )
    message = MessageSerializer()
    notes = message_list()


class TaskShareSerializer(serializers.Serializer[Any]):
    """The part of one task's work a leg runs (advisor/engine/plans.py, "Share splits")."""

    task = serializers.CharField()
    fraction = RoundedFloatField(4, help_text="Of the task's work (its tokens or frames).")
    hours = RoundedFloatField(3, help_text="The share's hours on this leg's offering.")
    total_hours = RoundedFloatField(3, help_text="The whole task's hours on this offering.")
    unit = serializers.CharField(help_text="The base leg's prepaid billing unit.")
    periods = serializers.IntegerField(
        help_text="Whole prepaid periods the base leg buys (0 on the metered leg)."
    )
    base = serializers.BooleanField(help_text="The prepaid base (else the metered rest).")


BOOKING_URL = (
    "Where to book it: its page or price list on its platform's own site where a source cites "
    'one, else the platform\'s site; "" when the platform states none.'
)


class LegSerializer(serializers.Serializer[Any]):
    """One offering of a plan, with its billing plan, the tasks it runs and what it costs."""

    platform = serializers.CharField()
    platform_name = serializers.CharField()
    offering_id = serializers.IntegerField()
    offering = serializers.CharField(source="offering_name")
    url = serializers.CharField(source="offering_url", help_text=BOOKING_URL)
    accelerator = serializers.CharField()
    instances = serializers.IntegerField()
    gpus_per_instance = serializers.IntegerField()
    plan = PlanSerializer()
    tasks = serializers.SerializerMethodField(
        help_text="The tasks it runs, by name; a task it runs a share of says how much, in the "
        'reader\'s language ("train: 720 h of 1,000 h"; its figures are in `shares`).'
    )
    shares = TaskShareSerializer(
        many=True,
        help_text="The tasks it runs a share of (a share split: the hours that fill whole "
        "prepaid periods on one leg, the rest metered on the other).",
    )
    cost = serializers.DecimalField(
        **MONEY, help_text="This leg on the plan's cost basis, storage on its platform included."
    )
    monthly_cost = serializers.DecimalField(**MONEY, help_text="This leg in the busiest month.")
    storage_cost = serializers.DecimalField(**MONEY, allow_null=True)
    time_hours = RoundedFloatField(3, allow_null=True, help_text="Its longest training time.")
    price_source_kind = serializers.CharField()
    vendor_claim = serializers.BooleanField()
    placement = AssignmentSerializer(many=True, source="placement.assignments")

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_tasks(self, leg: Any) -> list[str]:
        return messages.texts(leg.task_labels())


class ComparisonSerializer(serializers.Serializer[Any]):
    cost = serializers.DecimalField(**MONEY, help_text="More than #1 (negative: less).")
    time_hours = RoundedFloatField(3, allow_null=True, help_text="Longer than #1.")
    tied = serializers.BooleanField(help_text="Within 2 % of #1 on the objective.")


class RecommendationSerializer(serializers.Serializer[Any]):
    rank = serializers.IntegerField()
    offering_id = serializers.IntegerField()
    offering = serializers.CharField(source="offering_name")
    url = serializers.CharField(source="offering_url", help_text=BOOKING_URL)
    platform = serializers.CharField()
    platform_name = serializers.CharField()
    accelerator = serializers.CharField()
    instances = serializers.IntegerField()
    gpus_per_instance = serializers.IntegerField()
    plan = PlanSerializer()
    cost = serializers.DecimalField(
        **MONEY,
        help_text="What is ranked: plan, storage and keeping the instances between runs "
        "(`idle.cost`) on `cost_basis`.",
    )
    cost_basis = serializers.ChoiceField(choices=values(vocab.CostBasis))
    months = serializers.IntegerField(help_text="Months the costed run spans.")
    monthly_cost = serializers.DecimalField(**MONEY, help_text="Plan and storage, busiest month.")
    storage_cost = serializers.DecimalField(**MONEY, allow_null=True)
    storage_assumed = serializers.BooleanField(
        help_text="No storage price on this platform: the median of the known ones is assumed."
    )
    job_cost = serializers.DecimalField(**MONEY, allow_null=True)
    job_cost_low = serializers.DecimalField(
        **MONEY, allow_null=True, help_text="The job cost at the fast end of the time range."
    )
    job_cost_high = serializers.DecimalField(
        **MONEY, allow_null=True, help_text="The job cost at the slow end of the time range."
    )
    time_hours = RoundedFloatField(3, allow_null=True, help_text="Expected training hours.")
    time_low_hours = RoundedFloatField(
        3, allow_null=True, help_text="Fast end of the training time range."
    )
    time_high_hours = RoundedFloatField(
        3, allow_null=True, help_text="Slow end of the training time range."
    )
    headroom_bytes = serializers.IntegerField(allow_null=True)
    isolation = serializers.ListField(child=serializers.ChoiceField(values(vocab.PlacementMode)))
    price_age_days = serializers.IntegerField()
    price_source = serializers.CharField()
    price_source_kind = serializers.CharField()
    vendor_claim = serializers.BooleanField(help_text="Facts or prices from the platform itself.")
    stale = serializers.BooleanField(help_text="A chosen price is older than the staleness rule.")
    pareto = serializers.BooleanField()
    regions = serializers.ListField(
        child=serializers.CharField(), help_text="Regions with the same offer at the same price."
    )
    vs_first = ComparisonSerializer(allow_null=True, help_text="Against #1; null for #1.")
    instance_hours = serializers.ListField(
        child=RoundedFloatField(3),
        help_text="Busy hours of each instance in the busiest month, in the order of plan.units.",
    )
    placement = AssignmentSerializer(many=True, source="placement.assignments")
    decode_tokens_per_s = DecodeField()
    serving = TaskServingSerializer(
        many=True, help_text="Each inference task: aggregate speed, concurrency, TTFT, cost."
    )
    reasons = message_list()
    warnings = message_list()
    idle = IdleSerializer(
        allow_null=True,
        help_text="The time between runs and its cost, by the platform's billing rules; null "
        "when the instances are never idle.",
    )
    legs = serializers.SerializerMethodField(
        help_text="The recommendation as a plan of legs: one offering is a plan of one leg."
    )

    @extend_schema_field(LegSerializer(many=True))
    def get_legs(self, rec: Any) -> list[dict[str, Any]]:
        # One LegSerializer for every recommendation, its fields built once (DRF copies a
        # serializer's declared fields for each new instance; the representation keeps no state).
        return [_LEG.to_representation(leg) for leg in legs_of(rec)]


_LEG = LegSerializer()


class PlanOfLegsSerializer(serializers.Serializer[Any]):
    """A plan of one or more legs (advisor/engine/plans.py)."""

    # A field named like Field.label (DRF collects declared fields before that attribute).
    label = MessageSerializer(help_text="The legs in a few words (Plan.label()).")  # type: ignore[assignment]
    legs = LegSerializer(many=True)
    cost = serializers.DecimalField(**MONEY, help_text="All legs on `basis`.")
    monthly_cost = serializers.DecimalField(**MONEY, help_text="All legs, busiest month.")
    time_hours = RoundedFloatField(3, allow_null=True, help_text="The slowest leg's training.")
    currency = serializers.ChoiceField(choices=values(vocab.Currency))
    basis = serializers.ChoiceField(choices=values(vocab.CostBasis))
    across_platforms = serializers.BooleanField()


class PlanSearchSerializer(serializers.Serializer[Any]):
    """Plans of two legs across platforms: the one proposed, if any, and why."""

    plan = PlanOfLegsSerializer(
        allow_null=True,
        help_text="The plan across platforms proposed: it costs more than `threshold` less than "
        "the best single-platform plan. Null when none does.",
    )
    best_cross = PlanOfLegsSerializer(
        allow_null=True, help_text="The cheapest plan across two platforms, proposed or not."
    )
    single = PlanOfLegsSerializer(
        allow_null=True,
        help_text="The best single-platform plan: one offering, or two on one platform.",
    )
    saving = serializers.DecimalField(
        **MONEY, allow_null=True, help_text="single.cost - best_cross.cost (negative: more)."
    )
    saving_fraction = RoundedFloatField(4, allow_null=True, help_text="`saving` ÷ single.cost.")
    threshold = serializers.SerializerMethodField(help_text="The saving a plan must beat.")
    splits = serializers.ListField(
        child=serializers.ListField(child=serializers.ListField(child=serializers.CharField())),
        help_text="The splits of the tasks in two that were tried, by task name; a task on "
        "both sides is a share split (its whole prepaid periods on one leg, the rest on the "
        "other).",
    )
    note = MessageSerializer(help_text="What was found: by how much and why, or why none wins.")
    details = message_list(help_text="Storage on both sides and moving the data.")

    def get_threshold(self, search: Any) -> float:
        return float(SAVING_THRESHOLD)


class CheckSerializer(serializers.Serializer[Any]):
    """One claim of the seed article, checked with arithmetic (advisor/engine/premises.py)."""

    id = serializers.CharField()
    claim = MessageSerializer(help_text="The article's claim, in the reader's language.")
    verdict = serializers.ChoiceField(choices=["holds", "does_not_hold", "cannot_tell"])
    holds = serializers.BooleanField(allow_null=True, help_text="null: cannot be told here.")
    lines = message_list(help_text="The arithmetic, a message a line.")


class VerdictSerializer(serializers.Serializer[Any]):
    """The article's own pick for the preset, priced for the scenario, against the answer."""

    message = MessageSerializer()
    pick_wins = serializers.BooleanField(
        allow_null=True,
        help_text="true: the article's pick is the answer or within 2 % of it; false: another "
        "plan beats it; null: they cannot be compared.",
    )
    pick = PlanOfLegsSerializer(allow_null=True, help_text="The article's pick, priced.")
    best = PlanOfLegsSerializer(allow_null=True, help_text="The advisor's answer.")
    saving = serializers.DecimalField(
        **MONEY, allow_null=True, help_text="What the pick costs more than the answer."
    )
    speedup = RoundedFloatField(3, allow_null=True, help_text="Pick time ÷ answer time.")
    priced_part = PlanOfLegsSerializer(
        allow_null=True, help_text="Where part of the pick has no price: the rest, priced."
    )


def preset_extras(report: Any) -> dict[str, Any]:
    """`preset`, `checks` and `verdict` of a report: in the answer and in its 422 alike."""
    return {
        "preset": report.scenario.preset,
        "checks": CheckSerializer(report.checks, many=True).data,
        "verdict": None if report.verdict is None else VerdictSerializer(report.verdict).data,
    }


class ClosestMissSerializer(serializers.Serializer[Any]):
    reason = serializers.ChoiceField(choices=values(Code))
    offering_id = serializers.IntegerField()
    platform = serializers.CharField()
    accelerator = serializers.CharField()
    message = MessageSerializer(source="label")


class SuggestionBestSerializer(serializers.Serializer[Any]):
    offering_id = serializers.IntegerField()
    offering = serializers.CharField(source="offering_name")
    platform = serializers.CharField()
    platform_name = serializers.CharField()
    cost = serializers.DecimalField(**MONEY)
    cost_basis = serializers.ChoiceField(choices=values(vocab.CostBasis))
    currency = serializers.CharField(source="plan.target_currency")


class SuggestionSerializer(serializers.Serializer[Any]):
    """A change that would fit: post `scenario` again to get its recommendations."""

    change = MessageSerializer()
    scenario = serializers.DictField(help_text="The scenario with the change, as contract JSON.")
    best = SuggestionBestSerializer(help_text="What it then recommends first.")


def no_fit_extras(report: Any) -> dict[str, Any]:
    """What a 422 adds to the error body: the closest miss, the changes that would fit (each a
    scenario ready to post again), and for a preset its checks and verdict."""
    closest = report.no_fit.closest_miss if report.no_fit is not None else None
    return {
        "closest_miss": None if closest is None else ClosestMissSerializer(closest).data,
        "suggestions": SuggestionSerializer(report.suggestions, many=True).data,
        **preset_extras(report),
    }


class PresetAnswerSerializer(serializers.Serializer[Any]):
    """What the advisor answers for a preset's scenario, in short (post `scenario` to advise for
    the whole answer)."""

    status = serializers.IntegerField(
        help_text="What advise answers: 200, or 422 when nothing fits."
    )
    first = SuggestionBestSerializer(allow_null=True, help_text="Its first recommendation.")
    plans = MessageSerializer(
        allow_null=True, help_text="The plans across platforms: what was found, or why none wins."
    )
    no_fit = MessageSerializer(allow_null=True, help_text="Why nothing fits, when nothing does.")


class PresetSerializer(serializers.Serializer[Any]):
    """A scenario of the seed article, its claim, and the product's verdict on the catalogue as
    it stands."""

    id = serializers.CharField(source="preset.slug")
    url = serializers.SerializerMethodField()
    title = serializers.CharField(source="preset.title")
    summary = serializers.CharField(source="preset.summary")
    claim = serializers.CharField(
        source="preset.article", allow_null=True, help_text="The article's claim, paraphrased."
    )
    quote = serializers.CharField(
        source="preset.quote", help_text="The article's own words (Chinese, as published)."
    )
    pick = serializers.CharField(
        source="pick_label", allow_null=True, help_text="What the article recommends for it."
    )
    scenario = serializers.DictField(
        source="preset.named_scenario",
        help_text="Contract JSON naming its preset: post it to /api/v1/advise/ for the whole "
        "answer, with the checks and the verdict.",
    )
    checks = CheckSerializer(many=True, source="report.checks")
    verdict = VerdictSerializer(allow_null=True, source="report.verdict")
    answer = PresetAnswerSerializer()

    def get_url(self, item: Any) -> str:
        return reverse("api:preset-detail", args=[item.preset.slug])


class PresetItem:
    """A preset with the report of its scenario, as PresetSerializer reads it."""

    def __init__(self, preset: Any, report: Any) -> None:
        self.preset = preset
        self.report = report
        self.pick_label = None if preset.pick is None else str(preset.pick.label)
        advice = report.advice
        first = advice.recommendations[0] if advice is not None and advice.recommendations else None
        self.answer = {
            "status": 422 if report.no_fit is not None else 200,
            "first": first,
            "plans": None if report.plans is None else report.plans.note,
            "no_fit": None if report.no_fit is None else report.no_fit.detail,
        }


class RejectionSerializer(serializers.Serializer[Any]):
    code = serializers.ChoiceField(choices=values(Code))
    message = serializers.CharField()
    count = serializers.IntegerField()

    def to_representation(self, instance: tuple[Code, int]) -> dict[str, object]:
        code, count = instance
        return {"code": code.value, "message": messages.render(Message(code)), "count": count}


class UnpricedPlatformSerializer(serializers.Serializer[Any]):
    slug = serializers.CharField()
    name = serializers.CharField()


def unpriced_platforms(platforms: Sequence[tuple[str, str]]) -> list[dict[str, str]]:
    return [{"slug": slug, "name": name} for slug, name in platforms]


class AdviceReportSerializer(serializers.Serializer[Any]):
    """`POST /api/v1/advise/` and `manage.py advise`: the memory plan and the ranking."""

    estimate = EstimateSerializer()
    as_of = serializers.DateTimeField(source="advice.as_of")
    cost_basis = serializers.ChoiceField(
        source="advice.cost_basis",
        choices=values(vocab.CostBasis),
        help_text="job: one-off jobs, costed for their whole run; month: anything recurs.",
    )
    objective = serializers.ChoiceField(source="advice.objective", choices=values(vocab.Objective))
    currency = serializers.ChoiceField(source="advice.currency", choices=values(vocab.Currency))
    considered = serializers.IntegerField(
        source="advice.considered", help_text="Offerings that passed the constraints."
    )
    fitting = serializers.IntegerField(
        source="advice.fitting", help_text="Offerings that can run the scenario."
    )
    rejected = serializers.SerializerMethodField(help_text="Offerings left out, by reason.")
    pareto = serializers.ListField(
        source="advice.pareto",
        child=serializers.IntegerField(),
        help_text="Offering ids on the cost/time Pareto front.",
    )
    recommendations = RecommendationSerializer(many=True, source="advice.recommendations")
    oldest_price_at = serializers.DateTimeField(
        source="advice.oldest_price_at",
        allow_null=True,
        help_text="How fresh the answer is: when the oldest price it uses was seen.",
    )
    oldest_price_age_days = serializers.IntegerField(
        source="advice.oldest_price_age_days", allow_null=True
    )
    unpriced_platforms = serializers.SerializerMethodField(
        help_text="Platforms in scope with no current price: not ranked, and said so."
    )
    unpriced = MessageSerializer(
        source="advice.unpriced_message",
        allow_null=True,
        help_text="The note naming them (code platforms_not_priced); null when there are none.",
    )
    one_card = MessageSerializer(
        source="advice.one_card_message",
        allow_null=True,
        help_text="With a task over several GPUs: the platforms that list single cards and state "
        "no host size, so rented one card per instance (code platforms_one_card); null otherwise.",
    )

    plans = PlanSearchSerializer(
        allow_null=True,
        help_text="Plans of two legs across platforms (null for a single task, unless it is a "
        "job longer than a prepaid period whose whole periods can be split off): the one "
        "proposed, if any, by how much it beats the best single-platform plan, and why.",
    )
    preset = serializers.CharField(
        source="scenario.preset", allow_null=True, help_text="The scenario's preset, if any."
    )
    checks = CheckSerializer(
        many=True, help_text="The seed article's claims this preset tests, with the arithmetic."
    )
    verdict = VerdictSerializer(
        allow_null=True, help_text="For a preset: the article's own pick against the answer."
    )

    def to_representation(self, instance: Any) -> dict[str, Any]:
        # Hundreds of messages and figures in one language: read once (messages.one_language).
        with messages.one_language():
            return super().to_representation(instance)

    @extend_schema_field(UnpricedPlatformSerializer(many=True))
    def get_unpriced_platforms(self, report: Any) -> list[dict[str, str]]:
        return unpriced_platforms(report.advice.unpriced_platforms)

    @extend_schema_field(RejectionSerializer(many=True))
    def get_rejected(self, report: Any) -> list[dict[str, object]]:
        rejected = sorted(report.advice.rejected.items(), key=lambda item: (-item[1], item[0]))
        # many=True makes .data a ReturnList of dicts; the stubs type it as a ReturnDict.
        return cast(list[dict[str, object]], RejectionSerializer(rejected, many=True).data)


# One AdviceReportSerializer per thread (advice_report_json).
_SERIALIZERS = threading.local()


def advice_report_json(report: Any) -> dict[str, Any]:
    """`AdviceReportSerializer(report).data` as a plain dict, by one serializer per thread: DRF
    deep-copies a serializer's declared fields for every new one, and this tree of some 340
    bound fields took 3.6 ms of the 12 an answer's JSON took at 10,000 offerings. No field of it
    reads the serializer's context or keeps anything between reports (tests/api compare the two
    on every kind of answer), so the tree is built once and read for each report."""
    serializer = getattr(_SERIALIZERS, "advice", None)
    if serializer is None:
        serializer = _SERIALIZERS.advice = AdviceReportSerializer()
    return serializer.to_representation(report)
