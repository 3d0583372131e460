"""`manage.py estimate FILE`: per-task memory, fit and time of a scenario, as JSON, without a
database. FILE is a scenario JSON file (the scenario contract, README "Scenario"), or `-` for stdin.

Bad input exits with status 2 and one line `error: <field>: <message>` on stderr, never a traceback.
Called through `call_command`, the same failure is a `CommandError` with `returncode` 2.
"""

from __future__ import annotations

import json
import sys
from typing import Any, Literal

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import translation

from advisor.engine.errors import AdvisorError
from advisor.engine.estimate import estimate
from advisor.engine.hardware import load_accelerators
from advisor.engine.scenario import parse_scenario
from api.advice import EstimateSerializer

USAGE_ERROR = 2


class EstimateError(CommandError):
    """Bad input: `<field>: <message>`."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}", returncode=USAGE_ERROR)


class Command(BaseCommand):
    help = "Estimate per-GPU memory, fit and time of a scenario (JSON file, or - for stdin)."
    requires_system_checks: (
        list[str] | Literal["__all__"]
    ) = []  # needs no database and no full configuration
    stealth_options = ("stdin",)  # call_command(..., stdin=StringIO(...)) for "-"
    from_command_line = False

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="scenario JSON file, or - for stdin")

    def run_from_argv(self, argv: list[str]) -> None:
        self.from_command_line = True
        super().run_from_argv(argv)

    def execute(self, *args: Any, **options: Any) -> str | None:
        try:
            return super().execute(*args, **options)
        except EstimateError as error:
            if not self.from_command_line:
                raise
            # Django would print "EstimateError: ..."; the contract is "error: <field>: ...".
            self.stderr.write(f"error: {error}")
            sys.exit(error.returncode)

    def _read(self, name: str, stdin: Any) -> Any:
        try:
            if name == "-":
                return json.load(stdin)
            with open(name, encoding="utf-8") as handle:
                return json.load(handle)
        except OSError as error:
            raise EstimateError("file", error.strerror or str(error)) from None
        except (ValueError, RecursionError) as error:  # bad JSON or UTF-8, absurd nesting
            raise EstimateError("file", f"not valid JSON: {error}") from None

    def handle(self, *args: Any, **options: Any) -> None:
        data = self._read(options["file"], options.get("stdin") or sys.stdin)
        try:
            result = estimate(parse_scenario(data), load_accelerators())
        except AdvisorError as error:
            raise EstimateError(error.field or "non_field_errors", error.message) from None
        with translation.override("en"):  # the CLI speaks English
            body = EstimateSerializer(result).data
        self.stdout.write(json.dumps(body, indent=2, ensure_ascii=False))
