"""Log records as JSON lines (production) or text (development), each with its request's id.

The request id lives in a context variable set by ops.middleware.RequestIdMiddleware, so every
record logged while a request is served (by Django, DRF, the app or a library) carries it;
records outside a request (Celery tasks, commands) carry "-".
"""

from __future__ import annotations

import json
import logging
import time
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

request_id_var: ContextVar[str] = ContextVar("request_id", default="-")
# The request being served ("GET /advisor/"), for a line logged when its worker is killed.
request_line_var: ContextVar[str] = ContextVar("request_line", default="")

# Attributes every LogRecord has; anything else on a record came from `extra=` and is written out.
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {
    "message",
    "asctime",
    "request_id",
    "request",  # django.request passes the HttpRequest itself: not serialisable, path is enough
    "server_time",
}


class RequestIdFilter(logging.Filter):
    """Puts the current request id on every record (`%(request_id)s`, the JSON's "request_id")."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id_var.get()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time (UTC, ISO 8601), level, logger, message, request_id, the
    record's `extra` fields, and `exc` (the traceback) when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", request_id_var.get()),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        elif record.exc_text:
            entry["exc"] = record.exc_text
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


class UtcTextFormatter(logging.Formatter):
    """The text format's time in UTC, ISO 8601 (2026-12-07T23:41:05.123Z), as the JSON lines
    write it: gunicorn's own lines and the application's share one clock."""

    def converter(self, timestamp: float | None) -> time.struct_time:
        return time.gmtime(timestamp)

    default_time_format = "%Y-%m-%dT%H:%M:%S"
    default_msec_format = "%s.%03dZ"


def logging_config(*, fmt: str, level: str) -> dict[str, Any]:
    """settings.LOGGING: everything to standard output through the root logger, in `fmt`
    ("json" or "text"). Django's loggers propagate to it (so 500s and their tracebacks are written
    whatever DEBUG is), and Django's own console and mail handlers are dropped."""
    if fmt not in ("json", "text"):
        from django.core.exceptions import ImproperlyConfigured

        raise ImproperlyConfigured(f"LOG_FORMAT must be json or text, not {fmt!r}.")
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"request_id": {"()": "ops.logging.RequestIdFilter"}},
        "formatters": {
            "json": {"()": "ops.logging.JsonFormatter"},
            "text": {
                "()": "ops.logging.UtcTextFormatter",
                "fmt": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s",
            },
        },
        "handlers": {
            "stdout": {
                "class": "logging.StreamHandler",
                "stream": "ext://sys.stdout",
                "formatter": fmt,
                "filters": ["request_id"],
            },
        },
        "root": {"handlers": ["stdout"], "level": level},
        "loggers": {
            "django": {"handlers": [], "level": level, "propagate": True},
            # Every 4xx is logged by django.request as a warning: a 404 is not news.
            "django.request": {"handlers": [], "level": "ERROR", "propagate": True},
        },
    }


def gunicorn_logging(*, fmt: str, level: str = "INFO") -> dict[str, Any]:
    """gunicorn's `logconfig_dict` (gunicorn.conf.py): its own lines (a refused request, a
    worker's start, a timeout) through the application's handler, format, clock and request
    id, one line each: gunicorn's loggers write nothing themselves and propagate to the root,
    which the application's LOGGING sets up the same way in each worker."""
    config = logging_config(fmt=fmt, level=level)
    config["loggers"] = {
        name: {"handlers": [], "level": level, "propagate": True}
        for name in ("gunicorn.error", "gunicorn.access")
    }
    return config


def log_worker_timeout() -> None:
    """Called by gunicorn's `worker_abort` hook in a worker its master kills for taking longer
    than `--timeout`: the request it was serving, under that request's id (the sync worker
    serves one request at a time, in the thread the signal interrupts)."""
    logging.getLogger("gunicorn.error").error(
        "worker timed out serving %s",
        request_line_var.get() or "no request",
        extra={"event": "worker_timeout"},
    )
