"""`manage.py db_backup [PATH]`: a backup of the database (SQLite file copy or pg_dump archive).

Without PATH it goes to var/backups/<database>-<UTC time>.sqlite3 (or .dump). See ops/backup.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from ops.backup import BackupError, backup, default_name


class Command(BaseCommand):
    help = "Back up the database: a consistent SQLite copy, or a pg_dump archive for PostgreSQL."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", nargs="?", help="file to write (default under var/backups/)")
        parser.add_argument("--database", default="default")

    def handle(self, *args: Any, **options: Any) -> None:
        alias = options["database"]
        if options["path"]:
            path = Path(options["path"])
        else:
            stamp = timezone.now().strftime("%Y%m%dT%H%M%SZ")
            name = Path(str(settings.DATABASES[alias]["NAME"])).stem
            path = settings.BASE_DIR / "var" / "backups" / f"{name}-{stamp}.{default_name(alias)}"
        try:
            written = backup(path, alias)
        except BackupError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(str(written))
