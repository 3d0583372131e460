"""Serving (advisor/engine/serving.py): the decode step, tensor-parallel all-reduces, prefill,
time to first token, the largest concurrency that fits, and the figures the estimate and the
ranking carry. The published measurements the bounds are checked against are in
test_serving_published.py."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from decimal import Decimal

import pytest

from advisor.engine import serving
from advisor.engine.advise import advise
from advisor.engine.capacity import usable_bytes
from advisor.engine.errors import InvalidWorkload
from advisor.engine.estimate import estimate
from advisor.engine.hardware import load_accelerators
from advisor.engine.memory import dims_of, kv_bytes_per_token, task_memory
from advisor.engine.messages import Code
from advisor.engine.presets import MODEL_PRESETS
from advisor.engine.scenario import parse_scenario
from advisor.engine.timing import allreduce_anchor
from advisor.engine.types import OfferingSpec, PriceSpec, Scenario, Task
from advisor.engine.vocab import Interconnect

ACCELERATORS = load_accelerators()
NVLINK, PCIE, NONE = Interconnect.NVLINK, Interconnect.PCIE, Interconnect.NONE


def serve(model: str = "llama-3.1-8b", **fields: object) -> Task:
    return Task(name="chat", kind="inference", model=model, arch=MODEL_PRESETS[model], **fields)  # type: ignore[arg-type]


# ------------------------------------------------------------------------------- decode step


def test_one_stream_reads_the_weights_and_half_its_context_of_kv_per_token() -> None:
    """Decode is bound by memory bandwidth: each token reads the weights and the KV cache, on
    average half of the `context_len` it grows to (RTX 4090: 1008 GB/s, its spec page)."""
    task = serve("llama-2-7b", context_len=1000)
    arch = MODEL_PRESETS["llama-2-7b"]
    expected = 1008e9 / (2 * arch.params + kv_bytes_per_token(arch) * 500)
    card = ACCELERATORS["rtx-4090-24gb"]
    assert serving.decode_tokens_per_s(task, card) == pytest.approx(expected)
    step = serving.decode_step(task, card, 1, NONE, 1, 500)
    assert step.bound == "memory" and step.compute_seconds < step.memory_seconds / 50


def test_a_batch_reads_the_weights_once_so_the_aggregate_grows_and_each_stream_slows() -> None:
    task = serve(context_len=4096)
    card = ACCELERATORS["h100-sxm-80gb"]
    one = serving.serving_estimate(task, card, 1, headroom_bytes=0)
    many = serving.serving_estimate(
        replace(task, concurrent_sequences=32), card, 1, headroom_bytes=0
    )
    assert many.stream_tokens_per_s < one.stream_tokens_per_s
    assert many.aggregate_tokens_per_s > 10 * one.aggregate_tokens_per_s
    assert many.aggregate_tokens_per_s == pytest.approx(32 * many.stream_tokens_per_s)
    assert serving.decode_tokens_per_s(replace(task, concurrent_sequences=32), card) == (
        pytest.approx(many.stream_tokens_per_s)
    )


def test_a_large_batch_of_short_sequences_is_bound_by_compute() -> None:
    """2·N FLOPs per token (Kaplan et al. 2020) × batch at the dense BF16 peak (H100 SXM 989)."""
    task = serve(context_len=2)
    card = ACCELERATORS["h100-sxm-80gb"]
    step = serving.decode_step(task, card, 1, NONE, 4096, 1)
    assert step.bound == "compute"
    flops = 4096 * (2 * MODEL_PRESETS["llama-3.1-8b"].params + 4 * 32 * 4096 * 1)
    assert step.compute_seconds == pytest.approx(flops / 989e12)


def test_fp8_runs_at_twice_the_bf16_peak_on_hopper_and_ada_but_not_on_ampere() -> None:
    """H100 datasheet 989 BF16 / 1,979 FP8 dense; L40S 362 / 733; A100 has no FP8 units."""
    assert serving.tensor_peak_tflops(ACCELERATORS["h100-sxm-80gb"], "fp8") == 1978
    assert serving.tensor_peak_tflops(ACCELERATORS["l40s-48gb"], "fp8") == pytest.approx(724.1)
    assert serving.tensor_peak_tflops(ACCELERATORS["a100-80gb"], "fp8") == 312
    assert serving.tensor_peak_tflops(ACCELERATORS["h100-sxm-80gb"], "int4") == 989


def test_moe_decode_reads_the_active_experts_of_one_token() -> None:
    """DeepSeek-V3: 37.6B of 671B parameters active per token, FP8 (1 B) weights."""
    task = serve("deepseek-v3", precision="fp8")
    card = ACCELERATORS["h200-141gb"]
    arch = MODEL_PRESETS["deepseek-v3"]
    expected = 4800e9 / (arch.active_params + kv_bytes_per_token(arch) * 2048)
    assert serving.decode_tokens_per_s(task, card) == pytest.approx(expected)


def test_decode_without_a_bandwidth_figure_is_an_input_error() -> None:
    with pytest.raises(InvalidWorkload) as caught:
        serving.decode_tokens_per_s(serve("qwen2.5-7b"), ACCELERATORS["ascend-910b-64gb"])
    assert caught.value.code is Code.NO_BANDWIDTH_FIGURE
    assert caught.value.message == "no memory bandwidth figure for Ascend 910B"


# -------------------------------------------------------------------------- tensor parallel


def test_tensor_parallel_pays_two_all_reduces_per_layer_per_step() -> None:
    """Megatron-LM (Shoeybi et al. 2019): two all-reduces per layer; each α + 2(n−1)/n·S/busbw
    with S = hidden × batch × 2 B; α 10.1 µs on NVLink (sgl-project/sglang#2904)."""
    task = serve("llama-3.1-70b", context_len=2048)
    card = ACCELERATORS["h100-sxm-80gb"]
    busbw = allreduce_anchor(card, NVLINK, 8)[0]
    one = 10.1e-6 + 2 * 7 / 8 * 8192 * 16 * 2 / (busbw * 1e9)
    step = serving.decode_step(task, card, 8, NVLINK, 16, 1024)
    assert step.comm_seconds == pytest.approx(2 * 80 * one)
    assert serving.tensor_parallel_seconds(MODEL_PRESETS["llama-3.1-70b"], card, NVLINK, 1, 16) == 0


def test_eight_gpus_decode_less_than_eight_times_faster_and_pcie_pays_more() -> None:
    """The reads split over the GPUs, the all-reduces do not: 8 GPUs are less than 8× one GPU,
    and PCIe (40.06 µs per small all-reduce on 8×RTX 4090, NVIDIA/nccl#1530, and 8 GB/s of bus
    bandwidth between GeForce cards without peer-to-peer, timing.busbw_range) costs more than
    NVLink."""
    task = serve("llama-2-70b", precision="int4", context_len=2048)
    pcie = ACCELERATORS["rtx-4090-24gb"]
    one = serving.decode_step(task, pcie, 1, NONE, 1, 1024)
    eight = serving.decode_step(task, pcie, 8, PCIE, 1, 1024)
    assert eight.comm_seconds == pytest.approx(160 * (40.06e-6 + 2 * 7 / 8 * 8192 * 2 / 8e9))
    assert 1 / eight.seconds < 0.5 * 8 / one.seconds
    nvlink = ACCELERATORS["a100-80gb"]
    a100 = serving.decode_step(task, nvlink, 8, NVLINK, 1, 1024)
    assert a100.comm_seconds < eight.comm_seconds / 3


def test_pcie_latency_scales_with_the_rings_hops_and_a_bridge_pair_is_nvlink() -> None:
    card = ACCELERATORS["rtx-4090-24gb"]
    assert serving.allreduce_latency_seconds(card, PCIE, 8)[0] == pytest.approx(40.06e-6)
    assert serving.allreduce_latency_seconds(card, PCIE, 2)[0] == pytest.approx(40.06e-6 / 7)
    bridged = ACCELERATORS["h100-pcie-80gb"]
    assert serving.allreduce_latency_seconds(bridged, NVLINK, 2)[0] == pytest.approx(10.1e-6)
    assert serving.allreduce_latency_seconds(bridged, NVLINK, 4)[0] == pytest.approx(
        40.06e-6 * 3 / 7
    )


def test_estimate_on_eight_gpus_notes_the_all_reduces() -> None:
    task = serve("llama-3.1-70b", gpus=8)
    out = serving.serving_estimate(task, ACCELERATORS["h100-sxm-80gb"], 8, headroom_bytes=0)
    codes = [n.code for n in out.notes]
    assert codes == [
        Code.SERVING_NOTE_DECODE,
        Code.SERVING_NOTE_ALLREDUCE,
        Code.SERVING_NOTE_MEASURED,
        Code.SERVING_NOTE_TTFT,
    ]
    assert out.notes[1].params["allreduces"] == 160 and out.comm_seconds > 0


# ------------------------------------------------------------------------------------ prefill


def test_prefill_flops_are_2np_plus_the_causal_attention_term() -> None:
    task = serve("llama-2-7b")
    arch = MODEL_PRESETS["llama-2-7b"]
    assert serving.prefill_flops(task, 2048) == 2 * arch.params * 2048 + 2 * 32 * 4096 * 2048**2


def test_time_to_first_token_is_compute_at_the_prefill_mfu_plus_a_weight_read() -> None:
    task = serve("llama-2-7b", precision="fp16")
    card = ACCELERATORS["a100-80gb"]
    flops = serving.prefill_flops(task, 2048)
    weights = 2 * MODEL_PRESETS["llama-2-7b"].params / 2039e9
    ttft = serving.ttft_seconds(task, card, 1, NONE, 2048)
    assert ttft == pytest.approx(flops / (312e12 * serving.PREFILL_MFU) + weights)
    bound = serving.prefill_bound_tokens_per_s(task, card, 1, NONE, 2048)
    assert bound == pytest.approx(2048 / (flops / 312e12))
    no_peak = replace(card, bf16_tflops=None, fp16_tflops=None)
    assert serving.ttft_seconds(task, no_peak, 1, NONE, 2048) is None


def test_a_benchmark_run_counts_its_prefill_and_one_fewer_decode_steps() -> None:
    """B requests of P in, O out: O − 1 decode steps at P + O/2 cached tokens; prefill FLOPs
    share the steps (chunked prefill), so time ≥ max(all reads, all FLOPs)."""
    task = serve("llama-2-7b", precision="fp8", kv_precision="fp8")
    card = ACCELERATORS["h100-sxm-80gb"]
    short = serving.generation_tokens_per_s(task, card, 1, NONE, 64, 128, 128)
    step = serving.decode_step(task, card, 1, NONE, 64, 128 + 64)
    prefill = 64 * serving.prefill_flops(task, 128) / 1978e12
    seconds = max(127 * step.memory_seconds, prefill + 127 * step.compute_seconds)
    assert short == pytest.approx(64 * 128 / seconds)
    long_prompt = serving.generation_tokens_per_s(task, card, 1, NONE, 64, 2048, 128)
    assert long_prompt < short / 2


# ----------------------------------------------------------------------------- concurrency


def test_the_largest_concurrency_fills_the_free_memory_and_one_more_does_not_fit() -> None:
    task = serve("llama-3.1-8b", context_len=8192, concurrent_sequences=4)
    usable = usable_bytes(ACCELERATORS["a100-80gb"].vram_gib)
    headroom = usable - task_memory(task).per_gpu.total
    most = serving.max_concurrency(task, headroom)
    assert task_memory(replace(task, concurrent_sequences=most)).per_gpu.total <= usable
    assert task_memory(replace(task, concurrent_sequences=most + 1)).per_gpu.total > usable
    assert serving.max_concurrency(task, -10 * serving.per_sequence_bytes(task)) == 0


def test_the_estimate_on_named_hardware_has_serving_figures() -> None:
    data = {
        "tasks": [
            {
                "name": "chat",
                "kind": "inference",
                "model": "llama-3.1-8b",
                "context_len": 4096,
                "concurrent_sequences": 8,
                "on": {"accelerator": "h100-sxm-80gb"},
            }
        ]
    }
    """The figures from the published ones, by the module's formulas: Llama 3.1 8B has
    8,030,261,248 parameters, 32 layers of 32 query heads and 8 KV heads of 128 (Meta's
    llama-models sku_list and config); the H100 SXM reads 3,350 GB/s and computes 989 dense BF16
    TFLOPS (NVIDIA H100 datasheet, https://www.nvidia.com/en-us/data-center/h100/).

    * decode, 8 streams each halfway through 4,096 tokens: the BF16 weights (2 B a parameter)
      and 8 × 2,048 tokens of KV cache (2 × 32 × 8 × 128 × 2 B = 131,072 B a token) at
      3,350 GB/s: 5.435 ms a step, 184.0 tokens/s a stream, memory-bound;
    * prefill of the chat workload's 256-token prompt (serving.WORKLOAD_SHAPES): 2·N·P + 2·L·d·P²
      FLOPs, at dense peak (or one read of the weights, longer here) the prefill bound; the
      time to first token at vLLM's expected efficiency (serving.ENGINE_RANGES: 0.5 of peak,
      0.6 of the bandwidth, 60 µs per layer): the slower of the FLOPs and one read of the
      weights, plus 32 × 60 µs."""
    task = estimate(parse_scenario(data), ACCELERATORS).tasks[0]
    assert task.serving is not None and task.fit is not None
    params, layers, width, prompt = 8_030_261_248, 32, 32 * 128, 256
    bandwidth, peak = 3350e9, 989e12
    kv_per_token = 2 * layers * 8 * 128 * 2
    step = (params * 2 + kv_per_token * 2048 * 8) / bandwidth
    flops = 2 * params * prompt + 2 * layers * width * prompt**2
    assert task.serving.bound == "memory"
    assert task.serving.step_seconds == pytest.approx(step, rel=1e-9)
    assert task.serving.stream_tokens_per_s == pytest.approx(183.98, abs=0.01)
    assert task.decode_tokens_per_s == task.serving.stream_tokens_per_s
    assert task.serving.aggregate_tokens_per_s == pytest.approx(8 / step, rel=1e-9)
    assert task.serving.concurrency == 8 and task.serving.max_concurrency > 8
    assert task.serving.prompt_tokens == 256 and task.serving.output_tokens == 256
    assert task.serving.engine == "vllm"
    fastest = max(flops / peak, params * 2 / bandwidth)  # a short prompt: one read of weights
    assert task.serving.prefill_tokens_per_s == pytest.approx(prompt / fastest, rel=1e-9)
    expected = max(flops / (peak * 0.5), params * 2 / (bandwidth * 0.6)) + 32 * 60e-6
    assert task.serving.ttft_seconds == pytest.approx(expected, rel=1e-9)
    ttft = task.serving.ttft
    assert ttft is not None and ttft.low < ttft.expected == task.serving.ttft_seconds < ttft.high
    rate = task.serving.output_tokens_per_s
    assert rate is not None and rate.low < rate.expected < rate.high
    assert rate.high < task.serving.aggregate_tokens_per_s  # the bound stays above


def test_a_mig_slice_serves_at_its_share_of_the_bandwidth() -> None:
    """A 3g.40gb slice has 4 of 8 memory slices: half the bandwidth (NVIDIA MIG User Guide)."""

    def on(**extra: object) -> dict[str, object]:
        task = {"name": "chat", "kind": "inference", "model": "llama-3.1-8b"}
        return {"tasks": [{**task, "on": {"accelerator": "a100-80gb", **extra}}]}

    whole = estimate(parse_scenario(on()), ACCELERATORS).tasks[0].serving
    part = estimate(parse_scenario(on(mig_profile="3g.40gb")), ACCELERATORS).tasks[0].serving
    assert whole is not None and part is not None
    assert part.aggregate_tokens_per_s == pytest.approx(whole.aggregate_tokens_per_s / 2, rel=0.01)
    assert part.max_concurrency < whole.max_concurrency


# ------------------------------------------------------------------------------------ ranking


def _offer(oid: str, slug: str, unit: str, amount: str, gpus: int = 1) -> OfferingSpec:
    when = datetime(2026, 9, 30)
    price = PriceSpec(unit=unit, amount=Decimal(amount), currency="CNY", observed_at=when)  # type: ignore[arg-type]
    return OfferingSpec(
        id=oid,
        platform="p",
        platform_name="P",
        name=oid,
        accelerator=ACCELERATORS[slug],
        gpu_count=gpus,
        prices=(price,),
        interconnect=Interconnect.NVLINK if gpus > 1 else Interconnect.PCIE,
    )


def _advise(task: Task, *offers: OfferingSpec) -> list[object]:
    scenario = Scenario(tasks=(task,))
    return list(advise(scenario, offers, ACCELERATORS, now=datetime(2026, 10, 2)).recommendations)


def test_cost_per_million_tokens_is_the_hourly_price_over_tokens_per_hour() -> None:
    task = serve("llama-3.1-8b", concurrent_sequences=16, hours_per_month=200)
    (rec,) = _advise(task, _offer("h", "h100-sxm-80gb", "hour", "20.00"))
    (s,) = rec.serving  # type: ignore[attr-defined]
    rate = s.estimate.output_tokens_per_s
    per_hour = rate.expected * 3600
    assert s.cost_per_million_tokens == pytest.approx(Decimal("20.00") / Decimal(per_hour / 1e6))
    assert s.cost_low == pytest.approx(Decimal("20.00") / Decimal(rate.high * 3600 / 1e6))
    assert s.cost_high == pytest.approx(Decimal("20.00") / Decimal(rate.low * 3600 / 1e6))
    assert s.cost_low < s.cost_per_million_tokens < s.cost_high
    # Split by GPU time: the prefill's share over the input tokens, the rest over the output.
    share = s.estimate.prefill_share
    inputs = per_hour * s.estimate.prompt_tokens / s.estimate.output_tokens
    assert s.input_cost_per_million == pytest.approx(
        Decimal("20.00") * Decimal(share) / Decimal(inputs / 1e6)
    )
    assert s.output_cost_per_million == pytest.approx(
        s.cost_per_million_tokens * Decimal(1 - share)
    )
    assert s.currency == "CNY" and not s.instance_shared
    assert rec.decode_tokens_per_s == (("chat", s.estimate.stream_tokens_per_s),)  # type: ignore[attr-defined]


def test_a_prepaid_month_is_divided_by_the_tokens_of_the_busy_hours() -> None:
    """3,000 CNY a month, 100 busy hours: the plan over 100 hours of tokens."""
    task = serve("llama-3.1-8b", concurrent_sequences=16, hours_per_month=100)
    (rec,) = _advise(task, _offer("m", "h100-sxm-80gb", "month", "3000.00"))
    (s,) = rec.serving  # type: ignore[attr-defined]
    tokens = s.estimate.output_tokens_per_s.expected * 3600 * 100
    assert s.cost_per_million_tokens == pytest.approx(Decimal(3000) / Decimal(tokens / 1e6))


def test_an_instance_shared_with_another_task_is_split_by_gpu_hours() -> None:
    """The chat task and a notebook each hold one GPU of a 2-GPU instance around the clock: the
    chat's output pays half of the instance's month."""
    chat = serve("llama-3.1-8b", concurrent_sequences=16)
    notebook = Task(name="notebook", kind="fixed", vram_gib=8)
    scenario = Scenario(tasks=(chat, notebook))
    offers = (_offer("x2", "h100-sxm-80gb", "hour", "40.00", gpus=2),)
    (rec,) = advise(scenario, offers, ACCELERATORS, now=datetime(2026, 10, 2)).recommendations
    assert rec.instances == 1
    (s,) = rec.serving
    tokens = s.estimate.output_tokens_per_s.expected * 3600 * 720
    half = Decimal("40.00") * 720 / 2
    assert s.instance_shared
    assert s.cost_per_million_tokens == pytest.approx(half / Decimal(tokens / 1e6))


def test_a_recommendation_serves_on_the_gpus_the_placement_gives_the_task() -> None:
    """70B in bf16 needs more than one 80 GB card: tensor parallel over the instance's GPUs."""
    task = serve("llama-3.1-70b", gpus=4, concurrent_sequences=8)
    (rec,) = _advise(task, _offer("x4", "h100-sxm-80gb", "hour", "80.00", gpus=4))
    (s,) = rec.serving  # type: ignore[attr-defined]
    assert s.estimate.comm_seconds > 0
    codes = [n.code for n in s.estimate.notes]
    assert Code.SERVING_NOTE_ALLREDUCE in codes
    assert s.estimate.max_concurrency >= 8
    dims = dims_of(MODEL_PRESETS["llama-3.1-70b"])
    assert s.estimate.notes[1].params["allreduces"] == 2 * dims.layers
