"""Local development: `make run`."""

from .base import *  # noqa: F403
from .env import env, envbool

DEBUG = envbool("DEBUG", True)

# Static files as `make serve` sends them: `make run` collects them first, and WhiteNoise serves
# them from STATIC_ROOT with hashed names, gzipped and cached (config/storage.py). What was never
# collected is served plainly from the app folders and the installed packages.
STORAGES = {
    **STORAGES,  # noqa: F405
    "staticfiles": {"BACKEND": "config.storage.HashedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
# runserver leaves /static/ to WhiteNoise (its own handler would not find the hashed names).
INSTALLED_APPS = ["whitenoise.runserver_nostatic", *INSTALLED_APPS]  # noqa: F405
# Watches' emails are printed where `make run` runs, not sent.
EMAIL_BACKEND = env("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
