"""Billing rules, break-even, storage and currency conversion (docs/billing-rules.md, which names
each platform document they come from)."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

import pytest

from advisor.engine.billing import (
    break_even_hours,
    cents,
    convert,
    job_cost,
    monthly_cost,
    storage_monthly_cost,
)
from advisor.engine.errors import InvalidWorkload, NoFit
from advisor.engine.types import ExchangeRateSpec, PriceSpec, StoragePriceSpec

T0 = datetime(2026, 10, 1)


def price(unit: str, amount: str, currency: str = "CNY", **kw: object) -> PriceSpec:
    return PriceSpec(unit=unit, amount=Decimal(amount), currency=currency, observed_at=T0, **kw)  # type: ignore[arg-type]


def test_hourly_prices_are_metered_per_second_by_default() -> None:
    """AutoDL billing docs (docs.gpuhub.com/billing-recharge/billing): pay-as-you-go is charged by
    the second, settled hourly."""
    p = price("hour", "1.98")
    assert job_cost(p, 90 * 60) == Decimal("2.97")  # 1.5 h
    assert job_cost(p, 1) * 3600 >= Decimal("1.98")
    assert cents(job_cost(p, 1)) == Decimal("0.00")  # no minimum charge unless the price has one


def test_a_per_started_hour_plan_rounds_up_to_the_hour() -> None:
    p = price("hour", "2.10", granularity_seconds=3600)
    assert job_cost(p, 3601) == Decimal("4.20")
    assert job_cost(p, 3600) == Decimal("2.10")
    assert job_cost(p, 0) == 0


def test_each_session_is_rounded_separately() -> None:
    p = price("hour", "2.10", granularity_seconds=3600)
    assert job_cost(p, 3 * 1800, sessions=3) == Decimal(
        "6.30"
    )  # three half hours = 3 started hours
    assert monthly_cost(p, 1.5, sessions=3) == Decimal("6.30")


def test_minute_prices_are_metered_per_second_and_round_up_per_minute_when_asked() -> None:
    assert job_cost(price("minute", "0.06"), 30) == Decimal("0.03")
    assert job_cost(price("minute", "0.06", granularity_seconds=60), 30) == Decimal("0.06")


def test_the_minimum_charge_applies_per_session() -> None:
    """AutoDL billing docs (GPUhub edition): minimum charge 0.01."""
    p = price("hour", "1.88", min_charge=Decimal("0.01"))
    assert job_cost(p, 1) == Decimal("0.01")
    assert job_cost(p, 0) == 0


def test_prepaid_plans_are_whole_units() -> None:
    day = price("day", "60.48")
    assert job_cost(day, 25 * 3600) == Decimal("120.96")
    assert monthly_cost(day, 30) == Decimal("120.96")  # ceil(30 / 24) = 2 days
    assert monthly_cost(day, 30, active_days=10) == Decimal("604.80")
    week = price("week", "300")
    assert monthly_cost(week, 720) == Decimal("1500")  # 30 days need 5 weeks
    month = price("month", "1052")
    assert monthly_cost(month, 1) == monthly_cost(month, 720) == Decimal("1052")
    assert monthly_cost(month, 0) == 0


def test_busy_hours_outside_a_month_are_rejected() -> None:
    with pytest.raises(InvalidWorkload) as e:
        monthly_cost(price("hour", "1"), 721)
    assert e.value.field == "hours_per_month"


def test_autodl_4090_monthly_plan_breaks_even_at_531_hours() -> None:
    """AutoDL RTX 4090 market listing (autumn 2026): 包月 ¥1052 ÷ 按量 ¥1.98 = 531 h/month,
    ≈ 74 % of 720 h (median ¥2.19: 480 h)."""
    month, hour = price("month", "1052"), price("hour", "1.98")
    assert break_even_hours(hour, month) == pytest.approx(Decimal("531.31"), abs=Decimal("0.01"))
    assert break_even_hours(month, hour) == break_even_hours(hour, month)
    assert break_even_hours(price("hour", "2.19"), month) == pytest.approx(
        Decimal("480.37"), abs=Decimal("0.01")
    )
    # below the break-even the metered plan is cheaper, above it the monthly one
    assert monthly_cost(hour, 530) < monthly_cost(month, 530)
    assert monthly_cost(hour, 532) > monthly_cost(month, 532)


def test_matpool_a100_daily_plan_breaks_even_at_21_6_hours_a_day() -> None:
    """矩池云 A100 40GB listing (matpool.com, 2026) ¥2.80/h; 包日 pays off only above 21.6 h/day
    (⇒ 包日 ≈ ¥60.5)."""
    daily = price("day", str(Decimal("2.80") * Decimal("21.6")))
    assert break_even_hours(price("hour", "2.80"), daily) == Decimal("21.6")


def test_break_even_needs_one_currency_and_two_units() -> None:
    assert break_even_hours(price("hour", "1"), price("hour", "2")) is None
    with pytest.raises(InvalidWorkload):
        break_even_hours(price("hour", "1"), price("month", "100", "USD"))


def test_storage_above_the_free_quota_is_billed_while_stopped_or_only_while_running() -> None:
    """恒源云 announcement: /hy-tmp 100 GB free, ¥0.0004/GB·h only while running; AutoDL price
    docs: paid disk ≈ ¥0.007/GB·day, billed while shut down (docs/billing-rules.md)."""
    hy = StoragePriceSpec(
        "gpushare", "gb_hour", Decimal("0.0004"), "CNY", T0, free_gb=100, billed_while_stopped=False
    )
    assert storage_monthly_cost(hy, 300, busy_hours_per_month=200) == Decimal("16")
    assert storage_monthly_cost(hy, 80, busy_hours_per_month=200) == 0
    autodl = StoragePriceSpec("autodl", "gb_day", Decimal("0.007"), "CNY", T0)
    assert storage_monthly_cost(autodl, 50, busy_hours_per_month=0) == Decimal("10.5")
    # the vendor article "2026多任务GPU平台怎么选": cluster storage 200元/T/月
    tb = StoragePriceSpec("galaxy", "tb_month", Decimal("200"), "CNY", T0)
    assert storage_monthly_cost(tb, 500, busy_hours_per_month=10) == Decimal("100")


RATES = (
    ExchangeRateSpec("USD", "CNY", Decimal("6.7413"), datetime(2026, 8, 14)),
    ExchangeRateSpec("USD", "CNY", Decimal("6.7092"), datetime(2026, 9, 12)),
    ExchangeRateSpec("USD", "CNY", Decimal("6.7351"), datetime(2026, 9, 30)),
)


def test_conversion_uses_the_rate_dated_closest_on_or_before_the_date() -> None:
    """CFETS central parity (chinamoney.org.cn, via a secondary copy): 6.7351 on 2026-09-30
    (6.7413 on 08-14, 6.7092 on 09-12)."""
    amount, rate = convert(Decimal("2"), "USD", "CNY", RATES, as_of=datetime(2026, 9, 20))
    assert amount == Decimal("13.4184") and rate is RATES[1]
    amount, rate = convert(Decimal("2"), "USD", "CNY", RATES)
    assert amount == Decimal("13.4702") and rate is RATES[2]


def test_conversion_uses_the_inverse_rate_when_only_the_opposite_pair_exists() -> None:
    amount, rate = convert(Decimal("6.7351"), "CNY", "USD", RATES, as_of=T0)
    assert amount == Decimal("1") and rate is RATES[2]


def test_same_currency_needs_no_rate() -> None:
    assert convert(Decimal("5"), "CNY", "CNY", ()) == (Decimal("5"), None)


def test_a_missing_rate_says_which_pair_and_date() -> None:
    with pytest.raises(NoFit, match="USD/CNY exchange rate dated on or before 2026-08-01"):
        convert(Decimal("1"), "USD", "CNY", RATES, as_of=datetime(2026, 8, 1))
    with pytest.raises(NoFit):
        convert(Decimal("1"), "EUR", "CNY", RATES)
