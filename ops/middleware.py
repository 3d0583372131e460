"""Middleware: a request id on every request, slow requests logged, and the Content-Security-Policy.

RequestIdMiddleware comes first in settings.MIDDLEWARE so that everything after it, error pages
included, knows the id.
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import Callable

from django.conf import settings
from django.core.signals import request_finished
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse

from .logging import request_id_var, request_line_var

logger = logging.getLogger("ops.request")

REQUEST_ID_HEADER = "X-Request-ID"
# An id sent by a proxy in front is kept when it looks like one (no spaces, no markup, short),
# so that the proxy's log and ours share it; anything else is replaced by our own. Only with a
# proxy in front (TRUST_REQUEST_ID, on when NUM_PROXIES is set): a client's own id would
# otherwise let it pick the id of another request's log lines.
_CLIENT_ID = re.compile(r"^[A-Za-z0-9._:-]{8,64}$")


class RequestIdMiddleware:
    """Gives each request an id (`request.request_id`, the log records' request_id, the
    X-Request-ID response header), logs slow requests (over SLOW_REQUEST_MS) as warnings and,
    with LOG_REQUESTS, every request at INFO."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        incoming = request.META.get("HTTP_X_REQUEST_ID", "") if _trusted() else ""
        request_id = incoming if _CLIENT_ID.match(incoming) else uuid.uuid4().hex
        request.request_id = request_id  # type: ignore[attr-defined]
        # Not reset on the way out: Django logs a 5xx after the middleware returns; the id is
        # cleared when the response is finished (request_finished, below).
        request_id_var.set(request_id)
        request_line_var.set(f"{request.method} {request.path}")
        started = time.perf_counter()
        response = self.get_response(request)
        duration_ms = round((time.perf_counter() - started) * 1000, 1)
        response[REQUEST_ID_HEADER] = request_id
        fields = {
            "method": request.method,
            "path": request.path,
            "status": response.status_code,
            "duration_ms": duration_ms,
        }
        if duration_ms >= settings.SLOW_REQUEST_MS:
            logger.warning(
                "slow request: %s %s took %s ms",
                request.method,
                request.path,
                duration_ms,
                extra={"event": "slow_request", **fields},
            )
        elif settings.LOG_REQUESTS:
            logger.info(
                "%s %s %s",
                request.method,
                request.path,
                response.status_code,
                extra={"event": "request", **fields},
            )
        return response


def _trusted() -> bool:
    return bool(settings.TRUST_REQUEST_ID)


class ContentSecurityPolicyMiddleware:
    """Sends settings.CONTENT_SECURITY_POLICY (only our own scripts, styles, images, fonts and
    connections) on every response that does not set its own, and the relaxed
    CONTENT_SECURITY_POLICY_DOCS on the API's documentation pages."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if "Content-Security-Policy" not in response:
            policy = settings.CONTENT_SECURITY_POLICY
            if request.path.startswith(settings.CONTENT_SECURITY_POLICY_DOCS_PATHS):
                policy = settings.CONTENT_SECURITY_POLICY_DOCS
            response["Content-Security-Policy"] = policy
        return response


@receiver(request_finished)
def _clear_request_id(**kwargs: object) -> None:
    request_id_var.set("-")
    request_line_var.set("")
