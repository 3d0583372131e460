"""Settings come from the environment, and production refuses to start half-configured or
insecure, with one line saying why."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GOOD_KEY = "k3y-" + "x1y2z3" * 10  # 64 characters, 9 distinct: passes Django's security.W009
PROD_ENV = {
    "SECRET_KEY": GOOD_KEY,
    "ALLOWED_HOSTS": "advisor.example.com",
    "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/gpu_advisor",
    "REDIS_URL": "redis://127.0.0.1:6379/0",
    "CELERY_BROKER_URL": "redis://127.0.0.1:6379/0",
}
PROD_VARIABLES = {*PROD_ENV, "DEBUG", "TLS_AT_PROXY", "SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS"}


def run(args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in PROD_VARIABLES}
    clean.pop("DJANGO_SETTINGS_MODULE", None)
    # The browser tests' conftest sets it for Playwright's event loop; a production host never
    # has it (check --deploy refuses it: async.E001).
    clean.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    return subprocess.run(
        args, env={**clean, **env}, capture_output=True, text=True, check=False, cwd=ROOT
    )


def import_prod_settings(**env: str) -> subprocess.CompletedProcess[str]:
    return run([sys.executable, "-c", "import config.settings.prod"], **env)


def manage_prod(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return run(
        [sys.executable, "manage.py", *args], DJANGO_SETTINGS_MODULE="config.settings.prod", **env
    )


def without(name: str) -> dict[str, str]:
    return {k: v for k, v in PROD_ENV.items() if k != name}


def test_production_refuses_to_start_without_a_secret_key():
    result = import_prod_settings(**without("SECRET_KEY"))
    assert result.returncode != 0
    assert "SECRET_KEY is required" in result.stderr


def test_production_refuses_to_start_without_allowed_hosts():
    result = import_prod_settings(**without("ALLOWED_HOSTS"))
    assert result.returncode != 0
    assert "ALLOWED_HOSTS" in result.stderr


def test_production_starts_with_its_variables():
    result = import_prod_settings(**PROD_ENV)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize(
    ("env", "line"),
    [
        (without("DATABASE_URL"), "error: The environment variable DATABASE_URL is required."),
        ({**PROD_ENV, "DEBUG": "true"}, "error: DEBUG=true is refused by config.settings.prod"),
        ({**PROD_ENV, "SECRET_KEY": "change-me"}, "error: SECRET_KEY is too weak"),
        ({**PROD_ENV, "SECRET_KEY": "a" * 60}, "error: SECRET_KEY is too weak"),
        (
            {**PROD_ENV, "SECRET_KEY": "django-insecure-" + GOOD_KEY},
            "error: SECRET_KEY is too weak",
        ),
        (without("REDIS_URL"), "error: REDIS_URL is required"),
        # Before: imports ran inside the admin's POST, and gunicorn killed it at 30 s.
        (without("CELERY_BROKER_URL"), "error: CELERY_BROKER_URL is required"),
    ],
    ids=[
        "no-database-url",
        "debug",
        "short-key",
        "one-letter-key",
        "django-insecure",
        "no-redis",
        "no-broker",
    ],
)
def test_manage_py_refuses_production_half_configured_with_one_line(env, line):
    """Today a missing DATABASE_URL silently means SQLite, and DEBUG=true or a weak key start."""
    result = manage_prod("check", **env)
    assert result.returncode == 2
    assert result.stderr.startswith(line), result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_the_deployment_check_is_clean_with_production_settings():
    """`check --deploy` warned of HSTS (security.W004) and the SSL redirect (security.W008)."""
    result = manage_prod("check", "--deploy", "--fail-level", "WARNING", **PROD_ENV)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_behind_a_tls_proxy_redirect_and_hsts_are_left_to_it_and_the_check_stays_clean():
    env = {**PROD_ENV, "TLS_AT_PROXY": "true"}
    result = manage_prod("check", "--deploy", "--fail-level", "WARNING", **env)
    assert result.returncode == 0, result.stdout + result.stderr
    shown = manage_prod(
        "shell",
        "-v",
        "0",
        "-c",
        "from django.conf import settings as s;"
        "print(s.SECURE_SSL_REDIRECT, s.SECURE_HSTS_SECONDS, s.SESSION_COOKIE_SECURE)",
        **env,
    )
    assert shown.stdout.split() == ["False", "0", "True"], shown.stderr


def test_production_redirects_to_https_and_sends_hsts_by_default():
    shown = manage_prod(
        "shell",
        "-v",
        "0",
        "-c",
        "from django.conf import settings as s;"
        "print(s.SECURE_SSL_REDIRECT, s.SECURE_HSTS_SECONDS, s.SECURE_HSTS_INCLUDE_SUBDOMAINS,"
        " s.LOG_FORMAT, s.CACHES['default']['BACKEND'], s.REST_FRAMEWORK['NUM_PROXIES'])",
        **PROD_ENV,
    )
    assert shown.stdout.split() == [
        "True",
        "31536000",
        "True",
        "json",
        "ops.cache.FallbackRedisCache",
        "0",
    ], shown.stderr


@pytest.mark.parametrize("value", ["maybe", "2"])
def test_a_bad_boolean_fails_loudly(value, monkeypatch):
    from django.core.exceptions import ImproperlyConfigured

    from config.settings.env import envbool

    monkeypatch.setenv("DEBUG", value)
    with pytest.raises(ImproperlyConfigured, match="DEBUG must be a boolean"):
        envbool("DEBUG", False)


def test_postgres_connections_have_connect_statement_and_client_timeouts():
    from config.settings.database import database

    config = database("postgres://u@db.example.com:5432/advisor")
    assert config["ENGINE"] == "ops.db.postgresql"
    assert config["CONN_HEALTH_CHECKS"] is True
    options = config["OPTIONS"]
    assert options["connect_timeout"] == 3
    assert options["options"] == "-c statement_timeout=20000"
    assert options["tcp_user_timeout"] == 25000
    assert options["keepalives"] == 1


def test_sqlite_connections_wait_a_bounded_time_for_a_lock():
    from config.settings.database import database

    config = database("sqlite:////tmp/x.sqlite3")
    assert config["OPTIONS"] == {"timeout": 5}
    assert config["CONN_HEALTH_CHECKS"] is True
