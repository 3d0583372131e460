"""Settings shared by every environment, read from the environment where they differ.

DATABASE_URL selects the database (an SQLite file under var/ when unset), SECRET_KEY, DEBUG and
ALLOWED_HOSTS come from the environment; see .env.example.
"""

from __future__ import annotations

from pathlib import Path

import dj_database_url
import django_stubs_ext
import plotly
from django.utils.translation import gettext_lazy as _

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
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "corsheaders.middleware.CorsMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
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

DATABASES = {
    "default": dj_database_url.parse(
        env("DATABASE_URL", f"sqlite:///{BASE_DIR / 'var' / 'db.sqlite3'}"),
        conn_max_age=envint("DB_CONN_MAX_AGE", 60),
    )
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

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

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "var" / "staticfiles"
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

CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": env("REDIS_URL"),
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
CELERY_TIMEZONE = TIME_ZONE
# Beat only wakes a task that starts the feeds that are due; the feeds' schedules are data.
FEED_CHECK_INTERVAL_S = envint("FEED_CHECK_INTERVAL_S", 60)
CELERY_BEAT_SCHEDULE = {
    "feeds-run-due": {
        "task": "feeds.tasks.run_due_feeds",
        "schedule": float(FEED_CHECK_INTERVAL_S),
    },
}
CELERY_BEAT_SCHEDULE_FILENAME = env(
    "CELERY_BEAT_SCHEDULE_FILENAME", str(BASE_DIR / "var" / "celerybeat-schedule")
)
# A feed that failed this many runs in a row is flagged in the admin and on its platform's page.
FEED_FAILURES_BEFORE_FLAG = envint("FEED_FAILURES_BEFORE_FLAG", 3)
FEED_TIMEOUT_S = envint("FEED_TIMEOUT_S", 60)
FEED_MAX_BYTES = envint("FEED_MAX_BYTES", 50 * 1024 * 1024)
# Attempts after the first when a run fails in a way that may pass (timeout, HTTP 5xx, cut-off
# download); attempt n+1 waits FEED_RETRY_BACKOFF_S * 2**(n-1) seconds, at most ..._MAX_S.
FEED_MAX_RETRIES = envint("FEED_MAX_RETRIES", 3)
FEED_RETRY_BACKOFF_S = envint("FEED_RETRY_BACKOFF_S", 60)
FEED_RETRY_BACKOFF_MAX_S = envint("FEED_RETRY_BACKOFF_MAX_S", 3600)
# A run or import job still under way after this long is marked failed (its worker stopped).
FEED_RUN_STALE_S = envint("FEED_RUN_STALE_S", 3600)

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
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
    },
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
}

# CORS is off unless origins are named.
CORS_ALLOWED_ORIGINS = envlist("CORS_ALLOWED_ORIGINS", "")

LOGIN_URL = "admin:login"
