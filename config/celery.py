"""The Celery app: `celery -A config worker` and `celery -A config beat`.

Settings come from Django's, prefixed CELERY_ (config/settings/base.py); tasks from each app's
tasks module (feeds.tasks, watches.tasks).
"""

from __future__ import annotations

import os

from celery import Celery

# As config.wsgi: a worker and beat are production processes unless told otherwise.
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.prod")

app = Celery("config")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
