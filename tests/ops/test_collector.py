"""A web worker's collector thresholds (ops/collector.py, config/wsgi.py)."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ops.collector import set_threshold

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def thresholds():
    before = gc.get_threshold()
    yield before
    gc.set_threshold(*before)


def test_the_youngest_generation_takes_the_threshold_and_the_others_stay(thresholds):
    set_threshold(100_000)
    assert gc.get_threshold() == (100_000, *thresholds[1:])


def test_zero_leaves_pythons_thresholds(thresholds):
    set_threshold(0)
    assert gc.get_threshold() == thresholds


def pythons_own() -> int:
    out = subprocess.run(
        [sys.executable, "-c", "import gc; print(gc.get_threshold()[0])"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(out.stdout)


@pytest.mark.parametrize(("given", "expected"), [(None, 100_000), ("5000", 5_000), ("0", None)])
def test_a_worker_loading_the_wsgi_application_sets_them(given, expected):
    """config.wsgi, as gunicorn loads it in each worker, with production settings."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.prod",
        "SECRET_KEY": "a-production-key-for-this-test-only-" + "x1y2z3" * 6,
        "DATABASE_URL": "postgres://nobody@127.0.0.1:1/none",
        "ALLOWED_HOSTS": "127.0.0.1",
        "REDIS_URL": "redis://127.0.0.1:1/0",
        "CELERY_BROKER_URL": "redis://127.0.0.1:1/1",
    }
    env.pop("GC_GEN0_THRESHOLD", None)
    if given is not None:
        env["GC_GEN0_THRESHOLD"] = given
    script = "import gc, config.wsgi; print(gc.get_threshold()[0])"
    out = subprocess.run(
        [sys.executable, "-c", script], env=env, cwd=ROOT, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert int(out.stdout) == (pythons_own() if expected is None else expected)
