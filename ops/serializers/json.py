"""Django's JSON serializer without its loss of precision, for `dumpdata` / `loaddata`.

DjangoJSONEncoder cuts datetimes and times to milliseconds (ECMA-262's format), so two price
observations of one offering and unit a few microseconds apart become equal in a dump, and
`loaddata` fails on their unique constraint. This encoder writes them whole (ISO 8601 with
microseconds), which Django's deserializer reads back as they were. settings.SERIALIZATION_MODULES
puts it in place of the built-in "json" format; "jsonl" (ops.serializers.jsonl) likewise.
"""

from __future__ import annotations

import datetime
from typing import Any

from django.core.serializers import json as django_json
from django.core.serializers.json import DjangoJSONEncoder


class LosslessJSONEncoder(DjangoJSONEncoder):
    def default(self, o: Any) -> Any:
        if isinstance(o, datetime.datetime):
            text = o.isoformat()
            return text.removesuffix("+00:00") + "Z" if text.endswith("+00:00") else text
        if isinstance(o, datetime.time) and o.utcoffset() is None:
            return o.isoformat()
        return super().default(o)


class Serializer(django_json.Serializer):
    def _init_options(self) -> None:
        self.options.setdefault("cls", LosslessJSONEncoder)
        super()._init_options()  # type: ignore[misc]  # Django's, untyped


Deserializer = django_json.Deserializer
