"""gunicorn's settings, read from the project's root (gunicorn's default config file): requests
gunicorn refuses itself are answered in the API's error shape (ops/gunicorn_worker.py), and
gunicorn's own log lines (a refused request, a worker killed for its timeout) are written as the
application's are: the same format (LOG_FORMAT, JSON under production settings), UTC, with a
request id (ops/logging.py). Command-line flags (--bind, --workers, --timeout) still apply."""

import os

from ops.logging import gunicorn_logging

worker_class = "ops.gunicorn_worker.JsonErrorWorker"

_PRODUCTION = os.environ.get("DJANGO_SETTINGS_MODULE", "").endswith(".prod")
logconfig_dict = gunicorn_logging(
    fmt=os.environ.get("LOG_FORMAT") or ("json" if _PRODUCTION else "text"),
    level=os.environ.get("LOG_LEVEL", "INFO").upper(),
)


def worker_abort(worker):  # type: ignore[no-untyped-def]
    """A worker killed for running past --timeout logs the request it was serving, with its id."""
    from ops.logging import log_worker_timeout

    log_worker_timeout()


def post_worker_init(worker):  # type: ignore[no-untyped-def]
    """With HEALTH_PORT, each worker answers the liveness probe on it from a thread of its own,
    never behind a request waiting on the database (ops/liveness.py)."""
    port = os.environ.get("HEALTH_PORT")
    if port:
        from ops.liveness import serve

        serve(os.environ.get("HEALTH_HOST", "0.0.0.0"), int(port))
