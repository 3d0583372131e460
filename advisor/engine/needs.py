"""What fixed tasks (rendering, simulation, video) need of a card, and the reference cards their
times are scaled from (docs/advisor-rules.md, "Fixed tasks").

A task may state a minimum FP64 rate (`min_fp64_tflops`: a double-precision CFD code on a
GeForce card runs at 1/64 of its FP32 rate), RT cores (`needs_rt_cores`: OptiX rendering; no
A100, H100, H800 or B200 has them) and video encoders (`needs_nvenc`: encoding the render). An
offering whose card states less is left out with the need's rejection code. An FP64 need is met
only by a stated figure: a card that does not state its FP64 rate is left out
(`reject_fp64_not_stated`; Ascend and MUSA have no usable FP64 path: diffusers PR 10123,
MooreThreads/torch_musa torch_musa/README.md @8b583b3f). A card that does not state its RT cores
or encoders is kept, with a warning that the need was not checked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from advisor.engine import timing
from advisor.engine.errors import InvalidWorkload
from advisor.engine.hardware import resolve_accelerator
from advisor.engine.messages import Code, Message, msg
from advisor.engine.types import AcceleratorSpec, Task
from advisor.engine.vocab import TaskKind


@dataclass(frozen=True)
class Needs:
    """The union of a scenario's fixed-task needs: every task may land on the offering."""

    min_fp64_tflops: float | None = None
    rt_cores: bool = False
    nvenc: bool = False


def needs_of(tasks: Sequence[Task]) -> Needs | None:
    """The scenario's needs, None when no task states any."""
    fixed = [t for t in tasks if t.kind == TaskKind.FIXED]
    fp64 = [t.min_fp64_tflops for t in fixed if t.min_fp64_tflops is not None]
    rt = any(t.needs_rt_cores for t in fixed)
    nvenc = any(t.needs_nvenc for t in fixed)
    if not (fp64 or rt or nvenc):
        return None
    return Needs(max(fp64) if fp64 else None, rt, nvenc)


def _checks(needs: Needs) -> list[tuple[Code, Code, str, float]]:
    """(rejection, figure name, AcceleratorSpec attribute, the least it must have)."""
    out = []
    if needs.min_fp64_tflops is not None:
        out.append((Code.REJECT_NO_FP64, Code.FIGURE_FP64, "fp64_tflops", needs.min_fp64_tflops))
    if needs.rt_cores:
        out.append((Code.REJECT_NO_RT_CORES, Code.FIGURE_RT_CORES, "rt_cores", 1))
    if needs.nvenc:
        out.append((Code.REJECT_NO_NVENC, Code.FIGURE_NVENC, "nvenc", 1))
    return out


def unmet(needs: Needs, accel: AcceleratorSpec) -> Code | None:
    """The rejection code of the first need `accel` states it cannot meet."""
    for reject, _figure, attribute, least in _checks(needs):
        value = getattr(accel, attribute)
        if value is None and attribute == "fp64_tflops":
            return Code.REJECT_FP64_NOT_STATED
        if value is not None and value < least:
            return reject
    return None


def unstated(needs: Needs | None, accel: AcceleratorSpec) -> tuple[Message, ...]:
    """A warning for each need whose figure `accel` does not state (FP64 is never unstated
    here: `unmet` leaves such a card out)."""
    if needs is None:
        return ()
    return tuple(
        msg(Code.WARN_FIGURE_NOT_STATED, accelerator=accel.name, figure=msg(figure))
        for _reject, figure, attribute, _least in _checks(needs)
        if getattr(accel, attribute) is None
    )


def reference_of(
    task: Task, index: int, accelerators: Mapping[str, AcceleratorSpec]
) -> AcceleratorSpec:
    """The card a fixed task's seconds per frame were measured on. An unknown name, or a card
    without the figure the time is scaled by, is an error at `tasks[i].reference_accelerator`."""
    assert task.reference_accelerator is not None
    field = f"tasks[{index}].reference_accelerator"
    card = resolve_accelerator(task.reference_accelerator, accelerators, field=field)
    if timing.scale_figure(card, task.scale_by) is None:
        figure = msg(timing.SCALE_NAMES[task.scale_by])
        raise InvalidWorkload(Code.FIXED_NO_FIGURE, field, accelerator=card.name, figure=figure)
    return card


def references(
    tasks: Sequence[Task], accelerators: Mapping[str, AcceleratorSpec]
) -> dict[int, AcceleratorSpec]:
    """Each timed fixed task's reference card, by task index (reference_of)."""
    return {
        i: reference_of(t, i, accelerators)
        for i, t in enumerate(tasks)
        if t.kind == TaskKind.FIXED and t.reference_accelerator is not None
    }
