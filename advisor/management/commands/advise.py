"""`manage.py advise FILE`: ranked recommendations for a scenario from the catalogue, as JSON.

FILE is a scenario JSON file (the scenario contract, README "Scenario"), or `-` for stdin. Reads
the database through advisor.services, the same code path as the web page and the API. Bad input,
or nothing that fits, exits with status 2 and one line `error: <field>: <message>`,
never a traceback.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from django.utils import translation

from advisor import services
from advisor.engine.errors import AdvisorError
from api.advice import AdviceReportSerializer

from .estimate import Command as EstimateCommand
from .estimate import EstimateError


class Command(EstimateCommand):
    help = "Recommend platforms, offerings and billing plans for a scenario (JSON file, or -)."
    requires_system_checks = "__all__"

    def handle(self, *args: Any, **options: Any) -> None:
        data = self._read(options["file"], options.get("stdin") or sys.stdin)
        try:
            report = services.advise_scenario(data)
            if report.no_fit is not None:
                raise report.no_fit
        except AdvisorError as error:
            raise EstimateError(error.field or "scenario", error.message) from None
        with translation.override("en"):  # the CLI speaks English
            body = AdviceReportSerializer(report).data
        self.stdout.write(json.dumps(body, indent=2, ensure_ascii=False, default=str))
