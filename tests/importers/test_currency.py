"""Converting between CNY and USD at the rate of a stated date, and saying which rate was used."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

import pytest
from django.utils import timezone

from platforms.importers.currency import NoExchangeRate, convert
from platforms.models import ExchangeRate, Source


@pytest.fixture
def cfets_rates(db) -> Source:
    """The three CFETS central parities in reference/china-prices.md §4 (CNY per USD)."""
    source = Source.objects.create(
        title="CFETS central parity", url="https://www.chinamoney.org.cn", kind="third_party"
    )
    for as_of, rate in [
        (date(2026, 8, 14), "6.7413"),
        (date(2026, 9, 12), "6.7092"),
        (date(2026, 9, 30), "6.7351"),
    ]:
        ExchangeRate.objects.create(
            base="USD", quote="CNY", rate=Decimal(rate), as_of=as_of, source=source
        )
    return source


def test_a_usd_price_converts_at_the_latest_rate_on_or_before_the_date(cfets_rates):
    conversion = convert(Decimal("1.99"), "USD", "CNY", as_of=date(2026, 10, 15))

    assert conversion.amount == Decimal("13.4028")  # 1.99 x 6.7351
    assert (conversion.rate, conversion.rate_date) == (Decimal("6.7351"), date(2026, 9, 30))
    assert conversion.source == cfets_rates
    assert str(conversion) == (
        "1.99 USD = 13.4028 CNY at 6.7351 CNY per USD on 2026-09-30, CFETS central parity"
    )


def test_a_rate_recorded_after_the_date_is_never_used(cfets_rates):
    conversion = convert(Decimal("100"), "USD", "CNY", as_of=date(2026, 9, 29))

    assert (conversion.rate, conversion.rate_date) == (Decimal("6.7092"), date(2026, 9, 12))
    assert conversion.amount == Decimal("670.9200")


def test_the_opposite_direction_uses_the_inverse_of_the_recorded_rate(cfets_rates):
    conversion = convert(Decimal("13.4028"), "CNY", "USD", as_of=date(2026, 10, 15))

    assert conversion.inverted
    assert conversion.rate_date == date(2026, 9, 30)
    assert conversion.amount == Decimal("1.9900")
    # Still quoted the way the rate is recorded.
    assert conversion.describe_rate() == "at 6.7351 CNY per USD on 2026-09-30, CFETS central parity"


def test_a_later_rate_of_the_opposite_pair_wins_over_an_older_direct_one(cfets_rates):
    ExchangeRate.objects.create(
        base="CNY", quote="USD", rate=Decimal("0.15"), as_of=date(2026, 10, 1), source=cfets_rates
    )

    assert convert(Decimal("10"), "CNY", "USD", as_of=date(2026, 10, 2)).amount == Decimal("1.5")
    usd = convert(Decimal("1"), "USD", "CNY", as_of=date(2026, 10, 2))
    assert (usd.rate_date, usd.inverted) == (date(2026, 10, 1), True)
    assert usd.amount == Decimal("6.6667")


def test_a_datetime_is_taken_as_its_local_date(cfets_rates):
    # 2026-09-29 20:00 UTC is 2026-09-30 04:00 in Shanghai: the 30 September rate applies.
    moment = datetime(2026, 9, 29, 20, 0, tzinfo=timezone.get_fixed_timezone(0))

    assert convert(Decimal("1"), "USD", "CNY", as_of=moment).rate_date == date(2026, 9, 30)


def test_no_rate_on_or_before_the_date_is_a_clear_error(cfets_rates):
    with pytest.raises(NoExchangeRate) as excinfo:
        convert(Decimal("1"), "USD", "CNY", as_of=date(2026, 8, 13))

    assert str(excinfo.value) == (
        "No USD/CNY exchange rate on or before 2026-08-13: "
        "add one under Exchange rates in the admin."
    )


def test_the_same_currency_needs_no_rate(db):
    conversion = convert(Decimal("1.88"), "CNY", "CNY", as_of=date(2000, 1, 1))

    assert (conversion.amount, conversion.rate, conversion.rate_date) == (
        Decimal("1.88"),
        Decimal(1),
        None,
    )
    assert conversion.describe_rate() == "(same currency)"
