"""Fair use of the pages: a body too large is refused before it is read, pages are throttled per
client, and each client may save only so many scenarios an hour.

BodyLimitMiddleware (early, before anything reads a body): a request whose Content-Length is over
MAX_BODY_BYTES (DATA_UPLOAD_MAX_MEMORY_SIZE, 2.5 MB) is a 413 at once; the admin, whose import
takes files of up to 20 MB, has ADMIN_MAX_BODY_BYTES. A body sent without a Content-Length
(chunked) is refused outside the admin (411).

PageThrottleMiddleware (after authentication): pages, i.e. everything but the API (its own
throttles), the admin (its login lockout), static files and the probes, are counted per client:
PAGE_ANON_RATE for a visitor (by address, as the API's throttles read it), PAGE_USER_RATE for a
signed-in user; `POST /s/` (saving a scenario) has its own SCENARIO_SAVE_RATE as well, and
`POST /watches/new/` (making a watch, which may send an email) its WATCH_CREATE_RATE. Past a rate
the answer is a 429 page with Retry-After. Counters live in the shared cache (per process while
Redis is away, ops/cache.py).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template import loader
from django.utils import translation

from api.authentication import client_address
from api.exceptions import body_for, suspicious

logger = logging.getLogger(__name__)

PERIODS = {"s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "hour": 3600, "d": 86400, "day": 86400}
UNTHROTTLED = ("/api/", "/admin/", "/static/", "/healthz", "/readyz", "/favicon.ico")
SAVE_PATH = "/s/"
# POSTs counted apart as well, by path: (scope, the setting naming the rate).
RATED_POSTS = {
    SAVE_PATH: ("save", "SCENARIO_SAVE_RATE"),
    "/watches/new/": ("watch", "WATCH_CREATE_RATE"),
}


def parse_rate(rate: str) -> tuple[int, int]:
    """("120/min") -> (120, 60): requests and seconds."""
    count, _, period = rate.partition("/")
    return int(count), PERIODS[period.strip().lower()]


def _error_page(request: HttpRequest, status: int) -> HttpResponse:
    """413.html or 429.html in the visitor's language, without the database (error_base.html)."""
    language = translation.get_language_from_request(request)
    with translation.override(language):
        html = loader.get_template(f"{status}.html").render(
            {
                "request_id": getattr(request, "request_id", ""),
                "LANGUAGE_CODE": translation.get_language(),
            }
        )
    response = HttpResponse(html, status=status)
    response["Content-Language"] = language
    return response


class BodyLimitMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        admin = request.path_info.startswith("/admin/")
        limit = settings.ADMIN_MAX_BODY_BYTES if admin else settings.MAX_BODY_BYTES
        length = request.META.get("CONTENT_LENGTH") or ""
        chunked = "chunked" in request.META.get("HTTP_TRANSFER_ENCODING", "").lower()
        if chunked and not admin:
            return HttpResponse(status=411)
        if length.isdigit() and int(length) > limit:
            logger.warning(
                "request body of %s bytes refused (limit %s): %s %s",
                length,
                limit,
                request.method,
                request.path,
                extra={"event": "body_too_large", "bytes": int(length), "limit": limit},
            )
            if request.path_info.startswith("/api/"):
                with translation.override(translation.get_language_from_request(request)):
                    body = body_for(suspicious(RequestDataTooBig()))
                return JsonResponse(body, status=413)
            return _error_page(request, 413)
        return self.get_response(request)


def _hit(scope: str, ident: str, rate: str) -> float | None:
    """Count one request; None while under `rate`, else seconds until the window ends."""
    limit, period = parse_rate(rate)
    now = time.time()
    window = int(now // period)
    key = f"fairuse:{scope}:{ident}:{window}"
    cache.add(key, 0, period + 1)
    try:
        count = cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, period + 1)
        count = 1
    if count <= limit:
        return None
    return max(1.0, (window + 1) * period - now)


class PageThrottleMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path_info.startswith(UNTHROTTLED):
            return self.get_response(request)
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            scope, ident, rate = "user", str(user.pk), settings.PAGE_USER_RATE
        else:
            scope, ident, rate = "anon", client_address(request), settings.PAGE_ANON_RATE
        wait = _hit(scope, ident, rate)
        rated = RATED_POSTS.get(request.path_info) if request.method == "POST" else None
        if wait is None and rated is not None:
            wait = _hit(rated[0], ident, getattr(settings, rated[1]))
        if wait is None:
            return self.get_response(request)
        logger.warning(
            "page throttled: %s %s (%s)",
            request.method,
            request.path,
            scope,
            extra={"event": "page_throttled", "scope": scope},
        )
        response = _error_page(request, 429)
        response["Retry-After"] = str(int(wait))
        return response
