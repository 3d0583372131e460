"""Django's 400, 403 and 404 handlers (config.urls): what no DRF view answers, such as a path under
/api/ that no route matches or a request Django refuses before a view runs, is the API's one JSON
error shape under /api/, and Django's own page everywhere else. The 500 handler is ops.views'.
"""

from __future__ import annotations

from django.core.exceptions import SuspiciousOperation
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults
from rest_framework import exceptions

from .exceptions import body_for, suspicious


def _is_api(request: HttpRequest) -> bool:
    return request.path_info.startswith("/api/")


def _json(exc: exceptions.APIException) -> JsonResponse:
    return JsonResponse(body_for(exc), status=exc.status_code)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    if not _is_api(request):
        return defaults.bad_request(request, exception)
    if isinstance(exception, SuspiciousOperation):
        return _json(suspicious(exception))
    return _json(exceptions.ParseError())


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    if not _is_api(request):
        return defaults.permission_denied(request, exception)
    return _json(exceptions.PermissionDenied())


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if not _is_api(request):
        return defaults.page_not_found(request, exception)
    return _json(exceptions.NotFound())
