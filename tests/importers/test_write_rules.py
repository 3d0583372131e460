"""Imports write through the catalogue's write services and meet their rules, as every other write
path does: a price dated in the future is refused, whether new or seen again."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from platforms import services
from platforms.importers import observed_at_value
from platforms.models import Offering, PriceObservation, Source

from .conftest import DAY_1, run

NATIVE = "offering_key,name,accelerator,gpu_count,billing_unit,amount,currency,observed_at\n"
FUTURE_MESSAGE = "A price cannot be observed in the future."


def future_day():
    return timezone.localdate() + timedelta(days=2)


def native(*rows: str) -> str:
    return NATIVE + "".join(f"{row}\n" for row in rows)


def test_a_row_dated_in_the_future_is_an_error_and_nothing_is_written(lambda_cloud):
    text = native(
        f"a10-1x,A10,A10,1,hour,1.29,USD,{DAY_1}",
        f"a10-2x,A10 x2,A10,2,hour,2.58,USD,{future_day()}",
    )

    preview = run(text, "native", lambda_cloud, dry_run=True)
    report = run(text, "native", lambda_cloud)

    expected = [(3, "invalid price", f"observed_at: {FUTURE_MESSAGE}")]
    assert [(p.line, p.reason, p.message) for p in preview.errors] == expected
    assert [(p.line, p.reason, p.message) for p in report.errors] == expected
    assert not report.applied
    assert (Offering.objects.count(), PriceObservation.objects.count()) == (0, 0)


def test_an_import_dated_in_the_future_is_one_error_for_the_file(lambda_cloud):
    report = run(
        native("a10-1x,A10,A10,1,hour,1.29,USD,"), "native", lambda_cloud, day=future_day()
    )

    assert [(p.line, p.reason, str(p)) for p in report.errors] == [
        (0, "date in the future", FUTURE_MESSAGE)
    ]
    assert not Offering.objects.exists()


def test_an_unchanged_price_dated_in_the_future_does_not_move_last_seen(lambda_cloud):
    run(native(f"a10-1x,A10,A10,1,hour,1.29,USD,{DAY_1}"), "native", lambda_cloud)

    report = run(native(f"a10-1x,A10,A10,1,hour,1.29,USD,{future_day()}"), "native", lambda_cloud)

    assert [(p.line, p.message) for p in report.errors] == [(2, f"observed_at: {FUTURE_MESSAGE}")]
    assert PriceObservation.objects.get().last_seen_at == observed_at_value(DAY_1)


def test_offerings_and_prices_are_written_by_the_catalogue_services(lambda_cloud, monkeypatch):
    calls = []
    for name in ("offerings_create", "price_observations_create", "price_observations_seen"):
        original = getattr(services, name)

        def spy(*, _name=name, _original=original, **kwargs):
            calls.append(_name)
            return _original(**kwargs)

        monkeypatch.setattr(services, name, spy)

    run(native(f"a10-1x,A10,A10,1,hour,1.29,USD,{DAY_1}"), "native", lambda_cloud)
    first, calls[:] = list(calls), []
    run(native("a10-1x,A10,A10,1,hour,1.29,USD,"), "native", lambda_cloud, day=DAY_1 + timedelta(1))

    assert {"offerings_create", "price_observations_create"} <= set(first)
    assert "price_observations_seen" in calls
    assert PriceObservation.objects.get().last_seen_at == observed_at_value(DAY_1 + timedelta(1))


def test_the_bulk_price_services_refuse_a_future_date_as_the_single_one_does(lambda_cloud):
    run(native(f"a10-1x,A10,A10,1,hour,1.29,USD,{DAY_1}"), "native", lambda_cloud)
    offering, stored = Offering.objects.get(), PriceObservation.objects.get()
    later = timezone.now() + timedelta(days=1)
    new = PriceObservation(
        offering=offering,
        unit="day",
        amount=Decimal("30"),
        currency="USD",
        observed_at=later,
        source=Source.objects.get(kind="import"),
    )

    with pytest.raises(ValidationError, match=FUTURE_MESSAGE):
        services.price_observations_create(observations=[new])
    with pytest.raises(ValidationError, match=FUTURE_MESSAGE):
        services.price_observations_seen(observations=[stored], seen_at=later)
    with pytest.raises(ValidationError, match=FUTURE_MESSAGE):
        services.price_observation_seen(observation=stored, seen_at=later)

    stored.refresh_from_db()
    assert stored.last_seen_at == observed_at_value(DAY_1)
    assert PriceObservation.objects.count() == 1
