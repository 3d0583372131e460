"""Placement of concurrent and time-shifted tasks on offerings (docs/advisor-rules.md, the NVIDIA
MIG User Guide, and the multi-task table and Q2/Q3 of the vendor article
"2026多任务GPU平台怎么选")."""

from __future__ import annotations

import sys
import threading
import time
import weakref
from dataclasses import replace
from datetime import datetime
from decimal import Decimal
from random import Random

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from advisor.engine import ranking
from advisor.engine.advise import advise
from advisor.engine.capacity import usable_bytes
from advisor.engine.hardware import load_accelerators
from advisor.engine.messages import Code, Message
from advisor.engine.mig import find_layout
from advisor.engine.placement import PlacementCache, TaskNeed, place
from advisor.engine.types import Constraints, GiB, OfferingSpec, PriceSpec, Scenario, Task
from advisor.engine.vocab import Isolation, When
from tests.conftest import examples

ACCELERATORS = load_accelerators()
NOW = datetime(2026, 10, 2)


def codes(messages: tuple[Message, ...]) -> set[Code]:
    return {m.code for m in messages}


def offering(slug: str, gpus: int = 1, **kw: object) -> OfferingSpec:
    accel = ACCELERATORS[slug]
    return OfferingSpec(
        id=f"{slug}x{gpus}",
        platform="p",
        platform_name="P",
        name=f"{gpus}x {slug}",
        accelerator=accel,
        gpu_count=gpus,
        **kw,
    )  # type: ignore[arg-type]


FIVE_SMALL = [
    TaskNeed("notebook", 6 * GiB),
    TaskNeed("embedding api", 8 * GiB),
    TaskNeed("ocr api", 8 * GiB),
    TaskNeed("sd1.5 api", 18 * GiB),
    TaskNeed("eval", 18 * GiB),
]


def test_five_small_concurrent_tasks_share_one_mig_split_a100() -> None:
    """The vendor article's table and Q3: MIG platforms split one card into isolated instances
    (NVIDIA MIG User Guide)."""
    p = place(offering("a100-80gb", multi_task="mig"), FIVE_SMALL)
    assert p.fits and p.instances == 1
    assert {a.mode for a in p.assignments} == {"mig"}
    assert {a.gpus for a in p.assignments} == {(0,)}
    profiles = [a.mig_profile for a in p.assignments]
    assert find_layout(ACCELERATORS["a100-80gb"], profiles) is not None  # type: ignore[arg-type]
    assert Code.WARN_MIG_NO_P2P in codes(p.warnings)


def test_five_small_concurrent_tasks_need_five_instances_on_an_instance_level_platform() -> None:
    """The vendor article, Q3: on 矩池云 "一卡跑一个任务 ... 同时需要5个任务并行，就得开5张卡"."""
    p = place(offering("a100-80gb", multi_task="instance"), FIVE_SMALL)
    assert p.fits and p.instances == 5
    assert sorted(a.instance for a in p.assignments) == [0, 1, 2, 3, 4]
    assert {a.mode for a in p.assignments} == {"whole"}


def test_five_hard_tasks_take_five_gpus_of_one_eight_gpu_instance() -> None:
    """One task per card, not per instance: the GPUs of one rented instance are all the user's."""
    p = place(offering("rtx-4090-24gb", 8), FIVE_SMALL)
    assert p.fits and p.instances == 1
    assert sorted(a.gpus for a in p.assignments) == [(0,), (1,), (2,), (3,), (4,)]


def test_time_shifted_day_and_night_tasks_share_one_gpu() -> None:
    """docs/advisor-rules.md: time-shifted tasks fit separately and share the bill."""
    tasks = [
        TaskNeed("day inference", 20 * GiB, when="day"),
        TaskNeed("night fine-tune", 22 * GiB, when="night"),
    ]
    p = place(offering("rtx-4090-24gb"), tasks)
    assert p.fits and p.instances == 1
    assert [(a.instance, a.gpus, a.mode) for a in p.assignments] == [(0, (0,), "whole")] * 2


def test_burst_overlaps_day_and_night() -> None:
    """Bursts come at unknown times, so they are reserved for in both windows (placement doc)."""
    tasks = [TaskNeed("day", 20 * GiB, when="day"), TaskNeed("burst", 20 * GiB, when="burst")]
    assert place(offering("rtx-4090-24gb"), tasks).instances == 2


def test_an_always_task_keeps_its_gpu_while_day_and_night_tasks_swap() -> None:
    tasks = [
        TaskNeed("api", 20 * GiB),
        TaskNeed("day", 20 * GiB, when="day"),
        TaskNeed("night", 20 * GiB, when="night"),
    ]
    p = place(offering("rtx-4090-24gb", 2), tasks)
    assert p.instances == 1
    gpus = {a.task: a.gpus for a in p.assignments}
    assert gpus["api"] != gpus["day"] and gpus["day"] == gpus["night"]


def test_a_two_gpu_ddp_task_never_sums_memory() -> None:
    """As in the llmfit project (PR #46): VRAM is not summed across cards for data parallelism."""
    ddp = TaskNeed("ddp", 30 * GiB, gpus=2)
    p = place(offering("rtx-4090-24gb", 2), [ddp])
    assert not p.fits
    assert p.shortfall_bytes == 30 * GiB - usable_bytes(24)
    assert p.reason is not None and p.reason.code is Code.MISS_MEMORY
    assert "30.0 GiB per GPU" in p.reason.english()
    fits = place(offering("a100-40gb", 2), [ddp])
    assert fits.fits and fits.assignments[0].gpus == (0, 1)


def test_a_task_over_more_gpus_than_an_instance_has_takes_whole_instances_of_its_own() -> None:
    """docs/advisor-rules.md, "Placement": 8 GPUs on 4-GPU instances are ceil(8 / 4) = 2 whole
    instances, every GPU of each the task's; another task goes on a third instance, not on
    theirs."""
    zero3 = TaskNeed("zero3", 20 * GiB, gpus=8, sharded=True)
    p = place(offering("a100-80gb", 4), [TaskNeed("api", 10 * GiB), zero3])
    assert p.fits and p.instances == 3 and p.spans_machines
    spans, api = p.assignments[1], p.assignments[0]
    assert (spans.instance, spans.machines, spans.gpus, spans.gpu_count) == (0, 2, (0, 1, 2, 3), 8)
    assert list(spans.instance_range) == [0, 1]
    assert spans.headroom_bytes == usable_bytes(80) - 20 * GiB
    assert (api.instance, api.machines, api.gpus) == (2, 1, (0,))


def test_the_last_instance_of_a_task_over_machines_keeps_its_idle_gpus_from_other_tasks() -> None:
    """12 GPUs on 8-GPU instances: ceil(12 / 8) = 2 instances, 8 + 4 GPUs, the second's other 4
    idle (billed, docs/advisor-rules.md); a small task, soft or hard, takes a third instance."""
    for isolation in Isolation:
        small = TaskNeed("notebook", 4 * GiB, isolation=isolation)
        p = place(offering("h100-sxm-80gb", 8), [TaskNeed("ddp", 40 * GiB, gpus=12), small])
        assert p.fits and p.instances == 3
        assert (p.assignments[0].machines, p.assignments[0].gpu_count) == (2, 12)
        assert p.assignments[1].instance == 2


def test_a_task_that_fits_one_instance_never_spans_machines() -> None:
    """8 GPUs on an 8-GPU instance: one instance, as before multi-node placement."""
    p = place(offering("a100-80gb", 8), [TaskNeed("ddp", 20 * GiB, gpus=8)])
    assert p.fits and p.instances == 1 and not p.spans_machines
    assert (p.assignments[0].machines, p.assignments[0].gpu_count) == (1, 8)


def test_a_task_over_machines_still_needs_its_per_gpu_share_on_each_gpu() -> None:
    """Memory is per GPU whatever the instances: 30 GiB on 24 GB cards does not fit 16 of them."""
    p = place(offering("rtx-4090-24gb", 8), [TaskNeed("ddp", 30 * GiB, gpus=16)])
    assert not p.fits and p.reason is not None and p.reason.code is Code.MISS_MEMORY


def test_day_and_night_tasks_over_machines_reuse_the_same_instances() -> None:
    """Time-shifted tasks share the bill (docs/advisor-rules.md): a day and a night task of 16
    GPUs each on 8-GPU instances take the same 2 instances."""
    tasks = [
        TaskNeed("day", 20 * GiB, gpus=16, when=When.DAY),
        TaskNeed("night", 20 * GiB, gpus=16, when=When.NIGHT),
    ]
    p = place(offering("a100-80gb", 8), tasks)
    assert p.fits and p.instances == 2
    assert [(a.instance, a.machines) for a in p.assignments] == [(0, 2), (0, 2)]


def test_a_sharded_task_never_spans_mig_slices() -> None:
    """NVIDIA MIG User Guide: in MIG mode there is no GPU-to-GPU P2P."""
    sharded = TaskNeed("tp inference", 9 * GiB, gpus=2, sharded=True)
    slice_offer = offering("a100-80gb", 2, sharing="mig", mig_profile="2g.20gb")
    p = place(slice_offer, [sharded])
    assert not p.fits and p.reason is not None
    assert p.reason.code in (Code.MISS_SHARDED_ON_SLICES, Code.MISS_SPANS_ON_SLICES)
    # On a MIG-capable whole-GPU offering it takes whole GPUs instead of slices.
    whole = place(offering("a100-80gb", 2, multi_task="mig"), [sharded, TaskNeed("small", 5 * GiB)])
    modes = {a.task: (a.mode, a.gpus) for a in whole.assignments}
    assert modes["tp inference"] == ("whole", (0, 1))
    assert whole.instances == 2  # both GPUs of the first instance are taken whole


def test_seven_b_lora_and_sdxl_do_not_fit_one_24gb_card_but_fit_48gb() -> None:
    """The vendor article, Q2: 4090 24G cannot run 7B LoRA + SDXL inference together; 48G can.
    Needs ~18 GiB + ~10 GiB (the brief's figures; the memory model gives the real ones)."""
    lora = TaskNeed("7b lora", 18 * GiB, isolation="soft")
    sdxl = TaskNeed("sdxl", 10 * GiB, isolation="soft")
    small = place(offering("rtx-4090-24gb"), [lora, sdxl])
    assert small.instances == 2  # one card each: they cannot share 24 GB
    big = place(offering("rtx-4090-48gb"), [lora, sdxl])
    assert big.fits and big.instances == 1
    assert {a.mode for a in big.assignments} == {"shared"}
    assert {a.headroom_bytes for a in big.assignments} == {usable_bytes(48) - 28 * GiB}
    assert Code.WARN_SHARED_NO_ISOLATION in codes(big.warnings)


def test_hard_isolated_tasks_never_share_a_whole_gpu() -> None:
    lora = TaskNeed("7b lora", 18 * GiB)
    sdxl = TaskNeed("sdxl", 10 * GiB)
    assert place(offering("rtx-4090-48gb"), [lora, sdxl]).instances == 2


def test_pooled_platforms_give_soft_tasks_memory_shares_with_a_warning() -> None:
    tasks = [TaskNeed("a", 10 * GiB, isolation="soft"), TaskNeed("b", 10 * GiB, isolation="soft")]
    p = place(offering("a100-40gb", multi_task="pooled"), tasks)
    assert p.instances == 1 and {a.mode for a in p.assignments} == {"pooled"}
    assert p.assignments[0].pooled_share == pytest.approx(10 * GiB / usable_bytes(40))
    assert Code.WARN_POOLED_SOFT in codes(p.warnings)


def test_hard_tasks_cannot_go_on_a_pooled_share() -> None:
    pooled = offering("a100-40gb", sharing="pooled", pooled_vram_gib=12)
    p = place(pooled, [TaskNeed("prod api", 6 * GiB)])
    assert not p.fits and p.reason is not None and p.reason.code is Code.MISS_HARD_ON_POOLED


def test_a_slice_offering_has_the_slice_memory_as_capacity() -> None:
    """A 1g.10gb slice holds 9.75 GiB usable; Llama-3.1-8B bf16 (15 GiB) needs 3g.40gb
    (NVIDIA MIG User Guide profiles; docs/memory-model.md)."""
    needs = [TaskNeed("llama 8b", 16 * GiB)]
    small = place(offering("a100-80gb", sharing="mig", mig_profile="1g.10gb"), needs)
    assert not small.fits and small.reason is not None
    assert "MIG 1g.10gb slice" in small.reason.english()
    big = place(offering("a100-80gb", sharing="mig", mig_profile="3g.40gb"), needs)
    assert big.fits and big.assignments[0].usable_bytes == usable_bytes(40)
    pooled = place(
        offering("a100-40gb", sharing="pooled", pooled_vram_gib=6),
        [replace(needs[0], per_gpu_bytes=5 * GiB, isolation="soft")],
    )
    assert pooled.fits and pooled.assignments[0].usable_bytes == usable_bytes(6)


def test_a_nearly_full_gpu_warns_of_oom_risk() -> None:
    """docs/advisor-rules.md: warn above 90 % of usable memory (capacity.OOM_RISK_FRACTION)."""
    p = place(offering("rtx-4090-24gb"), [TaskNeed("tight", int(usable_bytes(24) * 0.95))])
    assert p.fits and Code.WARN_OOM_RISK in codes(p.warnings)
    roomy = place(offering("rtx-4090-24gb"), [TaskNeed("roomy", int(usable_bytes(24) * 0.85))])
    assert Code.WARN_OOM_RISK not in codes(roomy.warnings)


def test_mig_night_tasks_pack_around_slices_that_run_all_day() -> None:
    """An always-on 3g.40gb slice stays put; day and night tasks reuse the other half."""
    tasks = [
        TaskNeed("api", 30 * GiB),
        TaskNeed("day", 30 * GiB, when="day"),
        TaskNeed("night", 35 * GiB, when="night"),
    ]
    p = place(offering("a100-80gb", multi_task="mig"), tasks)
    assert p.instances == 1
    where = {a.task: (a.mig_profile, a.mig_start) for a in p.assignments}
    assert where["api"][1] != where["day"][1] and where["day"] == where["night"]


def test_a_soft_task_alone_on_a_gpu_is_not_called_shared() -> None:
    p = place(offering("rtx-4090-24gb"), [TaskNeed("solo", 10 * GiB, isolation="soft")])
    assert [a.mode for a in p.assignments] == ["whole"]
    assert not codes(p.warnings) & {Code.WARN_POOLED_SOFT, Code.WARN_SHARED_NO_ISOLATION}


# Every accelerator as the offerings of the catalogue sell it: whole cards on each platform
# granularity, MIG slices and pooled shares.
def _shapes() -> list[OfferingSpec]:
    out = []
    for slug, accel in sorted(ACCELERATORS.items()):
        for gpus in (1, 2, 8):
            for multi_task in ("instance", "mig", "pooled"):
                out.append(offering(slug, gpus, multi_task=multi_task))
        for p in accel.mig_profiles:
            out.append(offering(slug, sharing="mig", mig_profile=p.name))
        out.append(offering(slug, sharing="pooled", pooled_vram_gib=accel.vram_gib / 2))
    return out


SHAPES = _shapes()
task_needs = st.builds(
    TaskNeed,
    name=st.sampled_from(["a", "b", "c", "d"]),
    # Mostly small needs, so that soft tasks share cards, slices and shares.
    per_gpu_bytes=st.one_of(st.integers(1, 12), st.integers(1, 100)).map(lambda g: g * GiB),
    gpus=st.sampled_from([1, 1, 2, 3, 12]),
    sharded=st.booleans(),
    when=st.sampled_from(list(When)),
    isolation=st.sampled_from(list(Isolation)),
)


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(task_needs, min_size=1, max_size=4).map(tuple), st.randoms(use_true_random=False))
@example(  # two soft tasks on one card: a pooled share on a pooled platform, shared elsewhere
    (TaskNeed("a", 5 * GiB, isolation="soft"), TaskNeed("b", 5 * GiB, isolation="soft")),
    Random(0),
)
def test_a_kept_cache_places_as_place_does(tasks: tuple[TaskNeed, ...], rng: Random) -> None:
    """PlacementCache shares one placement among the signatures of a layout (cards of one memory
    size): asked in any order, every offering gets what `place` gives it alone."""
    cache = PlacementCache()
    shapes = list(SHAPES)
    rng.shuffle(shapes)
    for off in shapes:
        assert cache.place(off, tasks) == place(off, tasks), off.name


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(task_needs, min_size=1, max_size=4).map(tuple), st.randoms(use_true_random=False))
def test_a_placers_miss_is_what_its_placement_says(
    tasks: tuple[TaskNeed, ...], rng: Random
) -> None:
    """Placer.miss tells, without placing, what `place` gives: None where it fits, else the
    code of the reason and the memory shortfall; asked before or after the placement, in any
    order of offerings."""
    placer = PlacementCache().placer(tasks)
    shapes = list(SHAPES)
    rng.shuffle(shapes)
    for n, off in enumerate(shapes):
        early = placer.miss(off) if n % 2 else None
        placed = placer.place(off)
        alone = place(off, tasks)
        assert placed == alone, off.name
        for miss in (early, placer.miss(off)) if n % 2 else (placer.miss(off),):
            if alone.fits:
                assert miss is None, off.name
            else:
                assert miss is not None and alone.reason is not None, off.name
                assert miss.code is alone.reason.code, off.name
                assert miss.shortfall_bytes == alone.shortfall_bytes, off.name


def test_a_kept_cache_places_an_edited_card_afresh() -> None:
    """The cache looks specs up by identity: a spec edited in the admin (another object, the
    same slug) is placed again, not given the old card's placement or miss."""
    cache = PlacementCache()
    tasks = (TaskNeed("train", 30 * GiB),)
    old = offering("rtx-4090-24gb")
    assert not cache.place(old, tasks).fits
    edited = replace(old, accelerator=replace(old.accelerator, vram_gib=48.0))
    assert cache.place(edited, tasks).fits
    assert not cache.place(old, tasks).fits


class _Held:
    """An object a weak reference can watch: freed or not."""


def _store_with(cache: PlacementCache, key: str) -> weakref.ref[_Held]:
    held = _Held()
    cache.kept(key)["held"] = held
    return weakref.ref(held)


def test_what_a_cache_lets_go_is_freed_at_once_unless_deferred() -> None:
    """Past `max_kept` stores the oldest is let go: freed at once; a deferred cache holds it until
    its owner releases (the site frees after a response is sent), and never more than
    `max_kept` such values."""
    eager = PlacementCache(max_kept=2)
    first = _store_with(eager, "a")
    _store_with(eager, "b")
    _store_with(eager, "c")
    assert first() is None and eager.releasing == 0

    deferred = PlacementCache(max_kept=2, deferred=True)
    watched = [_store_with(deferred, key) for key in "abc"]
    assert deferred.releasing == 1
    assert watched[0]() is not None  # let go, not yet freed
    assert deferred.kept("c")["held"] is watched[2]()  # what is kept stays
    deferred.release()
    assert deferred.releasing == 0 and watched[0]() is None
    assert watched[1]() is not None and watched[2]() is not None
    more = [_store_with(deferred, f"more-{i}") for i in range(5)]
    assert deferred.releasing <= deferred.max_kept
    assert all(w() is None for w in watched)  # past the bound: freed without a release
    assert more[-1]() is not None


def test_placements_past_the_bound_wait_for_release_when_deferred() -> None:
    """Past `max_entries` placements the cache starts again empty; deferred, the old placements
    are freed on release, and the cache places as before."""
    tasks = (TaskNeed("train", 10 * GiB),)
    cache = PlacementCache(max_entries=2, deferred=True)
    shapes = list(SHAPES)[:4]
    for off in shapes:
        cache.place(off, tasks)
    assert cache.releasing == 1
    cache.release()
    assert cache.releasing == 0
    for off in shapes:
        assert cache.place(off, tasks) == place(off, tasks)


def test_threads_sharing_one_cache_get_what_a_fresh_cache_gives() -> None:
    """The site shares one PlacementCache between a process's threads (advisor.services). Eight
    threads use one small cache (most calls let placements or kept stores go; some threads
    release what waits) for a bounded time, with varied task lists, offerings and scenarios:
    nothing raises, and every placement, verdict and advice is what a fresh cache gives."""
    hourly = (PriceSpec("hour", Decimal("2"), "CNY", NOW, "test"),)
    catalogue = [
        replace(offering(slug, gpus, multi_task=multi), id=f"{slug}-{gpus}-{multi}", prices=hourly)
        for slug in ("rtx-4090-24gb", "a100-80gb", "h100-sxm-80gb")
        for gpus in (1, 2, 8)
        for multi in ("instance", "mig", "pooled")
    ]
    sizes = [(5,), (7, 16), (20,), (30, 5), (70,), (10, 10, 10), (40, 40)]
    task_lists = [
        tuple(TaskNeed(f"t{i}", gib * GiB, isolation=iso) for i, gib in enumerate(size))
        for size in sizes
        for iso in (Isolation.HARD, Isolation.SOFT)
    ]
    scenarios = [
        Scenario(
            tasks=tuple(
                Task(name=f"t{i}", kind="fixed", vram_gib=gib, isolation=iso)
                for i, gib in enumerate(size)
            ),
            constraints=Constraints(),
        )
        for size in sizes
        for iso in ("hard", "soft")
    ]

    def ask(s: Scenario, cache: PlacementCache) -> ranking.Advice:
        return advise(s, catalogue, ACCELERATORS, now=NOW, placements=cache)

    placed = {(t, o.id): place(o, t) for t in task_lists for o in catalogue}
    verdicts = {
        (t, o.id): PlacementCache().placer(t).miss(o) for t in task_lists for o in catalogue
    }
    advised = [ask(s, PlacementCache()) for s in scenarios]
    shared = PlacementCache(max_entries=6, max_kept=1, deferred=True)
    errors: list[BaseException] = []
    wrong: list[object] = []
    calls = [0] * 8
    deadline = time.monotonic() + 2.0

    def work(n: int) -> None:
        rng = Random(n)
        try:
            while time.monotonic() < deadline:
                tasks, off = rng.choice(task_lists), rng.choice(catalogue)
                for _ in range(100):
                    shared.kept(rng.choice(task_lists))[off.id] = tasks
                if shared.place(off, tasks) != placed[(tasks, off.id)]:
                    wrong.append((tasks, off.id))
                if shared.placer(tasks).miss(off) != verdicts[(tasks, off.id)]:
                    wrong.append((tasks, off.id))
                if rng.random() < 0.05:
                    i = rng.randrange(len(scenarios))
                    if ask(scenarios[i], shared) != advised[i]:
                        wrong.append(scenarios[i])
                if n % 2 and rng.random() < 0.2:
                    shared.release()
                calls[n] += 1
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    # Threads switched every microsecond instead of every 5 ms, so that a race shows in time.
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert errors == [] and wrong == []
    assert all(calls)


def test_training_times_are_kept_by_the_callers_cache_not_by_the_process(monkeypatch) -> None:
    """ranking asks timing.training_time once per (task, card, GPUs, links) and keeps the answer
    in the PlacementCache its caller owns (`time`): the same cache asked again computes nothing,
    a fresh cache computes afresh (nothing is kept by the module), and what it keeps is bounded
    and the first value stored."""
    from advisor.engine import scenario as scenario_module
    from advisor.engine import timing

    calls: list[object] = []
    real = timing.training_time

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(args[1])
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(timing, "training_time", counted)
    hourly = (PriceSpec("hour", Decimal("2"), "CNY", NOW, "test"),)
    catalogue = [replace(offering("a100-80gb", 1), id="a100", prices=hourly)]
    job = scenario_module.parse_scenario(
        {"tasks": [{"name": "ft", "kind": "lora", "model": "llama-3.1-8b", "tokens": 1e8}]}
    )
    kept = PlacementCache()
    advise(job, catalogue, ACCELERATORS, now=NOW, placements=kept)
    first = len(calls)
    assert first >= 1
    advise(job, catalogue, ACCELERATORS, now=NOW, placements=kept)
    assert len(calls) == first
    advise(job, catalogue, ACCELERATORS, now=NOW, placements=PlacementCache())
    assert len(calls) == 2 * first

    small = PlacementCache(max_times=2)
    assert small.time("a", lambda: 1) == 1
    assert small.time("a", lambda: 2) == 1  # the first stored is kept
    small.time("b", lambda: 3)
    small.time("c", lambda: 4)
    assert small.time("a", lambda: 5) == 5  # the oldest let go past the bound

    def fails() -> int:
        raise ValueError("not kept")

    with pytest.raises(ValueError):
        small.time("d", fails)
    assert small.time("d", lambda: 6) == 6


def test_billed_units_are_kept_by_the_callers_cache_not_by_the_process(monkeypatch) -> None:
    """A bill's units (pricing.charges.run_units) are kept in the PlacementCache its caller owns
    (`units`), not by the module: the same cache asked again computes none, a fresh cache
    computes them afresh, and the answers are the same."""
    from advisor.engine.pricing import charges

    calls: list[object] = []
    real = charges.run_units

    def counted(*args: object) -> object:
        calls.append(args)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(charges, "run_units", counted)
    prices = (
        PriceSpec("hour", Decimal("2"), "CNY", NOW, "test", granularity_seconds=3600),
        PriceSpec("day", Decimal("30"), "CNY", NOW, "test"),
    )
    catalogue = [replace(offering("a100-80gb", 1), id="a100", prices=prices)]
    service = Scenario(tasks=(Task(name="svc", kind="fixed", vram_gib=4, hours_per_month=300),))
    kept = PlacementCache()
    first = advise(service, catalogue, ACCELERATORS, now=NOW, placements=kept)
    computed = len(calls)
    assert computed >= 2  # one per metering at least
    assert advise(service, catalogue, ACCELERATORS, now=NOW, placements=kept) == first
    assert len(calls) == computed
    fresh = advise(service, catalogue, ACCELERATORS, now=NOW, placements=PlacementCache())
    assert fresh == first
    assert len(calls) == 2 * computed
