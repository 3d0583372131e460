"""The pricing model (advisor/engine/pricing/): the price kind is one value read from every price,
and a charge's three forms agree: the fast (float) cost is the exact (Decimal) one, and the lower
bound prune orders offerings by is never above it, on prices of every kind (price_strategies.py
draws every field of the kind) and bills of several usage groups."""

from __future__ import annotations

import math
from dataclasses import fields
from datetime import datetime
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.engine import ranking
from advisor.engine.billing import ZERO
from advisor.engine.pricing import charges
from advisor.engine.pricing.kind import Metering, PriceKind
from advisor.engine.types import PriceSpec
from advisor.engine.usage import Usage
from tests.advisor.engine.price_strategies import KIND_FIELDS, prices
from tests.conftest import examples

NOW = datetime(2026, 10, 1)
price = prices(NOW, st.sampled_from([Decimal("0.01"), Decimal("1.98"), Decimal("1052")]))
usages = st.builds(
    Usage,
    hours=st.sampled_from([0.0, 0.25, 10.0, 300.0, 719.0, 720.0]),
    months=st.sampled_from([1, 2]),
    active_days=st.sampled_from([None, 5]),
    held_hours=st.sampled_from([300.0, 720.0, 1440.0]),
    runs=st.sampled_from([1.0, 30.0, 60.0]),
)
bills = st.builds(
    lambda groups, startup: ranking.Bill(
        tuple(groups), tuple(range(len(groups))), startup_minutes=startup
    ),
    st.lists(st.tuples(usages, st.integers(1, 3)), min_size=1, max_size=3),
    st.sampled_from([0.0, 0.0, 10.0]),
)


def test_every_field_of_the_price_kind_is_drawn_by_the_oracles_generators():
    """A field added to the price kind (a new billing rule) needs a strategy in price_strategies,
    which every oracle's prices are drawn from."""
    kind_fields = set(Metering._fields) | set(PriceKind._fields)
    assert set(KIND_FIELDS) == kind_fields - {"metering"}
    priced_fields = {f.name for f in fields(PriceSpec)}
    assert {spec for spec, _strategy in KIND_FIELDS.values()} <= priced_fields


@settings(max_examples=examples(300), deadline=None)
@given(price, price)
def test_two_prices_share_a_kind_exactly_when_they_differ_in_nothing_it_reads(a, b):
    """The kind is read from the price's own fields (the default metering step resolved)."""
    alike = (
        a.unit == b.unit
        and (a.granularity_seconds or a.kind.metering.step)
        == (b.granularity_seconds or b.kind.metering.step)
        and a.startup_billed == b.startup_billed
        and a.min_charge == b.min_charge
        and a.currency == b.currency
        and a.tier == b.tier
    )
    assert (a.kind == b.kind) == alike
    assert (a.kind.metering == b.kind.metering) == (
        a.unit == b.unit
        and a.kind.metering.step == b.kind.metering.step
        and a.startup_billed == b.startup_billed
    )


@settings(max_examples=examples(500), deadline=None)
@given(price, bills, st.sampled_from([1.0, 0.14]))
def test_the_fast_cost_is_the_exact_one_and_the_bound_is_below_both(p, bill, rate):
    """For one price on every instance of a bill, at a rate: the fast cost (ranking's float) is
    the exact charge (each run metered on its own, its minimum charge per run) to float
    precision, and the lower bound of each group (amount × least_factor) is at most its cost."""
    per_group, total = bill.float_units_for(p)
    fast = charges.fast_cost(p, per_group, total, bill.groups, rate)
    exact = sum(
        (
            charges.run_charge(p, bill.units_for(p)[0][g], use.runs) * n
            for g, (use, n) in enumerate(bill.groups)
        ),
        ZERO,
    )
    assert math.isclose(fast, float(exact) * rate, rel_tol=1e-9, abs_tol=1e-9)
    group_costs = charges.fast_group_costs(p, per_group, bill.groups, rate)
    for units, (_use, n), cost in zip(per_group, bill.groups, group_costs, strict=True):
        bound = p.amount_float * charges.least_factor(units, n, rate)
        assert bound <= cost * (1 + 1e-12) + 1e-12


def test_what_is_kept_is_keyed_by_the_rates_usable_now_not_by_the_moment():
    """pricing.terms: two moments with the same usable rates share a key (what is kept is reused
    the next day); a rate whose date comes between them gives another key (a rate dated tomorrow
    applies once its date comes)."""
    from advisor.engine.pricing.terms import PricingTerms
    from advisor.engine.types import ExchangeRateSpec, Scenario, Task

    s = Scenario(tasks=(Task(name="svc", kind="fixed", vram_gib=4),))
    rates = (
        ExchangeRateSpec("USD", "CNY", Decimal("7"), datetime(2026, 9, 1), "test"),
        ExchangeRateSpec("USD", "CNY", Decimal("14"), datetime(2026, 10, 3), "test"),
    )

    def terms(day: int) -> PricingTerms:
        return ranking.Context(s, {}, datetime(2026, 10, day), rates, (), 30).terms

    assert terms(1) == terms(2)
    assert terms(1).priced(0) == terms(2).priced(0) and terms(1).fits() == terms(2).fits()
    assert terms(3) != terms(2)
    assert terms(3).priced(0) != terms(2).priced(0) and terms(3).fits() != terms(2).fits()
    assert terms(3).floor((), 0.0) != terms(2).floor((), 0.0)
    assert terms(1).priced(0) != terms(1).priced(1)  # another stale epoch
