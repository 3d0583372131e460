"""GET /api/v1/models/: the model catalogue (advisor/engine/model_catalogue.py), the names a
scenario's `model` takes, each with its parameter count, where it comes from and its source;
the models that cannot be picked are listed too, with the reason."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import exceptions, serializers, viewsets
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from advisor.engine.messages import msg
from advisor.engine.model_catalogue import MODELS, CatalogueModel
from wording import messages

from .advice import MessageSerializer
from .schema import ApiAutoSchema

KINDS = ["llm-dense", "llm-moe", "vlm", "embedding", "reranker", "speech", "diffusion", "encoder"]


class CatalogueModelSerializer(serializers.Serializer[Any]):
    id = serializers.CharField(help_text="What `model` takes (its name or repository work too).")
    name = serializers.CharField()
    family = serializers.CharField()
    kind = serializers.ChoiceField(choices=KINDS)
    hf_repo = serializers.CharField(allow_blank=True, help_text="Its Hugging Face repository.")
    params = serializers.IntegerField(allow_null=True, help_text="Parameters the estimate holds.")
    active_params = serializers.IntegerField(
        allow_null=True, help_text="A mixture of experts': parameters active per token."
    )
    basis = serializers.ChoiceField(
        choices=["preset", "counted", "published"],
        allow_null=True,
        help_text="preset: a preset's exact count; counted: from its shape, as a pasted "
        "config.json; published: the total its source publishes.",
    )
    source = serializers.CharField(help_text="Where its figures come from.")  # type: ignore[assignment]  # a field named like Field.source
    grade = serializers.ChoiceField(
        choices=["P", "S", "U"],
        help_text="P: the model's own config, card or repository; S: a third-party copy; "
        "U: unverified.",
    )
    pickable = serializers.BooleanField()
    excluded = MessageSerializer(allow_null=True, help_text="Why it cannot be picked.")


def model_body(model: CatalogueModel) -> dict[str, Any]:
    arch = model.arch
    return {
        "id": model.id,
        "name": model.name,
        "family": model.family,
        "kind": model.kind,
        "hf_repo": model.hf_repo,
        "params": None if arch is None else arch.params,
        "active_params": None if arch is None else arch.active_params,
        "basis": model.basis,
        "source": model.source,
        "grade": model.grade,
        "pickable": arch is not None,
        "excluded": None if model.excluded is None else messages.as_json(msg(model.excluded)),
    }


@extend_schema_view(
    list=extend_schema(
        summary="Every model a scenario's `model` can name, and those it cannot, with why",
        responses=CatalogueModelSerializer(many=True),
    ),
    retrieve=extend_schema(
        summary="One model of the catalogue, by id, name or Hugging Face repository",
        responses=CatalogueModelSerializer,
    ),
)
class CatalogueModelViewSet(viewsets.ViewSet):
    """The model catalogue: fixtures/models.json's sourced architectures and the presets."""

    schema = ApiAutoSchema()
    permission_classes = [AllowAny]
    lookup_field = "id"
    lookup_value_regex = "[A-Za-z0-9._-]+"

    def list(self, request: Request) -> Response:
        return Response([model_body(m) for m in MODELS.models.values()])

    def retrieve(self, request: Request, id: str | None = None) -> Response:
        model = MODELS.find(id or "")
        if model is None:
            raise exceptions.NotFound()
        return Response(model_body(model))
