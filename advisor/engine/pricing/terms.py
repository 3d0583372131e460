"""Everything pricing reads besides the offerings: one declared value, so that what is kept
between calls is keyed by it (or by one of the parts it names) and never by a tuple written
where it is kept.

An offering's price for a scenario (ranking.evaluate_offering) reads the scenario (its tasks and
constraints, the currency among them), the cost basis the scenario's tasks give (or a caller
sets: the sides of the plans are priced on the whole scenario's), the exchange rates usable at
the moment asked about (billing.find_rate reads no other, so a rate dated later applies once its
date comes, kept or not), the storage prices, the accelerator specs and which prices are stale
(the stale epoch, from the catalogue's price dates: prune.OfferingIndex.stale_epoch).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

from advisor.engine.types import AcceleratorSpec, ExchangeRateSpec, Scenario, StoragePriceSpec
from advisor.engine.usage import Usage
from advisor.engine.vocab import CostBasis


@dataclass(frozen=True)
class PricingTerms:
    """What pricing reads besides the offerings (module docstring), but the stale epoch, which
    the catalogue's index gives (`priced`)."""

    scenario: Scenario
    basis: CostBasis
    usable_rates: tuple[ExchangeRateSpec, ...]
    storage_prices: tuple[StoragePriceSpec, ...]
    accelerators: tuple[AcceleratorSpec, ...]

    @classmethod
    def of(
        cls,
        scenario: Scenario,
        basis: CostBasis,
        usable_rates: tuple[ExchangeRateSpec, ...],
        storage_prices: Sequence[StoragePriceSpec],
        accelerators: Mapping[str, AcceleratorSpec],
    ) -> PricingTerms:
        return cls(
            scenario, basis, usable_rates, tuple(storage_prices), tuple(accelerators.values())
        )

    def priced(self, stale_epoch: int) -> Hashable | None:
        """The key of whatever is made of pricing offerings (prune: the cheapest per platform, a
        ranking): every term and the stale epoch; None where a term cannot be hashed."""
        return _hashable((self, stale_epoch))

    def fits(self) -> Hashable | None:
        """The key of a scenario's fits by shape (ranking.Context.fits): what placement, time,
        usage and the storage a bill remembers read, so that the same tasks under other
        constraints share them: the tasks, the cost basis, the start-up minutes, the data kept,
        the currency, the storage prices, the rates and the accelerator specs; and a job's
        checkpoint and restart minutes, which its time on spot capacity reads (restarts.py)."""
        c = self.scenario.constraints
        return _hashable(
            (
                self.scenario.tasks,
                self.basis,
                c.startup_minutes,
                c.checkpoint_minutes,
                c.restart_minutes,
                c.storage_gb,
                c.currency,
                self.storage_prices,
                self.usable_rates,
                self.accelerators,
            )
        )

    def floor(self, groups: tuple[tuple[Usage, int], ...], startup_minutes: float) -> Hashable:
        """The key of a bound on a bill of `groups` (prune's groups by their full month's floor):
        its usage and start-up, the currency and the rates."""
        return (groups, startup_minutes, self.scenario.constraints.currency, self.usable_rates)


def _hashable(key: Hashable) -> Hashable | None:
    try:
        hash(key)
    except TypeError:  # a term that cannot be hashed: kept for the call only
        return None
    return key
