"""`estimate`: the memory, fit and time of each task of a scenario (what `manage.py estimate`
prints, through the API's output serializers). No catalogue and no prices: only the accelerator
table.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace

from advisor.engine.capacity import OOM_RISK_FRACTION, usable_bytes
from advisor.engine.errors import AdvisorError, InvalidWorkload
from advisor.engine.hardware import resolve_accelerator
from advisor.engine.memory import (
    GPU_MEMORY_UTILIZATION,
    holds_engine_pool,
    suggest_fixes,
    task_memory,
)
from advisor.engine.memory_plan import MemoryBreakdown, MemoryPlan
from advisor.engine.messages import Code, Message, fraction, gib, msg
from advisor.engine.needs import reference_of
from advisor.engine.serving import NetworkLink, ServingEstimate, serving_estimate
from advisor.engine.timing import (
    DEFAULT_GPUS_PER_NODE,
    FixedTimeEstimate,
    TimeEstimate,
    default_network,
    fixed_task_time,
    training_time,
)
from advisor.engine.types import AcceleratorSpec, MigProfile, Scenario, Task
from advisor.engine.vocab import Interconnect, TaskKind


@dataclass(frozen=True)
class OnResult:
    """The hardware a task was evaluated on (`on`): a card, or one MIG slice of it."""

    accelerator: str  # slug
    name: str
    count: int
    mig_profile: str | None
    capacity_gib: float
    confidence: str


@dataclass(frozen=True)
class Fit:
    fits: bool
    usable_bytes: int
    headroom_bytes: int  # negative when it does not fit
    reason: Message
    suggestions: tuple[Message, ...] = ()


@dataclass(frozen=True)
class TaskEstimate:
    """One task's memory plan and, with `on`, its fit, training time and serving figures there
    (`decode_tokens_per_s`: each stream's upper bound, the same as serving.stream_tokens_per_s)."""

    name: str
    kind: TaskKind
    plan: MemoryPlan
    on: OnResult | None = None
    fit: Fit | None = None
    time: TimeEstimate | None = None
    decode_tokens_per_s: float | None = None
    serving: ServingEstimate | None = None
    # A fixed task with frames: its time there from its reference card (timing.fixed_task_time).
    fixed_time: FixedTimeEstimate | None = None

    @property
    def gpus(self) -> int:
        return self.plan.gpus

    @property
    def per_gpu(self) -> MemoryBreakdown:
        return self.plan.per_gpu


@dataclass(frozen=True)
class Estimate:
    tasks: tuple[TaskEstimate, ...]
    warnings: tuple[Message, ...] = ()


def estimate(scenario: Scenario, accelerators: Mapping[str, AcceleratorSpec]) -> Estimate:
    """Per-task memory breakdown and, where `on` names hardware, fit, time and decode speed."""
    warnings: list[Message] = []
    tasks = tuple(
        _task_estimate(task, index, accelerators, warnings)
        for index, task in enumerate(scenario.tasks)
    )
    return Estimate(tasks, tuple(warnings))


def _task_estimate(
    task: Task,
    index: int,
    accelerators: Mapping[str, AcceleratorSpec],
    warnings: list[Message],
) -> TaskEstimate:
    plan = task_memory(task)
    if task.on is None:
        return TaskEstimate(task.name, TaskKind(task.kind), plan)
    return _on_hardware(task, index, plan, accelerators, warnings)


def _mig_profile(accel: AcceleratorSpec, name: str, field: str) -> MigProfile:
    if not accel.mig_profiles:
        raise InvalidWorkload(Code.NO_MIG, field, accelerator=accel.name)
    for profile in accel.mig_profiles:
        if profile.name.lower() == name.strip().lower():
            return profile
    names = tuple(p.name for p in accel.mig_profiles)
    raise InvalidWorkload(
        Code.NO_MIG_PROFILE, field, accelerator=accel.name, profile=name, profiles=names
    )


def slice_spec(accel: AcceleratorSpec, profile: MigProfile) -> AcceleratorSpec:
    """The accelerator as one MIG slice sees it: a memory slice is ~1/8 of capacity and
    bandwidth, an SM slice ~1/7 of the SMs (NVIDIA MIG User Guide, "Concepts")."""
    compute = profile.compute_slices / (accel.mig_max_compute or 1)
    memory = profile.memory_slices / (accel.mig_slots or 1)
    return replace(
        accel,
        vram_gib=profile.memory_gib,
        memory_bandwidth_gbps=accel.memory_bandwidth_gbps and accel.memory_bandwidth_gbps * memory,
        bf16_tflops=accel.bf16_tflops and accel.bf16_tflops * compute,
        fp16_tflops=accel.fp16_tflops and accel.fp16_tflops * compute,
        fp32_tflops=accel.fp32_tflops and accel.fp32_tflops * compute,
        fp64_tflops=accel.fp64_tflops and accel.fp64_tflops * compute,
        nvlink=False,
    )


def _fit(task: Task, plan: MemoryPlan, usable: int, on_slices: bool) -> Fit:
    total = plan.per_gpu.total
    need, have = gib(total), gib(usable)
    if on_slices and task.gpus > 1 and task.kind != TaskKind.FIXED:
        return Fit(False, usable, usable - total, msg(Code.FIT_MIG_NO_P2P))
    if total > usable:
        reason = msg(Code.FIT_NEEDS, need=need, usable=have)
        # Counts above one machine are rounded to whole machines of `on.gpus_per_node` (8).
        per_machine = (task.on.gpus_per_node if task.on else None) or DEFAULT_GPUS_PER_NODE
        fixes = suggest_fixes(task, usable, per_machine)
        return Fit(False, usable, usable - total, reason, tuple(fixes))
    if holds_engine_pool(task):
        # A paged-KV server's need holds its engine's pool: it fills the card by design
        # (docs/advisor-rules.md, "Headroom"), sized, not warned.
        pool = fraction(GPU_MEMORY_UTILIZATION)
        reason = msg(Code.FIT_ENGINE_POOL, need=need, usable=have, utilization=pool)
        return Fit(True, usable, usable - total, reason)
    if total > OOM_RISK_FRACTION * usable:
        return Fit(True, usable, usable - total, msg(Code.FIT_OOM_RISK, need=need, usable=have))
    return Fit(True, usable, usable - total, msg(Code.FIT_FITS, need=need, usable=have))


def _interconnect(accel: AcceleratorSpec, gpus: int) -> Interconnect:
    if gpus <= 1:
        return Interconnect.NONE
    return Interconnect.NVLINK if accel.nvlink else Interconnect.PCIE


def _time(
    task: Task, index: int, accel: AcceleratorSpec, warnings: list[Message]
) -> TimeEstimate | None:
    assert task.on is not None
    try:
        return training_time(
            task,
            accel,
            task.gpus,
            _interconnect(accel, task.gpus),
            task.on.mfu,
            index=index,
            gpus_per_node=task.on.gpus_per_node,
            network=task.on.network,
            network_gbps=task.on.network_gbps,
        )
    except AdvisorError as error:
        no_time = msg(Code.WARN_NO_TIME_ESTIMATE_HERE, reason=error.detail)
        warnings.append(msg(Code.WARN_TASK, task=task.name, message=no_time))
        return None


def _serving_link(task: Task, accel: AcceleratorSpec) -> NetworkLink | None:
    """Tensor parallelism over more GPUs than a machine holds (`on.gpus_per_node`, default 8):
    the network between the machines, stated in `on` or assumed (timing.default_network)."""
    on = task.on
    per_node = (on.gpus_per_node if on else None) or DEFAULT_GPUS_PER_NODE
    if task.gpus <= per_node:
        return None
    network, gbps = (on.network, on.network_gbps) if on else (None, None)
    if network is None or gbps is None:
        kind, assumed, _ = default_network(accel, per_node)
        network, gbps = network or kind, gbps or assumed
    return NetworkLink(math.ceil(task.gpus / per_node), network, gbps)


def _serving(
    task: Task, accel: AcceleratorSpec, fit: Fit, warnings: list[Message]
) -> ServingEstimate | None:
    if task.arch is None or task.arch.family == "diffusion":
        return None
    try:
        link = _serving_link(task, accel)
        return serving_estimate(
            task, accel, task.gpus, headroom_bytes=fit.headroom_bytes, link=link
        )
    except AdvisorError as error:
        no_decode = msg(Code.WARN_NO_DECODE_ESTIMATE, reason=error.detail)
        warnings.append(msg(Code.WARN_TASK, task=task.name, message=no_decode))
        return None


def _on_hardware(
    task: Task,
    index: int,
    plan: MemoryPlan,
    accelerators: Mapping[str, AcceleratorSpec],
    warnings: list[Message],
) -> TaskEstimate:
    assert task.on is not None
    path = f"tasks[{index}].on"
    accel = resolve_accelerator(task.on.accelerator, accelerators, field=f"{path}.accelerator")
    profile = None
    if task.on.mig_profile is not None:
        profile = _mig_profile(accel, task.on.mig_profile, f"{path}.mig_profile")
        accel = slice_spec(accel, profile)
    fit = _fit(task, plan, usable_bytes(accel.vram_gib), profile is not None)
    if fit.reason.code is Code.FIT_OOM_RISK:
        warnings.append(msg(Code.WARN_TASK, task=task.name, message=fit.reason))
    if accel.confidence == "unverified":
        unverified = msg(Code.WARN_UNVERIFIED_FIGURES, accelerator=accel.name)
        warnings.append(msg(Code.WARN_TASK, task=task.name, message=unverified))
    on = OnResult(
        accelerator=accel.slug,
        name=accel.name,
        count=task.on.count,
        mig_profile=profile.name if profile else None,
        capacity_gib=accel.vram_gib,
        confidence=accel.confidence,
    )
    kind = TaskKind(task.kind)
    time = _time(task, index, accel, warnings) if kind.trains and task.tokens is not None else None
    serving = _serving(task, accel, fit, warnings) if kind is TaskKind.INFERENCE else None
    decode = serving.stream_tokens_per_s if serving else None
    fixed = None
    if kind is TaskKind.FIXED and task.reference_accelerator is not None:
        fixed = _fixed_time(task, index, accel, accelerators, warnings)
    return TaskEstimate(task.name, kind, plan, on, fit, time, decode, serving, fixed)


def _fixed_time(
    task: Task,
    index: int,
    accel: AcceleratorSpec,
    accelerators: Mapping[str, AcceleratorSpec],
    warnings: list[Message],
) -> FixedTimeEstimate | None:
    reference = reference_of(task, index, accelerators)
    try:
        field = f"tasks[{index}].on.accelerator"
        return fixed_task_time(task, accel, reference, task.gpus, field=field)
    except AdvisorError as error:
        no_time = msg(Code.WARN_NO_TIME_ESTIMATE_HERE, reason=error.detail)
        warnings.append(msg(Code.WARN_TASK, task=task.name, message=no_time))
        return None
