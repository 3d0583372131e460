"""Training time of a mixture of experts, against published runs (docs/time-model.md, "Mixture of
experts"): how the experts run (Transformers' loop, grouped GEMM kernels, expert parallelism)
changes a Qwen3-30B-A3B step tenfold on the same GPUs.

The MoE utilisation (0.46 of a dense model's) is the geometric mean of the two runs it comes
from (Phi-3.5-MoE's card: 0.67 at steady state; Megatron-SWIFT's Qwen3-30B-A3B: 0.32), each 1.45
times from it: their published / expected lie within MOE = [1/1.45, 1.45] (with a hair of
rounding), and inside the range. The ZeRO-3 per-expert cost is derived from ms-swift's ZeRO-3
run: that test checks the derivation, not an independent figure.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from advisor.engine.capacity import usable_bytes
from advisor.engine.errors import InvalidWorkload
from advisor.engine.hardware import load_accelerators
from advisor.engine.memory import fix_variants, task_memory
from advisor.engine.messages import Code
from advisor.engine.presets import MODEL_PRESETS
from advisor.engine.scenario import parse_scenario
from advisor.engine.timing import (
    DEFAULT_MOE_IMPLEMENTATION,
    TimeEstimate,
    expert_split,
    is_moe,
    training_time,
)
from advisor.engine.types import ModelArch, Task
from advisor.engine.vocab import Network

ACCELERATORS = load_accelerators()
MOE = (1 / 1.46, 1.46)  # published / expected

# Qwen3-30B-A3B (Qwen/Qwen3-30B-A3B config.json: 48 layers × 2048, 32 query and 4 KV heads of
# 128, 128 experts of 768, 8 per token, vocab 151,936, untied): 30,532,122,624 parameters,
# 3,353,032,704 active, by the parameter counter of advisor/engine/presets.py.
QWEN3_30B_A3B = ModelArch(
    params=30_532_122_624,
    layers=48,
    hidden=2048,
    heads=32,
    kv_heads=4,
    head_dim=128,
    intermediate=6144,
    vocab=151936,
    active_params=3_353_032_704,
    experts=128,
    experts_per_token=8,
)
# Phi-3.5-MoE (microsoft/Phi-3.5-MoE-instruct config.json and model card: 32 layers × 4096, 32
# query and 8 KV heads of 128, 16 experts of 6,400, 2 per token; 42B parameters, 6.6B active).
PHI_35_MOE = ModelArch(
    params=41_873_153_344,
    layers=32,
    hidden=4096,
    heads=32,
    kv_heads=8,
    head_dim=128,
    intermediate=6400,
    vocab=32064,
    active_params=6_600_000_000,
    experts=16,
    experts_per_token=2,
)

# ms-swift's comparison (modelscope/ms-swift docs/source_en/BestPractices/Qwen3-Best-Practice.md,
# "Megatron-SWIFT", commit 0424f5306e20c59aa491ac4257cd084bd65cc645): Qwen3-30B-A3B full-parameter
# fine-tuning on two machines of 8 A800 80GB, 8,192-token packed sequences, global batch 16,
# micro-batch 1, full recomputation: Megatron-LM 9.6 s/it, DeepSpeed ZeRO-3 91.2 s/it (ZeRO-2
# runs out of memory). Megatron ran tensor parallel 2 × expert parallel 8 with grouped GEMM: the
# same 8,192 tokens per GPU and step as 16 data-parallel ranks.
SWIFT_RUN = Task(
    name="qwen3-30b-a3b",
    kind="full_finetune",
    arch=QWEN3_30B_A3B,
    tokens=16 * 8192 * 100,
    seq_len=8192,
    micro_batch=1,
    activation_checkpointing="full",
    gpus=16,
)


def _swift(**changes: object) -> TimeEstimate:
    task = replace(SWIFT_RUN, **changes)  # type: ignore[arg-type]
    return training_time(task, ACCELERATORS["a800-80gb"], 16, "nvlink", gpus_per_node=8)


def _per_step(e: TimeEstimate) -> tuple[float, float, float]:
    """(fast, expected, slow) seconds per step."""
    return e.low_hours * 3600 / e.steps, e.seconds_per_step, e.high_hours * 3600 / e.steps


def test_megatron_expert_parallel_qwen3_30b_a3b_at_9_6_s_per_step() -> None:
    """Published 9.6 s/it (ms-swift, above): Megatron's distributed optimizer (ZeRO-1) and
    expert parallelism over each machine's 8 GPUs. Expected 6.81 s: 6.30 s of compute at 0.46 of
    the dense utilisation and 0.51 s of all-to-all; published / expected 1.41."""
    fast, expected, slow = _per_step(_swift(sharding="zero1", moe_implementation="expert_parallel"))
    assert fast <= 9.6 <= slow, (fast, slow)
    assert MOE[0] <= 9.6 / expected <= MOE[1], 9.6 / expected


def test_zero3_with_transformers_loop_qwen3_30b_a3b_at_91_2_s_per_step() -> None:
    """Published 91.2 s/it (ms-swift, above; `swift sft --deepspeed zero3`, Transformers' loop,
    the default implementation). The per-expert cost is derived from this run: the check is
    that the engine puts it back together (expected 89.9 s), not an independent figure."""
    e = _swift(sharding="zero3")
    fast, expected, slow = _per_step(e)
    assert fast <= 91.2 <= slow, (fast, slow)
    assert 91.2 / expected == pytest.approx(1.0, abs=0.05)
    # The dense-utilisation estimate without the MoE terms was 3.55 s, 25 times too fast.
    assert expected > 20 * 3.55


def test_the_loop_under_zero3_is_ten_times_megatron_as_published() -> None:
    """ms-swift's two runs differ by 91.2 / 9.6 = 9.5×; the engine's by 13.2× (its Megatron
    estimate is the faster of the two): within 1.45× of the published ratio."""
    loop = _swift(sharding="zero3").seconds_per_step
    megatron = _swift(sharding="zero1", moe_implementation="expert_parallel").seconds_per_step
    assert 1 / 1.45 <= (91.2 / 9.6) / (loop / megatron) <= 1.45


def test_phi_3_5_moe_card_gpu_hours() -> None:
    """Published: 512 H100-80G for 23 days, 282,624 GPU-hours, for 4.9T tokens
    (microsoft/Phi-3.5-MoE-instruct model card, "Training"). Run as expert parallel over each
    machine's 8 GPUs, 4,096-token sequences, ZeRO-1, 16 accumulated micro-batches, 400 Gb/s
    InfiniBand per GPU. The dense-utilisation estimate gave 161,326 GPU-hours, 1.75 times too
    few; expected 357,459 (0.79), range 226k-789k."""
    task = Task(
        name="phi",
        kind="full_finetune",
        arch=PHI_35_MOE,
        tokens=4.9e12,
        seq_len=4096,
        gradient_accumulation=16,
        sharding="zero1",
        gpus=512,
        moe_implementation="expert_parallel",
    )
    e = training_time(
        task,
        ACCELERATORS["h100-sxm-80gb"],
        512,
        "nvlink",  # type: ignore[arg-type]
        gpus_per_node=8,
        network=Network.INFINIBAND,
        network_gbps=3200,
    )
    low, expected, high = e.low_hours * 512, e.hours * 512, e.high_hours * 512
    assert low <= 282_624 <= high, (low, high)
    assert MOE[0] <= 282_624 / expected <= MOE[1], 282_624 / expected


def test_expert_parallelism_never_gathers_the_experts() -> None:
    """Under ZeRO-3, expert parallelism gathers only the 1.5B non-expert weights, not the 29B of
    experts, and adds its all-to-all; grouped kernels without it gather all 61 GB each
    micro-batch. Where nothing hides communication (the slow end) that is 14.7 s against 15.7 s
    a step; the expected case hides the gathers behind the backward pass."""
    grouped = _per_step(_swift(sharding="zero3", moe_implementation="grouped_gemm"))
    parallel = _per_step(_swift(sharding="zero3", moe_implementation="expert_parallel"))
    assert parallel[2] < grouped[2] - 1.0
    assert parallel[1] == pytest.approx(grouped[1] + 0.51, abs=0.02)  # the all-to-all
    dense, routed = expert_split(QWEN3_30B_A3B)
    assert routed == pytest.approx(48 * 128 * 3 * 2048 * 768, rel=1e-9)
    assert dense + routed == QWEN3_30B_A3B.params


def test_deepseek_v3_expert_split_matches_its_config() -> None:
    """58 MoE layers × 256 routed experts × 3 matrices of 7,168 × 2,048: 653.9B routed, the
    rest (attention, dense layers, the shared expert, embeddings) 17.1B."""
    dense, routed = expert_split(MODEL_PRESETS["deepseek-v3"])
    assert routed == pytest.approx(58 * 256 * 3 * 7168 * 2048, rel=0.001)
    assert dense == pytest.approx(17.1e9, rel=0.01)


def test_a_dense_model_is_not_a_mixture() -> None:
    """Nothing changes for a dense model: no MoE note, the factor is 1."""
    arch = MODEL_PRESETS["llama-3.1-8b"]
    assert not is_moe(arch)
    task = Task(name="d", kind="lora", arch=arch, tokens=1e8)
    e = training_time(task, ACCELERATORS["a100-80gb"], 1, "none")
    assert Code.TIME_NOTE_MOE not in {n.code for n in e.notes}
    assert DEFAULT_MOE_IMPLEMENTATION == "expert_loop"


def _scenario(**fields: object) -> dict[str, object]:
    task = {"kind": "lora", "model": "deepseek-v3", "tokens": 1e8, "gpus": 8, **fields}
    return {"tasks": [task]}


def test_the_scenario_takes_an_implementation_and_refuses_it_where_it_cannot_be() -> None:
    parsed = parse_scenario(_scenario(moe_implementation="expert_parallel"))
    assert parsed.tasks[0].moe_implementation == "expert_parallel"
    with pytest.raises(InvalidWorkload) as raised:
        parse_scenario(_scenario(moe_implementation="expert_parallel", gpus=1))
    assert raised.value.code == Code.EXPERT_PARALLEL_NEEDS_GPUS
    with pytest.raises(InvalidWorkload) as raised:
        parse_scenario(_scenario(model="llama-3.1-8b", moe_implementation="grouped_gemm"))
    assert raised.value.code == Code.MOE_IMPLEMENTATION_NEEDS_MOE
    with pytest.raises(InvalidWorkload) as raised:
        parse_scenario(_scenario(moe_implementation="megablocks"))
    assert raised.value.code == Code.MUST_BE_ONE_OF
    arch = {"active_params": 3e9, "experts": 8, "experts_per_token": 9}
    with pytest.raises(InvalidWorkload) as raised:
        parse_scenario(_scenario(model=None, params=30e9, arch=arch))
    assert raised.value.code == Code.EXPERTS_PER_TOKEN_EXCEED_EXPERTS


# --------------------------------------------------------------- expert parallelism in memory


def test_expert_parallelism_splits_the_experts_in_memory() -> None:
    """Each of 8 GPUs keeps its 16 of the 128 experts whole and the 1.5B non-expert weights
    as the sharding says: 2 B × (1.53B + 29.0B / 8) = 9.6 GiB of bf16 weights, against 56.9
    GiB when every GPU holds every expert."""
    split = task_memory(replace(SWIFT_RUN, sharding="zero1", moe_implementation="expert_parallel"))
    whole = task_memory(replace(SWIFT_RUN, sharding="zero1", moe_implementation="grouped_gemm"))
    dense, routed = expert_split(QWEN3_30B_A3B)
    assert split.per_gpu.weights == pytest.approx(2 * (dense + routed / 8), rel=1e-6)
    assert whole.per_gpu.weights == pytest.approx(2 * (dense + routed), rel=1e-6)
    assert Code.MEMORY_NOTE_EXPERT_PARALLEL in {n.code for n in split.notes}


def test_megatron_qwen3_30b_a3b_holds_60_gib_per_gpu() -> None:
    """Published: 16 × 60 GiB for the Megatron run (ms-swift, above). The engine's is expert
    parallel over 8 with ZeRO-1 (Megatron's distributed optimizer) and no tensor parallelism,
    which would halve the 1.5B non-expert weights and part of the activations: 61.7 GiB,
    within 15 %."""
    plan = task_memory(replace(SWIFT_RUN, sharding="zero1", moe_implementation="expert_parallel"))
    assert plan.per_gpu.total / 2**30 == pytest.approx(60, rel=0.15)


def test_a_mixture_that_does_not_fit_is_offered_expert_parallelism() -> None:
    """Qwen3-30B-A3B LoRA on 8 GPUs of 24 GB, every GPU holding every expert (57 GiB of bf16
    weights), does not fit; with its experts split over the 8 it does, and that is offered."""
    task = replace(SWIFT_RUN, kind="lora", seq_len=2048, gpus=8)
    capacity = usable_bytes(24)
    assert task_memory(task).per_gpu.total > capacity
    split = [
        variant
        for _, variant in fix_variants(task, capacity)
        if variant is not None and variant.moe_implementation == "expert_parallel"
    ]
    assert split
    assert task_memory(split[0]).per_gpu.total <= capacity
