"""MIG layouts: which sets of GPU-instance profiles one card can hold at once, and where.

NVIDIA's placement rule (NVIDIA MIG User Guide; `nvidia-smi mig -lgipp`; docs/accelerators.md):
each GPU instance (GI) occupies `memory_slices` consecutive memory slots starting at one of its
profile's allowed start slots; GIs may not overlap; the compute slices ("g") of all GIs add up to
at most the card's maximum (7 on A100/H100 class, 4 on A30); at most one "+me" profile per card;
each profile at most `max_count` times. A set of profiles is valid iff some assignment of starts
satisfies all of that.

`pack_tasks` goes the other way: given the memory each task needs, it picks a profile per task
(the smallest that holds it, upgrading when the smallest choices do not lay out) and a start slot.
Both searches are exact backtracking; a card has at most 8 slots and 7 GIs, so they stay tiny.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from advisor.engine.capacity import usable_bytes
from advisor.engine.errors import InvalidWorkload
from advisor.engine.messages import Code
from advisor.engine.types import AcceleratorSpec, MigProfile

# Before driver R510 a 4-memory/4-compute GI could not be combined with a 4-memory/3-compute one
# (4g.20gb + 3g.20gb); the NVIDIA MIG User Guide, "Concepts": "This restriction no longer applies
# on newer drivers".
_PRE_R510_FORBIDDEN = frozenset({(4, 4), (4, 3)})

Layout = tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class MigSlot:
    """One task's GPU instance on a card: profile, start slot and what it holds."""

    profile: str
    start: int
    memory_slices: int
    compute_slices: int
    usable_bytes: int
    need_bytes: int

    @property
    def headroom_bytes(self) -> int:
        return self.usable_bytes - self.need_bytes


def has_mig(accel: AcceleratorSpec) -> bool:
    return bool(accel.mig_profiles)


def slots(accel: AcceleratorSpec) -> int:
    """Memory slots of the card; derived from the profiles when the spec leaves it at 0."""
    return accel.mig_slots or max((p.memory_slices for p in accel.mig_profiles), default=0)


def max_compute(accel: AcceleratorSpec) -> int:
    """Compute slices of the card; the full-card profile's "g" when the spec leaves it at 0."""
    return accel.mig_max_compute or max((p.compute_slices for p in accel.mig_profiles), default=0)


def profile(accel: AcceleratorSpec, name: str) -> MigProfile:
    for p in accel.mig_profiles:
        if p.name == name:
            return p
    if not accel.mig_profiles:
        raise InvalidWorkload(Code.NO_MIG, "mig_profile", accelerator=accel.name)
    raise InvalidWorkload(
        Code.NO_MIG_PROFILE,
        "mig_profile",
        accelerator=accel.name,
        profile=name,
        profiles=tuple(p.name for p in accel.mig_profiles),
    )


def profile_usable_bytes(p: MigProfile) -> int:
    return usable_bytes(p.memory_gib)


def find_layout(
    accel: AcceleratorSpec,
    profile_names: Sequence[str],
    *,
    fixed: Layout = (),
    pre_r510: bool = False,
) -> Layout | None:
    """A start slot for each profile, in input order, or None when no valid layout exists.

    `fixed` are GIs already placed (profile, start) that must stay where they are, e.g. slices of
    tasks that keep running while others are added; they are checked but not returned.
    """
    profiles = [profile(accel, n) for n in profile_names]
    fixed_profiles = [profile(accel, n) for n, _ in fixed]
    if not _counts_ok(accel, profiles + fixed_profiles, pre_r510):
        return None
    occupied = [False] * slots(accel)
    for p, start in zip(fixed_profiles, (s for _, s in fixed), strict=True):
        if start not in p.starts or not _take(occupied, start, p.memory_slices):
            return None
    # Largest first: they have the fewest allowed starts, so dead ends show up early.
    order = sorted(range(len(profiles)), key=lambda i: -profiles[i].memory_slices)
    starts: list[int] = [0] * len(profiles)
    if not _assign(profiles, order, 0, occupied, starts):
        return None
    return tuple((p.name, s) for p, s in zip(profiles, starts, strict=True))


def _counts_ok(accel: AcceleratorSpec, profiles: Sequence[MigProfile], pre_r510: bool) -> bool:
    if sum(p.compute_slices for p in profiles) > max_compute(accel):
        return False
    if sum(p.memory_slices for p in profiles) > slots(accel):
        return False
    if sum(1 for p in profiles if p.media_extensions) > 1:
        return False
    counts = Counter(p.name for p in profiles)
    if any(counts[p.name] > p.max_count for p in profiles):
        return False
    if pre_r510:
        shapes = {(p.memory_slices, p.compute_slices) for p in profiles}
        return not shapes >= _PRE_R510_FORBIDDEN
    return True


def _take(occupied: list[bool], start: int, size: int) -> bool:
    if start + size > len(occupied) or any(occupied[start : start + size]):
        return False
    occupied[start : start + size] = [True] * size
    return True


def _assign(
    profiles: Sequence[MigProfile],
    order: Sequence[int],
    k: int,
    occupied: list[bool],
    starts: list[int],
) -> bool:
    if k == len(order):
        return True
    p = profiles[order[k]]
    for start in p.starts:
        if _take(occupied, start, p.memory_slices):
            starts[order[k]] = start
            if _assign(profiles, order, k + 1, occupied, starts):
                return True
            occupied[start : start + p.memory_slices] = [False] * p.memory_slices
    return False


def candidate_profiles(accel: AcceleratorSpec, need_bytes: int) -> list[MigProfile]:
    """Profiles whose usable memory holds `need_bytes`, smallest first.

    "+me" variants are left out: they hold no more memory than their base profile and only add
    media engines, which no task here asks for. Ties in memory go to fewer compute slices so that
    the remaining slices stay free for other tasks.
    """
    fitting = [
        p
        for p in accel.mig_profiles
        if not p.media_extensions and profile_usable_bytes(p) >= need_bytes
    ]
    return sorted(fitting, key=lambda p: (p.memory_slices, p.compute_slices, p.memory_gib))


def pack_tasks(
    accel: AcceleratorSpec,
    needs_bytes: Sequence[int],
    *,
    fixed: Layout = (),
    pre_r510: bool = False,
) -> list[MigSlot] | None:
    """One MIG slot per need (same order), all on one card with `fixed`; None if impossible.

    Needs are tried largest first; for each, profiles from the smallest that holds it upwards.
    The first complete assignment that lays out is returned, so every task gets the smallest
    profile that still lets all the others fit.
    """
    if not has_mig(accel):
        return None
    packed = _pack(accel, tuple(needs_bytes), fixed, pre_r510)
    return None if packed is None else list(packed)


# Placement asks the same question for every offering of one card; the answer depends only on the
# card and the needs: placement.PlacementCache.pack keeps it for the caller.
def _pack(
    accel: AcceleratorSpec, needs_bytes: tuple[int, ...], fixed: Layout, pre_r510: bool
) -> tuple[MigSlot, ...] | None:
    candidates = [candidate_profiles(accel, n) for n in needs_bytes]
    if any(not c for c in candidates):
        return None
    order = sorted(range(len(needs_bytes)), key=lambda i: -needs_bytes[i])
    chosen: list[MigProfile | None] = [None] * len(needs_bytes)
    fixed_profiles = [profile(accel, n) for n, _ in fixed]
    layout = _choose(accel, candidates, order, 0, chosen, fixed, fixed_profiles, pre_r510)
    if layout is None:
        return None
    return tuple(
        MigSlot(p.name, start, p.memory_slices, p.compute_slices, profile_usable_bytes(p), need)
        for (p, start, need) in zip(
            (c for c in chosen if c is not None), (s for _, s in layout), needs_bytes, strict=True
        )
    )


def _choose(
    accel: AcceleratorSpec,
    candidates: Sequence[Sequence[MigProfile]],
    order: Sequence[int],
    k: int,
    chosen: list[MigProfile | None],
    fixed: Layout,
    fixed_profiles: Sequence[MigProfile],
    pre_r510: bool,
) -> Layout | None:
    picked = [c for c in chosen if c is not None]
    # Prune on the cheap sums before trying start slots.
    if sum(p.memory_slices for p in [*picked, *fixed_profiles]) > slots(accel):
        return None
    if sum(p.compute_slices for p in [*picked, *fixed_profiles]) > max_compute(accel):
        return None
    if k == len(order):
        names = [c.name for c in chosen if c is not None]
        return find_layout(accel, names, fixed=fixed, pre_r510=pre_r510)
    i = order[k]
    for p in candidates[i]:
        chosen[i] = p
        layout = _choose(accel, candidates, order, k + 1, chosen, fixed, fixed_profiles, pre_r510)
        if layout is not None:
            return layout
    chosen[i] = None
    return None
