"""gunicorn's settings, read from the project's root (gunicorn's default config file): requests
gunicorn refuses itself are answered in the API's error shape (ops/gunicorn_worker.py). Command-line
flags (--bind, --workers, --timeout) still apply."""

worker_class = "ops.gunicorn_worker.JsonErrorWorker"


def post_worker_init(worker):  # type: ignore[no-untyped-def]
    """With HEALTH_PORT, each worker answers the liveness probe on it from a thread of its own,
    never behind a request waiting on the database (ops/liveness.py)."""
    import os

    port = os.environ.get("HEALTH_PORT")
    if port:
        from ops.liveness import serve

        serve(os.environ.get("HEALTH_HOST", "0.0.0.0"), int(port))
