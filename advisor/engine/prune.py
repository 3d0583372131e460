"""Offerings grouped by hardware shape, so that an advice does per-offering work only where it must.

An OfferingIndex, built once per catalogue (advisor.services keeps it with the catalogue's engine
inputs), groups the offerings by ranking's fit key (ranking._fit_key: accelerator, GPU count,
sharing mode, MIG profile, pooled slice, interconnect and the platform's multi-task granularity),
and within a group into cells of offerings alike in everything a constraint reads
(ranking._constraint_miss: platform, physical exclusivity, spot, the card itself).

Per advice, `evaluate` checks each cell's constraints once, and each group's fit, placement and
time once (with its first eligible offering, as the offering-by-offering loop did); a group that
cannot hold the tasks is rejected whole, and only offerings of groups that fit are priced, in
catalogue order, by ranking's own code (ranking._evaluate). `select` then ranks without sorting
every candidate: the first `limit` (after folding regional duplicates, which can only be offerings
of one platform at one cost and time) from a bounded heap, the Pareto front from one candidate per
time (a candidate can only join the front ahead of every slower-or-equal one with its time), and
the rank of a front member further down by counting what comes before it.

Counts, closest misses, ranks, order and ties are exactly those of pricing and sorting every
offering (tests/advisor/engine/test_prune.py compares the two on random catalogues).
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from itertools import chain
from typing import Any

from advisor.engine import ranking
from advisor.engine.messages import Code
from advisor.engine.types import OfferingSpec, PriceSpec

# Past this many front members below the first `limit`, their ranks come from one sort of the
# candidates' keys instead of one count each.
_COUNTS_BEFORE_SORTING = 8


@dataclass
class _Cell:
    members: list[int] = field(default_factory=list)  # catalogue positions, ascending
    unpriced: int = 0  # members without any price
    # The members' prices by kind (what the billed units depend on: ranking._Bill.units_for),
    # each kind's (amount, position) ascending, with one price of the kind to read its units:
    # built on first use (`by_kind`).
    kinds: list[tuple[PriceSpec, list[tuple[float, int]]]] | None = None

    def by_kind(
        self, offerings: Sequence[OfferingSpec]
    ) -> list[tuple[PriceSpec, list[tuple[float, int]]]]:
        if self.kinds is None:
            found: dict[tuple[Any, ...], tuple[PriceSpec, list[tuple[float, int]]]] = {}
            for i in self.members:
                for p in offerings[i].prices:
                    key = (p.unit, p.granularity_seconds or 0, p.startup_billed, p.currency)
                    entry = found.get(key)
                    if entry is None:
                        entry = found[key] = (p, [])
                    entry[1].append((p.amount_float, i))
            for _p, amounts in found.values():
                amounts.sort()
            self.kinds = list(found.values())
        return self.kinds


@dataclass
class _Platform:
    """What `unpriced_platforms` needs of a platform: its first offering (whose name it takes), one
    with a price, and the one whose newest price not flagged stale is newest."""

    first: OfferingSpec
    priced: OfferingSpec | None = None
    freshest: OfferingSpec | None = None
    fresh_at: datetime | None = None


class OfferingIndex:
    """`offerings` grouped by shape (ranking._fit_key), then by what a constraint reads; groups and
    cells in the order of their first offering."""

    def __init__(self, offerings: Sequence[OfferingSpec]) -> None:
        self.offerings = offerings
        groups: dict[tuple[Any, ...], dict[tuple[Any, ...], _Cell]] = {}
        platforms: dict[str, _Platform] = {}
        for i, off in enumerate(offerings):
            cells = groups.setdefault(ranking._fit_key(off), {})
            cell_key = (
                off.platform,
                off.physically_exclusive,
                off.interruptible,
                id(off.accelerator),
            )
            cell = cells.get(cell_key)
            if cell is None:
                cell = cells[cell_key] = _Cell()
            cell.members.append(i)
            if not off.prices:
                cell.unpriced += 1
            known = platforms.get(off.platform)
            if known is None:
                known = platforms[off.platform] = _Platform(off)
            if off.prices and known.priced is None:
                known.priced = off
            unflagged = [p.observed_at for p in off.prices if not p.stale]
            if unflagged and (known.fresh_at is None or max(unflagged) > known.fresh_at):
                known.freshest, known.fresh_at = off, max(unflagged)
        self.groups: list[list[_Cell]] = [list(cells.values()) for cells in groups.values()]
        self.platforms = platforms


def unpriced_platforms(
    ctx: ranking._Context, index: OfferingIndex, platforms: Mapping[str, str]
) -> tuple[tuple[str, str], ...]:
    """ranking._unpriced_platforms over a few offerings per platform instead of all of them: its
    first (for the name), one with a price and the one with the newest unflagged price (with
    `fresh_only`, the platform has a current price if and only if that one has)."""
    chosen: list[OfferingSpec] = []
    for known in index.platforms.values():
        chosen.extend(o for o in (known.first, known.priced, known.freshest) if o is not None)
    return ranking._unpriced_platforms(ctx, chosen, platforms)


def _tally(tallies: dict[Code, list[int]], reason: Code, count: int, first: int) -> None:
    entry = tallies.get(reason)
    if entry is None:
        tallies[reason] = [count, first]
    else:
        entry[0] += count
        entry[1] = min(entry[1], first)


def evaluate(ctx: ranking._Context, index: OfferingIndex) -> list[ranking._Candidate]:
    """The candidates (in catalogue order) that ranking._evaluate would return, offering by
    offering, leaving `ctx.rejected` and `ctx.misses` as it would: the same counts in the order
    each reason first met an offering, the same closest miss of each reason."""
    offerings = index.offerings
    tallies: dict[Code, list[int]] = {}  # reason -> [count, first catalogue position]
    unfit: list[tuple[int, int, ranking._Fit]] = []  # (first position, eligible, fit)
    fitting: list[list[int]] = []
    for cells in index.groups:
        eligible: list[list[int]] = []
        for cell in cells:
            members = cell.members
            reason = ranking._constraint_miss(ctx, offerings[members[0]]) if ctx.filtering else None
            if reason is not None:
                _tally(tallies, reason, len(members), members[0])
                continue
            if ctx.c.fresh_only:
                kept = [i for i in members if ranking._current(ctx, offerings[i].prices)]
            elif cell.unpriced:
                kept = [i for i in members if offerings[i].prices]
            else:
                kept = members
            if len(kept) < len(members):
                left = set(kept)
                first = next(i for i in members if i not in left)
                _tally(tallies, Code.REJECT_NO_CURRENT_PRICE, len(members) - len(kept), first)
            if kept:
                eligible.append(kept)
        if not eligible:
            continue
        members = eligible[0] if len(eligible) == 1 else list(heapq.merge(*eligible))
        fit = ranking._fit(ctx, offerings[members[0]])
        if fit.bill is None or fit.month is None:
            unfit.append((members[0], len(members), fit))
        else:
            fitting.append(members)
    # Rejected whole, in the order of their first offerings: the first of the closest misses wins.
    for first, count, fit in sorted(unfit, key=lambda item: item[0]):
        shortfall = fit.placement.shortfall_bytes
        closeness = ranking._INF if shortfall is None else shortfall
        before = ctx.rejected[Code.REJECT_DOES_NOT_FIT]
        ctx.reject(Code.REJECT_DOES_NOT_FIT, closeness, offerings[first], fit.placement.reason)
        ctx.rejected[Code.REJECT_DOES_NOT_FIT] = before + count
        _tally(tallies, Code.REJECT_DOES_NOT_FIT, 0, first)
    # Priced one by one, in catalogue order, so that per-offering rejections (deadline, budget)
    # keep their closest misses as the loop did.
    candidates = []
    earlier = set(ctx.rejected)
    known = len(ctx.rejected)
    for i in sorted(chain.from_iterable(fitting)):
        candidate = ranking._evaluate(ctx, offerings[i])
        if candidate is not None:
            candidates.append(candidate)
        if len(ctx.rejected) != known:
            for reason in ctx.rejected:
                if reason not in earlier:
                    _tally(tallies, reason, 0, i)
                    earlier.add(reason)
            known = len(ctx.rejected)
    # The loop's counts and order: each reason where it first met an offering.
    counts = Counter(ctx.rejected)
    for reason, (count, _first) in tallies.items():
        counts[reason] += count
    ctx.rejected.clear()
    for reason, _entry in sorted(tallies.items(), key=lambda item: item[1][1]):
        ctx.rejected[reason] = counts[reason]
    return candidates


# Offerings priced past the cheapest found, for exact ties to the cent: a lower bound above the
# cheapest by more than this cannot tie it (ranking._ranking compares costs to the cent).
_TIE_MARGIN = 0.02


def cheapest_per_platform(
    ctx: ranking._Context, index: OfferingIndex
) -> dict[str, ranking._Candidate]:
    """The cheapest candidate of each platform, as pricing every offering and keeping, per
    platform, the first of the least (cost to the cent, fresh before stale, time) in group then
    catalogue order would find, without pricing every offering. Budgets are not applied (the
    caller's context has none).

    A lower bound orders the offerings of a group that fits: every plan bills at least its
    busiest usage group (ranking._Bill, group 0), and on one price that group costs at least
    amount x units x rate (a minimum charge only raises it; keeping an instance from release only
    adds), so per price kind the offerings' amounts, sorted once per catalogue, give the bounds
    in order. Offerings are priced exactly (ranking._evaluate) in bound order until the bound
    passes the cheapest found by more than a tie."""
    offerings = index.offerings
    deadline = ctx.c.deadline_hours
    best: dict[str, tuple[tuple[Any, ...], ranking._Candidate]] = {}
    for gi, cells in enumerate(index.groups):
        if ctx.filtering:
            cells = [
                cell
                for cell in cells
                if ranking._constraint_miss(ctx, offerings[cell.members[0]]) is None
            ]
        if not cells:
            continue
        fit = ranking._fit(ctx, offerings[cells[0].members[0]])
        bill = fit.bill
        if bill is None or fit.month is None:
            continue
        if deadline is not None and fit.time is not None and fit.time > deadline:
            continue
        count = bill.groups[0][1]
        heaps: dict[str, list[tuple[float, int, int, list[tuple[float, int]], float]]] = {}
        for cell in cells:
            platform = offerings[cell.members[0]].platform
            heap = heaps.setdefault(platform, [])
            for price, amounts in cell.by_kind(offerings):
                units = bill.float_units_for(price)[0][0]
                factor = units * count * ctx.float_rate(price.currency)
                amount, i = amounts[0]
                heap.append((amount * factor, i, 0, amounts, factor))
        for platform, heap in heaps.items():
            heapq.heapify(heap)
            base = 0.0
            if ctx.storing:
                base = float(ranking._bill_storage(ctx, platform, bill)[0] or 0)
            seen: set[int] = set()
            while heap:
                bound, i, at, amounts, factor = heap[0]
                kept = best.get(platform)
                if kept is not None and bound + base > kept[1].cost_key + _TIE_MARGIN:
                    break
                if at + 1 < len(amounts):
                    amount, j = amounts[at + 1]
                    heapq.heapreplace(heap, (amount * factor, j, at + 1, amounts, factor))
                else:
                    heapq.heappop(heap)
                if i in seen:
                    continue
                seen.add(i)
                candidate = ranking._evaluate(ctx, offerings[i])
                if candidate is None:
                    continue
                key = (round(candidate.cost_key, 2), candidate.stale, candidate.time_key, gi, i)
                if kept is None or key < kept[0]:
                    best[platform] = (key, candidate)
    return {platform: candidate for platform, (_key, candidate) in best.items()}


@dataclass
class Ranked:
    """What advise needs of the ranked, folded candidates: the shown ones with their positions
    (the first `limit`, and the Pareto front wherever it ranks), the front, the first."""

    shown: list[tuple[int, ranking._Candidate]]
    front: set[int]  # ids of the candidates on the front
    pareto: list[ranking._Candidate]  # the front in rank order
    first: ranking._Candidate


def select(candidates: list[ranking._Candidate], objective: str, limit: int) -> Ranked:
    """ranking._rank, _fold_regions and _pareto over `candidates` (in catalogue order), for the
    candidates advise shows, without sorting them all. Scores are set on every candidate."""
    key = ranking._ranking(candidates, objective)
    # (key, position): the order of the stable sort.
    keys = [(key(c), i) for i, c in enumerate(candidates)]
    # Regional duplicates share the platform, cost and time: fold each such bucket on its own.
    buckets: dict[tuple[Any, ...], list[int]] = {}
    for i, c in enumerate(candidates):
        if c.offering.region:
            buckets.setdefault((c.offering.platform, c.cost_key, c.time_key), []).append(i)
    folded: set[int] = set()
    for members in buckets.values():
        if len(members) == 1:
            only = candidates[members[0]]
            only.regions = [only.offering.region]
            continue
        members.sort(key=keys.__getitem__)
        leads = {id(c) for c in ranking._fold_regions([candidates[i] for i in members])}
        folded.update(i for i in members if id(candidates[i]) not in leads)
    leads_keys = [k for k in keys if k[1] not in folded] if folded else keys
    top = heapq.nsmallest(limit, leads_keys)
    # The front: of the candidates with one time, only the cheapest (the first of equals) can
    # join it, ahead of the others.
    by_time: dict[float, tuple[float, tuple[Any, ...]]] = {}
    for k in leads_keys:
        c = candidates[k[1]]
        best = by_time.get(c.time_key)
        if best is None or (c.cost_key, k) < best:
            by_time[c.time_key] = (c.cost_key, k)
    reps = [candidates[k[1]] for _cost, k in sorted(by_time.values(), key=lambda e: e[1])]
    front = ranking._pareto(reps)
    on_front = [k for _cost, k in sorted(by_time.values(), key=lambda e: e[1])]
    on_front = [k for k in on_front if id(candidates[k[1]]) in front]
    shown = [(rank, candidates[k[1]]) for rank, k in enumerate(top)]
    deep = [k for k in on_front if not top or k > top[-1]]
    if len(deep) > _COUNTS_BEFORE_SORTING:
        ordered = sorted(leads_keys)
        position = {k: rank for rank, k in enumerate(ordered)}
        shown.extend((position[k], candidates[k[1]]) for k in deep)
    else:
        shown.extend((sum(1 for other in leads_keys if other < k), candidates[k[1]]) for k in deep)
    return Ranked(
        shown=shown,
        front=front,
        pareto=[candidates[k[1]] for k in on_front],
        first=candidates[top[0][1]],
    )
