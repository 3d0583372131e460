"""Against a real Celery worker on Redis (the feed tests' embedded worker,
tests/feeds/test_worker.py: its own queue on FEEDS_TEST_BROKER_URL; skipped without Redis, except
in CI): a price write that commits sends the check to the worker, which tells the watch of a saved
scenario whose #1 it changed, by email and by a signed webhook."""

from __future__ import annotations

import json
from collections.abc import Iterator
from decimal import Decimal

import pytest
import time_machine
from django.core import mail
from django.utils import timezone

from platforms import services
from platforms.models import CurrentPrice
from tests.conftest import NOW
from tests.feeds.test_worker import broker, worker  # noqa: F401 (fixtures)
from watches import checks, webhook
from watches.models import Watch, WatchKind
from watches.tasks import check_watches

# Imported before the worker's app is made, so that the worker knows the task.
assert check_watches.name == "watches.tasks.check_watches"

pytestmark = [pytest.mark.celery_worker, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def frozen() -> Iterator[object]:
    """The seed's date, with the clock running: the worker's timers need it to."""
    with time_machine.travel(NOW, tick=True) as traveller:
        yield traveller


def test_a_price_write_s_check_runs_on_the_worker(worker, renter, dev_scenario, hook_server):  # noqa: F811
    answer = dev_scenario
    watch = Watch(
        kind=WatchKind.SCENARIO,
        scenario=answer.saved,
        user=renter,
        webhook_url=hook_server.url,
        threshold_pct=Decimal("10"),
        confirmed_at=timezone.now(),
    )
    watch.baseline = checks.state_of(watch) or {}
    watch.save()
    current = CurrentPrice.objects.get(
        offering_id=answer.second.offering_id, unit=answer.second.plan.unit, tier="list"
    )

    services.price_observation_create(  # its own transaction: committed, the check is sent
        offering=current.offering,
        unit=current.unit,
        amount=(current.amount / 5).quantize(Decimal("0.000001")),
        currency=current.currency,
        source=services.manual_source(),
    )
    worker.wait("watches.tasks.check_watches")

    assert [m.to for m in mail.outbox] == [["renter@example.com"]]
    assert len(hook_server.received) == 1
    hook = hook_server.received[0]
    assert webhook.verify(watch.secret, hook.body, hook.headers["X-Advisor-Signature"])
    assert "first_changed" in json.loads(hook.body)["reasons"]
    assert Watch.objects.get().notified_at is not None
