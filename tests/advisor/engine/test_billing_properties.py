"""What must always hold for billing (hypothesis): costs never negative, rounding never charges
less than the exact time, more busy hours never cost less."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from advisor.engine.billing import granularity, job_cost, monthly_cost
from advisor.engine.types import BILLING_UNIT_SECONDS, PriceSpec
from tests.advisor.engine.price_strategies import prices

amounts = st.decimals(min_value=0, max_value=100_000, places=4, allow_nan=False)
seconds = st.floats(min_value=0, max_value=60 * 86400, allow_nan=False)
hours = st.floats(min_value=0, max_value=720, allow_nan=False)
# Every unit and every field of the price kind (price_strategies), at any amount.
price = prices(datetime(2026, 10, 1), amounts, unit=st.sampled_from(list(BILLING_UNIT_SECONDS)))


@given(price, seconds)
def test_job_cost_is_never_negative_and_never_below_the_exact_time(p: PriceSpec, s: float) -> None:
    cost = job_cost(p, s)
    assert cost >= 0
    exact = p.amount * Decimal(s) / BILLING_UNIT_SECONDS[p.unit]
    assert cost >= exact


@given(price, seconds, seconds)
def test_more_time_never_costs_less(p: PriceSpec, a: float, b: float) -> None:
    lo, hi = sorted((a, b))
    assert job_cost(p, lo) <= job_cost(p, hi)


@given(price, hours, hours)
def test_more_busy_hours_never_cost_less_per_month(p: PriceSpec, a: float, b: float) -> None:
    lo, hi = sorted((a, b))
    assert 0 <= monthly_cost(p, lo) <= monthly_cost(p, hi)


@given(price, hours)
def test_monthly_cost_covers_the_busy_hours(p: PriceSpec, h: float) -> None:
    """Metered plans charge at least the exact busy time; prepaid plans at least one unit."""
    cost = monthly_cost(p, h)
    if h > 0 and granularity(p) < BILLING_UNIT_SECONDS["day"]:
        assert cost >= p.amount * Decimal(h * 3600) / BILLING_UNIT_SECONDS[p.unit]
    elif h > 0:
        assert cost >= p.amount
