"""Small helpers that read settings from the environment and fail loudly on bad values, and the
loader of a `.env` file (KEY=value lines, see .env.example) that fills in what the environment
does not set."""

from __future__ import annotations

import os
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env(name: str, default: str | None = None, *, required: bool = False) -> str:
    value = os.environ.get(name)
    if value is None:
        if required:
            raise ImproperlyConfigured(f"The environment variable {name} is required.")
        return default if default is not None else ""
    return value


def envbool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    if value.strip().lower() in _TRUE:
        return True
    if value.strip().lower() in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false), not {value!r}.")


def envint(name: str, default: int) -> int:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, not {value!r}.") from None


def envlist(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in env(name, default).split(",") if item.strip()]


def load_env_file(path: Path) -> list[str]:
    """Set each `KEY=value` line of `path` that the environment does not set already (the
    environment wins); blank lines and `#` comments are skipped, one pair of matching quotes
    around a value is dropped. No file, nothing set. Returns the names it set."""
    if not path.is_file():
        return []
    loaded = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("export "):
            line = line[len("export ") :].lstrip()
        name, sep, value = line.partition("=")
        name, value = name.strip(), value.strip()
        if not sep or not name.replace("_", "").isalnum():
            raise ImproperlyConfigured(f"{path.name} line {number}: expected KEY=value.")
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        if name not in os.environ:
            os.environ[name] = value
            loaded.append(name)
    return loaded
