"""Django's JSON Lines serializer with the lossless encoder of ops.serializers.json."""

from __future__ import annotations

from django.core.serializers import jsonl as django_jsonl

from .json import LosslessJSONEncoder


class Serializer(django_jsonl.Serializer):
    def _init_options(self) -> None:
        self.options.setdefault("cls", LosslessJSONEncoder)
        super()._init_options()  # type: ignore[misc]  # Django's, untyped


Deserializer = django_jsonl.Deserializer
