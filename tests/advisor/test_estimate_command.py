"""`manage.py estimate`: JSON out, no database, `error: <field>: <message>` and status 2 on bad
input, never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = {
    "tasks": [
        {
            "name": "serve",
            "kind": "inference",
            "model": "llama-3.1-8b",
            "on": {"accelerator": "A100 80G", "mig_profile": "3g.40gb"},
        }
    ]
}


def test_it_prints_the_estimate_of_a_file_as_json(tmp_path: Path) -> None:
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(SCENARIO), encoding="utf-8")
    out = StringIO()
    call_command("estimate", str(path), stdout=out)
    task = json.loads(out.getvalue())["tasks"][0]
    assert task["on"]["accelerator"] == "a100-80gb"
    assert task["fit"]["fits"] is True


def test_it_reads_stdin_for_a_dash() -> None:
    out = StringIO()
    call_command("estimate", "-", stdin=StringIO(json.dumps(SCENARIO)), stdout=out)
    assert json.loads(out.getvalue())["tasks"][0]["name"] == "serve"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"tasks": [{"kind": "lora"}]}', "tasks[0].model: give a model preset or params"),
        ("{not json", "file: not valid JSON"),
        (
            '{"tasks": [{"kind": "fixed", "vram_gib": 1, "on": {"accelerator": "P100"}}]}',
            "tasks[0].on.accelerator: unknown accelerator 'P100'",
        ),
    ],
)
def test_bad_input_is_a_command_error_with_status_2_naming_the_field(text, message) -> None:
    with pytest.raises(CommandError) as caught:
        call_command("estimate", "-", stdin=StringIO(text), stdout=StringIO())
    assert caught.value.returncode == 2
    assert str(caught.value).startswith(message)


def test_a_missing_file_is_a_command_error() -> None:
    with pytest.raises(CommandError) as caught:
        call_command("estimate", "/nonexistent/scenario.json", stdout=StringIO())
    assert str(caught.value).startswith("file: ")


def test_on_the_command_line_an_error_is_one_line_on_stderr_and_exit_status_2() -> None:
    result = subprocess.run(
        [sys.executable, "manage.py", "estimate", "-"],
        input='{"tasks": [{"kind": "lora", "model": "gpt-5"}]}',
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith("error: tasks[0].model: unknown model 'gpt-5'")
    assert "Traceback" not in result.stderr
