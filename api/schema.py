"""OpenAPI schema details shared by every API view: the error shape and the error responses.

Each operation documents, besides its success response, the error responses any request to it can
get (api/exceptions.py writes them all in one shape), so that a client generated from the schema,
and the schemathesis run in the test suite, know every status and body the API can return.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import build_choice_description_list
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import Direction, OpenApiParameter, OpenApiResponse
from rest_framework import serializers

from advisor.engine import scenario, vocab
from advisor.engine.messages import Code
from api.advice import (
    CheckSerializer,
    ClosestMissSerializer,
    MessageSerializer,
    SuggestionSerializer,
    VerdictSerializer,
)
from platforms.models import (
    BillingUnit,
    Confidence,
    Currency,
    DeliveryForm,
    Interconnect,
    PriceTier,
    SourceKind,
    StorageKind,
    StorageUnit,
)
from wording.choices import values

# Choice sets that several fields share, or whose field name ("unit", "kind") means different
# sets in different objects: each becomes one named enum component. Left to drf-spectacular, they
# would get names made up from field names and hashes, and a warning each.
NAMED_ENUMS = {
    tuple(Currency.values): "Currency",
    tuple(PriceTier.values): "PriceTier",
    tuple(BillingUnit.values): "BillingUnit",
    tuple(StorageUnit.values): "StorageUnit",
    tuple(StorageKind.values): "StorageKind",
    tuple(SourceKind.values): "SourceKind",
    tuple(Confidence.values): "Confidence",
    tuple(DeliveryForm.values): "DeliveryForm",
    tuple(Interconnect.values): "Interconnect",
    tuple(values(vocab.TaskKind)): "TaskKind",
    tuple(values(vocab.PlacementMode)): "PlacementMode",
    tuple(values(vocab.CostBasis)): "CostBasis",
    tuple(scenario.PRECISIONS): "Precision",
    tuple(values(Code)): "MessageCode",
}


class ErrorBodySerializer(serializers.Serializer[Any]):
    status = serializers.IntegerField(help_text="The HTTP status, repeated.")
    code = serializers.CharField(
        help_text="Machine-readable: invalid, parse_error, not_authenticated, "
        "authentication_failed, permission_denied, not_found, method_not_allowed, "
        "not_acceptable, unsupported_media_type, no_fit, throttled, database_unavailable, "
        "query_timeout, server_error."
    )
    message = serializers.CharField(help_text="One sentence for a person.")
    # A field named like Serializer.fields (DRF collects declared fields before that property).
    fields = serializers.DictField(  # type: ignore[assignment]
        child=serializers.ListField(child=serializers.CharField()),
        help_text="Messages per field path, e.g. `tasks[0].precision` or `amount`; "
        "empty when the error is not about a field.",
    )
    detail = MessageSerializer(
        required=False,
        help_text="For the advisor's own errors (400 on a scenario, 422 no fit): the "
        "engine's message as a code with parameters.",
    )
    unpriced_platforms = serializers.ListField(
        child=serializers.DictField(child=serializers.CharField()),
        required=False,
        help_text="422 no fit: the platforms in scope with no current price, as {slug, name}.",
    )
    unpriced = MessageSerializer(
        required=False,
        allow_null=True,
        help_text="422 no fit: the note naming them (code platforms_not_priced), or null.",
    )
    closest_miss = ClosestMissSerializer(
        required=False,
        allow_null=True,
        help_text="422 no fit: the offering that came nearest, and why it does not run it.",
    )
    suggestions = SuggestionSerializer(
        many=True,
        required=False,
        help_text="422 no fit: changes the catalogue answers with recommendations, each as a "
        "scenario ready to post again.",
    )
    preset = serializers.CharField(
        required=False, allow_null=True, help_text="422 no fit: the scenario's preset, if any."
    )
    checks = CheckSerializer(
        many=True, required=False, help_text="422 no fit: a preset's claims, checked."
    )
    verdict = VerdictSerializer(
        required=False, allow_null=True, help_text="422 no fit: the verdict on a preset's pick."
    )


class ErrorSerializer(serializers.Serializer[Any]):
    error = ErrorBodySerializer()


# Status -> when it happens. 400 and 415 only where a request can carry input.
ERRORS = {
    "400": "Invalid input: a query parameter, or the body (`fields` names each bad field).",
    "401": "Missing or invalid credentials (a bad `Authorization: Token ...` header).",
    "403": "Authenticated, but not allowed (staff only), or a session request without CSRF.",
    "404": "No such object or page.",
    "405": "Method not allowed on this resource.",
    "406": "No acceptable representation for the `Accept` header.",
    "415": "Unsupported request content type: send `application/json`.",
    "429": "Too many requests: wait `Retry-After` seconds.",
}
BODY_ONLY = {"415"}


class NamedEnumExtension(OpenApiSerializerFieldExtension):
    """Maps a ChoiceField over a choice set in NAMED_ENUMS to a reference to its named enum."""

    target_class = serializers.ChoiceField

    def _name(self) -> str | None:
        return NAMED_ENUMS.get(tuple(self.target.choices))

    def get_name(self) -> str | None:
        # Blank choices would change the set; such fields keep an inline enum.
        return None if self.target.allow_blank else self._name()

    def map_serializer_field(self, auto_schema: AutoSchema, direction: Direction) -> dict[str, Any]:
        if self.get_name() is None:
            inline: dict[str, Any] = auto_schema._map_serializer_field(
                self.target, direction, bypass_extensions=True
            )
            return inline
        return {
            "type": "string",
            "enum": list(self.target.choices),
            "description": build_choice_description_list(self.target.choices.items()),
        }


class ApiAutoSchema(AutoSchema):
    """AutoSchema that adds the error responses and the throttling header to every operation."""

    def get_tags(self) -> list[str]:
        # /api/v1/<resource>/...: one tag per resource, not one "v1" for everything.
        return [self.path.split("/")[3]]

    def get_operation_id(self) -> str:
        return super().get_operation_id().removeprefix("v1_")

    def get_override_parameters(self) -> list[Any]:
        return [
            *super().get_override_parameters(),
            OpenApiParameter(
                "Retry-After",
                OpenApiTypes.INT,
                location=OpenApiParameter.HEADER,
                response=[429],
                description="Seconds to wait before the next request.",
            ),
            OpenApiParameter(
                "WWW-Authenticate",
                OpenApiTypes.STR,
                location=OpenApiParameter.HEADER,
                response=[401],
                description="The authentication scheme to use (`Token`).",
            ),
        ]

    def _get_response_bodies(self, direction: Direction = "response") -> dict[str, Any]:
        responses = super()._get_response_bodies(direction)
        has_body = self.method in ("POST", "PUT", "PATCH")
        for status, description in ERRORS.items():
            if status in responses or (status in BODY_ONLY and not has_body):
                continue
            # drf-spectacular leaves _get_response_for_code unannotated.
            responses[status] = self._get_response_for_code(  # type: ignore[no-untyped-call]
                OpenApiResponse(ErrorSerializer, description=description), status, None, direction
            )
        return responses
