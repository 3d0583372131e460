"""WSGI entry point for gunicorn."""

import os

from django.conf import settings
from django.core.wsgi import get_wsgi_application

from ops.collector import set_threshold

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.prod")
application = get_wsgi_application()
# A web worker keeps large answers between requests: the collector's thresholds for it.
set_threshold(settings.GC_GEN0_THRESHOLD)
