"""Serving an LLM: decode speed per stream and in aggregate, tensor-parallel communication, the
largest concurrency that fits, prefill and time to first token.

Formulas and their sources (docs/time-model.md, "Serving"):

* **Decode step** (one token for each of B sequences). Memory: the weights are read once for the
  whole batch (a mixture of experts reads the experts its B tokens route to, at most all of them)
  plus every sequence's KV cache; compute: B · (2·N_active + 4·L·d_attn·kv) FLOPs, the 2·N per
  token of Kaplan et al. 2020 (arXiv:2001.08361, Table 1) plus the QKᵀ and attention-times-V
  products over the kv cached tokens. The step takes at least max(bytes / bandwidth, FLOPs /
  dense peak); both are split evenly over the tensor-parallel GPUs.
* **Tensor parallelism is not free**: Megatron-LM's layer split (Shoeybi et al. 2019,
  arXiv:1909.08053, §3) all-reduces the activations twice per layer in the forward pass (after
  attention and after the MLP), for every token step. One all-reduce of S bytes on n GPUs takes
  α + 2(n−1)/n · S / busbw with S = hidden × tokens × 2 bytes (16-bit activations), α the
  small-message latency (NVLink: vLLM's custom all-reduce on 8×H100, 10.1 µs for 512 B,
  sgl-project/sglang#2904; PCIe: 8×RTX 4090 nccl-tests all_reduce_perf 8 B, 40.06 µs in place,
  NVIDIA/nccl#1530, scaled by (n−1)/7 for fewer GPUs as a ring's hop count is) and busbw the
  measured NCCL bus bandwidth of timing.allreduce_anchor.
* **Steady-state decode** of a service: each of its `concurrent_sequences` sequences is on
  average halfway through its `context_len` (a sequence's cache grows from nothing to the full
  context while it decodes, so half of it is what a step reads on average for the shortest
  prompts; longer prompts read more), and prefill of new requests is not counted. Every term is
  optimistic, so the aggregate is an upper bound on output tokens per second.
* **Prefill** is compute-bound: 2·N_active·P + 2·L·d_attn·P² FLOPs for a prompt of P tokens
  (causal attention over P/2 positions on average). The bound runs them at dense peak; the time
  to first token runs them at PREFILL_MFU, plus one read of the weights and the all-reduces.
* **Largest concurrency that fits**: the memory plan (memory.task_memory) at one and at two
  sequences gives the bytes each further sequence needs at `context_len`; the free memory of the
  GPU (or slice) is divided by it.

FP8 runs on FP8 tensor cores at twice the dense BF16 rate on Hopper, Ada Lovelace and Blackwell
(NVIDIA H100 datasheet: 989 BF16 / 1,979 FP8 dense TFLOPS; L40S datasheet 362 / 733; Ada
whitepaper RTX 4090 165 / 330); int8/int4 weights are taken as weight-only quantization
(GPTQ/AWQ kernels compute in 16 bit), at the BF16 rate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Literal

from advisor.engine.errors import InvalidWorkload
from advisor.engine.memory import PREFILL_CHUNK_TOKENS, dims_of, kv_bytes_per_token, task_memory
from advisor.engine.memory_plan import PRECISION_BYTES
from advisor.engine.messages import Code, Message, Quantity, Unit, msg
from advisor.engine.timing import allreduce_anchor, tensor_tflops
from advisor.engine.types import AcceleratorSpec, Interconnect, ModelArch, Task

# Megatron-LM tensor parallelism: two all-reduces per transformer layer in the forward pass
# (Shoeybi et al. 2019, arXiv:1909.08053, §3: the g operator after self-attention and after the
# MLP).
ALLREDUCES_PER_LAYER = 2
# The all-reduced activations are 16-bit (bf16/fp16) whatever the weights' precision.
ACTIVATION_BYTES = 2
# Small-message all-reduce latency. NVLink/NVSwitch: vLLM's custom all-reduce on 8×H100, 512 B:
# 0.0101 ms (2 and 4 GPUs: 0.0095 and 0.0091 ms), sgl-project/sglang#2904. One-shot kernels barely
# depend on the GPU count, so one figure serves every count.
NVLINK_ALLREDUCE_LATENCY_S = 10.1e-6
# PCIe: NCCL all_reduce_perf on 8×RTX 4090, 8 B: 42.14 µs out of place, 40.06 µs in place
# (NVIDIA/nccl#1530). A ring's latency grows with its n−1 hops, so fewer GPUs scale it down.
PCIE_ALLREDUCE_LATENCY_8_S = 40.06e-6
PCIE_LATENCY_GPUS = 8
# Prefill MFU for the time to first token. TensorRT-LLM v0.5's batch-1 first-token latencies for
# 2,048-token prompts imply 0.69 (Llama-2-7B, A100 FP16, 133 ms) and ~0.7 (Llama-2-70B, 4×A100,
# 377 ms) of dense peak (docs/source/performance.md of NVIDIA/TensorRT-LLM v0.6.1); we take 0.6,
# the rounder figure below both, which tests/advisor/engine/test_serving_published.py checks.
PREFILL_MFU = 0.6
# FP8 tensor cores at twice the dense BF16 rate (H100, L40S and B200 datasheets; Ada whitepaper).
FP8_ARCHITECTURES = frozenset({"Hopper", "Ada Lovelace", "Blackwell"})
FP8_SPEEDUP = 2.0

Bound = Literal["memory", "compute"]


@dataclass(frozen=True)
class StepTime:
    """Seconds of one forward pass over a batch: memory reads, FLOPs, all-reduces."""

    memory_seconds: float
    compute_seconds: float  # 0 when the card has no throughput figure
    comm_seconds: float

    @property
    def seconds(self) -> float:
        return max(self.memory_seconds, self.compute_seconds) + self.comm_seconds

    @property
    def bound(self) -> Bound:
        return "compute" if self.compute_seconds > self.memory_seconds else "memory"


@dataclass(frozen=True)
class ServingEstimate:
    """What an inference task can serve on given hardware (module docstring).

    Speeds are upper bounds; the time to first token is an estimate at PREFILL_MFU.
    """

    concurrency: int  # the task's concurrent_sequences
    stream_tokens_per_s: float  # each sequence's decode speed at that concurrency
    aggregate_tokens_per_s: float  # all sequences together
    bound: Bound  # what limits the decode step
    step_seconds: float
    comm_seconds: float  # all-reduces per decode step (tensor parallel)
    max_concurrency: int  # sequences of context_len that fit the free memory
    prompt_tokens: int  # prompt of the time to first token (the whole context)
    prefill_tokens_per_s: float | None  # upper bound (None: no throughput figure)
    ttft_seconds: float | None
    notes: tuple[Message, ...] = ()


def default_interconnect(accel: AcceleratorSpec, gpus: int) -> Interconnect:
    """What joins `gpus` of `accel` when the caller does not say: NVLink where the card has it."""
    if gpus <= 1:
        return Interconnect.NONE
    return Interconnect.NVLINK if accel.nvlink else Interconnect.PCIE


def tensor_peak_tflops(accel: AcceleratorSpec, precision: str) -> float | None:
    """Dense tensor TFLOPS at which a model of `precision` computes on `accel`."""
    if precision == "fp32":
        return accel.fp32_tflops
    peak = tensor_tflops(accel)  # BF16, else FP16 (V100, Turing)
    if peak is None:
        return None
    if precision == "fp8" and accel.architecture in FP8_ARCHITECTURES:
        return peak * FP8_SPEEDUP
    return peak


def _bandwidth(accel: AcceleratorSpec, field: str) -> float:
    if not accel.memory_bandwidth_gbps:
        raise InvalidWorkload(Code.NO_BANDWIDTH_FIGURE, field, accelerator=accel.name)
    return accel.memory_bandwidth_gbps * 1e9


def _arch(task: Task) -> ModelArch:
    if task.arch is None:
        raise ValueError("serving needs a resolved arch")
    return task.arch


def _active(arch: ModelArch) -> int:
    return arch.active_params or arch.params


def allreduce_latency_seconds(
    accel: AcceleratorSpec, interconnect: Interconnect, gpus: int
) -> tuple[float, float, Message]:
    """(latency α in s, bus bandwidth in GB/s, its source) of an all-reduce over `gpus`."""
    busbw, source = allreduce_anchor(accel, interconnect, gpus)
    if source.code is Code.BUSBW_SOURCE_PCIE:  # the same rule decides latency and bandwidth
        alpha = PCIE_ALLREDUCE_LATENCY_8_S * (gpus - 1) / (PCIE_LATENCY_GPUS - 1)
    else:
        alpha = NVLINK_ALLREDUCE_LATENCY_S
    return alpha, busbw, source


def tensor_parallel_seconds(
    arch: ModelArch,
    accel: AcceleratorSpec,
    interconnect: Interconnect,
    gpus: int,
    tokens: int,
) -> float:
    """All-reduces of one forward pass over `tokens` tokens: 2 per layer, hidden × tokens × 2 B."""
    if gpus <= 1:
        return 0.0
    alpha, busbw, _ = allreduce_latency_seconds(accel, interconnect, gpus)
    dims = dims_of(arch)
    message = dims.hidden * tokens * ACTIVATION_BYTES
    one = alpha + 2 * (gpus - 1) / gpus * message / (busbw * 1e9)
    return ALLREDUCES_PER_LAYER * dims.layers * one


def _weight_read_bytes(task: Task, batch: int) -> float:
    """Weights one step reads: all of a dense model; the experts `batch` tokens route to."""
    arch = _arch(task)
    return min(arch.params, _active(arch) * batch) * PRECISION_BYTES[task.precision]


def _attention_width(arch: ModelArch) -> int:
    dims = dims_of(arch)
    return dims.heads * dims.head_dim


def decode_step(
    task: Task,
    accel: AcceleratorSpec,
    gpus: int,
    interconnect: Interconnect,
    batch: int,
    kv_tokens: float,
) -> StepTime:
    """One decode step of `batch` sequences that each hold `kv_tokens` tokens of KV cache."""
    arch = _arch(task)
    kv = kv_bytes_per_token(arch, task.kv_precision) * kv_tokens * batch
    memory = (_weight_read_bytes(task, batch) + kv) / (gpus * _bandwidth(accel, "on.accelerator"))
    peak = tensor_peak_tflops(accel, task.precision)
    compute = 0.0
    if peak:
        layers = dims_of(arch).layers
        flops = batch * (2 * _active(arch) + 4 * layers * _attention_width(arch) * kv_tokens)
        compute = flops / (gpus * peak * 1e12)
    comm = tensor_parallel_seconds(arch, accel, interconnect, gpus, batch)
    return StepTime(memory, compute, comm)


def prefill_flops(task: Task, prompt_tokens: int) -> float:
    """2·N_active·P + 2·L·d_attn·P² (causal attention: P/2 positions on average, ×2 products)."""
    arch = _arch(task)
    layers = dims_of(arch).layers
    attention = 2 * layers * _attention_width(arch) * prompt_tokens**2
    return 2 * _active(arch) * prompt_tokens + attention


def prefill_bound_tokens_per_s(
    task: Task, accel: AcceleratorSpec, gpus: int, interconnect: Interconnect, prompt_tokens: int
) -> float | None:
    """Prompt tokens per second one prompt of `prompt_tokens` can at most be prefilled at: FLOPs
    at dense peak (or one read of the weights, if longer), plus the all-reduces."""
    peak = tensor_peak_tflops(accel, task.precision)
    if not peak:
        return None
    compute = prefill_flops(task, prompt_tokens) / (gpus * peak * 1e12)
    weights = _weight_read_bytes(task, prompt_tokens) / (gpus * _bandwidth(accel, "on.accelerator"))
    comm = tensor_parallel_seconds(_arch(task), accel, interconnect, gpus, prompt_tokens)
    return prompt_tokens / (max(compute, weights) + comm)


def ttft_seconds(
    task: Task,
    accel: AcceleratorSpec,
    gpus: int,
    interconnect: Interconnect,
    prompt_tokens: int,
    mfu: float = PREFILL_MFU,
) -> float | None:
    """Time to first token of one prompt alone: its FLOPs at `mfu` of dense peak, one read of
    the weights (not overlapped: short prompts are bound by it) and the all-reduces."""
    peak = tensor_peak_tflops(accel, task.precision)
    if not peak:
        return None
    compute = prefill_flops(task, prompt_tokens) / (gpus * peak * 1e12 * mfu)
    weights = _weight_read_bytes(task, prompt_tokens) / (gpus * _bandwidth(accel, "on.accelerator"))
    comm = tensor_parallel_seconds(_arch(task), accel, interconnect, gpus, prompt_tokens)
    return compute + weights + comm


def generation_tokens_per_s(
    task: Task,
    accel: AcceleratorSpec,
    gpus: int,
    interconnect: Interconnect,
    batch: int,
    prompt_tokens: int,
    output_tokens: int,
) -> float:
    """Output tokens per second a benchmark of `batch` requests of `prompt_tokens` in and
    `output_tokens` out can reach at most.

    The first output token comes from the prefill; output_tokens − 1 decode steps follow, each
    reading the KV cache of prompt + half the output on average. Engines fuse prefill chunks into
    decode steps (chunked prefill, in-flight batching), so the time is at least the larger of all
    memory reads and all FLOPs, plus every all-reduce.
    """
    arch = _arch(task)
    steps = max(output_tokens - 1, 0)
    step = decode_step(task, accel, gpus, interconnect, batch, prompt_tokens + output_tokens / 2)
    peak = tensor_peak_tflops(accel, task.precision)
    prefill_compute = 0.0
    if peak:
        prefill_compute = batch * prefill_flops(task, prompt_tokens) / (gpus * peak * 1e12)
    memory = steps * step.memory_seconds
    compute = prefill_compute + steps * step.compute_seconds
    prefill_comm = tensor_parallel_seconds(arch, accel, interconnect, gpus, batch * prompt_tokens)
    seconds = max(memory, compute) + steps * step.comm_seconds + prefill_comm
    return batch * output_tokens / seconds


def per_sequence_bytes(task: Task) -> int:
    """Bytes per GPU each further sequence of `context_len` adds to the memory plan, taken where
    the chunked prefill's workspace no longer grows with the sequences (a paged server prefills
    at most PREFILL_CHUNK_TOKENS at once), so that the figure holds for a full server."""
    base = max(1, math.ceil(PREFILL_CHUNK_TOKENS / task.context_len) + 1)
    one = task_memory(replace(task, concurrent_sequences=base)).per_gpu.total
    two = task_memory(replace(task, concurrent_sequences=base + 1)).per_gpu.total
    return max(two - one, 1)


def max_concurrency(task: Task, headroom_bytes: int, per_sequence: int | None = None) -> int:
    """Sequences of `context_len` that fit: the task's own plus what its GPU's headroom holds
    (fewer when the headroom is negative)."""
    per_sequence = per_sequence_bytes(task) if per_sequence is None else per_sequence
    return max(0, task.concurrent_sequences + math.floor(headroom_bytes / per_sequence))


def serving_estimate(
    task: Task,
    accel: AcceleratorSpec,
    gpus: int,
    interconnect: Interconnect | None = None,
    *,
    headroom_bytes: int,
    per_sequence: int | None = None,
) -> ServingEstimate:
    """What `task` serves on `gpus` of `accel` (a MIG slice's spec for a slice), with
    `headroom_bytes` free on its GPU beside everything placed there."""
    arch = _arch(task)
    interconnect = default_interconnect(accel, gpus) if interconnect is None else interconnect
    batch = task.concurrent_sequences
    step = decode_step(task, accel, gpus, interconnect, batch, task.context_len / 2)
    peak = tensor_peak_tflops(accel, task.precision)
    notes = [
        msg(
            Code.SERVING_NOTE_DECODE,
            sequences=batch,
            context_len=task.context_len,
            bandwidth=Quantity(accel.memory_bandwidth_gbps or 0, Unit.COUNT, 0),
            peak=Quantity(peak or 0, Unit.COUNT, 0),
        )
    ]
    if gpus > 1:
        alpha, busbw, source = allreduce_latency_seconds(accel, interconnect, gpus)
        notes.append(
            msg(
                Code.SERVING_NOTE_ALLREDUCE,
                gpus=gpus,
                allreduces=ALLREDUCES_PER_LAYER * dims_of(arch).layers,
                latency=Quantity(alpha * 1e6, Unit.COUNT, 1),
                busbw=Quantity(busbw, Unit.COUNT, 0),
                source=source,
            )
        )
    prompt = task.context_len
    ttft = ttft_seconds(task, accel, gpus, interconnect, prompt)
    if ttft is not None:
        notes.append(
            msg(Code.SERVING_NOTE_TTFT, prompt=prompt, mfu=Quantity(PREFILL_MFU, Unit.COUNT, 2))
        )
    return ServingEstimate(
        concurrency=batch,
        stream_tokens_per_s=1 / step.seconds,
        aggregate_tokens_per_s=batch / step.seconds,
        bound=step.bound,
        step_seconds=step.seconds,
        comm_seconds=step.comm_seconds,
        max_concurrency=max_concurrency(task, headroom_bytes, per_sequence),
        prompt_tokens=prompt,
        prefill_tokens_per_s=prefill_bound_tokens_per_s(task, accel, gpus, interconnect, prompt),
        ttft_seconds=ttft,
        notes=tuple(notes),
    )


def decode_tokens_per_s(
    task: Task, accel: AcceleratorSpec, gpus: int = 1, interconnect: Interconnect | None = None
) -> float:
    """Upper bound on each stream's decode tokens/s while the task's `concurrent_sequences`
    decode together (one stream when it is 1), with the all-reduces of tensor parallelism."""
    interconnect = default_interconnect(accel, gpus) if interconnect is None else interconnect
    step = decode_step(
        task, accel, gpus, interconnect, task.concurrent_sequences, task.context_len / 2
    )
    return 1 / step.seconds
