"""/healthz (the process answers) and /readyz (the database and the cache answer, every migration
is applied), for load balancers and orchestrators.

HealthMiddleware answers them before any other middleware: no HTTPS redirect, no host check (a
probe calls the pod's address), no session, no language. /readyz is 503 when the database or the
migrations fail, the only hard dependencies, and 200 otherwise, with each check's outcome and
milliseconds:

    {"status": "ok", "checks": {"database": {"ok": true, "ms": 0.4}, "cache": {...},
                                "migrations": {"ok": true, "ms": 0.1}}}

A cache that fails is reported `"degraded": true` (and the status "degraded") without failing
readiness: the site serves from a per-process cache meanwhile (ops/cache.py). What failed is named
by its exception's type, never its text: a driver's message names the server's address, and the
probe answers anyone. The log line (event `not_ready`) has the whole message.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable
from typing import Any

from django.core.cache import cache
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.executor import MigrationExecutor
from django.http import HttpRequest, HttpResponse, JsonResponse

logger = logging.getLogger(__name__)

HEALTH_PATH = "/healthz"
READY_PATH = "/readyz"

# Once every migration was seen applied, later probes skip the migration graph (reading it takes
# tens of milliseconds): migrations are applied before a release starts, never undone under it.
_migrations_applied = False


def _timed(name: str, check: Callable[[], str | None]) -> dict[str, Any]:
    started = time.perf_counter()
    try:
        problem = check()
    except Exception as exc:  # a probe reports every failure, it never raises
        logger.warning(
            "readiness check %s failed: %s: %s",
            name,
            type(exc).__name__,
            exc,
            extra={"event": "not_ready"},
        )
        problem = f"{type(exc).__name__}"
    result: dict[str, Any] = {
        "ok": problem is None,
        "ms": round((time.perf_counter() - started) * 1000, 1),
    }
    if problem is not None:
        result["error"] = problem
    return result


def check_database() -> str | None:
    with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return None


def check_cache() -> str | None:
    probe = getattr(cache, "probe", None)
    if probe is not None:  # ops.cache.FallbackRedisCache: ask Redis itself
        problem: str | None = probe()
        return problem
    key = f"readyz:{uuid.uuid4().hex}"
    cache.set(key, "1", timeout=10)
    value = cache.get(key)
    cache.delete(key)
    return None if value == "1" else "the cache did not return what was stored"


def check_migrations() -> str | None:
    global _migrations_applied
    if _migrations_applied:
        return None
    executor = MigrationExecutor(connections[DEFAULT_DB_ALIAS])
    pending = executor.migration_plan(executor.loader.graph.leaf_nodes())
    if pending:
        names = ", ".join(f"{m.app_label}.{m.name}" for m, _backwards in pending[:5])
        return f"{len(pending)} migration(s) not applied: {names}"
    _migrations_applied = True
    return None


def readiness() -> tuple[bool, dict[str, dict[str, Any]]]:
    checks = {
        "database": _timed("database", check_database),
        "cache": _timed("cache", check_cache),
    }
    if not checks["cache"]["ok"]:
        checks["cache"]["degraded"] = True
    # Without a database the migrations cannot be read: that is the database's failure.
    if checks["database"]["ok"]:
        checks["migrations"] = _timed("migrations", check_migrations)
    else:
        checks["migrations"] = {"ok": False, "ms": 0.0, "error": "the database is unavailable"}
    hard = ("database", "migrations")
    return all(checks[name]["ok"] for name in hard), checks


class HealthMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        path = request.path_info.rstrip("/")
        if path == HEALTH_PATH:
            return _no_store(JsonResponse({"status": "ok"}))
        if path == READY_PATH:
            ok, checks = readiness()
            failed = {name: check for name, check in checks.items() if not check["ok"]}
            if failed:
                logger.warning("not ready: %s", failed, extra={"event": "not_ready"})
            degraded = any(check.get("degraded") for check in checks.values())
            status = ("degraded" if degraded else "ok") if ok else "unavailable"
            body = {"status": status, "checks": checks}
            return _no_store(JsonResponse(body, status=200 if ok else 503))
        return self.get_response(request)


def _no_store(response: HttpResponse) -> HttpResponse:
    response["Cache-Control"] = "no-store"
    return response
