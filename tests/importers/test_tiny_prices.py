"""A price above 0 too small to keep (under 0.000001, the places a price has) is a bad row, not a
free offering. Before: `amount=0.0000001` was stored as 0 without a word."""

from __future__ import annotations

from pathlib import Path

import pytest

from platforms.models import PriceObservation

from .conftest import run, sample

LAMBDA = "skypilot-v8-lambda-vms.csv"

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "feeds-example.json"


@pytest.mark.django_db
def test_a_json_price_below_the_smallest_kept_is_refused(accelerators):
    text = EXAMPLE.read_text().replace('"amount": "1.88"', '"amount": "0.0000001"', 1)
    report = run(text, "json", None)
    assert not report.ok and not report.applied
    assert "below 0.000001" in str(report.errors[0])
    assert PriceObservation.objects.count() == 0


@pytest.mark.django_db
def test_a_csv_price_below_the_smallest_kept_is_refused_and_one_that_rounds_is_kept(lambda_cloud):
    text = sample(LAMBDA)
    tiny = text.replace(",1.29,", ",0.0000001,", 1)
    report = run(tiny, "skypilot", lambda_cloud)
    assert not report.applied
    assert any("Price is above 0 but below 0.000001" in str(e) for e in report.errors)
    # Seven places that round to a price above 0 are kept, rounded, as before.
    rounded = text.replace(",1.29,", ",1.2900004,", 1)
    assert run(rounded, "skypilot", lambda_cloud).applied
