"""Local development: `make run`."""

from .base import *  # noqa: F403
from .env import envbool

DEBUG = envbool("DEBUG", True)

# Serve static files straight from the app folders and the installed packages (no collectstatic).
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
