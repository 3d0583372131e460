"""Production: refuses to start half-configured or insecure, with one line saying why.

Required: SECRET_KEY (50 random characters or more), DATABASE_URL, ALLOWED_HOSTS, REDIS_URL (the
cache every worker shares: throttle counters, import progress), CELERY_BROKER_URL (feed runs and
imports go to workers, never into a web request). Refused: DEBUG=true. HTTPS is
enforced here (redirect, HSTS, secure cookies) unless TLS_AT_PROXY=true says that the proxy in
front terminates TLS and already redirects and sends HSTS. Logs are JSON lines on stdout.
`manage.py` uses these settings with DJANGO_SETTINGS_MODULE=config.settings.prod.
"""

from django.core.exceptions import ImproperlyConfigured

from ops.logging import logging_config

from .base import *  # noqa: F403
from .base import DATABASES, LOG_LEVEL
from .database import database
from .env import env, envbool, envint, envlist

if envbool("DEBUG", False):
    raise ImproperlyConfigured(
        "DEBUG=true is refused by config.settings.prod: use config.settings.dev to debug."
    )
DEBUG = False

SECRET_KEY = env("SECRET_KEY", required=True)
# As Django's own deployment check (security.W009): long, varied, not a generated placeholder.
if len(SECRET_KEY) < 50 or len(set(SECRET_KEY)) < 5 or SECRET_KEY.startswith("django-insecure-"):
    raise ImproperlyConfigured(
        "SECRET_KEY is too weak: use 50 or more random characters, e.g. the output of "
        "`python -c 'import secrets; print(secrets.token_urlsafe(50))'`."
    )

DATABASES = {**DATABASES, "default": database(env("DATABASE_URL", required=True))}

ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", "")
if not ALLOWED_HOSTS:
    raise ImproperlyConfigured("ALLOWED_HOSTS must name the hosts this site serves.")

if not env("REDIS_URL"):
    raise ImproperlyConfigured(
        "REDIS_URL is required: the throttles' counters must be shared by every worker."
    )

if not env("CELERY_BROKER_URL"):
    raise ImproperlyConfigured(
        "CELERY_BROKER_URL is required: without a broker, feed runs and admin imports would run "
        "inside web requests."
    )

# The shipped price feeds (and any added) run on their schedules; FEEDS_ENABLED=false stops them.
FEEDS_ENABLED = envbool("FEEDS_ENABLED", True)

# HTTPS. Behind a proxy that terminates TLS, X-Forwarded-Proto says whether the client used it.
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
TLS_AT_PROXY = envbool("TLS_AT_PROXY", False)
SECURE_SSL_REDIRECT = envbool("SECURE_SSL_REDIRECT", not TLS_AT_PROXY)
SECURE_HSTS_SECONDS = envint("SECURE_HSTS_SECONDS", 0 if TLS_AT_PROXY else 365 * 24 * 3600)
SECURE_HSTS_INCLUDE_SUBDOMAINS = envbool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
SECURE_HSTS_PRELOAD = envbool("SECURE_HSTS_PRELOAD", True)
if TLS_AT_PROXY:
    # The proxy redirects to HTTPS and sends Strict-Transport-Security itself.
    SILENCED_SYSTEM_CHECKS = ["security.W004", "security.W008"]
SESSION_COOKIE_SECURE = envbool("SESSION_COOKIE_SECURE", True)
CSRF_COOKIE_SECURE = envbool("CSRF_COOKIE_SECURE", True)

LOG_FORMAT = env("LOG_FORMAT", "json")
LOG_REQUESTS = envbool("LOG_REQUESTS", True)
LOGGING = logging_config(fmt=LOG_FORMAT, level=LOG_LEVEL)
