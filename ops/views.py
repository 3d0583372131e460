"""The site's 500 handler (config.urls.handler500): a database that cannot be reached is a 503 (a
page in the visitor's language, or the API's JSON error shape under /api/), with Retry-After; any
other error is a 500, a page or the API's shape. Pages show the request id, which every log line
of the failure carries (and the X-Request-ID header).

The pages are rendered without the request's context processors: they must not need the database
(the header's user, the session) to say that the database is down.
"""

from __future__ import annotations

import sys
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template import loader
from django.utils import translation
from rest_framework.exceptions import APIException

from api.exceptions import DatabaseUnavailable, QueryTimeout, ServerError, body_for

from .db import database_unavailable, query_timeout


def server_error(request: HttpRequest) -> HttpResponse:
    error = sys.exc_info()[1]
    database_down = database_unavailable(error)
    timed_out = query_timeout(error)
    language = getattr(request, "LANGUAGE_CODE", None) or translation.get_language_from_request(
        request
    )
    with translation.override(language):
        if request.path_info.startswith("/api/"):
            exc: APIException = (
                QueryTimeout()
                if timed_out
                else DatabaseUnavailable()
                if database_down
                else ServerError()
            )
            response: HttpResponse = JsonResponse(body_for(exc), status=exc.status_code)
        else:
            template, status = ("503.html", 503) if database_down else ("500.html", 500)
            html = loader.get_template(template).render(
                {
                    "request_id": getattr(request, "request_id", ""),
                    "LANGUAGE_CODE": translation.get_language(),
                }
            )
            response = HttpResponse(html, status=status)
    if database_down:
        response["Retry-After"] = str(settings.RETRY_AFTER_S)
    response["Content-Language"] = language
    return response


def admin_lockout(request: HttpRequest, credentials: dict[str, Any] | None = None) -> HttpResponse:
    """django-axes' answer to a locked-out login (AXES_LOCKOUT_CALLABLE): a 429 page that says
    for how long, in the visitor's language."""
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    response = render(
        request,
        "admin/lockout.html",
        {"minutes": minutes, "failure_limit": settings.AXES_FAILURE_LIMIT},
        status=429,
    )
    response["Retry-After"] = str(int(settings.AXES_COOLOFF_TIME.total_seconds()))
    return response
