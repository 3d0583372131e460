"""`manage.py advise FILE`: ranked recommendations for a scenario from the catalogue, as JSON.

FILE is a scenario JSON file (the scenario contract, README "Scenario"), or `-` for stdin. Reads
the database through advisor.services, the same code path as the web page and the API, and
prints the API's body: the ranked recommendations (each a plan of legs), the search over plans
across platforms, and for a preset of the seed article (`"preset": "<id>"`) its claims checked
and the verdict on its pick. Bad input exits with status 2 and one line `error: <field>:
<message>` on stderr, never a traceback. Nothing that fits exits with status 2 too, after
printing the API's 422 body (the closest miss, the changes that would fit as scenarios to run
again, the checks) on stdout.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from django.utils import translation

from advisor import services
from advisor.engine.errors import AdvisorError
from api.advice import advice_report_json
from api.exceptions import no_fit_body

from .estimate import Command as EstimateCommand
from .estimate import EstimateError


class Command(EstimateCommand):
    help = "Recommend platforms, offerings and billing plans for a scenario (JSON file, or -)."
    requires_system_checks = "__all__"

    def handle(self, *args: Any, **options: Any) -> None:
        data = self._read(options["file"], options.get("stdin") or sys.stdin)
        with translation.override("en"):  # the CLI speaks English
            try:
                report = services.advise_scenario(data)
            except AdvisorError as error:
                raise EstimateError(error.field or "scenario", error.message) from None
            no_fit = report.no_fit
            if no_fit is not None:
                self._write(no_fit_body(report))
                raise EstimateError(no_fit.field or "scenario", no_fit.message)
            self._write(advice_report_json(report))

    def _write(self, body: Any) -> None:
        self.stdout.write(json.dumps(body, indent=2, ensure_ascii=False, default=str))
