"""The pruned advice (advisor/engine/prune.py: offerings grouped by shape, only groups that fit
priced, no full sort) is the advice of pricing and sorting every offering: on random catalogues
with many offerings per shape, regional duplicates, stale and unpriced offerings, and scenarios
with budgets, deadlines, platform choices, fresh-only prices and every objective, the two agree
on every count and its order, every closest miss, every rank, region, tie and Pareto member."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from decimal import Decimal

from hypothesis import event, given, settings
from hypothesis import strategies as st

from advisor.engine import prune, ranking, usage
from advisor.engine.advise import advise
from advisor.engine.errors import NoFit
from advisor.engine.types import (
    BillingRulesSpec,
    Constraints,
    OfferingSpec,
    PriceSpec,
    RentalFacts,
    Scenario,
    StoragePriceSpec,
    Task,
)
from advisor.engine.usage import Usage
from advisor.engine.vocab import CostBasis, DeliveryForm, PriceBasis
from tests.advisor.engine.price_strategies import RATES, prices
from tests.advisor.engine.test_advice_properties import ACCELERATORS, NOW, jobs, services
from tests.conftest import examples

# The Quadro P6000 states no BF16 throughput (fixtures/accelerators.json): a training job has no
# time estimate on it, which a deadline leaves out (REJECT_NO_TIME_ESTIMATE) on both paths.
CARDS = ("rtx-4090-24gb", "a100-80gb", "h100-sxm-80gb", "quadro-p6000-24gb")
PLATFORMS = {"a": "instance", "b": "mig", "c": "pooled", "d": "instance"}
STORAGE = (
    StoragePriceSpec("a", "gb_day", Decimal("0.0066"), "CNY", NOW),
    StoragePriceSpec("b", "gb_hour", Decimal("0.0004"), "CNY", NOW, 50),
)
# None, or a platform that releases an instance stopped for 3 days (keeping it on may cost more).
RULES = (None, None, BillingRulesSpec(release_after_stopped_days=3, idle_mode=False))

# Prices of every kind (price_strategies: every field of pricing.kind.PriceKind), with few
# distinct amounts, so that equal costs (and ties to the cent) are common.
price = prices(
    NOW,
    st.sampled_from([150, 188, 199, 250, 300, 1200, 4500, 60000, 140000]).map(
        lambda cents: Decimal(cents) / 100
    ),
    st.sampled_from([0, 3, 40, 120]),
    st.booleans(),
    # What the price is: market figures are left out unless asked for, claims rank after a
    # platform's own price at equal cost (vocab.PriceBasis).
    basis=st.sampled_from(list(PriceBasis) + [PriceBasis.OFFER] * 4),
)


@st.composite
def catalogue(draw: st.DrawFn) -> list[OfferingSpec]:
    out: list[OfferingSpec] = []
    for i in range(draw(st.integers(1, 40))):
        if out and draw(st.integers(0, 4)) == 0:
            # The same offer in another region: a candidate to fold.
            twin = draw(st.sampled_from(out))
            region = draw(st.sampled_from(["r1", "r2", "r3"]))
            out.append(
                replace(twin, id=i, name=twin.name.replace(twin.region, region), region=region)
            )
            continue
        platform = draw(st.sampled_from(sorted(PLATFORMS)))
        card = draw(st.sampled_from(CARDS))
        sharing = "exclusive"
        if PLATFORMS[platform] == "pooled" and draw(st.booleans()):
            sharing = "pooled"
        region = draw(st.sampled_from(["", "r1", "r2"]))
        out.append(
            OfferingSpec(
                id=i,
                platform=platform,
                platform_name=platform.upper(),
                name=f"{card} {region}" if region else f"{card} #{i}",
                accelerator=ACCELERATORS[card],
                gpu_count=draw(st.sampled_from([1, 1, 2, 8])) if sharing == "exclusive" else 1,
                sharing=sharing,
                pooled_vram_gib=12.0 if sharing == "pooled" else None,
                multi_task=PLATFORMS[platform],
                interconnect=draw(st.sampled_from(["pcie", "nvlink"])),
                physically_exclusive=draw(st.booleans()),
                interruptible=draw(st.booleans()),
                # Spot: the platform's stated rate or the default (restarts.py).
                interruptions_per_day=draw(st.sampled_from([None, 0.5, 6.0])),
                region=region,
                prices=tuple(draw(st.lists(price, min_size=0, max_size=3))),
                billing_rules=draw(st.sampled_from(RULES)),
            )
        )
    # The renters' filters' facts (ranking.renting_miss), stated or not.
    return [replace(o, rental=draw(rentals)) for o in out]


rentals = st.builds(
    RentalFacts,
    country=st.sampled_from(["", "CN", "US"]),
    delivery_forms=st.sampled_from([(), (DeliveryForm.BARE_METAL,), (DeliveryForm.CLOUD_VM,)]),
    vcpus=st.sampled_from([None, 8.0, 32.0]),
    cn_identity_required=st.sampled_from([None, False, True]),
    foreign_cards=st.sampled_from([None, True]),
)


scenarios = st.builds(
    lambda tasks, objective, storage, spot, fresh, budget, deadline, chosen, startup, market: (
        Scenario(
            tasks=tuple(replace(t, name=f"t{i}") for i, t in enumerate(tasks)),
            constraints=Constraints(
                storage_gb=storage,
                startup_minutes=startup,
                allow_interruptible=spot,
                include_market_statistics=market,
                fresh_only=fresh,
                budget_per_month=budget,
                deadline_hours=deadline,
                platforms=chosen,
            ),
            objective=objective,
        )
    ),
    st.lists(st.one_of(services, jobs), min_size=1, max_size=3),
    st.sampled_from(["cost", "time", "balanced"]),
    st.sampled_from([0.0, 300.0]),
    st.sampled_from([None, True, False]),
    st.booleans(),
    st.sampled_from([None, None, Decimal("2000"), Decimal("20000")]),
    st.sampled_from([None, None, 50.0, 500.0]),
    st.sampled_from([(), (), ("a", "b"), ("c",)]),
    # Start-up minutes per run, billed where a price's platform bills them (startup_billed).
    st.sampled_from([0.0, 0.0, 10.0]),
    st.booleans(),
)
# With the renters' filters now and then (ranking.renting_miss).
scenarios = st.tuples(
    scenarios,
    st.sampled_from(
        [
            {},
            {},
            {"countries": ("CN",)},
            {"regions": ("r1",)},
            {"delivery_forms": (DeliveryForm.BARE_METAL,)},
            {"min_vcpus_per_gpu": 8.0},
            {"foreign_renter": True},
        ]
    ),
).map(lambda pair: replace(pair[0], constraints=replace(pair[0].constraints, **pair[1])))


def everything(scenario: Scenario, offerings: list[OfferingSpec], limit: int):
    """The reference: every offering priced (ranking.evaluate_offering), every candidate sorted."""
    ctx = ranking.Context(scenario, ACCELERATORS, NOW, RATES, STORAGE, 30)
    unpriced = ranking.unpriced_platforms_of(ctx, offerings, {})
    candidates = [c for off in offerings if (c := ranking.evaluate_offering(ctx, off)) is not None]
    rejected = list(ctx.rejected.items())
    if not candidates:
        return ("no fit", rejected, dict(ctx.misses), unpriced)
    ordered = ranking.fold_regions(ranking._rank(candidates, scenario.objective))
    front = ranking.pareto_ids(ordered)
    shown = [
        (i + 1, c.offering.id, tuple(sorted(c.regions)), id(c) in front, c.score)
        for i, c in enumerate(ordered)
        if i < limit or id(c) in front
    ]
    pareto = [c.offering.id for c in ordered if id(c) in front]
    return ("advice", rejected, shown, pareto, len(candidates), unpriced)


def pruned(scenario: Scenario, offerings: list[OfferingSpec], limit: int):
    ctx = ranking.Context(scenario, ACCELERATORS, NOW, RATES, STORAGE, 30)
    index = prune.OfferingIndex(offerings)
    unpriced = prune.unpriced_platforms(ctx, index, {})
    candidates = prune.evaluate(ctx, index)
    rejected = list(ctx.rejected.items())
    if not candidates:
        return ("no fit", rejected, dict(ctx.misses), unpriced)
    ranked = prune.select(candidates, scenario.objective, limit)
    shown = [
        (i + 1, c.offering.id, tuple(sorted(c.regions)), id(c) in ranked.front, c.score)
        for i, c in ranked.shown
    ]
    pareto = [c.offering.id for c in ranked.pareto]
    return ("advice", rejected, shown, pareto, len(candidates), unpriced)


def ranked_by_bounds(scenario: Scenario, offerings: list[OfferingSpec], limit: int):
    """prune.rank as advise uses it: only what can be shown priced; where it cannot tell (a budget,
    fresh-only prices) None, and advise prices everything (`pruned`)."""
    ctx = ranking.Context(scenario, ACCELERATORS, NOW, RATES, STORAGE, 30)
    index = prune.OfferingIndex(offerings)
    unpriced = prune.unpriced_platforms(ctx, index, {})
    lazily = prune.rank(ctx, index, scenario.objective, limit)
    if lazily is None:
        event("priced every offering")
        return pruned(scenario, offerings, limit)
    ranked, fitting = lazily
    rejected = list(ctx.rejected.items())
    if ranked is None:
        return ("no fit", rejected, dict(ctx.misses), unpriced)
    event("ranked by bounds")
    shown = [
        (i + 1, c.offering.id, tuple(sorted(c.regions)), id(c) in ranked.front, c.score)
        for i, c in ranked.shown
    ]
    pareto = [c.offering.id for c in ranked.pareto]
    return ("advice", rejected, shown, pareto, fitting, unpriced)


@settings(max_examples=examples(400), deadline=None)
@given(scenarios, catalogue(), st.sampled_from([1, 3, 20]))
def test_the_pruned_advice_is_the_advice_of_every_offering(scenario, offerings, limit):
    expected = everything(scenario, offerings, limit)
    event(expected[0])
    assert pruned(scenario, offerings, limit) == expected


@settings(max_examples=examples(600), deadline=None)
@given(scenarios, catalogue(), st.sampled_from([1, 3, 20]))
def test_the_advice_ranked_by_bounds_is_the_advice_of_every_offering(scenario, offerings, limit):
    """Pricing offerings in the order of their bounds until nothing unpriced can precede what is
    shown gives the shown candidates, ranks, regions, scores, front, counts and closest misses of
    pricing every offering (`everything`), on catalogues with ties to the cent, stale prices,
    minimum charges, release rules, regional duplicates, deadlines and every objective. Budgets
    and fresh-only prices are left out here: with them rank declines and everything is priced."""
    scenario = replace(
        scenario,
        constraints=replace(scenario.constraints, budget_per_month=None, fresh_only=False),
    )
    expected = everything(scenario, offerings, limit)
    assert ranked_by_bounds(scenario, offerings, limit) == expected


@settings(max_examples=examples(100), deadline=None)
@given(scenarios, catalogue())
def test_advise_answers_the_same_with_a_kept_index_as_without(scenario, offerings):
    index = prune.OfferingIndex(offerings)

    def answer(**kept):
        try:
            return advise(
                scenario,
                offerings,
                ACCELERATORS,
                now=NOW,
                rates=RATES,
                storage_prices=STORAGE,
                **kept,
            )
        except NoFit as error:
            return (error.detail, error.rejected, error.closest_miss)

    assert answer(index=index) == answer()


def test_an_index_of_other_offerings_is_not_used():
    offerings = [
        OfferingSpec(
            id=1,
            platform="a",
            platform_name="A",
            name="4090",
            accelerator=ACCELERATORS["rtx-4090-24gb"],
            prices=(
                PriceSpec(unit="hour", amount=Decimal("1.88"), currency="CNY", observed_at=NOW),
            ),
        )
    ]
    scenario = Scenario(tasks=(Task(name="t", kind="fixed", vram_gib=4.0),))
    stale_index = prune.OfferingIndex([])
    advice = advise(scenario, offerings, ACCELERATORS, now=NOW, index=stale_index)
    assert [r.offering_id for r in advice.recommendations] == [1]


def cheapest_of_every_offering(ctx: ranking.Context, offerings: list[OfferingSpec]):
    """The reference for prune.cheapest_per_platform: every offering priced, per platform the
    least (cost to the cent, fresh before stale, time), the first in group then catalogue order."""
    index = prune.OfferingIndex(offerings)
    best: dict[str, tuple] = {}
    for cells in index.groups:
        for i in sorted(i for cell in cells for i in cell.members):
            c = ranking.evaluate_offering(ctx, offerings[i])
            if c is None:
                continue
            key = (round(c.cost_key, 2), c.stale, c.time_key)
            kept = best.get(c.offering.platform)
            if kept is None or key < kept[0]:
                best[c.offering.platform] = (key, c.offering.id, c.cost_key)
    return {platform: entry[1:] for platform, entry in best.items()}


@settings(max_examples=examples(400), deadline=None)
@given(scenarios, catalogue())
def test_the_cheapest_per_platform_is_that_of_pricing_every_offering(scenario, offerings):
    """The bound prune.cheapest_per_platform orders offerings by (the busiest usage group at
    least, minimum charges and keeping instances only adding) never skips the cheapest: on random
    catalogues with minimum charges, stale prices, several usage groups, fresh-only prices,
    deadlines and platform choices, each platform's cheapest is the exhaustive one (budgets are
    the plan's, so none applies here)."""
    scenario = replace(scenario, constraints=replace(scenario.constraints, budget_per_month=None))
    ctx = ranking.Context(scenario, ACCELERATORS, NOW, RATES, STORAGE, 30)
    expected = cheapest_of_every_offering(ctx, offerings)
    ctx = ranking.Context(scenario, ACCELERATORS, NOW, RATES, STORAGE, 30)
    found = prune.cheapest_per_platform(ctx, prune.OfferingIndex(offerings))
    event(f"{len(expected)} platforms")
    assert {p: (c.offering.id, c.cost_key) for p, c in found.items()} == expected


OTHER_STORAGE = (StoragePriceSpec("a", "gb_day", Decimal("0.0100"), "CNY", NOW),)


@settings(max_examples=examples(150), deadline=None)
@given(scenarios, scenarios, catalogue(), st.booleans())
def test_fits_kept_across_calls_answer_as_fresh_ones(first, then, offerings, other_storage):
    """A placement cache kept across calls keeps each scenario's fits (ranking.Context.fits),
    and an index kept with the catalogue the cells each scenario's constraints leave out
    (OfferingIndex.failing): an advice after another scenario's, or after the same tasks under
    other constraints or other storage prices, is the advice of a fresh cache and index."""
    from advisor.engine.placement import PlacementCache

    then = replace(then, tasks=first.tasks if other_storage else then.tasks)
    storage = OTHER_STORAGE if other_storage else STORAGE

    def answer(scenario, storage_prices, placements, index):
        try:
            advice = advise(
                scenario,
                offerings,
                ACCELERATORS,
                now=NOW,
                rates=RATES,
                storage_prices=storage_prices,
                placements=placements,
                index=index,
            )
        except NoFit as error:
            return (error.detail, error.rejected, error.closest_miss)
        return advice

    kept, index = PlacementCache(), prune.OfferingIndex(offerings)
    answer(first, STORAGE, kept, index)
    fresh = answer(then, storage, PlacementCache(), prune.OfferingIndex(offerings))
    assert answer(then, storage, kept, index) == fresh


def test_a_front_member_far_down_counts_regional_twins_once():
    """Ranked by time, the cheap slow card is on the front below the fast ones; before it come
    the cheapest fast offering and one offer sold in two regions, which folds into one
    candidate (ranking.fold_regions). Its rank counts the pair once although neither twin had
    to be priced for the first place: the same ranks as pricing every offering."""
    from tests.advisor.engine.test_advice_properties import job

    def offering(i, card, amount, region=""):
        return OfferingSpec(
            id=i,
            platform="a",
            platform_name="A",
            name=f"{card} {region}" if region else f"{card} #{i}",
            accelerator=ACCELERATORS[card],
            region=region,
            prices=(
                PriceSpec(unit="hour", amount=Decimal(amount), currency="CNY", observed_at=NOW),
            ),
        )

    offerings = [
        offering(0, "h100-sxm-80gb", "20.00"),
        offering(1, "h100-sxm-80gb", "30.00", "r1"),
        offering(2, "h100-sxm-80gb", "30.00", "r2"),
        offering(3, "h100-sxm-80gb", "40.00"),
        offering(4, "rtx-4090-24gb", "1.88"),
    ]
    scenario = Scenario(tasks=(job(2e8, None, 2.0),), objective="time")
    expected = everything(scenario, offerings, 1)
    assert [(rank, oid) for rank, oid, *_ in expected[2]] == [(1, 0), (4, 4)]
    ctx = ranking.Context(scenario, ACCELERATORS, NOW, RATES, STORAGE, 30)
    ranked, _fitting = prune.rank(ctx, prune.OfferingIndex(offerings), "time", 1)
    assert [(rank + 1, c.offering.id) for rank, c in ranked.shown] == [(1, 0), (4, 4)]


@settings(max_examples=examples(200), deadline=None)
@given(scenarios, scenarios, catalogue(), st.sampled_from([0, 0, 50, 200]), st.booleans())
def test_the_cheapest_per_platform_kept_by_the_index_is_a_fresh_ones(
    first, then, offerings, days_later, same_tasks
):
    """An index keeps each answer of cheapest_per_platform under everything pricing reads: asked
    for another scenario, the same tasks under other constraints, or later (when prices have
    turned stale), it answers as a fresh index does."""
    if same_tasks:
        then = replace(then, tasks=first.tasks)
    then = replace(then, constraints=replace(then.constraints, budget_per_month=None))
    first = replace(first, constraints=replace(first.constraints, budget_per_month=None))
    later = NOW + timedelta(days=days_later)

    def cheapest(scenario, now, index):
        ctx = ranking.Context(scenario, ACCELERATORS, now, RATES, STORAGE, 30)
        found = prune.cheapest_per_platform(ctx, index)
        return {p: (c.offering.id, c.cost_key, c.stale) for p, c in found.items()}

    kept = prune.OfferingIndex(offerings)
    cheapest(first, NOW, kept)
    assert cheapest(then, later, kept) == cheapest(then, later, prune.OfferingIndex(offerings))
    assert cheapest(first, NOW, kept) == cheapest(first, NOW, prune.OfferingIndex(offerings))


@settings(max_examples=examples(200), deadline=None)
@given(scenarios, scenarios, catalogue(), st.sampled_from([0, 0, 50, 200]))
def test_the_ranking_kept_by_the_index_answers_as_a_fresh_one(first, then, offerings, days_later):
    """An index keeps each ranking (prune.rank) with the rejections and closest misses it
    leaves: asked again, after another scenario, or later (when prices have turned stale),
    advise answers as with a fresh index, counts, misses and ranks included."""
    later = NOW + timedelta(days=days_later)

    def answer(scenario, now, index):
        try:
            return advise(
                scenario,
                offerings,
                ACCELERATORS,
                now=now,
                rates=RATES,
                storage_prices=STORAGE,
                index=index,
            )
        except NoFit as error:
            return (error.detail, error.rejected, error.closest_miss)

    kept = prune.OfferingIndex(offerings)
    answer(first, NOW, kept)
    assert answer(then, later, kept) == answer(then, later, prune.OfferingIndex(offerings))
    assert answer(first, NOW, kept) == answer(first, NOW, prune.OfferingIndex(offerings))


@settings(max_examples=examples(200), deadline=None)
@given(scenarios, catalogue(), st.lists(st.sampled_from([None, "roce", "ib"]), min_size=40))
def test_a_fit_shared_by_placement_is_the_fit_of_each_offering_alone(scenario, offerings, networks):
    """ranking._compute_fit shares one fit between offerings that place alike and that timing
    sees alike (ranking.Context.placed_fits): each offering's is what its own fresh context
    computes for it alone, whatever the offerings asked before in the shared one."""
    offerings = [
        replace(o, network=n, network_gbps=None if n is None else 100)
        for o, n in zip(offerings, networks, strict=False)
    ]
    shared = ranking.Context(scenario, ACCELERATORS, NOW, RATES, STORAGE, 30)
    for offering in offerings:
        alone = ranking.Context(scenario, ACCELERATORS, NOW, RATES, STORAGE, 30)
        fresh = ranking._placed_fit(alone, offering, alone.placer.place(offering))
        assert ranking._compute_fit(shared, offering) == fresh


@settings(max_examples=examples(300), deadline=None)
@given(scenarios, catalogue())
def test_a_scenario_with_a_full_month_service_bills_every_shape_the_full_month_at_least(
    scenario, offerings
):
    """prune._full_month_bill, the floor the plans' cheapest per platform passes groups over on
    before fitting them: costed by the month with a service busy all month, every shape's bill
    has that usage as its busiest group (on one instance or more) and its storage, so on every
    price its bound is at least the floor's; otherwise there is no such floor."""
    ctx = ranking.Context(scenario, ACCELERATORS, NOW, RATES, STORAGE, 30)
    full = prune._full_month_bill(ctx)
    whole_month = ctx.basis is CostBasis.MONTH and any(
        not usage.is_job(t) and usage.task_usage(t, None).month_hours >= 720 for t in scenario.tasks
    )
    assert (full is not None) == whole_month
    event("a full-month floor" if whole_month else "no floor")
    if full is None:
        return
    for off in offerings:
        fit = ranking.shape_fit(ctx, off)
        if fit.bill is None:
            continue
        assert fit.bill.busiest == full.busiest
        assert fit.bill.groups[0][1] >= 1
        if ctx.storing:
            assert ranking.bill_storage(ctx, off.platform, fit.bill) == ranking.bill_storage(
                ctx, off.platform, full
            )
        for p in off.prices:
            units = fit.bill.float_units_for(p)[0][0] * fit.bill.groups[0][1]
            assert units >= full.float_units_for(p)[0][0]


usages = st.builds(
    Usage,
    hours=st.sampled_from([10.0, 300.0, 719.0, 720.0]),
    months=st.sampled_from([1, 2]),
    active_days=st.sampled_from([None, 5]),
    held_hours=st.sampled_from([300.0, 720.0, 1440.0]),
    runs=st.sampled_from([1.0, 30.0]),
)
bills = st.builds(
    lambda groups, startup: ranking.Bill(
        tuple(groups), tuple(range(len(groups))), startup_minutes=startup
    ),
    st.lists(st.tuples(usages, st.integers(1, 3)), min_size=1, max_size=3),
    st.sampled_from([0.0, 0.0, 10.0]),
)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(bills, min_size=1, max_size=6), st.lists(price, min_size=1, max_size=4))
def test_bounds_shared_by_bills_alike_in_their_busiest_group_are_each_bills_own(bill_list, prices):
    """_Bounds shares a bound's factors and storage between bills alike in their busiest group
    (its usage and instances, the start-up time): in any order, each bill's are what it gives
    alone (the busiest group's units x instances x rate; its busiest usage's storage)."""
    scenario = Scenario(
        tasks=(Task(name="svc", kind="fixed", vram_gib=4),), constraints=Constraints(storage_gb=300)
    )
    ctx = ranking.Context(scenario, ACCELERATORS, NOW, RATES, STORAGE, 30)
    shared = prune._Bounds(ctx)
    for bill in bill_list:
        alone = prune._Bounds(ctx)
        for p in prices:
            kind = p.kind
            assert shared.factors(bill)[kind] == alone.factors(bill)[kind]
            rate = ctx.float_rate(p.currency)
            expected = bill.float_units_for(p)[0][0] * bill.groups[0][1] * rate
            assert shared.factors(bill)[kind] == expected
        for platform in ("a", "b", "z"):
            own = float(ranking._storage(ctx, platform, bill.busiest)[0] or 0)
            assert shared.base(bill, platform) == own


def test_a_price_without_a_rate_on_a_platform_left_out_is_not_needed():
    """The plans' cheapest per platform orders and passes over groups on a full month's floor
    of every price kind of a group; a price in a currency without a rate, on a platform the
    scenario leaves out, is never converted (pricing offering by offering never reaches it)."""

    def offer(i, platform, currency, amount, gpus=1):
        return OfferingSpec(
            id=i,
            platform=platform,
            platform_name=platform.upper(),
            name=f"4090 #{i}",
            accelerator=ACCELERATORS["rtx-4090-24gb"],
            gpu_count=gpus,
            multi_task="instance",
            prices=(PriceSpec("hour", Decimal(amount), currency, NOW - timedelta(days=1)),),
        )

    offerings = [
        offer(0, "a", "CNY", "2.00"),
        offer(1, "d", "USD", "0.20"),  # the same shape on a platform left out, in dollars
        offer(2, "a", "CNY", "1.50"),
        offer(3, "d", "USD", "0.10"),
        offer(4, "a", "CNY", "9.00", gpus=2),  # a group visited once "a" has its cheapest
        offer(5, "d", "USD", "0.50", gpus=2),
    ]
    scenario = Scenario(
        tasks=(Task(name="svc", kind="fixed", vram_gib=8),),  # busy the whole month
        constraints=Constraints(platforms=("a",), currency="CNY"),
    )
    ctx = ranking.Context(scenario, ACCELERATORS, NOW, (), (), 30)
    assert prune._full_month_bill(ctx) is not None
    expected = cheapest_of_every_offering(ctx, offerings)
    ctx = ranking.Context(scenario, ACCELERATORS, NOW, (), (), 30)
    found = prune.cheapest_per_platform(ctx, prune.OfferingIndex(offerings))
    assert {p: (c.offering.id, c.cost_key) for p, c in found.items()} == expected
    assert set(found) == {"a"} and found["a"].offering.id == 2


# A task over more GPUs than an instance has goes on several (placement.py), and its fit reads
# the network between them (ranking.fit_key): offerings alike but for the network they state.
NETWORKS = (None, None, ("infiniband", 1600.0), ("ethernet", 100.0), ("ethernet", 25.0))


@st.composite
def spanning(draw: st.DrawFn) -> tuple[Scenario, list[OfferingSpec]]:
    scenario = draw(scenarios)
    tasks = tuple(replace(t, gpus=draw(st.sampled_from([1, 2, 3, 16]))) for t in scenario.tasks)
    offerings: list[OfferingSpec] = []
    for o in draw(catalogue()):
        network = draw(st.sampled_from(NETWORKS))
        kind, gbps = network or (None, None)
        offerings.append(replace(o, network=kind, network_gbps=gbps))
        if draw(st.integers(0, 2)) == 0:
            # The same machine stating another network, at its own prices: one shape but for it.
            other = draw(st.sampled_from([n for n in NETWORKS if n != network]))
            kind, gbps = other or (None, None)
            prices = tuple(draw(st.lists(price, min_size=1, max_size=3)))
            twin = replace(o, id=f"{o.id}n", network=kind, network_gbps=gbps, prices=prices)
            offerings.append(twin)
    return replace(scenario, tasks=tasks), offerings


@settings(max_examples=examples(300), deadline=None)
@given(spanning(), st.sampled_from([1, 3, 20]))
def test_tasks_over_several_instances_get_the_advice_of_every_offering(case, limit):
    """With tasks over 2, 3 or 16 GPUs (more than an instance of 1, 2 or 8 holds: placed on
    whole instances of their own) on offerings stating different networks between instances,
    the pruned advice and the advice ranked by bounds are the advice of pricing every offering:
    the shape key holds everything the new placements and their times read."""
    scenario, offerings = case
    expected = everything(scenario, offerings, limit)
    event(expected[0])
    event(f"a task over several GPUs: {any(t.gpus > 1 for t in scenario.tasks)}")
    assert pruned(scenario, offerings, limit) == expected
    lazy = replace(
        scenario,
        constraints=replace(scenario.constraints, budget_per_month=None, fresh_only=False),
    )
    assert ranked_by_bounds(lazy, offerings, limit) == everything(lazy, offerings, limit)


@settings(max_examples=examples(200), deadline=None)
@given(spanning())
def test_a_fit_kept_by_shape_is_each_offerings_own_with_tasks_over_several_instances(case):
    """ranking.shape_fit keeps one fit per shape (ranking.fit_key, the groups of OfferingIndex):
    with tasks over several instances, each offering's is what a fresh context computes for it
    alone (its network between instances included), whatever the offerings asked before."""
    scenario, offerings = case
    shared = ranking.Context(scenario, ACCELERATORS, NOW, RATES, STORAGE, 30)
    for offering in offerings:
        alone = ranking.Context(scenario, ACCELERATORS, NOW, RATES, STORAGE, 30)
        fresh = ranking._placed_fit(alone, offering, alone.placer.place(offering))
        assert ranking.shape_fit(shared, offering) == fresh
