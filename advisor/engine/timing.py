"""Training time and decode speed: compute from FLOPs and peak throughput, communication from the
interconnect's measured all-reduce bandwidth, decode from memory bandwidth.

Formulas and figures are explained, with their sources, in docs/time-model.md (6ND after Kaplan et
al. 2020 and Transformer Math 101, MFU of published runs) and docs/accelerators.md (NCCL all-reduce
bus bandwidths measured in NVIDIA's nccl and nccl-tests issues), so the
NVLink-vs-PCIe difference comes out of bandwidths, never out of a fixed percentage.
"""

from __future__ import annotations

from dataclasses import dataclass

from advisor.engine.errors import InvalidWorkload
from advisor.engine.memory import (
    PRECISION_BYTES,
    compute_precision,
    lora_adapter_params,
)
from advisor.engine.messages import Code, Message, Quantity, Unit, fraction, msg
from advisor.engine.types import AcceleratorSpec, Interconnect, ModelArch, Task

# Default model FLOPs utilisation of the compute part. Published large runs reach 42-54 %
# (Korthikanti 530B: 42.1 % full recompute, 54.2 % selective; PaLM 46.2 %; Megatron 1T 52 %;
# docs/time-model.md); we take 0.40, below all of them, because those runs were tuned at scale.
# Communication is modelled separately, so this MFU excludes it.
DEFAULT_MFU = 0.40
# Above this the estimate is optimistic: no published run of docs/time-model.md exceeds 54.2 %.
MFU_WARNING = 0.60
# Fraction of the backward pass behind which DDP/ZeRO buckets hide gradient communication.
# An assumption of ours (docs/time-model.md), between no overlap and full overlap.
COMM_OVERLAP = 0.5
BACKWARD_SHARE = 2 / 3  # backward is 4ND of 6ND (Transformer Math 101)
ZERO3_COMM_FACTOR = 1.5  # ZeRO-3 moves 3Ψ instead of 2Ψ (ZeRO paper, arXiv:1910.02054)
# Warn below this scaling efficiency: DDP on 8 NVLink A100s reaches 97-98 % (docs/time-model.md).
SCALING_WARNING = 0.9
# gpu_poor's QLoRA step-time factor for dequantization (RahulSChand/gpu_poor); named in a note,
# not applied to the estimate.
QLORA_DEQUANT_SLOWDOWN = 1.75


@dataclass(frozen=True)
class BusbwAnchor:
    """A measured 8-GPU NCCL all-reduce bus bandwidth (docs/accelerators.md)."""

    architecture: str
    nvlink_gbps: float
    busbw_gbps: float
    source: str


NVLINK_ANCHORS = (
    BusbwAnchor("Ampere", 600, 200, "8×A100-SXM4-80GB NVSwitch ~200 GB/s, nccl-tests#149"),
    BusbwAnchor("Hopper", 900, 370, "8×H100 SXM ring ~370 GB/s, nccl-tests#212"),
    BusbwAnchor("Hopper", 400, 215, "8×H800 SXM 215 GB/s, nccl#1374"),
)
# 2×H100 PCIe with a 600 GB/s NVLink bridge measured ~116 GB/s (NVIDIA/nccl#1161).
BRIDGE_ANCHOR = BusbwAnchor("Hopper", 600, 116, "2×H100 PCIe + NVLink bridge ~116 GB/s, nccl#1161")
# 8×RTX 5090 PCIe Gen5 28 GB/s, 4 GPUs 35 GB/s, "little difference compared to 8×RTX 4090"; NVIDIA:
# on PCIe systems the CPU and memory bound it (NVIDIA/nccl#1639). Used for any PCIe box.
PCIE_BUSBW_UP_TO_4 = 35.0
PCIE_BUSBW_ABOVE_4 = 28.0
PCIE_SOURCE = "8×RTX 5090 PCIe 28 GB/s (4 GPUs: 35 GB/s), nccl#1639"


@dataclass(frozen=True)
class TimeEstimate:
    hours: float
    total_flops: float
    mfu: float
    compute_seconds: float
    comm_seconds: float  # communication not hidden behind the backward pass
    scaling_efficiency: float
    warnings: tuple[Message, ...] = ()
    notes: tuple[Message, ...] = ()


def allreduce_anchor(
    accel: AcceleratorSpec, interconnect: Interconnect, gpus: int
) -> tuple[float, Message]:
    """All-reduce bus bandwidth (GB/s) for `gpus` of `accel` and the measurement it rests on."""
    nvlink = interconnect == "nvlink" and accel.nvlink and accel.nvlink_bandwidth_gbps
    if nvlink and accel.nvlink_bridge:
        if gpus <= 2:
            return _scaled(BRIDGE_ANCHOR, accel)
        nvlink = False  # a bridge joins pairs; a larger ring crosses PCIe
    if not nvlink:
        busbw = PCIE_BUSBW_UP_TO_4 if gpus <= 4 else PCIE_BUSBW_ABOVE_4
        return busbw, msg(Code.BUSBW_SOURCE_PCIE, source=PCIE_SOURCE)
    same_arch = [a for a in NVLINK_ANCHORS if a.architecture == accel.architecture]
    candidates = same_arch or list(NVLINK_ANCHORS)
    bandwidth = accel.nvlink_bandwidth_gbps or 0.0
    anchor = min(candidates, key=lambda a: abs(a.nvlink_gbps - bandwidth))
    return _scaled(anchor, accel)


def _scaled(anchor: BusbwAnchor, accel: AcceleratorSpec) -> tuple[float, Message]:
    bandwidth = accel.nvlink_bandwidth_gbps or anchor.nvlink_gbps
    if bandwidth == anchor.nvlink_gbps:
        return anchor.busbw_gbps, msg(Code.BUSBW_SOURCE_NVLINK, source=anchor.source)
    busbw = anchor.busbw_gbps * bandwidth / anchor.nvlink_gbps
    return busbw, msg(
        Code.BUSBW_SOURCE_NVLINK_SCALED,
        source=anchor.source,
        bandwidth=float(bandwidth),
        anchor_bandwidth=float(anchor.nvlink_gbps),
    )


def _compute_params(arch: ModelArch) -> int:
    """Parameters touched per token: the active ones for a mixture of experts."""
    return arch.active_params or arch.params


def training_flops(task: Task) -> float:
    """6ND (8ND with full recomputation); LoRA/QLoRA 4ND (6ND with full recomputation)."""
    if task.arch is None or task.tokens is None:
        raise ValueError("training_flops needs a resolved arch and tokens")
    per_token = 6 if task.kind == "full_finetune" else 4
    if task.activation_checkpointing == "full":
        per_token += 2
    return per_token * _compute_params(task.arch) * task.tokens


def _peak_tflops(task: Task, accel: AcceleratorSpec) -> float | None:
    # fp32 training runs on the FP32 units; every other precision on dense BF16/FP16 tensor cores.
    if compute_precision(task) == "fp32":
        return accel.fp32_tflops
    return accel.bf16_tflops


def _gradient_bytes(task: Task) -> float:
    assert task.arch is not None
    size = PRECISION_BYTES[compute_precision(task)]
    if task.kind == "full_finetune":
        return task.arch.params * size
    return lora_adapter_params(task.arch, task.lora_rank) * size


def allreduce_seconds(gradient_bytes: float, gpus: int, busbw_gbps: float) -> float:
    """Seconds of one all-reduce of `gradient_bytes`: 2(N−1)/N · G / busbw (ring all-reduce)."""
    if gpus <= 1:
        return 0.0
    return 2 * (gpus - 1) / gpus * gradient_bytes / (busbw_gbps * 1e9)


def _comm_per_step(task: Task, gpus: int, busbw_gbps: float) -> float:
    factor = ZERO3_COMM_FACTOR if task.sharding == "zero3" else 1.0
    return factor * allreduce_seconds(_gradient_bytes(task), gpus, busbw_gbps)


def training_time(
    task: Task,
    accel: AcceleratorSpec,
    gpus: int,
    interconnect: Interconnect,
    mfu: float | None = None,
    busbw_gbps: float | None = None,
    *,
    index: int | None = None,
) -> TimeEstimate:
    """Hours to train `task.tokens` tokens on `gpus` of `accel` joined by `interconnect`."""
    where = f"tasks[{index}]." if index is not None else ""
    if task.tokens is None:
        raise InvalidWorkload(Code.TOKENS_REQUIRED, f"{where}tokens")
    peak = _peak_tflops(task, accel)
    if not peak:
        raise InvalidWorkload(
            Code.NO_THROUGHPUT_FIGURE, f"{where}on.accelerator", accelerator=accel.name
        )
    mfu = DEFAULT_MFU if mfu is None else mfu
    notes = [msg(Code.TIME_NOTE_MFU, mfu=Quantity(mfu, Unit.COUNT, 2), peak=float(peak))]
    warnings = []
    if mfu > MFU_WARNING:
        warnings.append(msg(Code.TIME_WARN_MFU_HIGH, mfu=fraction(mfu)))
    if busbw_gbps is None and gpus > 1:
        busbw_gbps, source = allreduce_anchor(accel, interconnect, gpus)
        notes.append(
            msg(Code.TIME_NOTE_BUSBW, busbw=Quantity(busbw_gbps, Unit.COUNT, 0), source=source)
        )
    flops = training_flops(task)
    compute = flops / (gpus * peak * 1e12 * mfu)
    steps = task.tokens / (task.micro_batch * task.seq_len * gpus)
    per_step = _comm_per_step(task, gpus, busbw_gbps or 1.0)
    hidden = COMM_OVERLAP * BACKWARD_SHARE * compute / steps
    exposed = steps * max(0.0, per_step - hidden)
    efficiency = compute / (compute + exposed) if compute + exposed else 1.0
    if gpus > 1 and efficiency < SCALING_WARNING:
        warnings.append(msg(Code.TIME_WARN_SCALING, efficiency=fraction(efficiency)))
    if task.kind == "qlora":
        notes.append(msg(Code.TIME_NOTE_QLORA_DEQUANT, factor=QLORA_DEQUANT_SLOWDOWN))
    return TimeEstimate(
        hours=(compute + exposed) / 3600,
        total_flops=flops,
        mfu=mfu,
        compute_seconds=compute,
        comm_seconds=exposed,
        scaling_efficiency=efficiency,
        warnings=tuple(warnings),
        notes=tuple(notes),
    )


def decode_tokens_per_s(task: Task, accel: AcceleratorSpec, gpus: int = 1) -> float:
    """Upper bound on each stream's decode tokens/s; serving.decode_tokens_per_s, kept here for
    callers of the old name (serving imports this module, hence the import inside)."""
    from advisor.engine import serving

    return serving.decode_tokens_per_s(task, accel, gpus)
