"""`manage.py db_restore PATH [--noinput]`: replace the database's contents by a db_backup file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ops.backup import BackupError, restore


class Command(BaseCommand):
    help = "Restore the database from a db_backup file (everything in it now is replaced)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path")
        parser.add_argument("--database", default="default")
        parser.add_argument("--noinput", "--no-input", action="store_false", dest="interactive")

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(options["path"])
        if options["interactive"]:
            answer = input(f"Replace everything in the database by {path}? Type 'yes': ")
            if answer.strip() != "yes":
                raise CommandError("restore cancelled")
        try:
            restore(path, options["database"])
        except BackupError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"restored {path}")
