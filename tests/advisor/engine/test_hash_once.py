"""Specs and tasks used as keys again and again keep their hash (types.hash_once): the hash is the
one the dataclass would compute over its compared fields, equal values hash alike whichever was
hashed first, a changed copy hashes anew, and a pickled or copied value carries no kept hash
(a string's hash differs from one process to another)."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from advisor.engine.hardware import load_accelerators
from advisor.engine.placement import TaskNeed
from advisor.engine.types import Task, hash_once
from advisor.engine.vocab import Isolation, TaskKind, When

ACCELERATORS = load_accelerators()


def dataclass_hash(value: object) -> int:
    """What dataclass(frozen=True) writes for __hash__: the compared fields as a tuple."""
    names = [
        f.name
        for f in dataclasses.fields(value)  # type: ignore[arg-type]
        if (f.compare if f.hash is None else f.hash)
    ]
    return hash(tuple(getattr(value, n) for n in names))


@pytest.mark.parametrize("cls", [Task, TaskNeed, type(next(iter(ACCELERATORS.values())))])
def test_the_classes_keep_hash_once(cls: type) -> None:
    assert cls.__hash__ is hash_once


@pytest.mark.parametrize("slug", sorted(ACCELERATORS))
def test_a_card_spec_hashes_as_its_dataclass_would(slug: str) -> None:
    spec = ACCELERATORS[slug]
    twin = dataclasses.replace(spec)
    assert hash(spec) == dataclass_hash(spec) == hash(twin)
    assert hash(spec) == hash(spec)  # kept, and the same
    changed = dataclasses.replace(spec, vram_gib=spec.vram_gib + 1)
    assert hash(changed) == dataclass_hash(changed)
    for other in (pickle.loads(pickle.dumps(spec)), copy.deepcopy(spec), copy.copy(spec)):
        assert "_hash_once" not in other.__dict__ or other is spec
        assert other == spec and hash(other) == hash(spec)


needs = st.builds(
    TaskNeed,
    name=st.text(max_size=8),
    per_gpu_bytes=st.integers(0, 2**40),
    gpus=st.integers(1, 8),
    sharded=st.booleans(),
    when=st.sampled_from(list(When)),
    isolation=st.sampled_from(list(Isolation)),
)


@given(a=needs, b=needs)
def test_needs_hash_alike_exactly_when_they_are_equal_values(a: TaskNeed, b: TaskNeed) -> None:
    """Equal needs hash alike whichever was hashed first; each hash is the dataclass's."""
    hash(b)  # one kept before the other is made again
    again = dataclasses.replace(a)
    assert hash(a) == dataclass_hash(a) == hash(again)
    if a == b:
        assert hash(a) == hash(b)
    assert hash(b) == dataclass_hash(b)


def test_a_pickled_task_carries_no_kept_hash() -> None:
    task = Task(name="train", kind=TaskKind.LORA, model="llama-3.1-8b")
    hash(task)
    assert "_hash_once" in task.__dict__
    state = pickle.loads(pickle.dumps(task)).__dict__
    assert "_hash_once" not in state
    assert pickle.loads(pickle.dumps(task)) == task
