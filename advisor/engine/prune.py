"""Offerings grouped by hardware shape, so that an advice does per-offering work only where it must.

An OfferingIndex, built once per catalogue (advisor.services keeps it with the catalogue's engine
inputs), groups the offerings by ranking's fit key (ranking.fit_key: accelerator, GPU count,
sharing mode, MIG profile, pooled slice, interconnect and the platform's multi-task granularity),
and within a group into cells of offerings alike in everything a constraint reads
(ranking.constraint_miss: platform, physical exclusivity, spot, the card itself, a market
figure among its prices, and the renters' filters: region, country, delivery form, host
resources, who may rent).

Per advice, `evaluate` checks each cell's constraints once, and each group's fit, placement and
time once (with its first eligible offering, as the offering-by-offering loop did); a group that
cannot hold the tasks is rejected whole, and only offerings of groups that fit are priced, in
catalogue order, by ranking's own code (ranking.evaluate_offering). `select` then ranks without
sorting every candidate: the first `limit` (after folding regional duplicates, which can only be
offerings of one platform at one cost and time) from a bounded heap, the Pareto front from one
candidate per time (a candidate can only join the front ahead of every slower-or-equal one with its
time), and the rank of a front member further down by counting what comes before it.

Within a group that fits, offerings differ only in their prices, and on one price kind (unit,
metering, start-up billing, currency) the cost of the busiest instance is the amount times the
same units: each kind's amounts, sorted once per catalogue (`_Cell.by_kind`,
`OfferingIndex.by_platform`), give lower bounds of the cost in order. `rank` (what advise uses in
place of evaluate and select, without a budget or fresh-only prices) and `cheapest_per_platform`
(the plans across platforms) price offerings in that order only until nothing unpriced can
change their answer.

Counts, closest misses, ranks, order and ties are exactly those of pricing and sorting every
offering (tests/advisor/engine/test_prune.py compares them on random catalogues).
"""

from __future__ import annotations

import bisect
import heapq
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from itertools import chain, pairwise
from typing import Any

from advisor.engine import ranking, usage
from advisor.engine.errors import NoFit
from advisor.engine.messages import Code, hours
from advisor.engine.pricing import charges
from advisor.engine.pricing.kind import PriceKind
from advisor.engine.types import HOURS_PER_MONTH, OfferingSpec
from advisor.engine.vocab import CostBasis, When

# Past this many front members below the first `limit`, their ranks come from one sort of the
# candidates' keys instead of one count each.
_COUNTS_BEFORE_SORTING = 8
# Sets of constraints whose failing cell keys an index keeps (OfferingIndex.failing).
_FAILING_KEPT = 32


@dataclass
class _Cell:
    members: list[int] = field(default_factory=list)  # catalogue positions, ascending
    unpriced: int = 0  # members without any price
    # What a constraint reads of the members (ranking.constraint_miss; the interconnect is the
    # group's): the key its verdict is remembered under (`_miss`).
    key: tuple[Any, ...] = ()
    # The members' prices by kind (what the billed units depend on: ranking.Bill.units_for),
    # each kind's (amount, position) ascending, with one price of the kind to read its units:
    # built on first use (`by_kind`).
    kinds: _Kinds | None = None

    def by_kind(self, offerings: Sequence[OfferingSpec]) -> _Kinds:
        if self.kinds is None:
            self.kinds = _by_kind(offerings, self.members)
        return self.kinds


# Prices by kind (pricing.kind.PriceKind: what the billed units depend on, and the currency), each
# kind's (amount, catalogue position) ascending.
_Kinds = list[tuple[PriceKind, list[tuple[float, int]]]]


def _by_kind(offerings: Sequence[OfferingSpec], members: Iterable[int]) -> _Kinds:
    """The prices of `members` by kind, each kind's amounts ascending."""
    found: dict[PriceKind, tuple[PriceKind, list[tuple[float, int]]]] = {}
    for i in members:
        for p in offerings[i].prices:
            kind = p.kind
            entry = found.get(kind)
            if entry is None:
                entry = found[kind] = (kind, [])
            entry[1].append((p.amount_float, i))
    for entry in found.values():
        entry[1].sort()
    return list(found.values())


def _least(by_platform: Mapping[str, _Kinds]) -> list[tuple[PriceKind, float]]:
    """The least amount of each price kind over some platforms' prices (by_platform's shape)."""
    least: dict[PriceKind, tuple[PriceKind, float]] = {}
    for kinds in by_platform.values():
        for kind, amounts in kinds:
            known = least.get(kind)
            if known is None or amounts[0][0] < known[1]:
                least[kind] = (kind, amounts[0][0])
    return list(least.values())


class _Failing(dict[tuple[Any, ...], Code]):
    """The cell keys a set of constraints leaves out, with the constraint (OfferingIndex.failing),
    and, kept with them, what passes of each group that has some (`passing`)."""

    def __init__(self, found: dict[tuple[Any, ...], Code]) -> None:
        super().__init__(found)
        self._passing: dict[int, _Passing] = {}

    def passing(self, index: OfferingIndex, group: int) -> _Passing:
        """Group `group`'s cells no constraint leaves out, their prices by platform, then by
        kind (each cell's kinds in turn), and the least amount of each kind of them: found once
        per set of constraints."""
        found = self._passing.get(group)
        if found is None:
            passed = [c for c in index.groups[group] if c.key not in self]
            by_platform = _cells_by_platform(index.offerings, passed)
            found = self._passing[group] = (passed, by_platform, _least(by_platform))
        return found


# What passes the constraints of a group (_Failing.passing): its cells, their prices by platform
# and their least amount of each price kind.
_Passing = tuple[list[_Cell], dict[str, _Kinds], list[tuple[PriceKind, float]]]


def _cells_by_platform(
    offerings: Sequence[OfferingSpec], cells: Iterable[_Cell]
) -> dict[str, _Kinds]:
    """Some cells' prices by platform, then by kind (each cell's kinds in turn), where they are
    not a whole group (OfferingIndex.by_platform)."""
    by_platform: dict[str, _Kinds] = {}
    for cell in cells:
        platform = offerings[cell.members[0]].platform
        by_platform.setdefault(platform, []).extend(cell.by_kind(offerings))
    return by_platform


@dataclass
class _Platform:
    """What `unpriced_platforms` needs of a platform: its first offering (whose name it takes), one
    with a price, and the one whose newest price not flagged stale is newest."""

    first: OfferingSpec
    priced: OfferingSpec | None = None
    freshest: OfferingSpec | None = None
    fresh_at: datetime | None = None


class OfferingIndex:
    """`offerings` grouped by shape (ranking.fit_key), then by what a constraint reads; groups and
    cells in the order of their first offering."""

    def __init__(self, offerings: Sequence[OfferingSpec]) -> None:
        self.offerings = offerings
        groups: dict[tuple[Any, ...], dict[tuple[Any, ...], _Cell]] = {}
        platforms: dict[str, _Platform] = {}
        for i, off in enumerate(offerings):
            cells = groups.setdefault(ranking.fit_key(off), {})
            cell_key = (
                off.platform,
                off.physically_exclusive,
                off.interruptible,
                id(off.accelerator),
                off.market_figure,
                # ranking.renting_miss
                off.region,
                off.rental,
            )
            cell = cells.get(cell_key)
            if cell is None:
                cell = cells[cell_key] = _Cell(key=(*cell_key, off.interconnect))
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
        # Each group's fit key, first member, member count and members without a price.
        self.fit_keys = list(groups)
        self.firsts = [min(c.members[0] for c in cells) for cells in self.groups]
        self.counts = [sum(len(c.members) for c in cells) for cells in self.groups]
        self.unpriced = [sum(c.unpriced for c in cells) for cells in self.groups]
        self.platforms = platforms
        self._failing: dict[tuple[Any, ...], _Failing] = {}
        self._by_platform: list[dict[str, _Kinds] | None] = [None] * len(self.groups)
        self._least: list[list[tuple[PriceKind, float]] | None]
        self._least = [None] * len(self.groups)
        self._cell_keys: dict[tuple[Any, ...], _Cell] | None = None
        self._twinned: frozenset[int] | None = None
        self._observed: list[datetime] | None = None
        # cheapest_per_platform's answers by everything they are made of (`_pricing_terms`).
        self._cheapest: dict[Hashable, dict[str, ranking.Candidate]] = {}
        # The groups in the order of a full month's bound (_by_floor), by what it reads.
        self._by_floor: dict[Hashable, list[int]] = {}
        # rank's answers, with the rejections they leave (rank).
        self._ranked: dict[Hashable, _KeptRank] = {}
        self._group_keys: list[frozenset[tuple[Any, ...]] | None] = [None] * len(self.groups)

    def cell_keys(self) -> dict[tuple[Any, ...], _Cell]:
        """One cell of each key (_Cell.key) in the catalogue: what a constraint's verdicts are
        found for."""
        if self._cell_keys is None:
            self._cell_keys = {}
            for cells in self.groups:
                for cell in cells:
                    self._cell_keys.setdefault(cell.key, cell)
        return self._cell_keys

    def failing(self, ctx: ranking.Context) -> _Failing:
        """The cell keys (_Cell.key) a constraint of `ctx` leaves out, with the constraint
        (ranking.constraint_miss), found once per set of constraints: the sides of the plans
        across platforms and a scenario asked again read them from here."""
        terms = ranking.constraint_terms(ctx)
        try:
            found = self._failing.get(terms)
        except TypeError:  # a term that cannot be hashed: found for this call only
            return self._find_failing(ctx)
        if found is None:
            found = self._find_failing(ctx)
            _keep(self._failing, terms, found, _FAILING_KEPT)
        return found

    def _find_failing(self, ctx: ranking.Context) -> _Failing:
        out = {}
        for key, cell in self.cell_keys().items():
            reason = ranking.constraint_miss(ctx, self.offerings[cell.members[0]])
            if reason is not None:
                out[key] = reason
        return _Failing(out)

    def stale_epoch(self, stale_before: datetime) -> int:
        """How many of the catalogue's price dates fall before `stale_before`: two moments with
        the same count leave the same prices stale (ranking._stale)."""
        return bisect.bisect_left(self._dates(), stale_before)

    def _dates(self) -> list[datetime]:
        """The catalogue's price dates, ascending, each once."""
        if self._observed is None:
            self._observed = sorted({p.observed_at for o in self.offerings for p in o.prices})
        return self._observed

    def twinned(self) -> frozenset[int]:
        """The positions of regional offerings that another offering could be folded with
        (ranking.fold_regions): alike in everything the fold compares but the price and the
        figures priced from it. An offering outside this set is never folded."""
        if self._twinned is None:
            alike: dict[tuple[Any, ...], list[int]] = {}
            for i, off in enumerate(self.offerings):
                if off.region:
                    alike.setdefault(ranking.regional_offer(off), []).append(i)
            self._twinned = frozenset(
                i for found in alike.values() if len(found) > 1 for i in found
            )
        return self._twinned

    def group_keys(self, group: int) -> frozenset[tuple[Any, ...]]:
        """The keys of group `group`'s cells."""
        found = self._group_keys[group]
        if found is None:
            found = self._group_keys[group] = frozenset(c.key for c in self.groups[group])
        return found

    def least(self, group: int) -> list[tuple[PriceKind, float]]:
        """Group `group`'s least amount of each price kind, over all its platforms: with the
        kind's units, a lower bound of any of its offerings' costs (cheapest_per_platform)."""
        found = self._least[group]
        if found is None:
            found = self._least[group] = _least(self.by_platform(group))
        return found

    def prepare(self) -> OfferingIndex:
        """Build now what is otherwise built on first use (each cell's and each group's prices
        by kind), so that a kept index is complete (and can be frozen with the catalogue)."""
        for group, cells in enumerate(self.groups):
            for cell in cells:
                cell.by_kind(self.offerings)
            self.by_platform(group)
            self.least(group)
            self.group_keys(group)
        self.cell_keys()
        self.twinned()
        self._dates()
        return self

    def by_platform(self, group: int) -> dict[str, _Kinds]:
        """Group `group`'s prices by platform, then by kind (_by_kind over the platform's cells)."""
        found = self._by_platform[group]
        if found is None:
            members: dict[str, list[int]] = {}
            for cell in self.groups[group]:
                members.setdefault(self.offerings[cell.members[0]].platform, []).extend(
                    cell.members
                )
            found = {p: _by_kind(self.offerings, m) for p, m in members.items()}
            self._by_platform[group] = found
        return found


def unpriced_platforms(
    ctx: ranking.Context, index: OfferingIndex, platforms: Mapping[str, str]
) -> tuple[tuple[str, str], ...]:
    """ranking.unpriced_platforms_of over a few offerings per platform instead of all of them: its
    first (for the name), one with a price and the one with the newest unflagged price (with
    `fresh_only`, the platform has a current price if and only if that one has)."""
    chosen: list[OfferingSpec] = []
    for known in index.platforms.values():
        chosen.extend(o for o in (known.first, known.priced, known.freshest) if o is not None)
    return ranking.unpriced_platforms_of(ctx, chosen, platforms)


def _tally(tallies: dict[Code, list[int]], reason: Code, count: int, first: int) -> None:
    entry = tallies.get(reason)
    if entry is None:
        tallies[reason] = [count, first]
    else:
        entry[0] += count
        entry[1] = min(entry[1], first)


@dataclass
class _Fitting:
    """A group whose shape holds the tasks: its eligible members (catalogue positions, ascending
    per cell), the cells they are in and the group's fit."""

    group: int
    kept: list[list[int]]
    cells: list[_Cell]
    fit: ranking.Fit
    first: int  # the first eligible member in catalogue order
    count: int  # eligible members
    # Its prices are the group's (OfferingIndex.by_platform): no cell is left out but for having
    # no price at all.
    whole: bool = True


def _grouped(
    ctx: ranking.Context, index: OfferingIndex, tallies: dict[Code, list[int]]
) -> list[_Fitting]:
    """The groups that fit, each with the members no constraint leaves out and that have a price;
    what is left out is counted (in `tallies`, or in `ctx` for shapes that do not fit, with their
    closest miss) as pricing offering by offering would."""
    offerings = index.offerings
    # (first position, eligible, how close the shape comes: its memory shortfall)
    unfit: list[tuple[int, int, float]] = []
    fitting: list[_Fitting] = []
    failing = index.failing(ctx) if ctx.filtering else {}
    fresh_only = ctx.c.fresh_only
    fits = ctx.fits
    placer = ctx.placer

    def fit_of(gi: int, first: int, count: int) -> ranking.Fit | None:
        """The group's fit, or None with the group counted in `unfit`: a shape that does not
        fit is told by placement's verdict, its placement built only for the closest miss."""
        fit = fits.get(index.fit_keys[gi])
        if fit is None:
            miss = placer.miss(offerings[first])
            if miss is not None:
                short = miss.shortfall_bytes
                unfit.append((first, count, ranking.INF if short is None else short))
                return None
            fit = ranking.shape_fit(ctx, offerings[first])
        if fit.bill is None or fit.month is None:
            short = fit.placement.shortfall_bytes
            unfit.append((first, count, ranking.INF if short is None else short))
            return None
        return fit

    for gi, cells in enumerate(index.groups):
        if not (fresh_only or index.unpriced[gi]) and (
            not failing or failing.keys().isdisjoint(index.group_keys(gi))
        ):
            # Every member is eligible: the group as the index holds it.
            first, count = index.firsts[gi], index.counts[gi]
            fit = fit_of(gi, first, count)
            if fit is not None:
                kept_all = [cell.members for cell in cells]
                fitting.append(_Fitting(gi, kept_all, cells, fit, first, count))
            continue
        eligible: list[list[int]] = []
        passed: list[_Cell] = []
        whole = not fresh_only
        for cell in cells:
            members = cell.members
            reason = failing.get(cell.key)
            if reason is not None:
                _tally(tallies, reason, len(members), members[0])
                whole = False
                continue
            if fresh_only:
                kept = [i for i in members if ranking.current_prices(ctx, offerings[i].prices)]
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
                passed.append(cell)
        if not eligible:
            continue
        first = min(kept[0] for kept in eligible)
        count = sum(len(kept) for kept in eligible)
        fit = fit_of(gi, first, count)
        if fit is not None:
            fitting.append(_Fitting(gi, eligible, passed, fit, first, count, whole))
    # Rejected whole, in the order of their first offerings: the first of the closest misses wins.
    for first, count, closeness in sorted(unfit, key=lambda item: item[0]):
        off = offerings[first]
        before = ctx.rejected[Code.REJECT_DOES_NOT_FIT]
        ctx.reject(
            Code.REJECT_DOES_NOT_FIT,
            closeness,
            off,
            lambda: placer.place(off).reason,  # noqa: B023 (called at once)
        )
        ctx.rejected[Code.REJECT_DOES_NOT_FIT] = before + count
        _tally(tallies, Code.REJECT_DOES_NOT_FIT, 0, first)
    return fitting


def _count(ctx: ranking.Context, tallies: dict[Code, list[int]]) -> None:
    """The loop's counts and order in `ctx.rejected`: each reason where it first met an offering."""
    counts = Counter(ctx.rejected)
    for reason, (count, _first) in tallies.items():
        counts[reason] += count
    ctx.rejected.clear()
    for reason, _entry in sorted(tallies.items(), key=lambda item: item[1][1]):
        ctx.rejected[reason] = counts[reason]


def evaluate(ctx: ranking.Context, index: OfferingIndex) -> list[ranking.Candidate]:
    """The candidates (in catalogue order) that ranking.evaluate_offering would return, offering by
    offering, leaving `ctx.rejected` and `ctx.misses` as it would: the same counts in the order
    each reason first met an offering, the same closest miss of each reason."""
    offerings = index.offerings
    tallies: dict[Code, list[int]] = {}  # reason -> [count, first catalogue position]
    fitting = _grouped(ctx, index, tallies)
    # Priced one by one, in catalogue order, so that per-offering rejections (deadline, budget)
    # keep their closest misses as the loop did.
    candidates = []
    earlier = set(ctx.rejected)
    known = len(ctx.rejected)
    for i in sorted(chain.from_iterable(kept for f in fitting for kept in f.kept)):
        candidate = ranking.evaluate_offering(ctx, offerings[i])
        if candidate is not None:
            candidates.append(candidate)
        if len(ctx.rejected) != known:
            for reason in ctx.rejected:
                if reason not in earlier:
                    _tally(tallies, reason, 0, i)
                    earlier.add(reason)
            known = len(ctx.rejected)
    _count(ctx, tallies)
    return candidates


# rank's answer, with the rejections and closest misses it leaves in its context.
_KeptRank = tuple[
    tuple["Ranked | None", int],
    list[tuple[Code, int]],
    dict[Code, tuple[float, Any, OfferingSpec]],
]
# Answers of cheapest_per_platform and of rank an index keeps.
_CHEAPEST_KEPT = 64
_RANKED_KEPT = 32


def _keep(store: dict[Any, Any], key: Any, value: Any, most: int) -> None:
    """`value` kept under `key`, the oldest entries let go past `most`. An index is shared by
    the threads of a process: an entry another thread let go first is not an error."""
    while len(store) >= most:
        try:
            store.pop(next(iter(store)))
        except (KeyError, RuntimeError, StopIteration):
            break
    store[key] = value


def _pricing_terms(ctx: ranking.Context, index: OfferingIndex) -> Hashable | None:
    """Everything of `ctx` that pricing an offering of `index` reads (pricing.terms), with which
    of its prices are stale; None where one cannot be hashed."""
    return ctx.terms.priced(index.stale_epoch(ctx.stale_before))


def cheapest_per_platform(
    ctx: ranking.Context, index: OfferingIndex
) -> dict[str, ranking.Candidate]:
    """The cheapest candidate of each platform (`_cheapest_per_platform`), kept by the index
    under everything it is made of (`_pricing_terms`): the sides of the plans across platforms
    of a scenario asked again are not searched again while the catalogue holds."""
    terms = _pricing_terms(ctx, index)
    if terms is None:
        return _cheapest_per_platform(ctx, index)
    found = index._cheapest.get(terms)
    if found is None:
        found = _cheapest_per_platform(ctx, index)
        _keep(index._cheapest, terms, found, _CHEAPEST_KEPT)
    return dict(found)


# Offerings priced past the cheapest found, for exact ties to the cent: a lower bound above the
# cheapest by more than this cannot tie it (ranking.ranking_key compares costs to the cent).
_TIE_MARGIN = 0.02


def _cheapest_per_platform(
    ctx: ranking.Context, index: OfferingIndex
) -> dict[str, ranking.Candidate]:
    """The cheapest candidate of each platform, as pricing every offering and keeping, per
    platform, the first of the least (cost to the cent, fresh before stale, time) in group then
    catalogue order would find, without pricing every offering. Budgets are not applied (the
    caller's context has none).

    A lower bound orders the offerings of a group that fits: every plan bills at least its
    busiest usage group (ranking.Bill, group 0), and on one price that group costs at least
    amount x units x rate (a minimum charge only raises it; keeping an instance from release only
    adds), so per price kind the offerings' amounts, sorted once per catalogue, give the bounds
    in order. Offerings are priced exactly (ranking.evaluate_offering) in bound order until the
    bound passes the cheapest found by more than a tie."""
    offerings = index.offerings
    deadline = ctx.c.deadline_hours
    best: dict[str, tuple[tuple[Any, ...], ranking.Candidate]] = {}
    # The cell keys a constraint leaves out: a group none of whose cells has one passes whole
    # (a set operation instead of a verdict per cell).
    failing = index.failing(ctx) if ctx.filtering else None
    fits = ctx.fits
    placer = ctx.placer
    bounds = _Bounds(ctx)
    full = _full_month_bill(ctx)
    order: Iterable[int] = range(len(index.groups))
    if full is not None:
        # Groups by their least bound on the full month first: the platforms' cheapest found
        # early pass more groups over before they are fitted. The answer does not depend on the
        # order: each platform keeps the least (cost to the cent, stale, time, group, position)
        # of what it prices, and nothing is passed over that could come within a tie of it.
        order = _by_floor(ctx, index, full, bounds)
    for gi in order:
        cells = index.groups[gi]
        by_platform: dict[str, _Kinds]
        if failing and not failing.keys().isdisjoint(index.group_keys(gi)):
            # The least amounts of what passes: a price of a platform left out is never read
            # (its currency may have no rate).
            passed, by_platform, least = failing.passing(index, gi)
        else:
            passed, by_platform, least = cells, index.by_platform(gi), index.least(gi)
        if not passed:
            continue
        fit = fits.get(index.fit_keys[gi])
        if fit is None:
            first = offerings[passed[0].members[0]]
            if placer.miss(first) is not None:
                continue  # no fit to build: nothing of the group is anyone's cheapest
            if full is not None and _passes(least, by_platform, best, full, bounds):
                continue  # the check below, on a floor every bill of the scenario is above
            fit = ranking.shape_fit(ctx, first)
        bill = fit.bill
        if bill is None or fit.month is None:
            continue
        if deadline is not None and ranking.misses_deadline(ctx, fit) is not None:
            continue
        # The whole group at once: when every platform in it has a cheapest already and the
        # group's least bound (any price kind's least amount, the least storage) passes the
        # dearest of them, none of its offerings can be a platform's cheapest.
        if not least:
            continue  # no offering of this group has a price
        factors = bounds.factors(bill)
        kept_costs = [best[p][1].cost_key for p in by_platform if p in best]
        if by_platform and len(kept_costs) == len(by_platform):
            floor = _least_bound(least, factors)
            dearest = max(kept_costs) + _TIE_MARGIN
            if floor > dearest:
                continue  # storage only adds
            if floor + min(bounds.base(bill, p) for p in by_platform) > dearest:
                continue
        for platform, kinds in by_platform.items():
            if not kinds:
                continue  # no offering of the platform here has a price
            kept = best.get(platform)
            if kept is not None:
                least_bound = min(amounts[0][0] * factors[k] for k, amounts in kinds)
                if least_bound > kept[1].cost_key + _TIE_MARGIN:
                    continue  # storage only adds
            base = bounds.base(bill, platform)
            heap: list[tuple[float, int, int, list[tuple[float, int]], float]] = []
            for k, amounts in kinds:
                factor = factors[k]
                amount, i = amounts[0]
                heap.append((amount * factor, i, 0, amounts, factor))
            if kept is not None and min(heap)[0] + base > kept[1].cost_key + _TIE_MARGIN:
                continue  # nothing of this group can be the platform's cheapest
            heapq.heapify(heap)
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
                candidate = ranking.evaluate_offering(ctx, offerings[i])
                if candidate is None:
                    continue
                key = (round(candidate.cost_key, 2), candidate.stale, candidate.time_key, gi, i)
                if kept is None or key < kept[0]:
                    best[platform] = (key, candidate)
    return {platform: candidate for platform, (_key, candidate) in best.items()}


def _full_month_bill(ctx: ranking.Context) -> ranking.Bill | None:
    """A bill every bill of `ctx`'s scenario costs at least as much as, on every price, whatever
    the shape: where the scenario is costed by the month and a task is a service busy the whole
    month, the instance that runs it is busy every hour of the month, started once
    (usage.instance_usage: busy hours capped at the month, one run when never idle), so each
    plan's busiest usage group (ranking.Bill, group 0, what a bound prices) is that usage, on at
    least one instance, and its storage that usage's. None where no such task is."""
    if ctx.basis is not CostBasis.MONTH:
        return None
    for t in ctx.tasks:
        if usage.is_job(t):
            continue
        alone = usage.task_usage(t, None)
        if alone.month_hours < HOURS_PER_MONTH:
            continue
        busiest, _month = usage.instance_usage([(When(t.when), alone)], ctx.basis)
        kept = ranking.kept_on(busiest, ctx.c.startup_minutes)
        minutes, results = ctx.c.startup_minutes, ctx.placements.results
        return ranking.Bill(((kept, 1),), (0,), startup_minutes=minutes, kept=results)
    return None


def _least_bound(least: list[tuple[PriceKind, float]], factors: _Factors) -> float:
    """The least of a group's least amounts (OfferingIndex.least) times their kinds' factors on
    a bill: a lower bound of any of its offerings' costs there, before storage (infinite for a
    group without a price)."""
    return min((a * factors[k] for k, a in least), default=ranking.INF)


def _by_floor(
    ctx: ranking.Context, index: OfferingIndex, full: ranking.Bill, bounds: _Bounds
) -> list[int]:
    """The groups by their least bound on `full` (_full_month_bill), kept by the index under
    what the bound reads (the full month's usage and start-up time, the currency and the rates
    usable now): the sides of the plans, and other scenarios, share it."""
    terms = ctx.terms.floor(full.groups, full.startup_minutes)
    found = index._by_floor.get(terms)
    if found is None:
        floors = bounds.factors(full)

        def floor(gi: int) -> float:
            try:
                return _least_bound(index.least(gi), floors)
            except NoFit:  # a price in a currency without a rate: first, and fitted as it was
                return 0.0

        found = sorted(range(len(index.groups)), key=floor)
        _keep(index._by_floor, terms, found, _CHEAPEST_KEPT)
    return found


def _passes(
    least: list[tuple[PriceKind, float]],
    by_platform: dict[str, _Kinds],
    best: dict[str, tuple[tuple[Any, ...], ranking.Candidate]],
    full: ranking.Bill,
    bounds: _Bounds,
) -> bool:
    """Whether _cheapest_per_platform's whole-group check passes a group over on the floor of
    `full` (_full_month_bill): the `least` amount of any price kind of what passes the
    constraints times the full month's units, plus the least storage, above the dearest of its
    platforms' cheapest. Every bill of the scenario bills at least that much, so the check on the
    group's own bill passes it too."""
    kept_costs = [best[p][1].cost_key for p in by_platform if p in best]
    if not by_platform or len(kept_costs) != len(by_platform):
        return False
    if not least:
        return True  # no offering of the group has a price
    factors = bounds.factors(full)
    try:
        floor = _least_bound(least, factors)
    except NoFit:  # a currency without a rate: the group is fitted, and checked, as it was
        return False
    dearest = max(kept_costs) + _TIE_MARGIN
    return floor + min(bounds.base(full, p) for p in by_platform) > dearest


@dataclass
class Ranked:
    """What advise needs of the ranked, folded candidates: the shown ones with their positions
    (the first `limit`, and the Pareto front wherever it ranks), the front, the first."""

    shown: list[tuple[int, ranking.Candidate]]
    front: set[int]  # ids of the candidates on the front
    pareto: list[ranking.Candidate]  # the front in rank order
    first: ranking.Candidate


def select(
    candidates: list[ranking.Candidate],
    objective: str,
    limit: int,
    stats: tuple[Sequence[float], float] | None = None,
) -> Ranked:
    """ranking._rank, fold_regions and pareto_ids over `candidates` (in catalogue order), for the
    candidates advise shows, without sorting them all. Scores are set on every candidate.
    `stats`: as ranking.ranking_key takes them, when `candidates` are only some (`rank`)."""
    key = ranking.ranking_key(candidates, objective, stats)
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
        leads = {id(c) for c in ranking.fold_regions([candidates[i] for i in members])}
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
    front = ranking.pareto_ids(reps)
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


# ------------------------------------------------------------------- ranking without pricing all


def _below(bound: float) -> float:
    """`bound` lowered past what the order of float operations can move it (amount x units x
    rate against amount x (units x instances x rate)), so that it stays a lower bound."""
    return bound - abs(bound) * 1e-12 - 1e-12


def rank(
    ctx: ranking.Context, index: OfferingIndex, objective: str, limit: int
) -> tuple[Ranked | None, int] | None:
    """`_rank`, kept by the index under everything it is made of (`_pricing_terms`, the
    objective and the limit) with what it leaves in `ctx.rejected` and `ctx.misses`: a scenario
    asked again is not ranked again while the catalogue holds. The kept candidates are shared
    between the answers: read, never changed, after ranking."""
    if ctx.budget is not None or ctx.c.fresh_only:
        return None
    terms = _pricing_terms(ctx, index)
    if terms is None:
        return _rank(ctx, index, objective, limit)
    key = (terms, objective, limit)
    kept = index._ranked.get(key)
    if kept is None:
        answer = _rank(ctx, index, objective, limit)
        if answer is None:
            return None
        kept = (answer, list(ctx.rejected.items()), dict(ctx.misses))
        _keep(index._ranked, key, kept, _RANKED_KEPT)
        return answer
    answer, rejected, misses = kept
    ctx.rejected.clear()
    ctx.rejected.update(dict(rejected))
    ctx.misses.clear()
    ctx.misses.update(misses)
    return answer


def _rank(
    ctx: ranking.Context, index: OfferingIndex, objective: str, limit: int
) -> tuple[Ranked | None, int] | None:
    """What evaluate and select give advise (the ranked shown candidates and how many fit, with
    `ctx.rejected` and `ctx.misses` as they leave them), pricing only the offerings that can be
    shown or rank before one that is; None where it cannot tell without pricing every offering
    (a budget, or fresh-only prices: both leave out offerings by their prices), before `ctx` is
    touched. (None, 0) when nothing fits.

    Each price kind of a platform's offerings in a group that fits gives lower bounds in order
    (cheapest_per_platform), and so lower bounds of the objective's key (ranking.ranking_key: the
    cost to the cent, the time, or the balanced score, each non-decreasing in the cost at one
    time). Offerings are priced in the order of their bounds: for the balanced score's least
    cost first; then, for the Pareto front, each time's cheapest; then in the key's order until
    the first `limit` (after folding regions) precede the least bound not yet priced. A front
    member further down takes its rank from a count: of what is priced, by its key; of what is
    not, by a range of its cost (`_cost_range`), priced only where the range straddles the
    member's key. So the shown, their ranks, regions and the front are those of pricing
    everything (tests/advisor/engine/test_prune.py compares the two)."""
    if ctx.budget is not None or ctx.c.fresh_only:
        return None
    offerings = index.offerings
    tallies: dict[Code, list[int]] = {}
    fitting = _grouped(ctx, index, tallies)
    deadline = ctx.c.deadline_hours
    late = [
        f
        for f in fitting
        if deadline is not None and ranking.misses_deadline(ctx, f.fit) is not None
    ]
    if late:
        for f in sorted(late, key=lambda f: f.first):
            if f.fit.untimed:  # no time to hold to the deadline (ranking.misses_deadline)
                ctx.rejected[Code.REJECT_NO_TIME_ESTIMATE] += f.count
                _tally(tallies, Code.REJECT_NO_TIME_ESTIMATE, 0, f.first)
                continue
            time = ranking.deadline_time(ctx, f.fit)
            assert time is not None
            before = ctx.rejected[Code.REJECT_MISSES_DEADLINE]
            ctx.reject(
                Code.REJECT_MISSES_DEADLINE,
                time,
                offerings[f.first],
                lambda: hours(time),  # noqa: B023 (called at once)
            )
            ctx.rejected[Code.REJECT_MISSES_DEADLINE] = before + f.count
            _tally(tallies, Code.REJECT_MISSES_DEADLINE, 0, f.first)
        gone = {id(f) for f in late}
        fitting = [f for f in fitting if id(f) not in gone]
    _count(ctx, tallies)
    count = sum(f.count for f in fitting)
    if not fitting:
        return None, 0

    # Streams: the amounts of one price kind of one platform in one group, ascending, with what
    # turns an amount into a lower bound of the cost (units x instances x rate, storage).
    streams: list[tuple[list[tuple[float, int]], float, float, float, ranking.Bill]] = []
    firsts: list[float] = []  # each stream's first bound
    by_time: dict[float, list[int]] = {}
    bounds = _Bounds(ctx)
    for f in fitting:
        bill = f.fit.bill
        assert bill is not None
        ranked_time = ranking.deadline_time(ctx, f.fit)
        time_key = ranking.INF if ranked_time is None else ranked_time
        if f.whole or len(f.cells) == len(index.groups[f.group]):
            by_platform = index.by_platform(f.group)
        else:
            by_platform = _cells_by_platform(offerings, f.cells)
        sids = by_time.setdefault(time_key, [])
        factors = bounds.factors(bill)
        bases = bounds.bases(bill)
        for platform, kinds in by_platform.items():
            base = bases[platform]
            for kind, amounts in kinds:
                factor = factors[kind]
                sids.append(len(streams))
                streams.append((amounts, factor, base, time_key, bill))
                firsts.append(_below(amounts[0][0] * factor + base))
    # The streams of each time in the order of their first bounds, each with the next: a heap
    # holds a time's next stream only once the one before it has given its first offering (a
    # key is non-decreasing in the bound at one time, so none of the next can come earlier).
    after = [-1] * len(streams)
    heads: list[int] = []
    for sids in by_time.values():
        sids.sort(key=firsts.__getitem__)
        heads.append(sids[0])
        for a, b in pairwise(sids):
            after[a] = b

    priced: dict[int, ranking.Candidate] = {}

    def price(i: int) -> ranking.Candidate:
        found = priced.get(i)
        if found is None:
            found = ranking.evaluate_offering(ctx, offerings[i])
            if found is None:  # cannot happen without a budget or fresh-only prices
                raise _Unranked
            priced[i] = found
        return found

    def bound(sid: int, at: int) -> float:
        amounts, factor, base, _time, _bill = streams[sid]
        return _below(amounts[at][0] * factor + base)

    def cheapest(head: int) -> float:
        """Price the offerings of one time's streams (from `head`, its first) in bound order up
        to their least cost; that cost."""
        heap = [(firsts[head], head, 0)]
        least = ranking.INF
        while heap and heap[0][0] <= least:
            _bound, sid, at = heapq.heappop(heap)
            amounts = streams[sid][0]
            if at + 1 < len(amounts):
                heapq.heappush(heap, (bound(sid, at + 1), sid, at + 1))
            if at == 0 and after[sid] >= 0:
                heapq.heappush(heap, (firsts[after[sid]], after[sid], 0))
            least = min(least, price(amounts[at][1]).cost_key)
        return least

    def take() -> tuple[Any, int, int]:
        """The entry of the least key off the heap (`heap`, by key bounds), with what follows it
        in its stream and, for a stream's first, the next stream of its time put on."""
        entry = heapq.heappop(heap)
        _key, sid, at = entry
        amounts, _factor, _base, time_key, _bill = streams[sid]
        if at + 1 < len(amounts):
            heapq.heappush(heap, (key_of(bound(sid, at + 1), time_key), sid, at + 1))
        if at == 0 and after[sid] >= 0:
            nxt = after[sid]
            heapq.heappush(heap, (key_of(firsts[nxt], time_key), nxt, 0))
        return entry

    times = [t for t in by_time if t < ranking.INF]
    try:
        # Each time's cheapest: the Pareto front's candidates; the least of them, the balanced
        # score's least cost.
        best_cost = min(cheapest(head) for head in heads)
        key_of = _bound_key(objective, times, best_cost)
        heap = [(key_of(firsts[sid], streams[sid][3]), sid, 0) for sid in heads]
        heapq.heapify(heap)

        def advance(threshold: tuple[Any, ...] | None, at_least: int = 0) -> None:
            """Price in key-bound order every offering whose bound is at most `threshold`, and
            `at_least` more."""
            while heap and (at_least > 0 or (threshold is not None and heap[0][0] <= threshold)):
                _key, sid, at = take()
                amounts = streams[sid][0]
                if amounts[at][1] not in priced:
                    at_least -= 1
                price(amounts[at][1])

        advance(None, limit)
        stats = (times, best_cost)
        key = ranking.ranking_key([], objective, stats)
        while True:
            ranked = select([priced[i] for i in sorted(priced)], objective, limit, stats)
            top = [c for r, c in ranked.shown if r < limit]
            shown = max(key(c) for c in top)
            if heap and heap[0][0] <= shown:
                advance(shown)
            elif heap and len(top) < limit:
                advance(None, limit - len(top))
            else:
                break
        # The first `limit` are settled, and so is the front (each time's cheapest is priced).
        # A front member further down ranks after every candidate whose key is less than its
        # own: those still unpriced are counted by the range of their cost, and priced only
        # where the range straddles a member's key.
        deep = [(key(c), id(c)) for r, c in ranked.shown if r >= limit]
        if not deep:
            return ranked, count
        upper_key = _bound_key(objective, times, best_cost, stale=True)
        deepest = max(k for k, _id in deep)
        ahead_of = dict.fromkeys((member for _k, member in deep), 0)
        counted: set[int] = set()
        straddling: list[int] = []
        twinned = index.twinned()
        while heap and heap[0][0] <= deepest:
            _key, sid, at = take()
            amounts, _factor, base, time_key, bill = streams[sid]
            i = amounts[at][1]
            if i in priced or i in counted:
                continue
            counted.add(i)
            low, high = _cost_range(ctx, offerings[i], bill, base, i in twinned)
            low_key = key_of(low, time_key)
            high_key = None if high is None else upper_key(high, time_key)
            ahead = []
            for member_key, member in deep:
                if high_key is not None and high_key < member_key:
                    ahead.append(member)
                elif low_key <= member_key:
                    straddling.append(i)  # its cost decides: priced, and ranked by select
                    break
            else:
                for member in ahead:
                    ahead_of[member] += 1
        if straddling:
            for i in straddling:
                price(i)
            ranked = select([priced[i] for i in sorted(priced)], objective, limit, stats)
        ranked.shown = [(r + ahead_of[id(c)] if r >= limit else r, c) for r, c in ranked.shown]
        return ranked, count
    except _Unranked:
        return None


class _Unranked(Exception):
    """An offering of a group that fits is no candidate after all: rank falls back."""


class _Factors(dict[PriceKind, float]):
    """A bill's factors by price kind (_Bounds), each found on first use: a kind's currency is
    converted only where an offering has a price of it."""

    def __init__(self, bill: ranking.Bill, ctx: ranking.Context) -> None:
        super().__init__()
        self.bill = bill
        self.ctx = ctx

    def __missing__(self, kind: PriceKind) -> float:
        units = self.bill.float_metering_units(kind.metering)[0][0]
        instances = self.bill.groups[0][1]
        found = charges.least_factor(units, instances, self.ctx.float_rate(kind.currency))
        self[kind] = found
        return found


class _Bounds:
    """What turns an amount into a lower bound of a cost on a bill: per price kind, the busiest
    usage group's units x its instances x the rate (every plan bills at least that group); per
    platform, the storage. Both read only the busiest group (its usage and instances, the bill's
    start-up time; the storage its usage alone), so bills alike in it share them (most shapes'
    busiest instance runs every hour of the month); each bill's are found once by identity."""

    def __init__(self, ctx: ranking.Context) -> None:
        self.ctx = ctx
        self._factors: dict[int, _Factors] = {}
        self._bases: dict[int, _Bases] = {}
        self._factors_alike: dict[tuple[Any, ...], _Factors] = {}
        self._bases_alike: dict[Any, _Bases] = {}

    def factors(self, bill: ranking.Bill) -> _Factors:
        """`bill`'s factor of each price kind (pricing.charges.least_factor)."""
        found = self._factors.get(id(bill))
        if found is None:
            (busiest, instances), *_rest = bill.groups
            alike = (busiest, instances, bill.startup_minutes)
            found = self._factors_alike.get(alike)
            if found is None:
                found = self._factors_alike[alike] = _Factors(bill, self.ctx)
            self._factors[id(bill)] = found
        return found

    def base(self, bill: ranking.Bill, platform: str) -> float:
        """The storage `bill`'s busiest instance costs on `platform`, as a float (0 where the
        scenario keeps no data)."""
        return self.bases(bill)[platform]

    def bases(self, bill: ranking.Bill) -> _Bases:
        """`bill`'s storage by platform (`base`)."""
        found = self._bases.get(id(bill))
        if found is None:
            found = self._bases_alike.get(bill.busiest)
            if found is None:
                found = self._bases_alike[bill.busiest] = _Bases(bill, self.ctx)
            self._bases[id(bill)] = found
        return found


class _Bases(dict[str, float]):
    """A bill's storage by platform (_Bounds.base), each found on first use."""

    def __init__(self, bill: ranking.Bill, ctx: ranking.Context) -> None:
        super().__init__()
        self.bill = bill
        self.ctx = ctx

    def __missing__(self, platform: str) -> float:
        found = 0.0
        if self.ctx.storing:
            found = float(ranking.bill_storage(self.ctx, platform, self.bill)[0] or 0)
        self[platform] = found
        return found


def _bound_key(
    objective: str, times: Sequence[float], best_cost: float, stale: bool = False
) -> Callable[[float, float], tuple[Any, ...]]:
    """The least key (ranking.ranking_key) a candidate of cost at least `bound` and time `time_key`
    can have: fresh (no doubt: ranking.SURE), and its cost at the bound; with `stale`, the
    greatest a candidate of cost at most `bound` can have (ranking.DOUBTFUL)."""
    flags = ranking.DOUBTFUL if stale else ranking.SURE
    if objective == "time" and times:
        return lambda bound, time_key: (time_key, round(bound, 2), flags)
    if objective != "balanced" or not times:
        return lambda bound, time_key: (round(bound, 2), flags, time_key)
    best_time = min(times) or 1e-9
    slowest = max(times) / best_time
    scale = 1 / best_cost if best_cost > 0 else 1.0

    def balanced(bound: float, time_key: float) -> tuple[Any, ...]:
        t = time_key / best_time if time_key < ranking.INF else slowest
        return (bound * scale + t, flags, bound)

    return balanced


def _cost_range(
    ctx: ranking.Context, off: OfferingSpec, bill: ranking.Bill, base: float, twinned: bool
) -> tuple[float, float | None]:
    """(a lower bound, an upper bound or None) of what ranking.evaluate_offering prices `off` at on
    `bill`, with `base` its storage, at a few multiplications a price instead of the plan search.

    Below: every plan (one price for all instances, or one per usage group) costs each group at
    least the least of its prices' amounts x units x rate (a minimum charge only raises a run).
    Above: the cheapest plan costs at most any one price for every instance (ranking._cheapest
    takes the least of those, or a mixed plan cheaper still). None where more can be added or the
    candidate be folded away: keeping an instance from release, an offering `twinned` with
    another of another region (OfferingIndex.twinned)."""
    groups = bill.groups
    lows = [ranking.INF] * len(groups)
    high = ranking.INF
    for p in off.prices:
        rate = ctx.float_rate(p.currency)
        amount = p.amount_float
        per_group = bill.float_units_for(p)[0]
        for g, units in enumerate(per_group):
            cost = amount * charges.least_factor(units, groups[g][1], rate)
            if cost < lows[g]:
                lows[g] = cost
        high = min(high, ranking.price_cost(ctx, p, bill))
    # Sums in another order than ranking's: the bounds are widened past float rounding.
    low = sum(lows) + base
    low -= abs(low) * 1e-9 + 1e-9
    if twinned or (ctx.storing and ranking.may_release(off)):
        return low, None
    high += base
    return low, high + abs(high) * 1e-9 + 1e-9
