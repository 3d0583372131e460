"""Hypothesis strategies for prices, one per field of the price kind (advisor/engine/pricing/
kind.py), shared by the oracles that hold the fast pricing to the exact one (test_prune.py,
test_pricing.py, test_billing_properties.py). test_pricing.py fails on a field of the kind
without a strategy here, so a new billing rule is generated, and checked by every oracle, by
construction."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from hypothesis import strategies as st

from advisor.engine.types import ExchangeRateSpec, PriceSpec
from advisor.engine.vocab import PriceTier

# A dollar rate, so that prices in either currency are ranked together (the rate is made up:
# any positive rate converts the same way).
RATES = (ExchangeRateSpec("USD", "CNY", Decimal("7.1"), datetime(2026, 9, 1), "test"),)

NEW = st.just(0)
FRESH = st.just(False)

# Each field of the price kind (Metering's and PriceKind's, less `metering` itself) by name, with
# the PriceSpec field it is read from and the values drawn for it.
KIND_FIELDS: dict[str, tuple[str, st.SearchStrategy[Any]]] = {
    "unit": ("unit", st.sampled_from(["hour", "hour", "day", "month"])),
    # The unit's default (per second metered, whole units prepaid), a minute, a started hour.
    "step": ("granularity_seconds", st.sampled_from([None, None, 60, 3600])),
    "startup_billed": ("startup_billed", st.sampled_from([None, True, False])),
    "min_charge": ("min_charge", st.sampled_from([Decimal(0), Decimal(0), Decimal("0.01")])),
    "currency": ("currency", st.sampled_from(["CNY", "CNY", "USD"])),
    "tier": ("tier", st.sampled_from(list(PriceTier))),
}


def prices(
    now: datetime,
    amounts: st.SearchStrategy[Decimal],
    ages: st.SearchStrategy[int] = NEW,
    stale: st.SearchStrategy[bool] = FRESH,
    **drawn: st.SearchStrategy[Any],
) -> st.SearchStrategy[PriceSpec]:
    """Prices of every kind (KIND_FIELDS), observed `ages` days before `now`; `drawn` replaces
    the strategy of some PriceSpec fields (`unit=st.sampled_from(...)`)."""

    @st.composite
    def draw_price(draw: st.DrawFn) -> PriceSpec:
        strategies = {spec: strategy for spec, strategy in KIND_FIELDS.values()} | drawn
        fields = {spec: draw(strategy) for spec, strategy in strategies.items()}
        return PriceSpec(
            amount=draw(amounts),
            observed_at=now - timedelta(days=draw(ages)),
            stale=draw(stale),
            **fields,
        )

    return draw_price()
