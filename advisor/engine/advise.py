"""The advisor's entry point: ranked recommendations for a scenario over a catalogue.

ranking.py prices an offering and explains a recommendation; prune.py groups the catalogue by
shape and decides which offerings are priced; `advise` runs the two for one scenario.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from advisor.engine import hosts, prune, ranking
from advisor.engine.errors import NoFit
from advisor.engine.placement import PlacementCache
from advisor.engine.ranking import Advice
from advisor.engine.types import (
    AcceleratorSpec,
    ExchangeRateSpec,
    OfferingSpec,
    Scenario,
    StoragePriceSpec,
)


def advise(
    scenario: Scenario,
    offerings: Sequence[OfferingSpec],
    accelerators: Mapping[str, AcceleratorSpec],
    *,
    now: datetime,
    rates: Sequence[ExchangeRateSpec] = (),
    storage_prices: Sequence[StoragePriceSpec] = (),
    stale_after_days: int = 30,
    limit: int = ranking.DEFAULT_LIMIT,
    placements: PlacementCache | None = None,
    platforms: Mapping[str, str] | None = None,
    index: prune.OfferingIndex | None = None,
) -> Advice:
    """Ranked recommendations for `scenario` over `offerings`; NoFit names the closest miss.

    `placements`: a cache the caller keeps across calls; without one, each call starts cold.
    `index`: `offerings` grouped by shape (prune.OfferingIndex), kept by the caller with the
    catalogue; without one (or one of other offerings) it is built here. Only offerings of shapes
    that fit are priced, and only what is shown is ranked in full (prune.py).
    `platforms`: the catalogue's platforms (slug -> name), so that one without any offering is
    reported as unpriced too; both the advice and NoFit list the platforms in scope that have no
    current price (`unpriced_platforms`) instead of leaving them out silently.
    """
    ctx = ranking.Context(
        scenario, accelerators, now, rates, storage_prices, stale_after_days, placements
    )
    pool = index if index is not None and index.offerings is offerings else None
    pool = pool or prune.OfferingIndex(offerings)
    unpriced = prune.unpriced_platforms(ctx, pool, platforms or {})
    lazily = prune.rank(ctx, pool, scenario.objective, limit)
    if lazily is None:  # every offering priced (a budget, fresh-only prices)
        args = (scenario, accelerators, now, rates, storage_prices, stale_after_days, placements)
        ctx = ranking.Context(*args)
        candidates = prune.evaluate(ctx, pool)
        ranked = prune.select(candidates, scenario.objective, limit) if candidates else None
        fitting = len(candidates)
    else:
        ranked, fitting = lazily
    if ranked is None:
        error = NoFit(ranking.no_fit_message(ctx, len(offerings)))
        error.unpriced_platforms = unpriced
        error.closest_miss = ranking.closest_miss(ctx)
        error.rejected = tuple(ctx.rejected.most_common())
        raise error
    front, shown = ranked.front, ranked.shown
    first = ranking.exact_costs(ctx, ranked.first)[0]
    recs = tuple(
        ranking.recommend(ctx, c, i + 1, id(c) in front, [ranked.first], first, fitting)
        for i, c in shown
    )
    return Advice(
        recommendations=recs,
        pareto=tuple(c.offering.id for c in ranked.pareto),
        rejected=dict(ctx.rejected),
        considered=len(offerings),
        fitting=fitting,
        currency=ctx.c.currency,
        objective=scenario.objective,
        as_of=now,
        cost_basis=ctx.basis,
        unpriced_platforms=unpriced,
        oldest_price_at=min((p.observed_at for _, c in shown for p in c.prices), default=None),
        one_card_platforms=hosts.one_card_platforms(offerings, scenario.tasks),
    )


__all__ = ["advise"]
