"""Pagination of the catalogue lists: 50 a page (settings.PAGE_SIZE), at most 200.

Most lists are small and numbered (`page`). The offering list is walked by cursor (keyset
pagination): `next` carries the sort key and id of the page's last row, and the next page is the
rows after it, which an index finds (api/filters.py: offering_order; the indexes in
platforms/models.py) instead of the database sorting the catalogue and skipping the pages before.
The list has no `count`, `previous` or `page`: counting the whole filtered catalogue was a query
per request that grew with it.
"""

from __future__ import annotations

import base64
import binascii
import json
from decimal import Decimal, InvalidOperation
from typing import Any

from django.db.models import F, Model, Q, QuerySet
from django.db.models.fields.tuple_lookups import Tuple, TupleGreaterThan
from django.utils.translation import gettext_lazy as _
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import BasePagination, PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.utils.urls import remove_query_param, replace_query_param

from .filters import OfferingOrder

MAX_PAGE_SIZE = 200


def _page_size(request: Request, default: int) -> int:
    # DRF quietly falls back to the default for `page_size=abc`; a client should hear about it.
    given = request.query_params.get("page_size")
    if given is None:
        return default
    if not (given.isascii() and given.isdigit() and int(given) > 0):
        raise ValidationError({"page_size": [_("A positive integer.")]})
    # A ceiling keeps one request's cost bounded whatever the client asks for.
    return min(int(given), MAX_PAGE_SIZE)


class CataloguePagination(PageNumberPagination):
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE

    def get_page_size(self, request: Request) -> int | None:
        return _page_size(request, self.page_size or api_settings.PAGE_SIZE or 50)


# A value of a cursor with its type, so that it compares in SQL as the column it came from.
def _encode_value(value: Any) -> list[Any]:
    if isinstance(value, bool):
        raise TypeError("no boolean sort keys")
    if isinstance(value, int):
        return ["i", value]
    if isinstance(value, float):
        return ["f", value]
    if isinstance(value, Decimal):
        return ["d", str(value)]
    if isinstance(value, str):
        return ["s", value]
    raise TypeError(f"cannot put {type(value).__name__} in a cursor")


def _decode_value(item: Any) -> Any:
    kind, value = item
    if kind == "i" and isinstance(value, int) and not isinstance(value, bool):
        return value
    if kind == "f" and isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if kind == "d" and isinstance(value, str):
        number = Decimal(value)
        if not number.is_finite():
            raise ValueError(value)
        return number
    if kind == "s" and isinstance(value, str):
        return value
    raise ValueError(item)


class OfferingCursorPagination(BasePagination):
    """Keyset pages of the offering list, in the view's `list_order` (an OfferingOrder).

    A cursor holds the ordering it was made for, whether the rows without a key have begun, the
    last row's keys and its id: the page after it is one index range scan, whatever its depth.
    """

    cursor_query_param = "cursor"

    def __init__(self) -> None:
        self.request: Request | None = None
        self.next_cursor: str | None = None

    def paginate_queryset(  # type: ignore[override]  # a queryset only, never a list
        self, queryset: QuerySet[Any], request: Request, view: Any = None
    ) -> list[Any]:
        if "page" in request.query_params:
            raise ValidationError(
                {"page": [_("This list is walked by cursor: follow the link in `next`.")]}
            )
        self.request = request
        size = _page_size(request, api_settings.PAGE_SIZE or 50)
        order: OfferingOrder = view.list_order
        nulls, values, last_id = self._decode(request, order)
        rows: list[Any] = []
        if not nulls:
            keyed = queryset
            if order.nullable:
                keyed = keyed.filter(**{f"{order.keys[0]}__isnull": False})
            if last_id is not None:
                keyed = keyed.filter(_after(order, values, last_id))
            rows = list(keyed.order_by(*_order_by(order))[: size + 1])
        if order.nullable and len(rows) <= size:
            # The rows without a price in the unit, by id, after those with one.
            unkeyed = queryset.filter(**{f"{order.keys[0]}__isnull": True})
            if nulls and last_id is not None:
                unkeyed = unkeyed.filter(pk__gt=last_id)
            rows += list(unkeyed.order_by("pk")[: size + 1 - len(rows)])
        self.next_cursor = None
        if len(rows) > size:
            rows = rows[:size]
            self.next_cursor = self._encode(order, rows[-1])
        return rows

    def _encode(self, order: OfferingOrder, row: Model) -> str:
        values = [getattr(row, key) for key in order.keys]
        nulls = order.nullable and values[0] is None
        payload = {
            "o": order.name,
            "n": nulls,
            "v": [] if nulls else [_encode_value(v) for v in values],
            "i": row.pk,
        }
        text = json.dumps(payload, separators=(",", ":"))
        return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")

    def _decode(self, request: Request, order: OfferingOrder) -> tuple[bool, list[Any], int | None]:
        given = request.query_params.get(self.cursor_query_param)
        if given is None:
            return False, [], None
        try:
            raw = base64.urlsafe_b64decode(given + "=" * (-len(given) % 4))
            payload = json.loads(raw)
            nulls = payload["n"]
            last_id = payload["i"]
            if payload["o"] != order.name or not isinstance(nulls, bool):
                raise ValueError("another ordering")
            if not isinstance(last_id, int) or isinstance(last_id, bool):
                raise ValueError("id")
            values = [_decode_value(item) for item in payload["v"]]
            if (nulls and not order.nullable) or len(values) != (0 if nulls else len(order.keys)):
                raise ValueError("keys")
        except (ValueError, TypeError, KeyError, InvalidOperation, binascii.Error):
            raise ValidationError(
                {self.cursor_query_param: [_("Not a cursor of this list and ordering.")]}
            ) from None
        return nulls, values, last_id

    def get_paginated_response(self, data: Any) -> Response:
        return Response({"next": self.get_next_link(), "results": data})

    def get_next_link(self) -> str | None:
        if self.next_cursor is None or self.request is None:
            return None
        url = remove_query_param(self.request.build_absolute_uri(), "page")
        return replace_query_param(url, self.cursor_query_param, self.next_cursor)

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        return {
            "type": "object",
            "required": ["next", "results"],
            "properties": {
                "next": {
                    "type": "string",
                    "nullable": True,
                    "format": "uri",
                    "description": "The next page (its `cursor`); null on the last page.",
                },
                "results": schema,
            },
        }

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        return [
            {
                "name": self.cursor_query_param,
                "required": False,
                "in": "query",
                "description": "Where the page starts: the value in the previous page's `next`.",
                "schema": {"type": "string"},
            },
            {
                "name": "page_size",
                "required": False,
                "in": "query",
                "description": f"Offerings a page (default 50, at most {MAX_PAGE_SIZE}).",
                "schema": {"type": "integer", "minimum": 1},
            },
        ]


def _order_by(order: OfferingOrder) -> list[Any]:
    if order.descending:
        return [F(order.keys[0]).desc(), "pk"]
    return [*order.keys, "pk"]


def _after(order: OfferingOrder, values: list[Any], last_id: int) -> Any:
    """The rows after (values, last_id) in `order`, as conditions an index range scan serves."""
    if len(order.keys) > 1:
        # (k1, k2, ..., id) > (v1, v2, ..., last id): a row comparison.
        return TupleGreaterThan(Tuple(*[F(key) for key in order.keys], F("pk")), (*values, last_id))
    key, value = order.keys[0], values[0]
    if order.descending:
        return Q(**{f"{key}__lte": value}) & (Q(**{f"{key}__lt": value}) | Q(pk__gt=last_id))
    return Q(**{f"{key}__gte": value}) & (Q(**{f"{key}__gt": value}) | Q(pk__gt=last_id))
