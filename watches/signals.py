"""A price write enqueues a check of the watches once its transaction commits: a price added,
corrected or deleted (the admin, the API: PriceObservation's own saves and deletes), a feed run
or an admin import that succeeded (their prices are written in bulk, which sends no save signal
per price). One check per transaction, and none while no watch is confirmed; beat's periodic
check (CELERY_BEAT_SCHEDULE, "watches-check") catches what a broker that was down missed."""

from __future__ import annotations

import logging
from typing import Any

from django.db import connection, transaction
from django.db.models.signals import post_delete, post_save

from feeds.models import FeedRun, ImportJob, JobStatus, RunStatus
from platforms.models import PriceObservation

logger = logging.getLogger(__name__)


def enqueue_check() -> None:
    """Send the check to a worker (at once where tasks run eagerly)."""
    from .models import Watch
    from .tasks import check_watches

    if not Watch.objects.confirmed().exists():
        return
    try:
        check_watches.delay()
    except Exception as exc:  # the broker is away: beat's next check catches up
        logger.warning("watches: the check was not enqueued: %s", type(exc).__name__)


def check_on_commit(**kwargs: Any) -> None:
    """After the transaction's commit (at once outside one); once per atomic block, however many
    prices it writes (an admin's bulk delete sends a signal per row)."""
    if connection.in_atomic_block:
        here = set(connection.savepoint_ids)
        if any(
            entry[1] is enqueue_check and set(entry[0]) == here
            for entry in connection.run_on_commit
        ):
            return
    transaction.on_commit(enqueue_check)


def _price_written(sender: Any, **kwargs: Any) -> None:
    if not kwargs.get("raw"):  # loaddata writes rows as they are
        check_on_commit()


def _run_saved(sender: Any, instance: FeedRun, **kwargs: Any) -> None:
    if instance.status == RunStatus.SUCCEEDED:
        check_on_commit()


def _job_saved(sender: Any, instance: ImportJob, **kwargs: Any) -> None:
    if instance.status == JobStatus.SUCCEEDED:
        check_on_commit()


def connect() -> None:
    post_save.connect(_price_written, sender=PriceObservation, dispatch_uid="watches-price-saved")
    post_delete.connect(
        _price_written, sender=PriceObservation, dispatch_uid="watches-price-deleted"
    )
    post_save.connect(_run_saved, sender=FeedRun, dispatch_uid="watches-feed-run")
    post_save.connect(_job_saved, sender=ImportJob, dispatch_uid="watches-import-job")
