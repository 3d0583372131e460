"""Celery: `check_watches`, sent by beat every WATCH_CHECK_INTERVAL_S and after each price write,
feed run and import that succeeded (watches/signals.py). With no broker (CELERY_BROKER_URL unset,
`make run`) it runs where it is sent."""

from __future__ import annotations

from celery import shared_task

from . import checks, notify


@shared_task(name="watches.tasks.check_watches", ignore_result=True)
def check_watches() -> int:
    """Check the due watches and tell their owners what changed; returns how many were told."""
    return checks.watches_check(send=notify.send)
