"""Memory model: golden cases from the papers and documents docs/memory-model.md cites."""

from __future__ import annotations

from dataclasses import replace

import pytest

from advisor.engine.capacity import usable_bytes
from advisor.engine.memory import (
    NF4_BYTES_PER_PARAM,
    OVERHEAD_BYTES,
    MemoryPlan,
    dims_of,
    kv_bytes_per_token,
    lora_adapter_params,
    suggest_fixes,
    task_memory,
)
from advisor.engine.presets import MODEL_PRESETS
from advisor.engine.types import GB, GiB, ModelArch, Task

ZERO_PAPER = ModelArch(params=7_500_000_000)
LLAMA_65B = ModelArch(
    params=65_000_000_000,
    layers=80,
    hidden=8192,
    heads=64,
    kv_heads=64,
    head_dim=128,
    intermediate=22016,
    vocab=32000,
)
GPT3 = ModelArch(params=175_000_000_000, layers=96, hidden=12288, heads=96)


def model_states(plan: MemoryPlan) -> int:
    return plan.per_gpu.weights + plan.per_gpu.gradients + plan.per_gpu.optimizer


def preset_task(model: str, **fields) -> Task:
    return Task(name="t", model=model, arch=MODEL_PRESETS[model], **fields)


# ----------------------------------------------------------------------------- ZeRO paper


@pytest.mark.parametrize(
    ("sharding", "expected_gb"),
    [("none", 120), ("zero1", 31.4), ("zero2", 16.6), ("zero3", 1.875)],
)
def test_zero_paper_figure_1_model_states_per_gpu(sharding: str, expected_gb: float) -> None:
    """ZeRO paper (Rajbhandari et al. 2020, arXiv:1910.02054), Figure 1: Ψ = 7.5B, K = 12,
    Nd = 64 -> 120 / 31.4 / 16.6 / 1.9 GB per GPU (1.875 exactly), ±2 %."""
    task = Task(name="t", kind="full_finetune", arch=ZERO_PAPER, sharding=sharding, gpus=64)
    assert model_states(task_memory(task)) / GB == pytest.approx(expected_gb, rel=0.02)


def test_zero_stages_are_sharded_only_across_several_gpus() -> None:
    """Placement needs to know when per-GPU figures assume the GPUs work together."""
    ddp = task_memory(Task(name="t", kind="full_finetune", arch=ZERO_PAPER, gpus=8))
    zero2 = task_memory(
        Task(name="t", kind="full_finetune", arch=ZERO_PAPER, gpus=8, sharding="zero2")
    )
    single = task_memory(Task(name="t", kind="full_finetune", arch=ZERO_PAPER, sharding="zero3"))
    assert (ddp.sharded, zero2.sharded, single.sharded) == (False, True, False)


def test_data_parallel_without_zero_holds_everything_on_every_gpu() -> None:
    one = task_memory(Task(name="t", kind="full_finetune", arch=ZERO_PAPER))
    eight = task_memory(Task(name="t", kind="full_finetune", arch=ZERO_PAPER, gpus=8))
    assert one.per_gpu == eight.per_gpu


def test_zero3_formula_shows_the_division() -> None:
    task = Task(name="t", kind="full_finetune", arch=ZERO_PAPER, sharding="zero3", gpus=64)
    formulas = task_memory(task).formulas
    assert "÷ 64 GPUs (zero3)" in formulas["optimizer"]
    assert "12 B" in formulas["optimizer"] and "7.5B params" in formulas["weights"]


# ---------------------------------------------------------------- optimizer and precision rules


@pytest.mark.parametrize(
    ("optimizer", "master", "bytes_per_param"),
    [
        ("adamw", True, 12),
        ("adamw", False, 8),
        ("adamw_8bit", True, 6),
        ("sgd_momentum", True, 8),
        ("sgd_momentum", False, 4),
    ],
)
def test_optimizer_bytes_per_parameter(optimizer: str, master: bool, bytes_per_param: int) -> None:
    """Transformer Math 101 (blog.eleuther.ai/transformer-math): AdamW 12, 8-bit AdamW 6,
    SGD+momentum 8, each including the 4-byte fp32 master copy."""
    task = Task(
        name="t",
        kind="full_finetune",
        arch=ZERO_PAPER,
        optimizer=optimizer,
        master_weights=master,
    )
    assert task_memory(task).per_gpu.optimizer == bytes_per_param * ZERO_PAPER.params


def test_fp32_training_keeps_fp32_weights_and_gradients_and_no_master_copy() -> None:
    """Transformer Math 101: gradients 4 B in fp32; fp32 weights need no separate master copy
    (4 + 4 + 8 = 16)."""
    plan = task_memory(Task(name="t", kind="full_finetune", arch=ZERO_PAPER, precision="fp32"))
    p = ZERO_PAPER.params
    assert (plan.per_gpu.weights, plan.per_gpu.gradients, plan.per_gpu.optimizer) == (
        4 * p,
        4 * p,
        8 * p,
    )


def test_optimizer_offload_leaves_only_16_bit_weights_on_the_gpu() -> None:
    """DeepSpeed estimate_zero2_model_states_mem_needs: ZeRO-2 cpu_offload gpu = 2P; host holds
    16 B/param."""
    task = Task(
        name="t", kind="full_finetune", arch=ZERO_PAPER, sharding="zero2", offload="optimizer"
    )
    plan = task_memory(task)
    assert model_states(plan) == 2 * ZERO_PAPER.params
    assert plan.offloaded_bytes == 16 * ZERO_PAPER.params


def test_parameter_offload_leaves_one_gathered_layer_on_the_gpu() -> None:
    """DeepSpeed estimate_zero3_model_states_mem_needs: ZeRO-3 offload params+optim
    gpu = largest_layer_memory = 4 · largest layer params; host holds 18 B/param."""
    task = preset_task(
        "llama-2-7b",
        kind="full_finetune",
        sharding="zero3",
        offload="optimizer_and_params",
        activation_checkpointing="full",
    )
    plan = task_memory(task)
    arch = MODEL_PRESETS["llama-2-7b"]
    block = (arch.params - 2 * 32000 * 4096) // 32
    assert model_states(plan) == 0
    assert plan.per_gpu.overhead == OVERHEAD_BYTES + 4 * block
    assert plan.offloaded_bytes == 18 * arch.params


# --------------------------------------------------------------------------------- activations


@pytest.mark.parametrize(
    ("checkpointing", "expected_gb"),
    [("none", 275), ("selective", 82), ("full", 4.8 + 2.87)],
)
def test_gpt3_activation_worked_example(checkpointing: str, expected_gb: float) -> None:
    """Korthikanti et al. 2022 (arXiv:2205.05198) applied to GPT-3 175B (a=96, s=2048, h=12288,
    L=96, b=1): 275 GB without recompute, 82 GB selective, 4.8 GB full (we add the one layer,
    2.87 GB, that full recomputation rebuilds during backward)."""
    task = Task(name="t", kind="full_finetune", arch=GPT3, activation_checkpointing=checkpointing)
    assert task_memory(task).per_gpu.activations / GB == pytest.approx(expected_gb, rel=0.02)


def test_activation_notes_state_the_flashattention_upper_bound_caveat() -> None:
    notes = " ".join(task_memory(preset_task("llama-3.1-8b", kind="full_finetune")).notes)
    assert "upper bound" in notes and "FlashAttention" in notes


def test_activations_grow_with_micro_batch_and_are_not_divided_across_data_parallel_gpus() -> None:
    one = task_memory(preset_task("llama-3.1-8b", kind="full_finetune"))
    two = task_memory(preset_task("llama-3.1-8b", kind="full_finetune", micro_batch=2))
    sharded = task_memory(
        preset_task("llama-3.1-8b", kind="full_finetune", sharding="zero3", gpus=8)
    )
    assert two.per_gpu.activations == 2 * one.per_gpu.activations
    assert sharded.per_gpu.activations == one.per_gpu.activations


def test_a_model_given_by_params_only_gets_a_documented_shape() -> None:
    """Assumption params ≈ 12·L·h² with h = 128·L: 7B -> L ≈ 33, h ≈ 4200 (Llama-2-7B: 32, 4096)."""
    dims = dims_of(ModelArch(params=7_000_000_000))
    assert dims.approximated and dims.layers == 33 and dims.hidden == 128 * 33
    notes = task_memory(Task(name="t", kind="lora", arch=ModelArch(params=7 * 10**9))).notes
    assert any("12·L·h²" in note for note in notes)


# ----------------------------------------------------------------------------------- QLoRA


def test_qlora_65b_fits_one_48_gb_gpu_at_a_modest_sequence_length() -> None:
    """QLoRA (Dettmers et al. 2023, arXiv:2305.14314), abstract: 65B fine-tunes on a single 48 GB
    GPU; Guanaco 65B footprint 41 GB. Here seq 512, batch 1, full checkpointing, rank 16."""
    task = Task(
        name="t", kind="qlora", arch=LLAMA_65B, seq_len=512, activation_checkpointing="full"
    )
    total = task_memory(task).per_gpu.total
    assert total <= usable_bytes(48)
    assert total / GB == pytest.approx(41, rel=0.10)


def test_qlora_base_weights_cost_about_0_516_bytes_per_parameter() -> None:
    """QLoRA: NF4 with double quantization 4.127 bits ≈ 0.516 B/param, ±10 % (embeddings stay
    bf16)."""
    assert pytest.approx(0.516, abs=0.001) == NF4_BYTES_PER_PARAM
    weights = task_memory(Task(name="t", kind="qlora", arch=LLAMA_65B)).per_gpu.weights
    assert weights / LLAMA_65B.params == pytest.approx(0.516, rel=0.10)


def test_sixteen_bit_full_fine_tune_of_65b_needs_more_than_780_gb() -> None:
    """QLoRA: the paper's >780 GB is ~12 B/param; our mixed-precision AdamW
    accounting (ZeRO paper, 16 B/param of model states) gives 1040 GB, above it as required."""
    plan = task_memory(Task(name="t", kind="full_finetune", arch=LLAMA_65B))
    assert model_states(plan) == 16 * LLAMA_65B.params
    assert plan.per_gpu.total > 780 * GB


def test_lora_adapters_count_q_k_v_o_with_grouped_kv_widths() -> None:
    """LoRA (Hu et al. 2021, arXiv:2106.09685): params = Σ r·(d_in + d_out); Llama-3.1-8B k/v
    are 8·128 = 1024 wide."""
    per_layer = 16 * ((4096 + 4096) + 2 * (4096 + 1024) + (4096 + 4096))
    assert lora_adapter_params(MODEL_PRESETS["llama-3.1-8b"], 16) == 32 * per_layer


def test_lora_trains_adapters_at_16_bytes_per_parameter_over_frozen_bf16_weights() -> None:
    """LoRA memory (docs/memory-model.md): base bf16 2 B/param + adapters × (2 + 2 + 12) B."""
    arch = MODEL_PRESETS["llama-3.1-8b"]
    adapters = lora_adapter_params(arch, 16)
    plan = task_memory(preset_task("llama-3.1-8b", kind="lora"))
    assert plan.per_gpu.weights == 2 * arch.params + 2 * adapters
    assert (plan.per_gpu.gradients, plan.per_gpu.optimizer) == (2 * adapters, 12 * adapters)


# ---------------------------------------------------------------------- vendor article cases


def test_seed_7b_lora_fits_a_24_gb_rtx_4090_with_gradient_checkpointing() -> None:
    """The vendor article "2026多任务GPU平台怎么选", Q2: 7B LoRA on one RTX 4090. bf16, seq 2048,
    micro-batch 1, full checkpointing (what Hugging Face's gradient_checkpointing does: recompute
    each layer from its input)."""
    task = preset_task("llama-2-7b", kind="lora", activation_checkpointing="full")
    assert task_memory(task).per_gpu.total <= usable_bytes(24)


def test_seed_7b_lora_without_checkpointing_does_not_fit_a_24_gb_card() -> None:
    """Korthikanti et al.: without recomputation s=2048 activations of a 7B model are ~30 GB."""
    task = preset_task("llama-2-7b", kind="lora")
    assert task_memory(task).per_gpu.total > usable_bytes(24)


def test_seed_arithmetic_70b_times_20_bytes_is_1_4_tb_not_140_gb() -> None:
    """The vendor article: "70B模型约需140GB" with 20 B/param. 140 GB is 70B × 2 B (bf16 weights
    only); mixed-precision AdamW model states are 16 B/param = 1.13 TB for 70.55B, and 20 B/param
    would be 1.41 TB."""
    arch = MODEL_PRESETS["llama-3.1-70b"]
    states = model_states(task_memory(preset_task("llama-3.1-70b", kind="full_finetune")))
    weights_only = task_memory(preset_task("llama-3.1-70b", kind="inference")).per_gpu.weights
    assert weights_only / GB == pytest.approx(141.1, rel=0.01)
    assert states / 1e12 == pytest.approx(1.13, rel=0.01)
    assert 20 * arch.params / 1e12 == pytest.approx(1.41, rel=0.01)


def test_seed_65b_full_fine_tune_on_an_rtx_4090_does_not_fit() -> None:
    """The vendor article's 65B-on-a-4090 anecdote: 65B × 16 B of model states alone is 1040 GB
    against 24 GB."""
    task = Task(name="t", kind="full_finetune", arch=LLAMA_65B, activation_checkpointing="full")
    assert task_memory(task).per_gpu.total > 40 * usable_bytes(24)


# ------------------------------------------------------------------------------- inference


def test_llama_2_70b_bf16_weights_are_138_gb_and_need_two_80_gb_cards() -> None:
    """Llama-2-70B (config.json): 68.98B × 2 B = 138 GB (128.5 GiB), ±2 %; does not fit one 80 GB
    card; two are the minimum for the weights alone."""
    one = task_memory(preset_task("llama-2-70b", kind="inference"))
    two = task_memory(preset_task("llama-2-70b", kind="inference", gpus=2))
    assert one.per_gpu.weights / GB == pytest.approx(138, rel=0.02)
    assert one.per_gpu.weights / GiB == pytest.approx(128.5, rel=0.02)
    assert one.per_gpu.weights > usable_bytes(80)
    assert two.per_gpu.weights < usable_bytes(80) and two.sharded


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("llama-3.1-8b", 128 * 1024),
        ("llama-3.1-70b", 320 * 1024),
        ("llama-2-7b", 512 * 1024),
        ("qwen2.5-7b", 56 * 1024),
        ("deepseek-v3", 70_272),
    ],
)
def test_kv_cache_per_token_in_bf16_is_exact(model: str, expected: int) -> None:
    """2·L·kv_heads·head_dim·2 B from each config.json; MLA (512 + 64)·61·2 B = 70,272 B."""
    assert kv_bytes_per_token(MODEL_PRESETS[model], "bf16") == expected


def test_kv_cache_scales_with_context_sequences_and_tensor_parallel_degree() -> None:
    task = preset_task("llama-3.1-8b", kind="inference", context_len=8192, concurrent_sequences=16)
    assert task_memory(task).per_gpu.kv_cache == 128 * 1024 * 8192 * 16
    assert task_memory(replace(task, gpus=4)).per_gpu.kv_cache == 128 * 1024 * 8192 * 16 // 4
    fp8 = task_memory(replace(task, kv_precision="fp8")).per_gpu.kv_cache
    assert fp8 == 64 * 1024 * 8192 * 16


@pytest.mark.parametrize(("slice_gib", "fits"), [(10, False), (20, True), (40, True)])
def test_llama_3_1_8b_bf16_inference_does_not_fit_1g_10gb_but_fits_3g_40gb(
    slice_gib: int, fits: bool
) -> None:
    """15.0 GiB of weights do not fit a 1g.10gb slice; they fit 3g.40gb (and the 2-slot 1g.20gb,
    NVIDIA MIG User Guide)."""
    total = task_memory(preset_task("llama-3.1-8b", kind="inference")).per_gpu.total
    assert (total <= usable_bytes(slice_gib)) is fits


@pytest.mark.parametrize(("precision", "size"), [("fp32", 4), ("int8", 1), ("int4", 0.5625)])
def test_inference_weights_follow_the_precision(precision: str, size: float) -> None:
    """fp32 4, int8 1, int4 ≈ 0.5-0.56 incl. scales (we use 4.5 bits; docs/memory-model.md)."""
    plan = task_memory(preset_task("llama-3.1-8b", kind="inference", precision=precision))
    assert plan.per_gpu.weights == pytest.approx(MODEL_PRESETS["llama-3.1-8b"].params * size, abs=1)


def test_moe_inference_holds_every_expert() -> None:
    plan = task_memory(preset_task("deepseek-v3", kind="inference", precision="fp8"))
    assert plan.per_gpu.weights == MODEL_PRESETS["deepseek-v3"].params
    assert any("every expert" in note for note in plan.notes)


@pytest.mark.parametrize(("model", "allowance_gib"), [("sd-1.5", 1), ("sdxl", 4)])
def test_diffusion_inference_is_weights_plus_a_stated_allowance(
    model: str, allowance_gib: int
) -> None:
    plan = task_memory(preset_task(model, kind="inference", precision="fp16"))
    assert plan.per_gpu.weights == 2 * MODEL_PRESETS[model].params
    assert plan.per_gpu.activations == allowance_gib * GiB
    assert plan.per_gpu.kv_cache == 0
    assert any("allowance" in note for note in plan.notes)


def test_a_fixed_task_needs_exactly_its_stated_memory() -> None:
    plan = task_memory(Task(name="render", kind="fixed", vram_gib=20))
    assert plan.per_gpu.total == 20 * GiB and not plan.sharded


# ----------------------------------------------------------------------------- suggestions


def test_70b_full_fine_tune_with_fsdp_on_8_a100_80gb_does_not_fit_and_says_what_would() -> None:
    """The vendor article's 70B case study: 16 B/param of model states (1.13 TB) exceed 8 × 80 GB;
    the estimate must name CPU offload, LoRA/QLoRA, or >= 16 such GPUs with ZeRO-3."""
    task = preset_task(
        "llama-3.1-70b",
        kind="full_finetune",
        sharding="zero3",
        gpus=8,
        activation_checkpointing="full",
    )
    capacity = usable_bytes(80)
    assert task_memory(task).per_gpu.total > capacity
    fixes = suggest_fixes(task, capacity)
    text = "\n".join(fixes)
    assert "offload" in text and "LoRA" in text and "QLoRA" in text
    zero3 = next(fix for fix in fixes if fix.startswith("ZeRO-3 (FSDP) over"))
    assert "over 16 GPUs" in zero3 and "2 machines of 8" in zero3


def test_every_suggested_fix_is_computed_to_fit() -> None:
    task = preset_task(
        "llama-3.1-70b",
        kind="full_finetune",
        sharding="zero3",
        gpus=8,
        activation_checkpointing="full",
    )
    capacity = usable_bytes(80)
    for fix in suggest_fixes(task, capacity):
        per_gpu = float(fix.split(": ")[-1].split(" GiB")[0])
        assert per_gpu * GiB <= capacity, fix


def test_inference_suggestions_include_quantization_and_tensor_parallelism() -> None:
    task = preset_task("llama-3.1-70b", kind="inference")
    fixes = suggest_fixes(task, usable_bytes(48))
    assert any(fix.startswith("int4 weights") for fix in fixes)
    assert not any(fix.startswith("int8 weights") for fix in fixes)  # 70.55 GB > 47.4 GiB
    # 3 GPUs would hold it, but a tensor-parallel degree must divide the 64 heads
    assert any(fix.startswith("tensor parallel over 4 GPUs") for fix in fixes)


def test_a_fixed_task_that_does_not_fit_asks_for_a_bigger_gpu() -> None:
    fixes = suggest_fixes(Task(name="sim", kind="fixed", vram_gib=30), usable_bytes(24))
    assert fixes == ["a GPU with at least 30.00 GiB of usable memory"]
