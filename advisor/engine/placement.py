"""Can these tasks run on this offering, and how: which task on which instance, GPU, slice or share.

Rules (docs/advisor-rules.md, "Placement"; MIG: the NVIDIA MIG User Guide, docs/accelerators.md):

* Memory is compared per GPU against the usable memory of one GPU or slice (capacity.usable_bytes),
  never summed across cards. A sharded or tensor-parallel task states its per-GPU share already.
* A task spanning N GPUs needs N whole GPUs. It never goes on MIG or pooled slices, because there
  is no peer-to-peer between slices (MIG User Guide: no GPU-to-GPU P2P in MIG mode). Up to the
  GPUs of one instance it takes free GPUs of one instance; over more (N > n, the offering's GPUs
  per instance) it takes k = ceil(N / n) instances of its own, as a multi-node job rents whole
  machines: every GPU of the first k - 1 and the rest of the last, whose idle GPUs are billed
  and given to no other task (other tasks share no machine with it). Any offering of whole GPUs
  may span machines; the network between them is timing's and ranking's (docs/time-model.md,
  "Several machines").
* Time: "always" overlaps everything; "day" and "night" do not overlap each other; "burst" is
  treated as overlapping everything (we do not know when a burst comes, so we reserve for it).
  Tasks that overlap must fit at the same time; "day" and "night" tasks fit separately on the
  GPUs the "always"/"burst" tasks leave, so they reuse the same GPUs and share the bill.
* Isolation. A "hard" task gets a whole GPU to itself, or its own MIG slice. A "soft" task may
  share a GPU (or a slice the offering sells) with other soft tasks of the same user, memory
  summed: on a platform whose multi-task granularity is "pooled" this is a pooled share with a
  memory limit; elsewhere it is several of the user's own processes on one GPU, which CUDA allows.
  Decision: a platform's granularity ("instance", 一卡一任务 in the vendor article "2026多任务GPU
  平台怎么选") is about what the platform isolates between rentals, not about what a user runs
  inside the instance they rent, so soft tasks may share a GPU on any platform. Hard tasks never
  share a whole GPU, so five hard tasks on an instance-level platform need five GPUs, as the
  vendor article says of 矩池云.
* Whole GPUs first (docs/advisor-rules.md): a task goes on a free GPU of the instance before it
  shares one, so a card is split or shared only when that keeps the tasks on fewer instances (the
  bill) or isolation asks for it; a task alone on a card in MIG mode gets the whole card.
* MIG splitting of a rented whole GPU needs an accelerator with MIG profiles and an offering sold
  as MIG or a platform whose granularity is "mig". An offering that is itself one MIG slice or one
  pooled slice has that slice's memory as its capacity.
* Instances are never the limit (one can rent more); a placement fails only when a task cannot go
  on any instance of the offering.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar, cast

from advisor.engine.capacity import OOM_RISK_FRACTION, TIGHT_TRAINING_FRACTION, usable_bytes
from advisor.engine.messages import Code, Message, Quantity, Unit, fraction, msg
from advisor.engine.mig import Layout, MigSlot, has_mig, pack_tasks
from advisor.engine.mig import profile as mig_profile
from advisor.engine.types import AcceleratorSpec, GiB, HashOnce, OfferingSpec, hash_once
from advisor.engine.vocab import Isolation, PlacementMode, When

Mode = PlacementMode

# Tasks active in each time window (module docstring). Phase "base" holds what runs in every window.
_BASE_WHEN = frozenset({"always", "burst"})
_SHIFTED_WHEN = ("day", "night")


@dataclass(frozen=True)
class TaskNeed(HashOnce):
    """What placement needs to know of one task (from the memory plan and the scenario)."""

    __hash__ = hash_once

    name: str
    per_gpu_bytes: int
    gpus: int = 1
    sharded: bool = False  # ZeRO-3 or tensor-parallel: memory split over its GPUs
    when: When = When.ALWAYS
    isolation: Isolation = Isolation.HARD
    # The headroom rule (docs/advisor-rules.md, "Headroom"): a paged-KV server (vLLM, SGLang)
    # whose need holds its engine's memory pool fills the card by design and is not warned for
    # it; a training task within capacity.TIGHT_TRAINING_FRACTION of the card ranks after plans
    # with headroom at equal cost.
    engine_pool: bool = False
    trains: bool = False

    @property
    def spans_gpus(self) -> bool:
        return self.gpus > 1 or self.sharded


@dataclass(frozen=True)
class Assignment:
    task: str
    instance: int  # 0-based
    gpus: tuple[int, ...]  # GPU indices within the instance
    mode: Mode
    usable_bytes: int  # of the GPU, slice or share the task sits on
    used_bytes: int  # the task's own need per GPU
    headroom_bytes: int  # usable minus everything on that GPU/slice at the busiest time
    mig_profile: str | None = None
    mig_start: int | None = None
    pooled_share: float | None = None  # fraction of the GPU's usable memory
    # A task over more GPUs than an instance has: the instances it takes (`instance` and the ones
    # after it, all its own) and its GPUs over all of them; `gpus` are its GPUs on the first.
    machines: int = 1
    spanned_gpus: int = 0

    @property
    def gpu_count(self) -> int:
        """The task's GPUs, over all its instances."""
        return self.spanned_gpus if self.machines > 1 else len(self.gpus)

    @property
    def instance_range(self) -> range:
        """The instances the task runs on (one, unless it spans machines)."""
        return range(self.instance, self.instance + self.machines)


@dataclass(frozen=True)
class Placement:
    fits: bool
    instances: int
    gpus_per_instance: int
    assignments: tuple[Assignment, ...] = ()
    warnings: tuple[Message, ...] = ()
    reason: Message | None = None
    shortfall_bytes: int | None = None  # how far the worst memory miss is over, when that is why
    # A training task leaves less than capacity.TIGHT_TRAINING_FRACTION of its card free: ranked
    # after plans with headroom at equal cost (ranking.doubts).
    tight: bool = False

    @property
    def min_headroom_bytes(self) -> int | None:
        return min((a.headroom_bytes for a in self.assignments), default=None)

    def instance_of(self, task: str) -> int | None:
        return next((a.instance for a in self.assignments if a.task == task), None)

    @property
    def spans_machines(self) -> bool:
        """Some task runs over several instances (its network between them counts)."""
        return any(a.machines > 1 for a in self.assignments)


@dataclass
class _Gpu:
    """One GPU (or sold slice) during placement; forked per time window."""

    mode: Literal["free", "whole", "shared", "mig"] = "free"
    used: int = 0  # bytes held at once (shared mode)
    members: list[int] = field(default_factory=list)  # task indices, all windows so far
    fixed: Layout = ()  # MIG slices of tasks from earlier phases, which keep running
    phase_mig: list[int] = field(default_factory=list)  # MIG tasks placed in this phase
    slot_of: dict[int, MigSlot] = field(default_factory=dict)

    def fork(self) -> _Gpu:
        fixed = tuple((s.profile, s.start) for s in self.slot_of.values())
        return _Gpu(self.mode, self.used, list(self.members), fixed, [], dict(self.slot_of))


@dataclass(frozen=True)
class _Target:
    """The offering as placement sees it."""

    offering: OfferingSpec
    usable: int
    capacity_label: Message
    mig_split: bool  # whole GPUs may be split into MIG slices
    is_slice: bool  # the offering is itself a MIG or pooled slice
    pooled: bool  # soft sharing is a pooled share with a memory limit
    # The cache that keeps MIG packings across offerings of one card and across calls
    # (PureResults.pack); None: packed afresh.
    packs: PureResults | None = field(default=None, compare=False, repr=False)


def place(offering: OfferingSpec, tasks: Sequence[TaskNeed]) -> Placement:
    """Place all `tasks` on as few instances of `offering` as the rules allow."""
    target = _target(offering)
    return _miss(target, tasks) or _place_layout(target, tasks)


def _miss(target: _Target, tasks: Sequence[TaskNeed]) -> Placement | None:
    """The failed placement when some task cannot go on any instance of the target, else None."""
    missing = _missing(target, tasks)
    return None if missing is None else _missed(target, *missing)


def _place_layout(target: _Target, tasks: Sequence[TaskNeed]) -> Placement:
    """The placement of tasks no rule leaves off (_missing): what `layout(target)` determines."""
    states = _place_all(target, tasks)
    assignments = _assignments(target, tasks, states)
    return Placement(
        fits=True,
        instances=max(len(s) for s in states),
        gpus_per_instance=target.offering.gpu_count,
        assignments=assignments,
        warnings=_warnings(target, tasks, assignments),
        tight=any(_tight(tasks, a) for a in assignments),
    )


def layout(target: _Target) -> tuple[object, ...]:
    """What a placement that fits reads of its target (_place_all, _assignments, _warnings):
    targets alike in it place tasks alike. Only a card split into MIG slices reads the
    accelerator (its profiles); otherwise the usable bytes of a card or slice, the cards per
    instance and the sharing rules, so that cards of one memory size share their placements.
    A miss names the card (its capacity label): it is kept per signature (PlacementCache.missed)."""
    off = target.offering
    return (
        target.usable,
        off.gpu_count,
        off.accelerator if target.mig_split else None,
        target.mig_split,
        target.is_slice,
        target.pooled,
        off.sharing == "pooled",
        off.mig_profile is not None,
    )


# A value `PlacementCache.time` has not kept (None may be a kept value).
_NOT_KEPT = object()
T = TypeVar("T")


class PureResults:
    """Values of pure functions of frozen arguments, kept across calls for the caller, as part of
    its PlacementCache (`PlacementCache.results`): training times (`time`), billed units
    (`units`), MIG packings (`pack`), the `most` latest of each. It holds nothing but what it
    computed, so the bills and placement targets that refer to it make no reference cycle.

    Threads: a value is worked out outside the lock (its owner's); the first value stored for a
    key is the one kept and returned to every thread; what a computation raises is not kept."""

    def __init__(self, lock: threading.Lock, most: int) -> None:
        self.lock = lock
        self.most = most
        self._times: OrderedDict[Hashable, Any] = OrderedDict()
        self._units: OrderedDict[Hashable, Any] = OrderedDict()
        self._packs: OrderedDict[Hashable, Any] = OrderedDict()

    def time(self, key: Hashable, compute: Callable[[], T]) -> T:
        """A training time (timing.training_time), `compute()`, by its arguments `key`."""
        return self._remember(self._times, key, compute)

    def units(self, key: Hashable, compute: Callable[[], T]) -> T:
        """Billed units (pricing.charges.run_units, `compute()`) by their metering, usage and
        start-up (`key`): bills of other shapes and scenarios with a usage alike share them."""
        return self._remember(self._units, key, compute)

    def pack(
        self, accel: AcceleratorSpec, needs: tuple[int, ...], fixed: Layout
    ) -> tuple[MigSlot, ...] | None:
        """mig.pack_tasks: placement asks the same question for every offering of one card."""

        def packed() -> tuple[MigSlot, ...] | None:
            found = pack_tasks(accel, needs, fixed=fixed)
            return None if found is None else tuple(found)

        return self._remember(self._packs, (accel, needs, fixed), packed)

    def _remember(
        self, store: OrderedDict[Hashable, Any], key: Hashable, compute: Callable[[], T]
    ) -> T:
        found = store.get(key, _NOT_KEPT)
        if found is not _NOT_KEPT:
            return cast(T, found)
        made = compute()
        with self.lock:
            found = store.setdefault(key, made)
            while len(store) > self.most:
                store.popitem(last=False)
        return cast(T, found)


class PlacementCache:
    """`place`, remembered per task list (`placer`) by offering signature (Placer): the advisor
    asks the same question for every offering of a kind; a placement that fits is also shared by
    the signatures of one `layout` (cards of one memory size, without MIG). The caller owns it:
    advise.advise makes one per call unless it is given one to keep across calls (a scenario
    asked again then skips placement). Bounded: past `max_entries` placements it starts again
    empty, which costs one call's placements.

    `deferred`: what it lets go (a store past `max_kept`, the placements past `max_entries`) is
    held until the owner calls `release`, so that freeing tens of thousands of objects is not
    paid inside the call that lets them go (the site releases after a response is sent:
    advisor.services); at most `max_kept` such values wait, past which they are freed at once.

    Threads: one cache, and the placers it hands out, may be shared by the threads of a process
    (the site's is). Every change to what they keep (an entry stored, the placements started
    again, a kept store let go, what waits released) is made under the cache's one `lock`, each
    look-up-then-change whole; a look-up alone is one dict read and takes no lock. Placements are
    worked out outside it (pure functions of frozen inputs): two threads may work out one at the
    same time, and the first stored is the one kept and returned to both. The stores `kept` hands
    out are filled by their callers one entry at a time (ranking's fits), which a dict allows
    from several threads. `results` (PureResults: training times, billed units, MIG packings)
    keeps by the same rule under the same lock.

    It is the one object the engine keeps between calls: the engine's modules keep nothing of
    their own (tests/advisor/engine/test_structure.py)."""

    def __init__(
        self,
        max_entries: int = 20_000,
        max_kept: int = 12,
        *,
        deferred: bool = False,
        max_times: int = 4096,
    ) -> None:
        self.max_entries = max_entries
        self.deferred = deferred
        self.lock = threading.Lock()
        self._released: list[object] = []
        self.entries = 0
        self._placers: dict[tuple[TaskNeed, ...], Placer] = {}
        # By signature (Placer's key): the offering as placement sees it, and its misses. A
        # target holds its offering, so its spec: no other spec takes the identity its key holds
        # while it is kept, and the misses are kept and cleared with the targets.
        self._targets: dict[tuple[object, ...], _Target] = {}
        self._missed: dict[tuple[object, ...], Placement] = {}
        self.max_kept = max_kept
        self._kept: OrderedDict[Hashable, dict[Any, Any]] = OrderedDict()
        # Training times, billed units and MIG packings by their arguments, the `max_times`
        # latest of each: a scenario asked again skips them.
        self.max_times = max_times
        self.results = PureResults(self.lock, max_times)

    def time(self, key: Hashable, compute: Callable[[], T]) -> T:
        """Training times kept across calls (PureResults.time)."""
        return self.results.time(key, compute)

    def kept(self, key: Hashable) -> dict[Any, Any]:
        """A store the caller's pricing keeps under `key` across calls (ranking keeps each
        scenario's fits by shape in it: what placement, time and usage give, for all of one
        scenario's tasks and terms); the `max_kept` latest keys are kept."""
        with self.lock:
            found = self._kept.get(key)
            if found is None:
                found = self._kept[key] = {}
                while len(self._kept) > self.max_kept:
                    self._let_go(self._kept.popitem(last=False)[1])
            else:
                self._kept.move_to_end(key)
            return found

    def placer(self, tasks: tuple[TaskNeed, ...]) -> Placer:
        """The placements of `tasks`, kept: a caller placing one task list on many offerings
        takes it once (the task list is hashed once, not per offering)."""
        found = self._placers.get(tasks)
        if found is None:
            with self.lock:
                found = self._placers.setdefault(tasks, Placer(self, tasks))
        return found

    def place(self, offering: OfferingSpec, tasks: tuple[TaskNeed, ...]) -> Placement:
        return self.placer(tasks).place(offering)

    def target(self, key: tuple[object, ...], offering: OfferingSpec) -> _Target:
        """The offering as placement sees it, once per signature (Placer's `key`)."""
        found = self._targets.get(key)
        if found is None:
            made = _target(offering, self.results)
            with self.lock:
                found = self._targets.setdefault(key, made)
        return found

    def missed(
        self, key: tuple[object, ...], target: _Target, code: Code, task: TaskNeed
    ) -> Placement:
        """_missed, once per signature (`target`'s key) and missing task."""
        found = self._missed.get((key, code, task))
        if found is None:
            made = _missed(target, code, task)
            with self.lock:
                found = self._missed.setdefault((key, code, task), made)
        return found

    def _count(self) -> None:
        """One more placement or verdict kept; past `max_entries`, start again. Under `lock`."""
        self.entries += 1
        if self.entries > self.max_entries:
            self.entries = 0
            # A placer held by a caller goes on, no longer kept here.
            self._let_go((self._placers, self._targets, self._missed))
            self._placers, self._targets, self._missed = {}, {}, {}

    def _let_go(self, value: object) -> None:
        """`value`, no longer kept: freed now, or when the owner releases (`deferred`). Under
        `lock`."""
        if not self.deferred:
            return
        if len(self._released) >= self.max_kept:
            self._released.clear()
        self._released.append(value)

    def release(self) -> None:
        """Free what was let go since the last release (`deferred`); what is kept stays. The
        values are taken under `lock` and freed after it."""
        with self.lock:
            released, self._released = self._released, []
        released.clear()

    @property
    def releasing(self) -> int:
        """How many values let go wait for `release`."""
        return len(self._released)


@dataclass(frozen=True)
class Miss:
    """Why a placement does not fit (the code of its reason) and, for memory, by how many bytes
    (Placement.shortfall_bytes): what Placer.miss tells without building the placement."""

    code: Code
    shortfall_bytes: int | None


_UNKNOWN = object()


class Placer:
    """The placements of one task list (PlacementCache.placer), by offering signature: what
    `place` reads of an offering (its accelerator spec, cards, sharing, MIG profile, pooled
    share and the platform's granularity), so offerings of one signature place tasks alike.

    The spec is looked up by identity, so that a lookup does not hash the spec's fields; every
    spec met is kept with the placements (`_specs`), so no other object takes its identity, and
    an edited spec is another object, so another key."""

    def __init__(self, cache: PlacementCache, tasks: tuple[TaskNeed, ...]) -> None:
        self.cache = cache
        self.tasks = tasks
        self._found: dict[tuple[object, ...], Placement] = {}
        self._layouts: dict[tuple[object, ...], Placement] = {}
        self._specs: dict[int, AcceleratorSpec] = {}
        self._verdicts: dict[tuple[object, ...], Miss | None] = {}  # miss(), by signature

    @staticmethod
    def _key(offering: OfferingSpec) -> tuple[object, ...]:
        """The offering's signature: what `place` reads of it."""
        return (
            id(offering.accelerator),
            offering.gpu_count,
            offering.sharing,
            offering.mig_profile,
            offering.pooled_vram_gib if offering.sharing == "pooled" else None,
            offering.multi_task,
        )

    def miss(self, offering: OfferingSpec) -> Miss | None:
        """Why `place(offering)` does not fit, and for memory by how many bytes (None: it fits),
        without placing it nor building the miss's message: a caller that only needs the
        offerings that fit, or how close the others come, skips the rest."""
        key = self._key(offering)
        found = self._found.get(key)
        if found is not None:
            if found.fits:
                return None
            assert found.reason is not None
            return Miss(found.reason.code, found.shortfall_bytes)
        verdict = self._verdicts.get(key, _UNKNOWN)
        if verdict is _UNKNOWN:
            cache = self.cache
            self._keep_spec(offering.accelerator)
            target = cache.target(key, offering)
            missing = _missing(target, self.tasks)
            made = None
            if missing is not None:
                code, task = missing
                short = task.per_gpu_bytes - target.usable if code is Code.MISS_MEMORY else None
                made = Miss(code, short)
            with cache.lock:
                verdict = self._verdicts.get(key, _UNKNOWN)
                if verdict is _UNKNOWN:
                    verdict = self._verdicts[key] = made
                    cache._count()
        return verdict  # type: ignore[return-value]

    def _keep_spec(self, accel: AcceleratorSpec) -> None:
        """`accel` kept with the placements, so that no other spec takes its identity (`_key`)."""
        if id(accel) not in self._specs:
            with self.cache.lock:
                self._specs[id(accel)] = accel

    def place(self, offering: OfferingSpec) -> Placement:
        accel = offering.accelerator
        key = self._key(offering)
        found = self._found.get(key)
        if found is not None:
            return found
        self._keep_spec(accel)
        cache = self.cache
        target = cache.target(key, offering)
        missing = _missing(target, self.tasks)
        if missing is None:
            # Signatures of one layout (cards of one memory size) share one placement.
            shared = layout(target)
            placement = self._layouts.get(shared)
            if placement is None:
                made = _place_layout(target, self.tasks)
                with cache.lock:
                    placement = self._layouts.setdefault(shared, made)
        else:
            # A miss is the task's and the card's: task lists alike in that task share it (a
            # new scenario changes a task or two).
            placement = cache.missed(key, target, *missing)
        with cache.lock:
            found = self._found.get(key)
            if found is None:
                found = self._found[key] = placement
                cache._count()
        return found


def _target(offering: OfferingSpec, packs: PureResults | None = None) -> _Target:
    accel = offering.accelerator
    if offering.mig_profile is not None:
        size = mig_profile(accel, offering.mig_profile).memory_gib
        label = msg(Code.CAPACITY_MIG_SLICE, accelerator=accel.name, profile=offering.mig_profile)
    elif offering.sharing == "pooled" and offering.pooled_vram_gib is not None:
        size = offering.pooled_vram_gib
        label = msg(
            Code.CAPACITY_POOLED_SHARE,
            size=Quantity(size * GiB, Unit.BYTES, places=0 if size == int(size) else None),
            accelerator=accel.name,
        )
    else:
        size = accel.vram_gib
        label = msg(Code.CAPACITY_GPU, accelerator=accel.name)
    is_slice = offering.mig_profile is not None or offering.sharing == "pooled"
    mig_split = (
        not is_slice
        and has_mig(accel)
        and (offering.sharing == "mig" or offering.multi_task == "mig")
    )
    pooled = offering.sharing == "pooled" or offering.multi_task == "pooled"
    return _Target(offering, usable_bytes(size), label, mig_split, is_slice, pooled, packs)


def _missing(target: _Target, tasks: Sequence[TaskNeed]) -> tuple[Code, TaskNeed] | None:
    """Which rule leaves some task off every instance of this offering, and that task (of memory
    misses, the first of the largest); None when every task can go on one."""
    off = target.offering
    worst: TaskNeed | None = None
    for t in tasks:
        if t.per_gpu_bytes > target.usable and (
            worst is None or t.per_gpu_bytes > worst.per_gpu_bytes
        ):
            worst = t
    if worst is not None:
        return Code.MISS_MEMORY, worst
    for t in tasks:
        if t.spans_gpus and target.is_slice:
            return (Code.MISS_SHARDED_ON_SLICES if t.sharded else Code.MISS_SPANS_ON_SLICES), t
        if t.isolation == "hard" and off.sharing == "pooled":
            return Code.MISS_HARD_ON_POOLED, t
    return None


def _missed(target: _Target, code: Code, t: TaskNeed) -> Placement:
    """The failed placement of `_missing`'s answer: why, and for memory by how much."""
    gpus = target.offering.gpu_count
    shortfall = None
    if code is Code.MISS_MEMORY:
        shortfall = t.per_gpu_bytes - target.usable
        reason = msg(
            code,
            task=t.name,
            need=_gib(t.per_gpu_bytes),
            capacity=target.capacity_label,
            usable=_gib(target.usable),
        )
    elif code is Code.MISS_SPANS_ON_SLICES:
        reason = msg(code, task=t.name, gpus=t.gpus)
    else:
        reason = msg(code, task=t.name)
    return Placement(False, 0, gpus, reason=reason, shortfall_bytes=shortfall)


def _place_all(target: _Target, tasks: Sequence[TaskNeed]) -> list[list[list[_Gpu]]]:
    """Instance states, one per time window: [window][instance][gpu]."""
    base: list[list[_Gpu]] = []
    _place_phase(target, tasks, [i for i, t in enumerate(tasks) if t.when in _BASE_WHEN], base)
    windows = []
    for when in _SHIFTED_WHEN:
        idx = [i for i, t in enumerate(tasks) if t.when == when]
        if idx:
            state = [[g.fork() for g in inst] for inst in base]
            _place_phase(target, tasks, idx, state)
            windows.append(state)
    return windows or [base]


def _place_phase(
    target: _Target, tasks: Sequence[TaskNeed], idx: Sequence[int], state: list[list[_Gpu]]
) -> None:
    # GPU-spanning tasks first (they need free whole GPUs), then the largest needs first.
    per_instance = target.offering.gpu_count
    for i in sorted(idx, key=lambda i: (not tasks[i].spans_gpus, -tasks[i].per_gpu_bytes)):
        t = tasks[i]
        if t.gpus > per_instance:
            _take_machines(tasks, i, per_instance, state)
        elif not any(_try_instance(target, tasks, i, inst) for inst in state):
            inst = [_Gpu() for _ in range(target.offering.gpu_count)]
            state.append(inst)
            placed = _try_instance(target, tasks, i, inst)
            assert placed, "a task that passed _first_miss fits an empty instance"


def _take_machines(
    tasks: Sequence[TaskNeed], i: int, per_instance: int, state: list[list[_Gpu]]
) -> None:
    """Task `i`, over more GPUs than an instance has, on ceil(gpus / per_instance) new instances
    of its own: all GPUs of each but the last, the rest of the last; the last's idle GPUs are
    taken too (no other task goes on its machines)."""
    left = tasks[i].gpus
    while left > 0:
        inst = [_Gpu(mode="whole") for _ in range(per_instance)]
        for g in inst[: min(left, per_instance)]:
            g.used = tasks[i].per_gpu_bytes
            g.members.append(i)
        left -= per_instance
        state.append(inst)


def _try_instance(target: _Target, tasks: Sequence[TaskNeed], i: int, inst: list[_Gpu]) -> bool:
    t = tasks[i]
    if t.spans_gpus:
        free = [g for g in inst if g.mode == "free"][: t.gpus]
        if len(free) < t.gpus:
            return False
        for g in free:
            g.mode, g.used = "whole", t.per_gpu_bytes
            g.members.append(i)
        return True
    # Whole GPUs first: a free GPU before one that already holds a task, so that cards are shared
    # (MIG, pooled, several processes) only when the instance has no free card left.
    free = [g for g in inst if g.mode == "free"]
    taken = [g for g in inst if g.mode != "free"]
    return any(_try_gpu(target, tasks, i, g) for g in [*free, *taken])


def _try_gpu(target: _Target, tasks: Sequence[TaskNeed], i: int, g: _Gpu) -> bool:
    t = tasks[i]
    if target.mig_split:
        if g.mode in ("free", "mig") and _try_mig(target, tasks, i, g):
            return True
        # No MIG layout holds the task even on an empty card (the accelerator's profiles stop
        # short of its memory): the card runs it whole, without MIG, as _first_miss let it.
        if g.mode != "free" or t.per_gpu_bytes > target.usable:
            return False
        g.mode = "whole"
        g.used = t.per_gpu_bytes
        g.members.append(i)
        return True
    if t.isolation == "hard":
        if g.mode != "free":
            return False
        g.mode = "whole"
    else:
        if g.mode not in ("free", "shared") or g.used + t.per_gpu_bytes > target.usable:
            return False
        g.mode = "shared"
    g.used += t.per_gpu_bytes
    g.members.append(i)
    return True


def _try_mig(target: _Target, tasks: Sequence[TaskNeed], i: int, g: _Gpu) -> bool:
    phase = [*g.phase_mig, i]
    accel, needs = target.offering.accelerator, tuple(tasks[j].per_gpu_bytes for j in phase)
    if target.packs is None:
        slots: Sequence[MigSlot] | None = pack_tasks(accel, needs, fixed=g.fixed)
    else:
        slots = target.packs.pack(accel, needs, g.fixed)
    if slots is None:
        return False
    g.mode = "mig"
    g.phase_mig = phase
    g.members.append(i)
    g.slot_of.update(zip(phase, slots, strict=True))
    return True


def _assignments(
    target: _Target, tasks: Sequence[TaskNeed], states: Sequence[list[list[_Gpu]]]
) -> tuple[Assignment, ...]:
    """One assignment per task; a task seen in several windows keeps its tightest headroom."""
    best: dict[int, Assignment] = {}
    per_instance = target.offering.gpu_count
    for state in states:
        for n, inst in enumerate(state):
            for i, a in _gpu_assignments(target, tasks, n, inst):
                if tasks[i].gpus > per_instance:
                    a = best.get(i) or _machines_assignment(target, tasks[i], i, n, state)
                if i not in best or a.headroom_bytes < best[i].headroom_bytes:
                    best[i] = a
    return tuple(best[i] for i in range(len(tasks)))


def _machines_assignment(
    target: _Target, t: TaskNeed, i: int, first: int, state: list[list[_Gpu]]
) -> Assignment:
    """The assignment of task `i` over several instances, the first of them `first`."""
    machines = sum(1 for inst in state if any(i in g.members for g in inst))
    return Assignment(
        t.name,
        first,
        tuple(k for k, g in enumerate(state[first]) if i in g.members),
        PlacementMode.WHOLE,
        target.usable,
        t.per_gpu_bytes,
        target.usable - t.per_gpu_bytes,
        machines=machines,
        spanned_gpus=t.gpus,
    )


def _gpu_assignments(
    target: _Target, tasks: Sequence[TaskNeed], n: int, inst: list[_Gpu]
) -> list[tuple[int, Assignment]]:
    out: list[tuple[int, Assignment]] = []
    seen: set[int] = set()
    for k, g in enumerate(inst):
        for i in g.members:
            if i in seen:
                continue
            seen.add(i)
            t = tasks[i]
            if g.mode == "mig" and len(g.slot_of) == 1 and not target.is_slice:
                # Alone on its card in this window: the whole GPU, not its largest MIG slice.
                a = Assignment(
                    t.name,
                    n,
                    (k,),
                    PlacementMode.WHOLE,
                    target.usable,
                    t.per_gpu_bytes,
                    target.usable - t.per_gpu_bytes,
                )
            elif g.mode == "mig":
                s = g.slot_of[i]
                a = Assignment(
                    t.name,
                    n,
                    (k,),
                    PlacementMode.MIG,
                    s.usable_bytes,
                    s.need_bytes,
                    s.headroom_bytes,
                    mig_profile=s.profile,
                    mig_start=s.start,
                )
            elif g.mode == "shared" and (len(g.members) > 1 or target.offering.sharing == "pooled"):
                mode = PlacementMode.POOLED if target.pooled else PlacementMode.SHARED
                share = t.per_gpu_bytes / target.usable if target.pooled else None
                a = Assignment(
                    t.name,
                    n,
                    (k,),
                    mode,
                    target.usable,
                    t.per_gpu_bytes,
                    target.usable - g.used,
                    pooled_share=share,
                )
            else:
                gpus = tuple(j for j, h in enumerate(inst) if i in h.members)
                a = Assignment(
                    t.name,
                    n,
                    gpus,
                    PlacementMode.WHOLE,
                    target.usable,
                    t.per_gpu_bytes,
                    target.usable - t.per_gpu_bytes,
                )
            out.append((i, a))
    return out


def _warnings(
    target: _Target, tasks: Sequence[TaskNeed], assignments: Sequence[Assignment]
) -> tuple[Message, ...]:
    out: list[Message] = []
    needs = {t.name: t for t in tasks}
    for a in assignments:
        filled = a.usable_bytes - a.headroom_bytes
        need = needs.get(a.task)
        if need is not None and need.engine_pool and a.used_bytes == filled:
            # Alone on its GPU, a paged-KV server fills its pool by design: sized, not warned.
            continue
        if _tight(tasks, a):
            out.append(
                msg(
                    Code.WARN_TIGHT_TRAINING,
                    task=a.task,
                    headroom=_gib(a.headroom_bytes),
                    usable=_gib(a.usable_bytes),
                    filled=fraction(filled / a.usable_bytes),
                    limit=fraction(TIGHT_TRAINING_FRACTION),
                )
            )
        elif filled > OOM_RISK_FRACTION * a.usable_bytes:
            out.append(
                msg(
                    Code.WARN_OOM_RISK,
                    task=a.task,
                    headroom=_gib(a.headroom_bytes),
                    usable=_gib(a.usable_bytes),
                    filled=fraction(filled / a.usable_bytes),
                    limit=fraction(OOM_RISK_FRACTION),
                )
            )
    modes = {a.mode for a in assignments}
    if "pooled" in modes or target.offering.sharing == "pooled":
        out.append(msg(Code.WARN_POOLED_SOFT))
    if "shared" in modes:
        out.append(msg(Code.WARN_SHARED_NO_ISOLATION))
    if "mig" in modes or target.offering.mig_profile is not None:
        out.append(msg(Code.WARN_MIG_NO_P2P))
    return tuple(out)


def _tight(tasks: Sequence[TaskNeed], a: Assignment) -> bool:
    """A training task whose GPU keeps less than TIGHT_TRAINING_FRACTION of it free."""
    trains = any(t.name == a.task and t.trains for t in tasks)
    return trains and a.headroom_bytes < TIGHT_TRAINING_FRACTION * a.usable_bytes


def _gib(n: int) -> Quantity:
    return Quantity(n, Unit.BYTES, places=1)
