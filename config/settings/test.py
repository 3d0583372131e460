"""The test suite: fast hashing, plain static storage, no throttling surprises."""

from .base import *  # noqa: F403
from .base import REST_FRAMEWORK, STORAGES

DEBUG = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES = {
    **STORAGES,
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
REST_FRAMEWORK = {
    **REST_FRAMEWORK,
    "DEFAULT_THROTTLE_RATES": {
        "anon": "100000/min",
        "user": "100000/min",
        "auth_failure": "100000/min",
    },
}
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
# Tasks run where they are started, as with `make run`; the real worker test
# (tests/feeds/test_worker.py) points its own app at Redis.
CELERY_BROKER_URL = "memory://"
CELERY_TASK_ALWAYS_EAGER = True
# Django's test Client.login() authenticates without a request, which django-axes refuses; the
# lockout tests (tests/ops/test_admin_lockout.py) turn it on.
AXES_ENABLED = False
# The suite's process imports config.wsgi (the API tests' WSGI application): Python's collector
# thresholds stay as they are here (tests/ops/test_collector.py sets them and puts them back).
GC_GEN0_THRESHOLD = 0
# Feeds fetch only public addresses: the feed tests' local server allows itself by its address and
# port (tests/feeds/conftest.py, feed_server); nothing else is allowed here.
FEED_ALLOWED_HOSTS = []
# Nothing runs on a schedule; the feed tests' server turns it on for itself (feed_server).
FEEDS_ENABLED = False
# Pages as unthrottled as the API here; tests/ops/test_fair_use.py sets the rates it checks.
PAGE_ANON_RATE = "100000/min"
PAGE_USER_RATE = "100000/min"
SCENARIO_SAVE_RATE = "100000/hour"
WATCH_CREATE_RATE = "100000/hour"
# Emails stay in django.core.mail.outbox; webhooks go to public addresses only, and the watch
# tests allow their own loopback server (tests/watches/conftest.py).
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
WATCH_WEBHOOK_ALLOWED_HOSTS = []
