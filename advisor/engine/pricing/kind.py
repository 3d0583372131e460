"""The price kind: everything of a price but its amount that what it charges depends on.

Two prices of one kind charge the same units for the same use, so their costs differ only by
their amounts: ranking keeps a bill's units per metering (`Metering`), and prune orders the
offerings of a shape by amount within each kind (`PriceKind`). A new billing rule that depends
on the price is a field here (docs/advisor-rules.md, "Adding a billing rule"), and every key
that groups prices reads it from here, never from a tuple of its own.

This module imports only `vocab`, so that `types.PriceSpec` can carry its kind (`PriceSpec.kind`).
"""

from __future__ import annotations

from decimal import Decimal
from typing import NamedTuple

from advisor.engine.vocab import METERED_UNITS, BillingUnit

# The metering step of a price that states none, by unit (billing's module docstring): per
# second for metered units, whole units for prepaid plans.
DEFAULT_STEP: dict[str, int] = {u.value: u.default_granularity_seconds for u in BillingUnit}


class Metering(NamedTuple):
    """What a price's billed units depend on: its unit, its metering step (the unit's default
    where the price states none: per second for metered units, whole units for prepaid plans)
    and whether its platform bills each run's start-up time (None: not stated, counted as
    billed). A tuple: it is made for every price of the catalogue and is a key everywhere."""

    unit: str
    step: int
    startup_billed: bool | None

    @property
    def metered(self) -> bool:
        return self.unit in METERED_UNITS

    def startup_seconds(self, minutes: float) -> float:
        """Start-up time billed per run: the scenario's start-up minutes on a metered price whose
        platform bills it or does not say; none on prepaid plans."""
        if minutes <= 0 or not self.metered or self.startup_billed is False:
            return 0.0
        return minutes * 60.0


class PriceKind(NamedTuple):
    """A price less its amount: its metering, its minimum charge (per run on a metered price,
    once on a prepaid plan), its currency and its tier."""

    metering: Metering
    min_charge: Decimal
    currency: str
    tier: str

    @classmethod
    def of(
        cls,
        unit: str,
        granularity_seconds: int | None,
        startup_billed: bool | None,
        min_charge: Decimal,
        currency: str,
        tier: str,
    ) -> PriceKind:
        step = granularity_seconds or DEFAULT_STEP[unit]
        # tuple.__new__ directly: NamedTuple's own __new__ is a Python call, and a kind is made
        # for every price of the catalogue when it is indexed.
        metering = _new(Metering, (unit, step, startup_billed))
        return _new(cls, (metering, min_charge, currency, tier))


_new = tuple.__new__
