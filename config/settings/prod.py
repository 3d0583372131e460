"""Production: refuses to start without a real SECRET_KEY and explicit hosts."""

from .base import *  # noqa: F403
from .env import env, envbool, envint, envlist

SECRET_KEY = env("SECRET_KEY", required=True)
DEBUG = envbool("DEBUG", False)
ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", "")
if not ALLOWED_HOSTS:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured("ALLOWED_HOSTS must name the hosts this site serves.")
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SESSION_COOKIE_SECURE = envbool("SESSION_COOKIE_SECURE", True)
CSRF_COOKIE_SECURE = envbool("CSRF_COOKIE_SECURE", True)
SECURE_HSTS_SECONDS = envint("SECURE_HSTS_SECONDS", 0)
