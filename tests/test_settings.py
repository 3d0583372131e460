"""Settings come from the environment and production refuses to start half-configured."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


def import_prod_settings(**env) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "ALLOWED_HOSTS"}}
    return subprocess.run(
        [sys.executable, "-c", "import config.settings.prod"],
        env={**clean, **env},
        capture_output=True,
        text=True,
        check=False,
    )


def test_production_refuses_to_start_without_a_secret_key():
    result = import_prod_settings(ALLOWED_HOSTS="example.com")
    assert result.returncode != 0
    assert "SECRET_KEY is required" in result.stderr


def test_production_refuses_to_start_without_allowed_hosts():
    result = import_prod_settings(SECRET_KEY="x" * 50)
    assert result.returncode != 0
    assert "ALLOWED_HOSTS" in result.stderr


def test_production_starts_with_its_variables():
    result = import_prod_settings(SECRET_KEY="x" * 50, ALLOWED_HOSTS="example.com")
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("value", ["maybe", "2"])
def test_a_bad_boolean_fails_loudly(value, monkeypatch):
    from django.core.exceptions import ImproperlyConfigured

    from config.settings.env import envbool

    monkeypatch.setenv("DEBUG", value)
    with pytest.raises(ImproperlyConfigured, match="DEBUG must be a boolean"):
        envbool("DEBUG", False)
