"""Settings shared by every environment, read from the environment where they differ.

DATABASE_URL selects the database (an SQLite file under var/ when unset), SECRET_KEY, DEBUG and
ALLOWED_HOSTS come from the environment; see .env.example.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import django_stubs_ext
import plotly
from django.utils.translation import gettext_lazy as _

from ops import collector
from ops.logging import logging_config

from .database import DB_CLIENT_TIMEOUT_S as DB_CLIENT_TIMEOUT_S
from .database import DB_CONNECT_TIMEOUT_S as DB_CONNECT_TIMEOUT_S
from .database import DB_LOCK_TIMEOUT_S as DB_LOCK_TIMEOUT_S
from .database import DB_STATEMENT_TIMEOUT_S as DB_STATEMENT_TIMEOUT_S
from .database import database
from .env import env, envbool, envint, envlist

# Lets generic classes be subscripted at run time as in their stubs: admin.ModelAdmin[Offering].
django_stubs_ext.monkeypatch()

BASE_DIR = Path(__file__).resolve().parent.parent.parent

SECRET_KEY = env("SECRET_KEY", "insecure-local-development-key-change-me")
DEBUG = envbool("DEBUG", False)
ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]")
CSRF_TRUSTED_ORIGINS = envlist("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "corsheaders",
    "platforms",
    "advisor",
    "api",
    "feeds",
    "watches",
    "ops",
    "knox",
    "axes",
]

MIDDLEWARE = [
    # First: every later layer (error pages included) and every log line knows the request id.
    "ops.middleware.RequestIdMiddleware",
    # /healthz and /readyz, before HTTPS redirects and host checks.
    "ops.health.HealthMiddleware",
    # A body over the limit is refused before anything reads it (api/fairuse.py).
    "api.fairuse.BodyLimitMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "ops.middleware.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Dynamic HTML and JSON gzipped; static files are WhiteNoise's, compressed ahead, and never
    # reach it. BREACH: README, "Compression".
    "django.middleware.gzip.GZipMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "corsheaders.middleware.CorsMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Pages and saved scenarios per client (the API has its own throttles): api/fairuse.py.
    "api.fairuse.PageThrottleMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last: it turns a locked-out login (AxesBackend) into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.debug",
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

# Timeouts and health checks: config/settings/database.py.
DATABASES = {
    "default": database(env("DATABASE_URL", f"sqlite:///{BASE_DIR / 'var' / 'db.sqlite3'}"))
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Admin login: django-axes counts failed logins per user name and client address together (the
# address as the throttles read it, below); AXES_FAILURE_LIMIT failures lock that pair for
# AXES_COOLOFF_MINUTES. Neither alone: wrong passwords from anywhere must not lock the user out
# everywhere, nor one client everyone behind the same address.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = envint("AXES_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=envint("AXES_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_CLIENT_IP_CALLABLE = "api.authentication.client_address"
AXES_LOCKOUT_CALLABLE = "ops.views.admin_lockout"
AXES_RESET_ON_SUCCESS = True
AXES_VERBOSE = False
# Lockout log lines name the user name and the address (axes masks both by default, which left
# on-call unable to tell an attack from a forgetful admin); passwords are never logged.
AXES_SENSITIVE_PARAMETERS: list[str] = []

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
LANGUAGES = [("en", _("English")), ("zh-hans", _("Simplified Chinese"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
FORMAT_MODULE_PATH = ["config.formats"]
TIME_ZONE = env("TIME_ZONE", "Asia/Shanghai")
USE_I18N = True
USE_TZ = True

# The advisor's form at its largest: 100 task rows of 40 fields each (advisor.forms.MAX_TASKS,
# TaskForm) and the constraints; Django's default of 1,000 refused it past 24 rows with a 400.
# tests/advisor/web/test_posted_scenarios.py keeps the two in step.
DATA_UPLOAD_MAX_NUMBER_FIELDS = 5000
# Bodies over these sizes are refused (413) before they are read (api/fairuse.py): Django's own
# DATA_UPLOAD_MAX_MEMORY_SIZE (2.5 MB) everywhere but the admin, whose import takes files of up to
# 20 MB (platforms.admin) in a multipart body.
MAX_BODY_BYTES = envint("MAX_BODY_BYTES", 2_621_440)
ADMIN_MAX_BODY_BYTES = envint("ADMIN_MAX_BODY_BYTES", 21 * 1024 * 1024)
# Pages (not the API, the admin, static files or probes) per client, and saved scenarios
# (POST /s/) per client; past them a 429 page with Retry-After.
PAGE_ANON_RATE = env("PAGE_ANON_RATE", "60/min")
PAGE_USER_RATE = env("PAGE_USER_RATE", "300/min")
SCENARIO_SAVE_RATE = env("SCENARIO_SAVE_RATE", "30/hour")
# Watches made (POST /watches/new/) per client, as saved scenarios are counted.
WATCH_CREATE_RATE = env("WATCH_CREATE_RATE", "20/hour")

STATIC_URL = "static/"
STATIC_ROOT = env("STATIC_ROOT", str(BASE_DIR / "var" / "staticfiles"))
# plotly.js comes from the installed plotly package, never a CDN:
# {% static 'vendor/plotly/plotly.min.js' %}
STATICFILES_DIRS = [
    BASE_DIR / "static",
    ("vendor/plotly", Path(plotly.__file__).resolve().parent / "package_data"),
]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

# Redis (Django's RedisCache on the `redis` package) is shared by every worker: the API's
# throttle counters live here, so production requires it (prod.py). A Redis that is down or
# frozen is not an outage: each call gives up after CACHE_TIMEOUT_MS, and the process then uses
# its own memory cache for CACHE_RETRY_AFTER_S seconds before trying Redis again (ops/cache.py).
CACHE_TIMEOUT_MS = envint("CACHE_TIMEOUT_MS", 50)
CACHES = {
    "default": {
        "BACKEND": "ops.cache.FallbackRedisCache",
        "LOCATION": env("REDIS_URL"),
        "OPTIONS": {
            "socket_connect_timeout": CACHE_TIMEOUT_MS / 1000,
            "socket_timeout": CACHE_TIMEOUT_MS / 1000,
            "retry_after": envint("CACHE_RETRY_AFTER_S", 5),
        },
    }
    if env("REDIS_URL")
    else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
}

# Prices older than this many days are marked stale and left out of recommendations unless asked.
PRICE_STALE_AFTER_DAYS = envint("PRICE_STALE_AFTER_DAYS", 90)

# Price feeds (feeds/) and the Celery worker and beat that run them. Without CELERY_BROKER_URL
# tasks run in the process that starts them (eager), so `make run` needs no worker and no Redis.
CELERY_BROKER_URL = env("CELERY_BROKER_URL") or "memory://"
CELERY_TASK_ALWAYS_EAGER = envbool("CELERY_TASK_ALWAYS_EAGER", not env("CELERY_BROKER_URL"))
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_IGNORE_RESULT = True  # outcomes are kept in the database (FeedRun, ImportJob)
CELERY_TASK_DEFAULT_QUEUE = env("CELERY_TASK_DEFAULT_QUEUE", "celery")
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Workers log through LOGGING (JSON lines in production) instead of Celery's own handlers.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
CELERY_TIMEZONE = TIME_ZONE
# Beat only wakes a task that starts the feeds that are due; the feeds' schedules are data.
FEED_CHECK_INTERVAL_S = envint("FEED_CHECK_INTERVAL_S", 60)
# Watches are checked after each price write and feed run (watches/signals.py) and, in case a
# broker was away then, every WATCH_CHECK_INTERVAL_S.
WATCH_CHECK_INTERVAL_S = envint("WATCH_CHECK_INTERVAL_S", 900)
CELERY_BEAT_SCHEDULE = {
    "feeds-run-due": {
        "task": "feeds.tasks.run_due_feeds",
        "schedule": float(FEED_CHECK_INTERVAL_S),
    },
    "watches-check": {
        "task": "watches.tasks.check_watches",
        "schedule": float(WATCH_CHECK_INTERVAL_S),
    },
}
CELERY_BEAT_SCHEDULE_FILENAME = env(
    "CELERY_BEAT_SCHEDULE_FILENAME", str(BASE_DIR / "var" / "celerybeat-schedule")
)
# Whether beat's `run_due_feeds` and `manage.py feeds run` (without a feed's name) start feeds at
# all: off for `make run` and the tests, so that nothing is fetched there, on in production
# (config/settings/prod.py). `manage.py feeds run NAME` runs the named feed either way.
FEEDS_ENABLED = envbool("FEEDS_ENABLED", False)
# A feed that failed this many runs in a row is flagged in the admin and on its platform's page.
FEED_FAILURES_BEFORE_FLAG = envint("FEED_FAILURES_BEFORE_FLAG", 3)
# The whole download's time limit (feeds/fetch.py).
FEED_TIMEOUT_S = envint("FEED_TIMEOUT_S", 60)
# Feeds fetch only public addresses; these hosts ("mirror.internal"), hosts and ports
# ("10.0.0.5:8080") or networks ("10.20.0.0/16") are fetched too, for an internal mirror.
FEED_ALLOWED_HOSTS = envlist("FEED_ALLOWED_HOSTS", "")
FEED_MAX_BYTES = envint("FEED_MAX_BYTES", 50 * 1024 * 1024)
# Attempts after the first when a run fails in a way that may pass (timeout, HTTP 5xx, cut-off
# download); attempt n+1 waits FEED_RETRY_BACKOFF_S * 2**(n-1) seconds, at most ..._MAX_S.
FEED_MAX_RETRIES = envint("FEED_MAX_RETRIES", 3)
FEED_RETRY_BACKOFF_S = envint("FEED_RETRY_BACKOFF_S", 60)
FEED_RETRY_BACKOFF_MAX_S = envint("FEED_RETRY_BACKOFF_MAX_S", 3600)
# A feed run's Celery task: past the soft limit the run is stopped and recorded as failed
# (nothing written); past the hard limit its worker process is killed. A slow feed cannot hold a
# worker, and the imports queued behind it, longer than this.
FEED_TASK_TIME_LIMIT_S = envint("FEED_TASK_TIME_LIMIT_S", 600)
FEED_TASK_HARD_TIME_LIMIT_S = envint("FEED_TASK_HARD_TIME_LIMIT_S", FEED_TASK_TIME_LIMIT_S + 60)
# A worker on a feed run or an import job writes a heartbeat every WORKER_HEARTBEAT_S; one whose
# heartbeat is gone for WORKER_LOST_AFTER_S is marked failed (feeds/liveness.py), and its job can
# be retried. Beat sends a job's task again when the broker was down at upload or confirmation,
# or when no worker took it for JOB_RESEND_AFTER_S.
WORKER_HEARTBEAT_S = envint("WORKER_HEARTBEAT_S", 15)
WORKER_LOST_AFTER_S = envint("WORKER_LOST_AFTER_S", 90)
JOB_RESEND_AFTER_S = envint("JOB_RESEND_AFTER_S", 600)
# A run or import job still under way after this long is marked failed (its worker stopped).
FEED_RUN_STALE_S = envint("FEED_RUN_STALE_S", 3600)

# Email (watches' messages): Django's email framework. SMTP by default (EMAIL_HOST, EMAIL_PORT,
# EMAIL_HOST_USER, EMAIL_HOST_PASSWORD, EMAIL_USE_TLS or EMAIL_USE_SSL); `make run` prints
# messages to the console (config/settings/dev.py). README.md, "Watches".
EMAIL_BACKEND = env("EMAIL_BACKEND", "django.core.mail.backends.smtp.EmailBackend")
EMAIL_HOST = env("EMAIL_HOST", "localhost")
EMAIL_PORT = envint("EMAIL_PORT", 25)
EMAIL_HOST_USER = env("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = envbool("EMAIL_USE_TLS", False)
EMAIL_USE_SSL = envbool("EMAIL_USE_SSL", False)
EMAIL_TIMEOUT = envint("EMAIL_TIMEOUT_S", 10)
DEFAULT_FROM_EMAIL = env("DEFAULT_FROM_EMAIL", "GPU Platform Advisor <advisor@localhost>")
# The site's address as people reach it: the links in watches' emails and webhooks.
SITE_URL = env("SITE_URL", "http://127.0.0.1:8000")

# Watches (watches/): at most one message per watch in WATCH_MIN_INTERVAL_S; a watch is checked
# again after WATCH_RECHECK_S even when no price was written (prices turn stale with time). An
# email address's watch waits WATCH_CONFIRM_DAYS for its confirmation; an address gets at most
# WATCH_CONFIRMATIONS_PER_DAY of them a day, an owner at most WATCH_MAX_PER_OWNER watches.
WATCH_MIN_INTERVAL_S = envint("WATCH_MIN_INTERVAL_S", 86400)
WATCH_RECHECK_S = envint("WATCH_RECHECK_S", 86400)
WATCH_CONFIRM_DAYS = envint("WATCH_CONFIRM_DAYS", 7)
WATCH_CONFIRMATIONS_PER_DAY = envint("WATCH_CONFIRMATIONS_PER_DAY", 3)
WATCH_MAX_PER_OWNER = envint("WATCH_MAX_PER_OWNER", 50)
# Webhooks go to public addresses only (as feeds, feeds/fetch.py); these hosts, hosts and ports or
# networks are allowed too. Apart from FEED_ALLOWED_HOSTS: anyone may name a webhook.
WATCH_WEBHOOK_ALLOWED_HOSTS = envlist("WATCH_WEBHOOK_ALLOWED_HOSTS", "")
WATCH_WEBHOOK_TIMEOUT_S = envint("WATCH_WEBHOOK_TIMEOUT_S", 10)

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # Tokens are stored hashed, expire and can be revoked (django-rest-knox; `manage.py
    # api_token`); failed attempts are throttled per client (api/authentication.py).
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "api.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_THROTTLE_CLASSES": [
        "rest_framework.throttling.AnonRateThrottle",
        "rest_framework.throttling.UserRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env("API_ANON_RATE", "120/min"),
        "user": env("API_USER_RATE", "1200/min"),
        "auth_failure": env("API_AUTH_FAILURE_RATE", "10/min"),
    },
    # Proxies in front that append the client's address to X-Forwarded-For; with none (the
    # default) the header is ignored and the client is the connection's address, so a made-up
    # header cannot pass for another client.
    "NUM_PROXIES": envint("NUM_PROXIES", 0),
    # Every API error in one shape: {"error": {"status", "code", "message", "fields"}}.
    "EXCEPTION_HANDLER": "api.exceptions.api_exception_handler",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "GPU Platform Advisor API",
    "DESCRIPTION": "GPU cloud catalogue, price history, memory estimates and recommendations.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Three fields are named "basis": what a cost covers, what a price is, where a model's
    # parameter count comes from; each choice set gets a name of its own in the schema.
    "ENUM_NAME_OVERRIDES": {
        "CostBasisEnum": "advisor.engine.vocab.CostBasis",
        "PriceBasisEnum": "platforms.models.PriceBasis",
        "ModelCountBasisEnum": ["preset", "counted", "published"],
    },
}

# CORS is off unless origins are named.
CORS_ALLOWED_ORIGINS = envlist("CORS_ALLOWED_ORIGINS", "")

LOGIN_URL = "admin:login"

# API tokens (django-rest-knox): only a SHA-512 digest is stored, the token is shown once.
REST_KNOX = {
    "TOKEN_TTL": timedelta(days=envint("API_TOKEN_DAYS", 90)),
    "AUTH_HEADER_PREFIX": "Token",
    "AUTO_REFRESH": False,
}

# Logs: LOG_FORMAT json (production's default: one JSON object a line, with the request id) or
# text; requests slower than SLOW_REQUEST_MS are warnings; LOG_REQUESTS logs every request.
LOG_FORMAT = env("LOG_FORMAT", "text")
LOG_LEVEL = env("LOG_LEVEL", "INFO").upper()
LOGGING = logging_config(fmt=LOG_FORMAT, level=LOG_LEVEL)
SLOW_REQUEST_MS = envint("SLOW_REQUEST_MS", 1000)
LOG_REQUESTS = envbool("LOG_REQUESTS", False)
# Keep an X-Request-ID sent with the request (a proxy's): by default only behind a proxy
# (NUM_PROXIES > 0); a client's own is replaced by ours.
TRUST_REQUEST_ID = envbool("TRUST_REQUEST_ID", envint("NUM_PROXIES", 0) > 0)

# Seconds a 503 (database unavailable) tells clients to wait before retrying.
RETRY_AFTER_S = envint("RETRY_AFTER_S", 30)

# Web workers (config/wsgi.py): the garbage collector's youngest generation is collected after
# this many new objects instead of Python's 700 (ops/collector.py); 0 leaves Python's thresholds.
GC_GEN0_THRESHOLD = envint("GC_GEN0_THRESHOLD", collector.DEFAULT_THRESHOLD)

# Only our own scripts, stylesheets, images and fonts; no inline script, no <style> element
# (plotly's rules come from static/css/plotly.css, see ops/plotly_css.py). Style attributes are
# allowed (style-src-attr): plotly.js writes them on its SVG text (fonts, sizes) and they cannot
# run code. The API's documentation pages (Swagger UI,
# ReDoc: drf-spectacular's templates start them with an inline script, ReDoc sets inline styles
# and starts a blob worker) alone get those; they show nothing but our own schema.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; style-src-attr 'unsafe-inline'; "
    "img-src 'self' data: blob:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'; "
    "form-action 'self'; frame-ancestors 'none'"
)
CONTENT_SECURITY_POLICY_DOCS_PATHS = ("/api/docs/", "/api/redoc/")
CONTENT_SECURITY_POLICY_DOCS = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: blob:; font-src 'self'; connect-src 'self'; worker-src 'self' blob:; "
    "object-src 'none'; base-uri 'self'; frame-ancestors 'none'"
)

# dumpdata/loaddata keep datetimes to the microsecond (ops/serializers/json.py).
SERIALIZATION_MODULES = {"json": "ops.serializers.json", "jsonl": "ops.serializers.jsonl"}
