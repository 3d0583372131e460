"""gunicorn's settings, read from the project's root (gunicorn's default config file): requests
gunicorn refuses itself are answered in the API's error shape (ops/gunicorn_worker.py). Command-line
flags (--bind, --workers, --timeout) still apply."""

worker_class = "ops.gunicorn_worker.JsonErrorWorker"
