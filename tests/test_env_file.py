"""The `.env` file (copied from .env.example): read before the settings, the environment wins."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.settings.env import load_env_file

ROOT = Path(__file__).resolve().parent.parent


def test_it_sets_what_the_environment_does_not(tmp_path, monkeypatch):
    monkeypatch.delenv("GPU_ADVISOR_TEST_A", raising=False)
    monkeypatch.delenv("GPU_ADVISOR_TEST_B", raising=False)
    monkeypatch.setenv("GPU_ADVISOR_TEST_C", "from the shell")
    env = tmp_path / ".env"
    env.write_text(
        "# a comment\n\nGPU_ADVISOR_TEST_A=plain\nexport GPU_ADVISOR_TEST_B = 'quoted value'\n"
        "GPU_ADVISOR_TEST_C=from the file\n",
        encoding="utf-8",
    )
    assert load_env_file(env) == ["GPU_ADVISOR_TEST_A", "GPU_ADVISOR_TEST_B"]
    assert os.environ["GPU_ADVISOR_TEST_A"] == "plain"
    assert os.environ["GPU_ADVISOR_TEST_B"] == "quoted value"
    assert os.environ["GPU_ADVISOR_TEST_C"] == "from the shell"
    for name in ("GPU_ADVISOR_TEST_A", "GPU_ADVISOR_TEST_B"):
        monkeypatch.delenv(name)


def test_no_file_sets_nothing(tmp_path):
    assert load_env_file(tmp_path / ".env") == []


def test_a_line_that_is_not_a_pair_names_its_line(tmp_path):
    env = tmp_path / ".env"
    env.write_text("OK=1\nnot a pair\n", encoding="utf-8")
    with pytest.raises(ImproperlyConfigured, match=r"\.env line 2: expected KEY=value"):
        load_env_file(env)


def test_the_example_file_parses(monkeypatch):
    """.env.example is what people copy: the project's loader reads every line of it, sets each
    name it lists (none set in the environment here) and gives each the file's value."""
    example = ROOT / ".env.example"
    pairs = [
        line.split("=", 1)
        for line in example.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    names = [name for name, _value in pairs]
    for name in names:  # unset for the loader; monkeypatch puts back what was there after
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)
    assert load_env_file(example) == names
    assert {name: os.environ[name] for name in names} == dict(pairs)
    assert os.environ["SECRET_KEY"] == "change-me"
    assert os.environ["DATABASE_URL"].startswith("postgres://")
    assert os.environ["PRICE_STALE_AFTER_DAYS"] == "90"


def test_the_settings_read_a_dotenv_beside_manage_py(tmp_path):
    """The settings package loads <checkout>/.env before any settings module reads the
    environment: a copy of the project with a .env naming the time zone shows it in settings."""
    checkout = tmp_path / "checkout"
    (checkout / "config").mkdir(parents=True)
    for path in (ROOT / "config").rglob("*.py"):
        target = checkout / path.relative_to(ROOT)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(path.read_bytes())
    (checkout / ".env").write_text("TIME_ZONE=Europe/Berlin\n", encoding="utf-8")
    code = "import os, config.settings; print(os.environ['TIME_ZONE'])"
    env = {k: v for k, v in os.environ.items() if k != "TIME_ZONE"}
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=checkout, env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "Europe/Berlin"
