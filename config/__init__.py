# The Celery app is loaded with Django, so tasks started from the web (or a command) reach the
# broker configured in settings.
from .celery import app as celery_app

__all__ = ["celery_app"]
