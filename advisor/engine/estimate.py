"""`estimate`: the memory, fit and time of each task of a scenario, as the JSON `manage.py estimate`
prints (DESIGN.md "The scenario"). No catalogue and no prices: only the accelerator table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields, replace
from typing import Any

from advisor.engine.capacity import OOM_RISK_FRACTION, usable_bytes
from advisor.engine.errors import AdvisorError, InvalidWorkload
from advisor.engine.hardware import resolve_accelerator
from advisor.engine.memory import (
    TRAINING_KINDS,
    MemoryBreakdown,
    MemoryPlan,
    suggest_fixes,
    task_memory,
)
from advisor.engine.timing import decode_tokens_per_s, training_time
from advisor.engine.types import AcceleratorSpec, GiB, Interconnect, MigProfile, Scenario, Task

MIG_NO_P2P = (
    "MIG slices have no GPU-to-GPU peer-to-peer (PCIe or NVLink), so a task spanning several "
    "GPUs cannot run on slices (hardware.md §7)"
)


def estimate(scenario: Scenario, accelerators: Mapping[str, AcceleratorSpec]) -> dict[str, Any]:
    """Per-task memory breakdown and, where `on` names hardware, fit, time and decode speed."""
    warnings: list[str] = []
    tasks = [
        _task_estimate(task, index, accelerators, warnings)
        for index, task in enumerate(scenario.tasks)
    ]
    return {"tasks": tasks, "warnings": warnings}


def _breakdown(per_gpu: MemoryBreakdown) -> dict[str, int]:
    out = {f.name: int(getattr(per_gpu, f.name)) for f in fields(per_gpu)}
    out["total"] = per_gpu.total
    return out


def _task_estimate(
    task: Task,
    index: int,
    accelerators: Mapping[str, AcceleratorSpec],
    warnings: list[str],
) -> dict[str, Any]:
    plan = task_memory(task)
    per_gpu = _breakdown(plan.per_gpu)
    out: dict[str, Any] = {
        "name": task.name,
        "kind": task.kind,
        "gpus": plan.gpus,
        "per_gpu": per_gpu,
        "per_gpu_gib": {key: round(value / GiB, 2) for key, value in per_gpu.items()},
        "sharded": plan.sharded,
        "notes": list(plan.notes),
        "formulas": plan.formulas,
    }
    if plan.offloaded_bytes:
        out["offloaded_bytes"] = plan.offloaded_bytes
    if task.on is not None:
        out.update(_on_hardware(task, index, plan, accelerators, warnings))
    return out


def _mig_profile(accel: AcceleratorSpec, name: str, field: str) -> MigProfile:
    if not accel.mig_profiles:
        raise InvalidWorkload(f"{accel.name} does not support MIG", field)
    for profile in accel.mig_profiles:
        if profile.name.lower() == name.strip().lower():
            return profile
    names = ", ".join(p.name for p in accel.mig_profiles)
    raise InvalidWorkload(f"{accel.name} has no MIG profile {name!r}; it has {names}", field)


def slice_spec(accel: AcceleratorSpec, profile: MigProfile) -> AcceleratorSpec:
    """The accelerator as one MIG slice sees it: a memory slice is ~1/8 of capacity and
    bandwidth, an SM slice ~1/7 of the SMs (hardware.md §7 "Concepts")."""
    compute = profile.compute_slices / (accel.mig_max_compute or 1)
    memory = profile.memory_slices / (accel.mig_slots or 1)
    return replace(
        accel,
        vram_gib=profile.memory_gib,
        memory_bandwidth_gbps=accel.memory_bandwidth_gbps and accel.memory_bandwidth_gbps * memory,
        bf16_tflops=accel.bf16_tflops and accel.bf16_tflops * compute,
        fp32_tflops=accel.fp32_tflops and accel.fp32_tflops * compute,
        nvlink=False,
    )


def _fit(task: Task, plan: MemoryPlan, usable: int, on_slices: bool) -> dict[str, Any]:
    total = plan.per_gpu.total
    fit: dict[str, Any] = {
        "fits": total <= usable,
        "usable_bytes": usable,
        "headroom_bytes": usable - total,
        "suggestions": [],
    }
    need, have = f"{total / GiB:.2f} GiB", f"{usable / GiB:.2f} GiB"
    if on_slices and task.gpus > 1 and task.kind != "fixed":
        fit.update(fits=False, reason=MIG_NO_P2P)
    elif total > usable:
        fit["reason"] = f"needs {need} per GPU, {have} usable"
        fit["suggestions"] = suggest_fixes(task, usable)
    elif total > OOM_RISK_FRACTION * usable:
        fit["reason"] = f"fits ({need} of {have} usable), above 90 %: OOM risk"
    else:
        fit["reason"] = f"fits: {need} of {have} usable per GPU"
    return fit


def _interconnect(accel: AcceleratorSpec, gpus: int) -> Interconnect:
    if gpus <= 1:
        return "none"
    return "nvlink" if accel.nvlink else "pcie"


def _time(task: Task, index: int, accel: AcceleratorSpec, warnings: list[str]) -> dict[str, Any]:
    assert task.on is not None
    try:
        result = training_time(
            task, accel, task.gpus, _interconnect(accel, task.gpus), task.on.mfu, index=index
        )
    except AdvisorError as error:
        warnings.append(f"{task.name}: no time estimate: {error.message}")
        return {}
    return {
        "time": {
            "hours": round(result.hours, 2),
            "mfu": result.mfu,
            "compute_seconds": round(result.compute_seconds, 1),
            "comm_seconds": round(result.comm_seconds, 1),
            "scaling_efficiency": round(result.scaling_efficiency, 3),
            "warnings": list(result.warnings),
            "notes": list(result.notes),
        }
    }


def _decode(task: Task, accel: AcceleratorSpec, warnings: list[str]) -> dict[str, Any]:
    if task.arch is None or task.arch.family == "diffusion":
        return {}
    try:
        return {"decode_tokens_per_s": round(decode_tokens_per_s(task, accel, task.gpus), 1)}
    except AdvisorError as error:
        warnings.append(f"{task.name}: no decode estimate: {error.message}")
        return {}


def _on_hardware(
    task: Task,
    index: int,
    plan: MemoryPlan,
    accelerators: Mapping[str, AcceleratorSpec],
    warnings: list[str],
) -> dict[str, Any]:
    assert task.on is not None
    path = f"tasks[{index}].on"
    accel = resolve_accelerator(task.on.accelerator, accelerators, field=f"{path}.accelerator")
    profile = None
    if task.on.mig_profile is not None:
        profile = _mig_profile(accel, task.on.mig_profile, f"{path}.mig_profile")
        accel = slice_spec(accel, profile)
    fit = _fit(task, plan, usable_bytes(accel.vram_gib), profile is not None)
    if fit["fits"] and fit["headroom_bytes"] < (1 - OOM_RISK_FRACTION) * fit["usable_bytes"]:
        warnings.append(f"{task.name}: {fit['reason']}")
    if accel.confidence == "unverified":
        warnings.append(f"{task.name}: figures for {accel.name} are unverified (hardware.md §6)")
    out: dict[str, Any] = {
        "on": {
            "accelerator": accel.slug,
            "name": accel.name,
            "count": task.on.count,
            "mig_profile": profile.name if profile else None,
            "capacity_gib": accel.vram_gib,
            "confidence": accel.confidence,
        },
        "fit": fit,
    }
    if task.kind in TRAINING_KINDS and task.tokens is not None:
        out.update(_time(task, index, accel, warnings))
    if task.kind == "inference":
        out.update(_decode(task, accel, warnings))
    return out
