"""Serving estimates against published measurements (serving.py; docs/time-model.md, "Serving").

Decode and throughput figures are upper bounds: each test asserts measured ≤ bound ≤ k × measured,
with k argued from what the bound leaves out for that kind of run. The time to first token is an
estimate at serving.PREFILL_MFU: it must lie within a factor of the measurement, and the prefill
bound (dense peak) must never exceed what was measured.

Sources, with the exact page each figure is read from:

* llama.cpp single-stream: XiongjieDai/GPU-Benchmarks-on-LLM-Inference, README.md, "LLaMA 3" table
  (llama-bench on RunPod, May 2024): Llama 3 8B, tg 512 (512 tokens generated from an empty
  context).
* TensorRT-LLM v0.6.1: NVIDIA/TensorRT-LLM docs/source/performance.md (commit 138f96d): "Peak
  Throughput" (H100 FP8, stated batch sizes, out tok/s/GPU) and "Low Latency" (v0.5 data, batch 1
  first-token latency). Its methodology names the models: Llama2-7b and Llama2-70b.
* TensorRT-LLM 1.0: docs/source/performance/perf-overview.md (commit 00f3768): Total Output
  Throughput under maximum load, FP8 ModelOpt checkpoints, KV cache up to 95 % of free memory.
* vLLM: vllm-project/vllm#2192 ("Custom all reduce kernels"), benchmark_latency.py with input 256,
  output 256.
"""

from __future__ import annotations

import math

import pytest

from advisor.engine import serving
from advisor.engine.capacity import usable_bytes
from advisor.engine.hardware import load_accelerators
from advisor.engine.memory import kv_bytes_per_token, task_memory
from advisor.engine.memory_plan import OVERHEAD_BYTES
from advisor.engine.presets import MODEL_PRESETS
from advisor.engine.types import Task
from advisor.engine.vocab import Interconnect

ACCELERATORS = load_accelerators()


def serve(model: str, **fields: object) -> Task:
    return Task(name="t", kind="inference", model=model, arch=MODEL_PRESETS[model], **fields)  # type: ignore[arg-type]


def ratio(bound: float, measured: float) -> float:
    return bound / measured


# ------------------------------------------------------------------------------ single stream


@pytest.mark.parametrize(
    ("slug", "precision", "measured", "k"),
    [
        ("rtx-4090-24gb", "bf16", 54.84, 1.35),
        ("rtx-3090-24gb", "bf16", 47.40, 1.35),
        ("rtx-4090-24gb", "int4", 130.58, 2.0),
    ],
)
def test_single_stream_decode_of_llama_3_8b_in_llama_cpp(slug, precision, measured, k) -> None:
    """llama.cpp, Llama 3 8B, tg 512 (XiongjieDai/GPU-Benchmarks-on-LLM-Inference README):
    RTX 4090 F16 54.84 tok/s, RTX 3090 F16 47.40 tok/s, RTX 4090 Q4_K_M 130.58 tok/s. A 512-token
    context (tg 512 starts empty, so a step reads 256 cached tokens on average, as the bound
    assumes). Bounds: 62.6, 58.2 and 221 tok/s.

    Tolerance: F16 decode streams the weights at 85-90 % of the spec bandwidth in llama.cpp's
    CUDA kernels, so k = 1.35 (the bound is 1.14 and 1.23 × the measurement). Q4_K_M is 4.85 bits
    a weight against the 4.5 of our int4 (4 bits + an fp16 scale per 32) and its dequantizing
    kernels reach about 60 % of the bandwidth: k = 2 (the bound is 1.70 ×).
    """
    task = serve("llama-3.1-8b", precision=precision, context_len=512)
    bound = serving.decode_tokens_per_s(task, ACCELERATORS[slug])
    assert measured <= bound <= k * measured


# ---------------------------------------------------------------- batches with a stated size


@pytest.mark.parametrize(
    ("batch", "prompt", "output", "measured", "k"),
    [
        (112, 128, 2048, 6_818, 1.6),
        (48, 2048, 2048, 2_740, 1.6),
        (80, 2048, 128, 2_244, 2.6),
    ],
)
def test_trtllm_v061_llama_2_7b_on_h100_fp8_at_stated_batch_sizes(
    batch, prompt, output, measured, k
) -> None:
    """TensorRT-LLM v0.6.1 performance.md, "Peak Throughput", H100 FP8 (FP8 KV cache, "--enable_fp8
    --fp8_kv_cache"), TP 1, Llama-2-7B: batch 112 at 128/2048 tokens 6,818 out tok/s; batch 48
    at 2048/2048 2,740; batch 80 at 2048/128 2,244. Bounds: 9,255, 3,544 and 5,293.

    Tolerance: the decode-heavy runs leave out only the kernels' distance from the spec bandwidth
    (attention over the paged cache reads at 70-80 %): k = 1.6 (bound 1.36 and 1.29 ×). The
    prefill-heavy 2048/128 run spends most of its time in prefill, which the bound runs at FP8
    peak and v0.6 reached about 40 % of it (its own 36 ms first-token latency for 2,048 tokens
    against 14.5 ms at peak): k = 2.6 (bound 2.36 ×).
    """
    task = serve("llama-2-7b", precision="fp8", kv_precision="fp8")
    card = ACCELERATORS["h100-sxm-80gb"]
    bound = serving.generation_tokens_per_s(task, card, 1, Interconnect.NONE, batch, prompt, output)
    assert measured <= bound <= k * measured


def test_vllm_llama_2_70b_on_four_a100_tensor_parallel() -> None:
    """vllm-project/vllm#2192: Llama 70B on 4×A100-80G (TP 4), batch 64, input 256, output 256:
    14.57 s with the custom all-reduce (16.37 s with NCCL), i.e. 64 × 256 / 14.57 = 1,125 output
    tok/s. The bound (FP16, with 160 all-reduces per step) is 2,914 tok/s.

    Tolerance k = 3: vLLM 0.2 (December 2023) ran its PagedAttention v1 kernels and a Python
    scheduler between steps; the PR's own 12 % gain from a faster all-reduce shows how much the
    communication and the per-step overheads weigh at this size.
    """
    task = serve("llama-2-70b", precision="fp16", kv_precision="fp16")
    card = ACCELERATORS["a100-80gb"]
    measured = 64 * 256 / 14.57
    bound = serving.generation_tokens_per_s(task, card, 4, Interconnect.NVLINK, 64, 256, 256)
    assert measured <= bound <= 3 * measured
    before = 64 * 256 / 16.37
    assert before < measured  # the all-reduce is a visible part of a tensor-parallel step


# -------------------------------------------------------------- maximum load (TensorRT-LLM 1.0)

TRTLLM_FREE_FRACTION = 0.9  # kv_cache_free_gpu_mem_fraction's default (TensorRT-LLM docs)


def _max_load(model: str, slug: str, gpus: int, prompt: int, output: int) -> tuple[float, Task]:
    """The bound at the largest concurrency the benchmark's KV cache holds (what its in-flight
    batching fills up), FP8 weights and KV cache. TensorRT-LLM sizes its KV cache as a fraction of
    the memory left after the weights (`kv_cache_free_gpu_mem_fraction`, 0.9 by default: the
    TensorRT-LLM docs, "Useful runtime options"), not as vLLM does (a fraction of the whole GPU,
    which our paged plan models), so the headroom here is 0.9 × what the rest leaves."""
    task = serve(model, precision="fp8", kv_precision="fp8", context_len=prompt + output, gpus=gpus)
    card = ACCELERATORS[slug]
    plan = task_memory(task).per_gpu
    rest = plan.weights + plan.kv_cache + plan.activations + OVERHEAD_BYTES
    headroom = math.floor(TRTLLM_FREE_FRACTION * (usable_bytes(card.vram_gib) - rest))
    # Each further sequence holds its K and V for every token (no vLLM-style reserve).
    per_sequence = math.ceil(
        kv_bytes_per_token(MODEL_PRESETS[model], "fp8") * (prompt + output) / gpus
    )
    batch = serving.max_concurrency(task, headroom, per_sequence)
    interconnect = Interconnect.NVLINK if gpus > 1 else Interconnect.NONE
    bound = serving.generation_tokens_per_s(task, card, gpus, interconnect, batch, prompt, output)
    return bound, task


@pytest.mark.parametrize(
    ("model", "slug", "gpus", "prompt", "output", "measured", "k"),
    [
        ("llama-3.1-8b", "h100-sxm-80gb", 1, 128, 2048, 22_714, 2.5),
        ("llama-3.1-70b", "h100-sxm-80gb", 2, 128, 2048, 6_651, 2.5),
        ("llama-3.1-405b", "h100-sxm-80gb", 8, 128, 2048, 4_340, 2.5),
        ("llama-3.1-405b", "h200-141gb", 8, 128, 2048, 5_348, 2.5),
        ("llama-3.1-405b", "h100-sxm-80gb", 8, 1000, 2000, 2_895, 2.5),
    ],
)
def test_trtllm_maximum_load_throughput(model, slug, gpus, prompt, output, measured, k) -> None:
    """TensorRT-LLM 1.0 perf-overview.md, Total Output Throughput under maximum load, FP8:
    Llama 3.1 8B on 1×H100 at 128/2048 tokens 22,714 tok/s; Llama 3.3 70B (Llama 3.1 70B's
    architecture) on 2×H100 TP 2 6,651; Llama 3.1 405B on 8×H100 TP 8 4,340, on 8×H200 TP 8
    5,348, and on 8×H100 at 1000/2000 2,895. Bounds: 1.6-2.4 × these.

    Tolerance k = 2.5. The concurrency is the one our memory plan fits with an FP8 KV cache (the
    optimistic side: a bf16 cache would halve it, and the measurement used at most 95 % of free
    memory); at several hundred sequences the step is near the compute roof, where FP8 GEMMs and
    attention reach 50-70 % of peak, and the all-reduces of 8-way tensor parallelism (hundreds
    of µs per step at these batch sizes) run near NCCL's bus bandwidth only for large messages.
    """
    bound, _ = _max_load(model, slug, gpus, prompt, output)
    assert measured <= bound <= k * measured


def test_eight_gpu_decode_is_bounded_near_the_measurement_only_with_its_all_reduces(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Llama 3.1 405B FP8 on 8×H100 TP 8, 128/2048 tokens, 4,340 tok/s (TensorRT-LLM 1.0
    perf-overview.md). Without the two all-reduces per layer and step (Megatron-LM, Shoeybi et
    al. 2019) the bound is 4.2 × the measurement; with them 2.3 × (test above, k = 2.5): the
    communication is nearly half of each step at this batch, which an 8-way split of the reads
    alone cannot show.
    """
    with_comm, _ = _max_load("llama-3.1-405b", "h100-sxm-80gb", 8, 128, 2048)
    monkeypatch.setattr(serving, "tensor_parallel_seconds", lambda *args, **kw: 0.0)
    without, _ = _max_load("llama-3.1-405b", "h100-sxm-80gb", 8, 128, 2048)
    assert without > 4 * 4_340
    assert with_comm < 0.6 * without


# --------------------------------------------------------------------- time to first token


@pytest.mark.parametrize(
    ("model", "slug", "precision", "gpus", "prompt", "measured_ms"),
    [
        ("llama-2-7b", "a100-80gb", "fp16", 1, 2048, 133),
        ("llama-2-70b", "a100-80gb", "fp16", 4, 2048, 377),
        ("llama-2-7b", "h100-sxm-80gb", "fp8", 1, 2048, 36),
        ("llama-2-70b", "h100-sxm-80gb", "fp8", 4, 2048, 109),
        ("llama-2-7b", "l40s-48gb", "fp8", 1, 2048, 73),
    ],
)
def test_time_to_first_token_of_a_2048_token_prompt(
    model, slug, precision, gpus, prompt, measured_ms
) -> None:
    """TensorRT-LLM v0.6.1 performance.md, "Low Latency" (v0.5 data), batch 1, 1st token latency
    for 2,048 input tokens: Llama-2-7B A100 FP16 133 ms, Llama-2-70B 4×A100 TP 4 377 ms, Llama-2-7B
    H100 FP8 36 ms, Llama-2-70B 4×H100 FP8 109 ms, Llama-2-7B L40S FP8 73 ms. Estimates: 160, 443,
    26, 89 and 74 ms.

    Tolerance: the estimate runs the FLOPs at a prefill MFU of 0.6, which v0.5's FP16 kernels beat
    (0.69 on A100) and its first FP8 kernels missed (about 0.4 of FP8 peak on H100): within a factor
    1.5 either way. The prefill bound, at dense peak, must never be slower than the measurement.
    """
    task = serve(model, precision=precision)
    card = ACCELERATORS[slug]
    interconnect = Interconnect.NVLINK if gpus > 1 else Interconnect.NONE
    measured = measured_ms / 1000
    estimate = serving.ttft_seconds(task, card, gpus, interconnect, prompt)
    assert estimate is not None
    assert measured / 1.5 <= estimate <= 1.5 * measured
    fastest = serving.prefill_bound_tokens_per_s(task, card, gpus, interconnect, prompt)
    assert fastest is not None and prompt / fastest <= measured
