"""A MIG platform's card whose profiles stop short of its memory still runs a task whole: the
placement does not promise a fit (`_first_miss`) it cannot place."""

from __future__ import annotations

from dataclasses import replace

from advisor.engine import placement
from advisor.engine.hardware import load_accelerators
from advisor.engine.placement import TaskNeed
from advisor.engine.types import OfferingSpec
from advisor.engine.vocab import MultiTask, PlacementMode

GiB = 2**30


def test_a_task_larger_than_every_mig_profile_gets_the_whole_card():
    """An A100 80GB that lists only its 1g.10gb and 3g.40gb profiles (as a catalogue may): a 40 GiB
    task fits the card's 79 GiB usable but no slice, so it runs on a whole GPU, and the second,
    30 GiB task on a 3g.40gb slice of another (or the same instance's next) card."""
    full = load_accelerators()["a100-80gb"]
    short = replace(
        full, mig_profiles=tuple(p for p in full.mig_profiles if p.name in ("1g.10gb", "3g.40gb"))
    )
    offering = OfferingSpec(
        id="x",
        platform="p",
        platform_name="P",
        name="8x A100",
        accelerator=short,
        gpu_count=8,
        multi_task=MultiTask.MIG,
    )
    tasks = (
        TaskNeed(
            name="render",
            per_gpu_bytes=40 * GiB,
            gpus=1,
            sharded=False,
            when="always",
            isolation="hard",
        ),
        TaskNeed(
            name="cfd",
            per_gpu_bytes=30 * GiB,
            gpus=1,
            sharded=False,
            when="always",
            isolation="hard",
        ),
    )
    placed = placement.place(offering, tasks)
    assert placed.fits and placed.instances == 1
    modes = {a.task: a.mode for a in placed.assignments}
    assert modes["render"] is PlacementMode.WHOLE
