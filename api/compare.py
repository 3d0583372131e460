"""`GET /api/v1/offerings/compare/?ids=12&ids=31`: two to four offerings side by side, as the
comparison page shows them (platforms/compare.py), and with `scenario` (a scenario as JSON) each
one's fit, cost, time and placement for it (advisor.services.scenario_on_offerings)."""

from __future__ import annotations

import json
from typing import Any

from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from advisor.engine import vocab
from platforms.compare import MAX_OFFERINGS, MIN_OFFERINGS
from platforms.models import Currency
from wording.choices import values

from .advice import MONEY, PRICE, AssignmentSerializer, MessageSerializer, PlanSerializer
from .serializers import SourceSerializer, StoragePriceSerializer


class CompareQuerySerializer(serializers.Serializer[Any]):
    MANY = ("ids",)

    ids = serializers.ListField(
        child=serializers.IntegerField(min_value=1),
        min_length=MIN_OFFERINGS,
        max_length=MAX_OFFERINGS,
        help_text="Two to four offering ids (`ids=12&ids=31`, or `ids=12,31`).",
    )
    currency = serializers.ChoiceField(
        choices=Currency.choices, required=False, help_text="Every price also in this one."
    )
    scenario = serializers.CharField(
        required=False,
        help_text="A scenario as JSON (the advise contract): each offering's fit, cost, time and "
        "placement for it.",
    )

    def to_internal_value(self, data: Any) -> Any:
        # ids=12,31 as well as ids=12&ids=31.
        if isinstance(data, dict) and isinstance(data.get("ids"), list):
            data = {**data, "ids": [p for v in data["ids"] for p in str(v).split(",") if p]}
        return super().to_internal_value(data)

    def validate_scenario(self, value: str) -> Any:
        try:
            return json.loads(value)
        except ValueError as error:
            raise serializers.ValidationError(_("Not valid JSON.")) from error


class ComparedPriceSerializer(serializers.Serializer[Any]):
    unit = serializers.CharField(source="price.unit")
    tier = serializers.CharField(source="price.tier")
    amount = serializers.DecimalField(**PRICE, source="price.amount")
    currency = serializers.CharField(source="price.currency")
    converted = serializers.DecimalField(
        **PRICE, allow_null=True, help_text="In the asked currency; null without a rate."
    )
    per_gpu_hour = serializers.DecimalField(
        max_digits=None,
        decimal_places=4,
        allow_null=True,
        help_text="Converted, ÷ (hours in the unit × GPUs); a month is 720 hours.",
    )
    last_seen_at = serializers.DateTimeField(source="price.last_seen_at")
    age_days = serializers.IntegerField()
    source = SourceSerializer(source="price.source")  # type: ignore[assignment]  # named like Field.source


class BillingRulesBriefSerializer(serializers.Serializer[Any]):
    metering_seconds = serializers.IntegerField(allow_null=True)
    min_charge = serializers.DecimalField(**PRICE, allow_null=True)
    min_charge_currency = serializers.CharField()
    startup_billed = serializers.BooleanField(allow_null=True)
    idle_mode = serializers.BooleanField(allow_null=True)
    storage_billed_while_stopped = serializers.BooleanField(allow_null=True)
    release_after_stopped_days = serializers.IntegerField(allow_null=True)
    source = SourceSerializer()  # type: ignore[assignment]  # a field named like Field.source


class ScenarioFitSerializer(serializers.Serializer[Any]):
    """The offering against the scenario: its cost, time and placement, or why it cannot run it."""

    fits = serializers.BooleanField()
    reason = MessageSerializer(allow_null=True)
    cost = serializers.DecimalField(**MONEY, allow_null=True)
    cost_basis = serializers.ChoiceField(choices=values(vocab.CostBasis), allow_null=True)
    monthly_cost = serializers.DecimalField(**MONEY, allow_null=True)
    time_hours = serializers.FloatField(allow_null=True)
    plan = PlanSerializer(allow_null=True)
    placement = AssignmentSerializer(many=True)

    def to_representation(self, fit: Any) -> dict[str, Any]:
        rec = fit.recommendation
        return {
            "fits": rec is not None,
            "reason": None if fit.reason is None else MessageSerializer(fit.reason).data,
            "cost": None if rec is None else self.fields["cost"].to_representation(rec.cost),
            "cost_basis": None if rec is None else rec.cost_basis.value,
            "monthly_cost": None
            if rec is None
            else self.fields["monthly_cost"].to_representation(rec.monthly_cost),
            "time_hours": None
            if rec is None or rec.time_hours is None
            else round(rec.time_hours, 3),
            "plan": None if rec is None else PlanSerializer(rec.plan).data,
            "placement": []
            if rec is None
            else AssignmentSerializer(rec.placement.assignments, many=True).data,
        }


class ComparedOfferingSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField(source="offering.pk")
    name = serializers.CharField(source="offering.name_text")
    platform = serializers.CharField(source="offering.platform.slug")
    platform_name = serializers.CharField(source="offering.platform")
    accelerator = serializers.CharField(source="offering.accelerator.slug")
    accelerator_name = serializers.CharField(source="offering.accelerator.name")
    gpu_count = serializers.IntegerField(source="offering.gpu_count")
    vram_per_gpu_gib = serializers.DecimalField(
        max_digits=None, decimal_places=2, source="offering.vram_per_gpu_gib"
    )
    total_vram_gib = serializers.DecimalField(
        max_digits=None, decimal_places=2, source="offering.total_vram_gib"
    )
    bf16_tflops = serializers.FloatField(source="offering.accelerator.bf16_tflops", allow_null=True)
    memory_bandwidth_gbps = serializers.FloatField(
        source="offering.accelerator.memory_bandwidth_gbps", allow_null=True
    )
    vcpus = serializers.IntegerField(source="offering.vcpus", allow_null=True)
    ram_gib = serializers.DecimalField(
        max_digits=None, decimal_places=2, source="offering.ram_gib", allow_null=True
    )
    delivery_form = serializers.CharField(source="offering.delivery_form")
    sharing_mode = serializers.CharField(source="offering.sharing_mode")
    interconnect = serializers.CharField(source="offering.interconnect")
    interruptible = serializers.BooleanField(source="offering.interruptible")
    physically_exclusive = serializers.BooleanField(
        source="offering.platform.physically_exclusive",
        allow_null=True,
        help_text="null: unknown (not stated by any source).",
    )
    prices = ComparedPriceSerializer(many=True)
    cheapest_gpu_hour = serializers.DecimalField(max_digits=None, decimal_places=4, allow_null=True)
    storage = StoragePriceSerializer(many=True)
    billing_rules = BillingRulesBriefSerializer(source="rules", allow_null=True)
    source = SourceSerializer(source="offering.source")  # type: ignore[assignment]  # named like Field.source
    source_age_days = serializers.IntegerField(allow_null=True)
    scenario = serializers.SerializerMethodField(
        help_text="With `scenario`: the offering against it; null without one."
    )

    @extend_schema_field(ScenarioFitSerializer(allow_null=True))
    def get_scenario(self, item: Any) -> dict[str, Any] | None:
        fits = self.context.get("fits")
        if fits is None:
            return None
        return ScenarioFitSerializer(fits[item.offering.pk]).data


class OfferingComparisonSerializer(serializers.Serializer[Any]):
    currency = serializers.CharField()
    offerings = ComparedOfferingSerializer(many=True)


__all__ = ["CompareQuerySerializer", "OfferingComparisonSerializer"]
