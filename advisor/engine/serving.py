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

* **What measured servers reach** (ENGINE_RANGES): each engine family's share of the bandwidth,
  share of peak and fixed cost per layer of a forward pass at the slow end, expected and at the
  fast end of its published runs. The output rate of a service (served_tokens_per_s) counts
  every prompt's prefill (compute-bound) and the decode steps (memory-bound) at these, for the
  workload's prompt and output lengths (WORKLOAD_SHAPES or the task's); the time to first token
  (ttft_spread) adds one pass's fixed cost; both are ranges (Spread).
* **Over several machines** (NetworkLink) the all-reduces also cross the network: its
  small-message latency (19.9 µs over RDMA, NVIDIA/nccl-tests#150) and bus bandwidth
  (timing.network_busbw).

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
from advisor.engine.messages import Code, Message, Quantity, Unit, fraction, msg
from advisor.engine.timing import allreduce_anchor, network_busbw, tensor_tflops
from advisor.engine.types import AcceleratorSpec, Interconnect, ModelArch, Task
from advisor.engine.vocab import Network

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

# ------------------------------------------------------------------ what measured servers reach

# Prompt and output tokens per request by kind of use, where the task does not state them.
# chat: ShareGPT conversations as vLLM's and SGLang's serving benchmarks sample them, 215 prompt
#   tokens (215,196 over 1,000 prompts, vLLM benchmarks/benchmark_serving.py) and 194 output
#   tokens (SGLang's 4,281.51 tok/s at 22.03 req/s, sgl-project/sglang
#   benchmark/benchmark_vllm_060/README.md) per request on average, rounded up to 256 each;
# rag: retrieved passages in the prompt, 2,048 tokens (TensorRT-LLM's long-input benchmark
#   shape, docs/source/performance.md), a 256-token answer;
# batch: offline generation, TensorRT-LLM's 500-in/2,000-out shape (perf-overview.md).
WORKLOAD_SHAPES: dict[str, tuple[int, int]] = {
    "chat": (256, 256),
    "rag": (2048, 256),
    "batch": (500, 2000),
}


@dataclass(frozen=True)
class Efficiency:
    """How far a serving engine gets from the bounds: the share of the memory bandwidth its decode
    steps read at, the share of dense peak its prefill and compute-bound steps reach, and the
    fixed seconds each forward pass costs besides (scheduling, kernel launches, sampling)."""

    bandwidth: float
    mfu: float
    layer_overhead_s: float  # per layer of each forward pass

    def step_overhead(self, layers: int) -> float:
        """Fixed seconds of one forward pass through `layers` layers."""
        return self.layer_overhead_s * layers


@dataclass(frozen=True)
class EngineRange:
    """An engine family's efficiency at the slow end, expected and at the fast end of the
    published runs it is fitted to (docs/time-model.md, "What measured servers reach")."""

    slow: Efficiency
    expected: Efficiency
    fast: Efficiency


# Fitted so that every published run in tests/advisor/engine/test_serving_measured.py lies
# between the slow and the fast end (sources there and in docs/time-model.md):
# * TensorRT-LLM: the slow end is v0.5-v0.7's static batching on H200 (Llama 2 13B FP8, batch
#   1,024, 128/128 tokens: 11,819 tok/s, docs/source/blogs/H200launch.md; Llama 2 70B FP8, batch
#   960: 3,803 tok/s, docs/source/blogs/Falcon180B-H200.md) and v0.5's 7 ms first token of a
#   128-token prompt for GPT-J 6B FP8 on H100 (docs/source/performance.md, 4 ms beyond its FLOPs
#   and one weight read); the fast end v0.6.1's batch runs and 1.0's runs under maximum load
#   (perf-overview.md, 1.6-2.4 x below the bound).
# * vLLM: single streams at 77 % of the A100's bandwidth (vLLM 0.23, Llama 3.1 8B,
#   johnmusgrave.com "vLLM throughput-latency sweep on NVIDIA A100"); the slow end v0.5.3, whose
#   GPU worked 38 % of the time for Llama 3 8B on H100 (API server 33 %, scheduling 29 %:
#   https://blog.vllm.ai/2024/09/05/perf-update.html), and v0.2's 70B on 4 x A100
#   (vllm-project/vllm#2192, 2.6 x below the bound).
# * SGLang: within a few per cent of vLLM 0.6 on Llama 3.1 8B, A100 (4,281.51 against 4,132.37
#   output tok/s, sgl-project/sglang benchmark/benchmark_vllm_060/README.md): vLLM's range with a
#   faster slow end.
# * llama.cpp: one stream, F16 weights at 81-88 % of the bandwidth, Q4_K_M at 59 %
#   (XiongjieDai/GPU-Benchmarks-on-LLM-Inference, Llama 3 8B, RTX 4090 and 3090).
# * Hugging Face generate: no batching scheduler, no CUDA graphs; an assumption of ours (no
#   published run in the tests): half of vLLM's slow end, ten times its fixed cost per step.
ENGINE_RANGES: dict[str, EngineRange] = {
    "tensorrt_llm": EngineRange(
        slow=Efficiency(0.35, 0.35, 1.4e-4),
        expected=Efficiency(0.65, 0.6, 3e-5),
        fast=Efficiency(0.9, 0.8, 3e-6),
    ),
    "vllm": EngineRange(
        slow=Efficiency(0.35, 0.3, 1.9e-4),
        expected=Efficiency(0.6, 0.5, 6e-5),
        fast=Efficiency(0.85, 0.75, 1e-5),
    ),
    "sglang": EngineRange(
        slow=Efficiency(0.4, 0.35, 1.4e-4),
        expected=Efficiency(0.65, 0.55, 5e-5),
        fast=Efficiency(0.85, 0.75, 1e-5),
    ),
    "llama_cpp": EngineRange(
        slow=Efficiency(0.55, 0.3, 3e-5),
        expected=Efficiency(0.75, 0.45, 1.5e-5),
        fast=Efficiency(0.9, 0.65, 3e-6),
    ),
    "hf": EngineRange(
        slow=Efficiency(0.2, 0.15, 2e-3),
        expected=Efficiency(0.35, 0.3, 6e-4),
        fast=Efficiency(0.6, 0.5, 1e-4),
    ),
}
ENGINES = tuple(ENGINE_RANGES)

# All-reduce latency between machines over RDMA (InfiniBand, RoCE, EFA): NCCL all_reduce_perf,
# 8 B, 2 × A100 in two machines over HDR InfiniBand, 19.90 µs out of place (NVIDIA/nccl-tests#150).
# Plain Ethernet (NCCL's socket transport): three times that, an assumption of ours.
NETWORK_ALLREDUCE_LATENCY_S = 19.9e-6
SOCKET_LATENCY_FACTOR = 3.0


@dataclass(frozen=True)
class Spread:
    """A figure at the slow end, expected and at the fast end of the engine's range (for a cost
    or a latency, `low` is the fast end's: the smallest figure)."""

    low: float
    expected: float
    high: float


@dataclass(frozen=True)
class NetworkLink:
    """Tensor parallelism over `nodes` machines: the network between them."""

    nodes: int
    network: Network
    gbps: float  # per machine


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

    `stream_tokens_per_s`, `aggregate_tokens_per_s` and `prefill_tokens_per_s` are the bounds;
    `output_tokens_per_s` and `ttft` what the engine family is expected to reach, as a range
    from its published runs (ENGINE_RANGES), with the workload's prefill counted.
    """

    concurrency: int  # the task's concurrent_sequences
    stream_tokens_per_s: float  # each sequence's decode speed at that concurrency: a bound
    aggregate_tokens_per_s: float  # all sequences together, decode only: a bound
    bound: Bound  # what limits the decode step
    step_seconds: float
    comm_seconds: float  # all-reduces per decode step (tensor parallel)
    max_concurrency: int  # sequences of context_len that fit the free memory
    prompt_tokens: int  # the workload's prompt (of the time to first token too)
    prefill_tokens_per_s: float | None  # upper bound (None: no throughput figure)
    ttft_seconds: float | None  # expected (ttft.expected)
    notes: tuple[Message, ...] = ()
    output_tokens: int = 0  # the workload's output per request
    engine: str = "vllm"
    # Output tokens/s of all sequences with their prefill, slow end, expected, fast end.
    output_tokens_per_s: Spread | None = None
    # Share of the GPU time the prompts' prefill takes (expected): what input tokens cost.
    prefill_share: float = 0.0
    ttft: Spread | None = None  # fast end (low), expected, slow end (high)


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


def network_allreduce_latency(network: Network) -> float:
    """Small-message all-reduce latency between machines (NETWORK_ALLREDUCE_LATENCY_S)."""
    if network is Network.ETHERNET:
        return NETWORK_ALLREDUCE_LATENCY_S * SOCKET_LATENCY_FACTOR
    return NETWORK_ALLREDUCE_LATENCY_S


def tensor_parallel_seconds(
    arch: ModelArch,
    accel: AcceleratorSpec,
    interconnect: Interconnect,
    gpus: int,
    tokens: int,
    link: NetworkLink | None = None,
) -> float:
    """All-reduces of one forward pass over `tokens` tokens: 2 per layer, hidden × tokens × 2 B.

    Over several machines (`link`) each all-reduce is hierarchical, as NCCL's is: inside each
    machine at its interconnect, then between the machines at the network's latency and bus
    bandwidth (timing.network_busbw), 2(k−1)/k · S over the machine's link."""
    if gpus <= 1:
        return 0.0
    dims = dims_of(arch)
    message = dims.hidden * tokens * ACTIVATION_BYTES
    nodes = link.nodes if link is not None and link.nodes > 1 else 1
    per_node = math.ceil(gpus / nodes)
    one = 0.0
    if per_node > 1:
        alpha, busbw, _ = allreduce_latency_seconds(accel, interconnect, per_node)
        one += alpha + 2 * (per_node - 1) / per_node * message / (busbw * 1e9)
    if link is not None and nodes > 1:
        between = network_busbw(link.network, link.gbps)
        one += network_allreduce_latency(link.network)
        one += 2 * (nodes - 1) / nodes * message / (between * 1e9)
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
    link: NetworkLink | None = None,
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
    comm = tensor_parallel_seconds(arch, accel, interconnect, gpus, batch, link)
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


def workload_tokens(task: Task) -> tuple[int, int]:
    """(prompt, output) tokens per request: the task's, else its workload's (WORKLOAD_SHAPES).
    Defaults longer than the context shrink to it, in their proportion; the scenario refuses
    stated lengths over the context."""
    default_prompt, default_output = WORKLOAD_SHAPES[task.workload]
    prompt = task.prompt_tokens or default_prompt
    output = task.output_tokens or default_output
    context = task.context_len
    if prompt + output <= context:
        return prompt, output
    if task.prompt_tokens is not None:
        return prompt, max(1, context - prompt)
    if task.output_tokens is not None:
        return max(1, context - output), output
    prompt = max(1, math.floor(context * prompt / (prompt + output)))
    return prompt, max(1, context - prompt)


def engine_family(task: Task) -> str:
    """The serving engine whose efficiency applies: the task's, else vLLM for a paged KV cache
    and Hugging Face generate for `hf_generate`."""
    engine = getattr(task, "serving_engine", None)
    if engine:
        return str(engine)
    return "hf" if task.serving == "hf_generate" else "vllm"


@dataclass(frozen=True)
class RunSeconds:
    """GPU seconds of `batch` requests served together: their prefill and their decode."""

    prefill: float
    decode: float

    @property
    def total(self) -> float:
        return self.prefill + self.decode


def served_seconds(
    task: Task,
    accel: AcceleratorSpec,
    gpus: int,
    interconnect: Interconnect,
    batch: int,
    prompt_tokens: int,
    output_tokens: int,
    eff: Efficiency,
    link: NetworkLink | None = None,
) -> RunSeconds:
    """Seconds to serve `batch` requests of `prompt_tokens` in and `output_tokens` out together
    at efficiency `eff`: the prefill of every prompt (its FLOPs at eff.mfu of dense peak, or one
    read of the weights where the card has no throughput figure, plus its all-reduces), then
    output − 1 decode steps (the first token comes from the prefill), each over prompt + half
    the output cached tokens on average, at eff.bandwidth of the memory bandwidth or eff.mfu of
    peak, whichever is slower, plus its all-reduces and the step's fixed cost
    (Efficiency.step_overhead). A steady service of `batch` concurrent sequences runs this cycle
    over and over (continuous batching replaces each finished request), so its output rate is
    batch × output / total."""
    arch = _arch(task)
    bandwidth = gpus * _bandwidth(accel, "on.accelerator") * eff.bandwidth
    peak = tensor_peak_tflops(accel, task.precision)
    compute_rate = gpus * peak * 1e12 * eff.mfu if peak else None
    kv_tokens = prompt_tokens + output_tokens / 2
    kv = kv_bytes_per_token(arch, task.kv_precision) * kv_tokens * batch
    memory = (_weight_read_bytes(task, batch) + kv) / bandwidth
    compute = 0.0
    if compute_rate:
        layers = dims_of(arch).layers
        flops = batch * (2 * _active(arch) + 4 * layers * _attention_width(arch) * kv_tokens)
        compute = flops / compute_rate
    comm = tensor_parallel_seconds(arch, accel, interconnect, gpus, batch, link)
    steps = max(output_tokens - 1, 0)
    overhead = eff.step_overhead(dims_of(arch).layers)
    decode = steps * (max(memory, compute) + comm + overhead)
    prompts = batch * prompt_tokens
    if compute_rate:
        prefill = batch * prefill_flops(task, prompt_tokens) / compute_rate
    else:
        prefill = _weight_read_bytes(task, prompts) / bandwidth
    passes = math.ceil(prompts / PREFILL_CHUNK_TOKENS)
    prefill += passes * overhead
    prefill += tensor_parallel_seconds(arch, accel, interconnect, gpus, prompts, link)
    return RunSeconds(prefill, decode)


def served_tokens_per_s(
    task: Task,
    accel: AcceleratorSpec,
    gpus: int,
    interconnect: Interconnect,
    batch: int,
    prompt_tokens: int,
    output_tokens: int,
    engine: str | None = None,
    link: NetworkLink | None = None,
) -> Spread:
    """Output tokens per second of `batch` requests served together (served_seconds), at the
    slow end, expected and at the fast end of the engine's measured range."""
    family = ENGINE_RANGES[engine or engine_family(task)]
    out = []
    for eff in (family.slow, family.expected, family.fast):
        run = served_seconds(
            task, accel, gpus, interconnect, batch, prompt_tokens, output_tokens, eff, link
        )
        out.append(batch * output_tokens / run.total)
    return Spread(*out)


def ttft_spread(
    task: Task,
    accel: AcceleratorSpec,
    gpus: int,
    interconnect: Interconnect,
    prompt_tokens: int,
    engine: str | None = None,
    link: NetworkLink | None = None,
) -> Spread | None:
    """Time to first token of one prompt alone at the engine's fast end, expected and slow end:
    its FLOPs at eff.mfu of dense peak or one read of the weights at eff.bandwidth, whichever
    is slower (the roofline: short prompts are bound by the read), the all-reduces and one
    step's fixed cost.
    Queueing behind other requests is not included."""
    peak = tensor_peak_tflops(accel, task.precision)
    if not peak:
        return None
    family = ENGINE_RANGES[engine or engine_family(task)]
    arch = _arch(task)
    weights = _weight_read_bytes(task, prompt_tokens) / (gpus * _bandwidth(accel, "on.accelerator"))
    flops = prefill_flops(task, prompt_tokens) / (gpus * peak * 1e12)
    comm = tensor_parallel_seconds(arch, accel, interconnect, gpus, prompt_tokens, link)
    layers = dims_of(arch).layers
    out = [
        max(flops / eff.mfu, weights / eff.bandwidth) + comm + eff.step_overhead(layers)
        for eff in (family.fast, family.expected, family.slow)
    ]
    return Spread(*out)


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
    link: NetworkLink | None = None,
) -> ServingEstimate:
    """What `task` serves on `gpus` of `accel` (a MIG slice's spec for a slice), with
    `headroom_bytes` free on its GPU beside everything placed there; over several machines
    when `link` says so."""
    arch = _arch(task)
    interconnect = default_interconnect(accel, gpus) if interconnect is None else interconnect
    batch = task.concurrent_sequences
    step = decode_step(task, accel, gpus, interconnect, batch, task.context_len / 2, link)
    peak = tensor_peak_tflops(accel, task.precision)
    prompt, output = workload_tokens(task)
    engine = engine_family(task)
    family = ENGINE_RANGES[engine]
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
        per_node = math.ceil(gpus / link.nodes) if link is not None else gpus
        alpha, busbw, source = allreduce_latency_seconds(accel, interconnect, max(per_node, 2))
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
    if link is not None and link.nodes > 1:
        notes.append(
            msg(
                Code.SERVING_NOTE_NETWORK,
                nodes=link.nodes,
                network=link.network,
                latency=Quantity(network_allreduce_latency(link.network) * 1e6, Unit.COUNT, 1),
                busbw=Quantity(network_busbw(link.network, link.gbps), Unit.COUNT, 1),
            )
        )
    throughput = served_tokens_per_s(
        task, accel, gpus, interconnect, batch, prompt, output, engine, link
    )
    run = served_seconds(
        task, accel, gpus, interconnect, batch, prompt, output, family.expected, link
    )
    layers = dims_of(arch).layers
    notes.append(
        msg(
            Code.SERVING_NOTE_MEASURED,
            prompt=prompt,
            output=output,
            bandwidth=fraction(family.expected.bandwidth),
            mfu=fraction(family.expected.mfu),
            overhead=Quantity(family.expected.step_overhead(layers) * 1e3, Unit.COUNT, 2),
            slow=fraction(family.slow.bandwidth),
            fast=fraction(family.fast.bandwidth),
            share=fraction(run.prefill / run.total),
        )
    )
    ttft = ttft_spread(task, accel, gpus, interconnect, prompt, engine, link)
    if ttft is not None:
        notes.append(
            msg(
                Code.SERVING_NOTE_TTFT,
                prompt=prompt,
                mfu=fraction(family.expected.mfu),
                overhead=Quantity(family.expected.step_overhead(layers) * 1e3, Unit.COUNT, 2),
            )
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
        ttft_seconds=None if ttft is None else ttft.expected,
        notes=tuple(notes),
        output_tokens=output,
        engine=engine,
        output_tokens_per_s=throughput,
        prefill_share=run.prefill / run.total,
        ttft=ttft,
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
