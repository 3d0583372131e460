"""`manage.py compile_translations`: compile every locale/*/LC_MESSAGES/*.po to .mo.

Uses Babel, so a fresh machine needs no gettext tools; `make run` and `make test` call it.
"""

from pathlib import Path
from typing import Any

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError


class Command(BaseCommand):
    help = "Compile the committed .po translation files into .mo files."
    requires_system_checks = []

    def handle(self, *args: Any, **options: Any) -> None:
        compiled = 0
        for locale_dir in settings.LOCALE_PATHS:
            for po_path in sorted(Path(locale_dir).glob("*/LC_MESSAGES/*.po")):
                mo_path = po_path.with_suffix(".mo")
                if mo_path.exists() and mo_path.stat().st_mtime >= po_path.stat().st_mtime:
                    continue
                try:
                    with po_path.open("rb") as po_file:
                        catalog = read_po(po_file, locale=po_path.parts[-3])
                except Exception as exc:  # Babel raises several parse error types
                    raise CommandError(f"{po_path}: {exc}") from exc
                with mo_path.open("wb") as mo_file:
                    write_mo(mo_file, catalog, use_fuzzy=False)
                compiled += 1
        self.stdout.write(f"Compiled {compiled} translation file(s).")
