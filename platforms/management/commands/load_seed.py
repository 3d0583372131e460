"""`manage.py load_seed`: load the seed catalogue; safe to run again (creates what is missing)."""

from typing import Any

from django.core.management.base import BaseCommand

from platforms.seed import load_seed


class Command(BaseCommand):
    help = "Load accelerators, platforms, offerings and prices from fixtures/ (idempotent)."

    def handle(self, *args: Any, **options: Any) -> None:
        report = load_seed()
        self.stdout.write(str(report))
