"""Every API error in one shape, and the translation of domain errors into HTTP ones.

    {"error": {"status": 400, "code": "invalid", "message": "...",
               "fields": {"tasks[0].precision": ["..."]}}}

`fields` maps a field path (dotted, with `[i]` for list items, the engine's own notation) to its
messages; it is empty when the error is not about a field. The engine's `InvalidWorkload` (and any
plain `AdvisorError`) is a 400 naming its field; `NoFit` is a 422: the scenario is valid, but
nothing in the catalogue (or the named hardware) can run it. Both carry the engine's message as
`detail`: `{"code", "params", "message"}`, the message in the request's language. A database that
cannot be reached (down, frozen past its timeouts) is a 503 `database_unavailable` with
`Retry-After`, logged with its traceback. Anything else unexpected is left to Django, so a bug is a
logged 500 and a failing test rather than a polite message.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.core.exceptions import NON_FIELD_ERRORS, RequestDataTooBig, SuspiciousOperation
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.serializers import as_serializer_error
from rest_framework.settings import api_settings
from rest_framework.views import exception_handler as drf_exception_handler

from advisor.engine.errors import AdvisorError, NoFit
from advisor.engine.ranking import unpriced_message
from ops.db import database_unavailable, query_timeout
from wording.messages import as_json, render

logger = logging.getLogger(__name__)

NON_FIELD = api_settings.NON_FIELD_ERRORS_KEY


class NothingFits(exceptions.APIException):
    status_code = status.HTTP_422_UNPROCESSABLE_ENTITY
    default_detail = _("Nothing in the catalogue can run this scenario.")
    default_code = "no_fit"


class DatabaseUnavailable(exceptions.APIException):
    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_detail = _("The database is unavailable. Please try again shortly.")
    default_code = "database_unavailable"


class QueryTimeout(exceptions.APIException):
    """A statement or lock timeout: the database answers, this request's query was too slow."""

    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_detail = _("The request took too long in the database. Please try again shortly.")
    default_code = "query_timeout"


class ServerError(exceptions.APIException):
    status_code = status.HTTP_500_INTERNAL_SERVER_ERROR
    default_detail = _("Something went wrong on our side. It has been logged.")
    default_code = "server_error"


class PayloadTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = _("The request body is too large.")
    default_code = "payload_too_large"


class BadRequest(exceptions.APIException):
    """A request Django refuses before any parser reads it (SuspiciousOperation): too many fields,
    a bad Host header, a malformed multipart body."""

    status_code = status.HTTP_400_BAD_REQUEST
    default_detail = _("Bad request.")
    default_code = "bad_request"


def suspicious(exc: SuspiciousOperation) -> exceptions.APIException:
    """Django's refusal of a request as an API error: a body over DATA_UPLOAD_MAX_MEMORY_SIZE is
    a 413 saying the limit, anything else a 400."""
    if isinstance(exc, RequestDataTooBig):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        return PayloadTooLarge(
            _("The request body is larger than %(limit)s bytes, the most the API reads.")
            % {"limit": f"{limit:,}"}
        )
    return BadRequest()


def body_for(exc: exceptions.APIException) -> dict[str, Any]:
    """The whole body for `exc`, for the site's 500 handler (ops.views), which answers the errors
    raised outside a DRF view (a 503 when the database is down, else a 500) in this shape."""
    return {"error": error_body(exc, exc.status_code)}


def _as_drf_exception(exc: Exception) -> Exception:
    """Domain and model errors become DRF exceptions; everything else passes through unchanged.
    An engine error keeps its message (code and parameters) for the body's `detail`."""
    if isinstance(exc, AdvisorError):
        text = render(exc.detail)
        cls = NothingFits if isinstance(exc, NoFit) else exceptions.ValidationError
        drf: exceptions.APIException = cls({exc.field or NON_FIELD: [text]})
        drf.engine_message = exc.detail  # type: ignore[attr-defined]
        if isinstance(exc, NoFit):
            drf.unpriced_platforms = exc.unpriced_platforms  # type: ignore[attr-defined]
        return drf
    if isinstance(exc, DjangoValidationError):
        return exceptions.ValidationError(as_serializer_error(exc))
    if isinstance(exc, Http404):
        return exceptions.NotFound()
    if isinstance(exc, DjangoPermissionDenied):
        return exceptions.PermissionDenied()
    if query_timeout(exc):
        return QueryTimeout()
    if database_unavailable(exc):
        return DatabaseUnavailable()
    if isinstance(exc, SuspiciousOperation):
        return suspicious(exc)
    return exc


def _flatten(detail: Any, path: str = "") -> Iterator[tuple[str, list[str]]]:
    """(field path, messages) pairs from DRF's nested error detail."""
    if isinstance(detail, dict):
        for key, value in detail.items():
            if isinstance(key, int):
                child = f"{path}[{key}]"
            else:
                child = f"{path}.{key}" if path else str(key)
            yield from _flatten(value, child)
    elif isinstance(detail, list):
        if all(isinstance(item, str) for item in detail):
            if detail:
                yield path, [str(item) for item in detail]
        else:
            for index, item in enumerate(detail):
                yield from _flatten(item, f"{path}[{index}]")
    else:
        yield path, [str(detail)]


def _codes(codes: Any) -> Iterator[str]:
    if isinstance(codes, dict):
        for value in codes.values():
            yield from _codes(value)
    elif isinstance(codes, list):
        for value in codes:
            yield from _codes(value)
    else:
        yield str(codes)


def error_body(exc: exceptions.APIException, status_code: int) -> dict[str, Any]:
    """The inside of `{"error": ...}` for a DRF exception."""
    fields: dict[str, list[str]] = {}
    general: list[str] = []
    if isinstance(exc.detail, dict | list):
        for field, messages in _flatten(exc.detail):
            if field in ("", NON_FIELD, NON_FIELD_ERRORS):
                general.extend(messages)
            else:
                fields.setdefault(field, []).extend(messages)
    else:
        general.append(str(exc.detail))
    if general:
        message = " ".join(general)
    elif fields:
        first, messages = next(iter(fields.items()))
        message = f"{first}: {messages[0]}"
    else:
        message = str(exc.default_detail)
    # To a client every validation error is "invalid"; the per-field codes are DRF's business.
    if isinstance(exc, exceptions.ValidationError):
        code = "invalid"
    else:
        code = next(_codes(exc.get_codes()), exc.default_code)
    body: dict[str, Any] = {
        "status": status_code,
        "code": code,
        "message": message,
        "fields": fields,
    }
    engine_message = getattr(exc, "engine_message", None)
    if engine_message is not None:
        body["detail"] = as_json(engine_message)
    # Nothing fits: the platforms in scope that could not be priced at all, named.
    unpriced = getattr(exc, "unpriced_platforms", None)
    if unpriced is not None:
        body["unpriced_platforms"] = [{"slug": slug, "name": name} for slug, name in unpriced]
        note = unpriced_message(unpriced)
        body["unpriced"] = None if note is None else as_json(note)
    return body


def no_fit_body(report: Any) -> dict[str, Any]:
    """The 422 body of advise (the API's and the CLI's): the error, the closest miss, the
    changes that would fit as scenarios to post again, and for a preset its checks and verdict."""
    from api.advice import no_fit_extras

    exc = _as_drf_exception(report.no_fit)
    assert isinstance(exc, exceptions.APIException)
    body = error_body(exc, status.HTTP_422_UNPROCESSABLE_ENTITY)
    body.update(no_fit_extras(report))
    return {"error": body}


def log_database_error(exc: BaseException | None) -> None:
    """One line for a database that cannot serve (`database_down`) or a query past its timeout
    (`query_timeout`), with the driver's message and no traceback: during an outage every request
    fails the same way, and a traceback each is kilobytes of noise."""
    if exc is None:
        return
    if query_timeout(exc):
        sqlstate = getattr(exc.__cause__, "sqlstate", "")
        logger.warning(
            "query timeout (%s): %s",
            sqlstate,
            str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__,
            extra={"event": "query_timeout", "sqlstate": sqlstate},
        )
    elif database_unavailable(exc):
        logger.error(
            "database unavailable: %s: %s",
            type(exc).__name__,
            str(exc).strip().splitlines()[0] if str(exc).strip() else "",
            extra={"event": "database_down"},
        )


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """REST_FRAMEWORK["EXCEPTION_HANDLER"]: DRF's handler (headers, rollback), then our shape."""
    log_database_error(exc)
    exc = _as_drf_exception(exc)
    response = drf_exception_handler(exc, context)
    if response is None or not isinstance(exc, exceptions.APIException):
        return response
    response.data = {"error": error_body(exc, response.status_code)}
    if isinstance(exc, DatabaseUnavailable | QueryTimeout):
        response["Retry-After"] = str(settings.RETRY_AFTER_S)
    return response
