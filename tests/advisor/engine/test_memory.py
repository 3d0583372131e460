"""Memory model: golden cases from the papers and documents docs/memory-model.md cites."""

from __future__ import annotations

from dataclasses import replace

import pytest

from advisor.engine.capacity import usable_bytes
from advisor.engine.memory import (
    dims_of,
    eager_score_bytes,
    kv_bytes_per_token,
    layer_bytes_per_token,
    lora_adapter_params,
    suggest_fixes,
    task_memory,
)
from advisor.engine.memory_plan import NF4_BYTES_PER_PARAM, OVERHEAD_BYTES, MemoryPlan
from advisor.engine.messages import Code, Message, Quantity, Unit, gib, msg
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


def english(messages: tuple[Message, ...] | list[Message]) -> list[str]:
    return [m.english() for m in messages]


def codes(messages: tuple[Message, ...] | list[Message]) -> list[Code]:
    return [m.code for m in messages]


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
    result = formulas["optimizer"]
    assert result.code is Code.FORMULA_RESULT
    sharded = result.params["formula"]
    assert isinstance(sharded, Message) and sharded.code is Code.FORMULA_SHARDED
    assert (sharded.params["gpus"], sharded.params["sharding"]) == (64, "zero3")
    assert sharded.params["formula"] == msg(
        Code.FORMULA_OPTIMIZER_MASTER,
        params=msg(Code.PARAMS_BILLIONS, billions=7.5),
        bytes_per_param=12,
        optimizer="adamw",
    )
    assert result.english() == (
        "7.5B params × 12 B (adamw, fp32 master copy) ÷ 64 GPUs (zero3) = 1.31 GiB"
    )
    assert formulas["weights"].english() == "7.5B params × 2 B (bf16) ÷ 64 GPUs (zero3) = 0.22 GiB"


def test_every_formula_renders_as_the_documented_text() -> None:
    """The English rendering of each formula shape, composed from nested messages."""
    lora = task_memory(preset_task("llama-3.1-8b", kind="lora", precision="fp32"))
    assert {key: f.english() for key, f in lora.formulas.items()} == {
        "weights": "8.03B params × 4 B (fp32) + 41.94M params adapters × 4 B = 30.07 GiB",
        "gradients": "41.94M params × 4 B (fp32 gradients) = 0.16 GiB",
        "optimizer": "41.94M params × 8 B (adamw) = 0.31 GiB",
        "activations": "32 layers × 2048 tokens × 336,456 B kept per token (FlashAttention/SDPA,"
        " no s² scores) + final norm and RoPE tables 2048 tokens × 17,412 B + the larger of the"
        " loss, 2048 tokens × 128256 vocab × 16 B (Hugging Face), and one layer's backward 2048"
        " tokens × 147,456 B = 24.48 GiB",
        "overhead": "CUDA context + allocator 1.00 GiB",
    }
    qlora = task_memory(
        preset_task("llama-2-7b", kind="qlora", activation_checkpointing="selective", gpus=2)
    )
    assert qlora.formulas["weights"].english() == (
        "6.476B params × 0.5159 B (NF4 + double quant) + 0.2621B params embeddings × 4 B (fp32)"
        " + 39.98M params adapters × 2 B = 4.16 GiB"
    )
    assert qlora.formulas["activations"].english() == (
        "32 layers × 2048 tokens × 170,344 B kept per token (FlashAttention/SDPA, no s² scores)"
        " + final norm and RoPE tables 2048 tokens × 16,900 B + the larger of the loss, 2048"
        " tokens × 32000 vocab × 16 B (Hugging Face), and one layer's backward 2048 tokens ×"
        " 60,416 B = 11.41 GiB"
    )
    offloaded = task_memory(
        Task(
            name="t",
            kind="full_finetune",
            arch=ZERO_PAPER,
            sharding="zero3",
            offload="optimizer_and_params",
            activation_checkpointing="full",
            gpus=4,
        )
    )
    assert {key: f.english() for key, f in offloaded.formulas.items()} == {
        "weights": "offloaded to CPU (ZeRO-Infinity/FSDP CPU offload)",
        "gradients": "streamed to CPU in buckets (DeepSpeed ZeRO-Offload)",
        "optimizer": "offloaded to CPU",
        "activations": "34 layer inputs × 2048 tokens × 8,704 B + final norm and RoPE tables 2048"
        " tokens × 35,332 B + one layer recomputed with its backward 2048 tokens × 261,260 B"
        " (FlashAttention/SDPA, no s² scores) = 1.13 GiB",
        "overhead": "CUDA context + allocator 1.00 GiB + ZeRO-3 gathered 2 units × 0.2273B params"
        " × 2 B (bf16) + one unit's unsharded gradient 0.2273B params × 2 B = 2.27 GiB",
    }
    serve = task_memory(
        preset_task("llama-3.1-8b", kind="inference", concurrent_sequences=8, gpus=2)
    )
    assert {key: f.english() for key, f in serve.formulas.items()} == {
        "weights": "8.03B params × 2 B (bf16) ÷ 2 GPUs (tensor parallel) = 7.48 GiB",
        "kv_cache": "131,072 B/token (bf16) × 4096 tokens (4096 context in 16-token blocks) × 8"
        " sequences ÷ 2 GPUs (tensor parallel) = 2.00 GiB",
        "activations": "prefill 8192 tokens × 67,584 B + sampling logits 8 × 128256 vocab × 4 B"
        " = 0.52 GiB",
        "overhead": "CUDA context + allocator 1.00 GiB + 1.22 GiB left unused by the server"
        " (gpu_memory_utilization 90%) = 2.22 GiB",
    }
    image = task_memory(preset_task("sdxl", kind="inference", concurrent_sequences=2))
    assert image.formulas["activations"].english() == (
        "UNet at 128² latent pixels: 25,559,040 channel-values of skip connections + 41,943,040 "
        "of one layer, × 4 × 2 B + VAE decode 1024² pixels × 2 × 4,096 B = 8.50 GiB"
    )
    fixed = task_memory(Task(name="render", kind="fixed", vram_gib=20.5))
    assert fixed.formulas == {
        "overhead": msg(
            Code.FORMULA_RESULT,
            formula=msg(Code.FORMULA_FIXED, vram_gib=20.5),
            bytes=gib(int(20.5 * GiB)),
        )
    }
    assert fixed.formulas["overhead"].english() == "vram_gib 20.5 × 2^30 = 20.50 GiB"
    assert english(fixed.notes) == [
        "stated working set of a non-ML workload (vram_gib), taken as given"
    ]


# ---------------------------------------------------------------- optimizer and precision rules


@pytest.mark.parametrize(
    ("optimizer", "master", "bytes_per_param"),
    [
        ("adamw", True, 12),
        ("adamw", False, 4),
        ("adamw_8bit", True, 6),
        ("adamw_8bit", False, 2),
        ("sgd_momentum", True, 8),
        ("sgd_momentum", False, 2),
    ],
)
def test_optimizer_bytes_per_parameter(optimizer: str, master: bool, bytes_per_param: int) -> None:
    """Transformer Math 101 (blog.eleuther.ai/transformer-math): AdamW 12, 8-bit AdamW 6,
    SGD+momentum 8, each including the 4-byte fp32 master copy. Without the master copy (pure
    bf16, torchtune's default, LLaMA-Factory's pure_bf16) torch.optim.AdamW creates exp_avg and
    exp_avg_sq like the bf16 parameter (2 × 2 B) and SGD its momentum buffer (2 B); bitsandbytes'
    8-bit AdamW keeps two 1-byte states either way. LLaMA-Factory's table: full pure_bf16 8x GB
    = 2 + 2 + 4 B/param."""
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


def test_parameter_offload_leaves_the_gathered_layers_on_the_gpu() -> None:
    """DeepSpeed estimate_zero3_model_states_mem_needs: ZeRO-3 offload params+optim
    gpu = largest_layer_memory = 4 · largest layer params (its 16-bit weights and gradient);
    host holds 18 B/param. We add the unit prefetched behind it (FSDP backward_prefetch
    BACKWARD_PRE, DeepSpeed stage3_prefetch_bucket_size): 2 units × 2 B + one gradient × 2 B."""
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
    assert plan.per_gpu.overhead == OVERHEAD_BYTES + 2 * 2 * block + 2 * block
    assert plan.offloaded_bytes == 18 * arch.params


# --------------------------------------------------------------------------------- activations


def test_selective_recomputation_drops_exactly_the_eager_attention_scores() -> None:
    """Korthikanti et al. 2022 (arXiv:2205.05198): selective recomputation recomputes the attention
    core, whose s² tensors are what eager attention keeps (softmax output in fp32 and its 16-bit
    copy, 6 B per head and token pair, Hugging Face eager_attention_forward). Without
    recomputation eager attention also keeps k and v repeated to every query head (repeat_kv) and
    no log-sum-exp. FlashAttention and SDPA never keep the scores (Dao 2023, arXiv:2307.08691):
    with them selective recomputes nothing. Recomputed, the eager core keeps its inputs and
    output (no log-sum-exp) and needs the causal mask through the backward pass. The Hugging Face
    loss (16 B × 128,256 per token) is the peak in all of these, above one layer's backward."""
    arch = MODEL_PRESETS["llama-3.1-8b"]
    dims = dims_of(arch)
    tokens, layers, heads = 2048, dims.layers, dims.heads

    def acts(**fields: object) -> int:
        return task_memory(
            preset_task("llama-3.1-8b", kind="full_finetune", **fields)
        ).per_gpu.activations

    eager = preset_task("llama-3.1-8b", kind="full_finetune", attention="eager")
    assert eager_score_bytes(eager) == 6
    scores = 6 * heads * 2048
    repeated = 4 * 2 * dims.q_width - (2 * 2 * (dims.q_width + dims.kv_width) + 4 * heads)
    assert acts(attention="eager") - acts() == tokens * layers * (scores + repeated)
    lse, mask = 4 * heads * tokens * layers, 2 * 2048 * 2048
    assert acts(attention="eager", activation_checkpointing="selective") == (
        acts(activation_checkpointing="selective") - lse + mask
    )
    assert acts(activation_checkpointing="selective") == acts()


def test_full_recomputation_keeps_each_layer_input_and_the_loss_comes_before_any_layer() -> None:
    """Korthikanti et al.: full recomputation keeps the 2·s·b·h input of every layer and rebuilds
    one layer at a time. The loss's peak comes at the start of the backward pass, before any
    layer is recomputed, so the peak is the checkpoints plus the larger of the loss and one
    recomputed layer with its backward, not their sum: PyTorch's MemTracker measures exactly
    that (measure/data/memory.json, fake/llama-3.1-8b/2048/full_ckpt: 32 checkpoints, the final
    norm and RoPE tables and 12 B × 128,256 per token, tests/advisor/engine/
    test_memory_measured.py). With the Hugging Face loss (2 MB per token) the loss is the peak;
    with Liger's fused loss (4·h per token) the recomputed layer is."""
    dims = dims_of(MODEL_PRESETS["llama-3.1-8b"])
    task = preset_task("llama-3.1-8b", kind="lora")
    layer = layer_bytes_per_token(task, dims)
    none = task_memory(task).per_gpu.activations
    full = task_memory(replace(task, activation_checkpointing="full")).per_gpu.activations
    assert none - full == 2048 * dims.layers * (layer - 2 * dims.hidden)
    liger = replace(task, framework="liger", activation_checkpointing="full")
    fused_layer = layer_bytes_per_token(liger, dims)
    gradients = 2 * (2 * dims.intermediate + 2 * dims.hidden)
    # The final norm, frozen and fused (its 16-bit input and fp32 rsqrt), and RoPE's cos and sin.
    outside = 2 * dims.hidden + 4 + 2 * 2 * dims.head_dim
    assert task_memory(liger).per_gpu.activations == 2048 * (
        dims.layers * 2 * dims.hidden + outside + fused_layer + gradients
    )


def test_activation_notes_say_what_is_counted() -> None:
    notes = task_memory(preset_task("llama-3.1-8b", kind="full_finetune")).notes
    assert codes(notes) == [
        Code.MEMORY_NOTE_ACTIVATIONS_SAVED,
        Code.MEMORY_NOTE_ACTIVATIONS_PER_GPU,
    ]
    assert english(notes) == [
        "activations are the tensors autograd keeps for the backward pass, counted per layer of a "
        "LLaMA-style block (RMSNorm, SwiGLU MLP) after Korthikanti et al.; FlashAttention/SDPA, no "
        "s² scores",
        "each data-parallel GPU holds the activations of its own micro-batch",
    ]


def test_lora_qlora_and_offload_notes() -> None:
    qlora = task_memory(
        preset_task("llama-3.1-8b", kind="qlora", sharding="zero3", offload="optimizer")
    )
    adapters = lora_adapter_params(MODEL_PRESETS["llama-3.1-8b"], 16)
    assert codes(qlora.notes) == [
        Code.MEMORY_NOTE_QLORA_FP32_KEPT,
        Code.MEMORY_NOTE_LORA_TARGETS,
        Code.MEMORY_NOTE_ACTIVATIONS_SAVED,
        Code.MEMORY_NOTE_FROZEN_INPUTS,
        Code.MEMORY_NOTE_ACTIVATIONS_PER_GPU,
        Code.MEMORY_NOTE_HOST_RAM,
    ]
    assert qlora.notes[1].params["trainable"] == Quantity(adapters, Unit.COUNT)
    assert english(qlora.notes)[:2] == [
        "QLoRA through PEFT's prepare_model_for_kbit_training (the Hugging Face stack) keeps "
        "embeddings and LM head in fp32; linear layers in NF4",
        "LoRA rank 16 on q, k, v, o, gate, up, down of every layer: 41,943,040 trainable params "
        "(Σ r·(d_in + d_out))",
    ]
    assert qlora.notes[5] == msg(Code.MEMORY_NOTE_HOST_RAM, host=gib(qlora.offloaded_bytes))
    assert english(qlora.notes)[5] == "needs ~0.62 GiB of host RAM for offloaded states, job-wide"
    fused = task_memory(preset_task("llama-3.1-8b", kind="qlora", framework="unsloth"))
    assert codes(fused.notes)[0] == Code.MEMORY_NOTE_QLORA_BF16


def test_offloaded_activations_leave_two_layers_on_the_gpu_and_the_rest_in_host_ram() -> None:
    """torchtune's activation offloading and Unsloth's offloaded gradient checkpointing copy the
    saved tensors to host RAM, the layer being computed and the one being copied staying on the
    GPU."""
    dims = dims_of(MODEL_PRESETS["llama-3.1-8b"])
    task = preset_task("llama-3.1-8b", kind="lora", activation_checkpointing="full", gpus=2)
    offloaded = task_memory(replace(task, activation_offload=True))
    kept = task_memory(task)
    inputs = 2048 * 2 * dims.hidden
    host = (dims.layers - 2) * inputs  # the L checkpoints but the two in flight
    assert kept.per_gpu.activations - offloaded.per_gpu.activations == host
    assert offloaded.offloaded_bytes == 2 * host
    assert offloaded.notes[-1] == msg(Code.MEMORY_NOTE_HOST_RAM_ACTIVATIONS, host=gib(host))


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
    assert msg(Code.MEMORY_NOTE_SHAPE_ASSUMED, layers=33, hidden=4224) in notes
    assert (
        "shape not given: assumed params ≈ 12·L·h² with h = 128·L, giving L=33, h=4224 "
        "(activation, LoRA and ZeRO-3 layer figures are approximate)"
    ) in english(notes)


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


def test_lora_adapters_count_every_adapted_matrix_with_grouped_kv_widths() -> None:
    """LoRA (Hu et al. 2021, arXiv:2106.09685): params = Σ r·(d_in + d_out); Llama-3.1-8B k/v
    are 8·128 = 1024 wide, gate/up/down 4096 <-> 14336. The default adapts every linear layer,
    as LLaMA-Factory (lora_target "all") and Unsloth's notebooks do."""
    attention = 16 * ((4096 + 4096) + 2 * (4096 + 1024) + (4096 + 4096))
    mlp = 16 * 3 * (4096 + 14336)
    arch = MODEL_PRESETS["llama-3.1-8b"]
    assert lora_adapter_params(arch, 16, "attention") == 32 * attention
    assert lora_adapter_params(arch, 16) == 32 * (attention + mlp) == 41_943_040
    plan = task_memory(preset_task("llama-3.1-8b", kind="lora", lora_targets="attention"))
    assert plan.notes[0].params["targets"] == msg(Code.LORA_TARGETS_ATTENTION)


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
    assert codes(plan.notes) == [
        Code.MEMORY_NOTE_MOE_ALL_EXPERTS,
        Code.MEMORY_NOTE_PAGED_PREALLOCATES,
    ]
    assert english(plan.notes) == [
        "mixture of experts: every expert is held in memory, not only active ones",
        "a paged-KV server (vLLM, SGLang) takes 90% of the GPU at start-up whatever its load; "
        "nothing else fits beside it",
    ]


def test_a_fixed_task_needs_exactly_its_stated_memory() -> None:
    plan = task_memory(Task(name="render", kind="fixed", vram_gib=20))
    assert plan.per_gpu.total == 20 * GiB and not plan.sharded


# ----------------------------------------------------------------------------- suggestions


def test_70b_full_fine_tune_with_fsdp_on_8_a100_80gb_does_not_fit_and_says_what_would() -> None:
    """The vendor article's 70B case study: 16 B/param of model states (1.13 TB) exceed 8 × 80 GB;
    the estimate must name CPU offload, LoRA/QLoRA, or >= 16 such GPUs with ZeRO-3. At 16 GPUs the
    states are 65.7 GiB per GPU; with the gathered units (the 1.05B-parameter embedding, the unit
    prefetched behind it and one unit's gradient) the Hugging Face loss's 3.9 GiB of logits tip
    it over, so the fewest GPUs are 16 with Liger's fused loss (17 without), not 24."""
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
    assert [fix.code for fix in fixes] == [Code.FIX_PER_GPU_HOST_RAM] * 2 + [Code.FIX_PER_GPU] * 3
    labels = [fix.params["fix"] for fix in fixes]
    assert labels[:4] == [
        msg(Code.FIX_OFFLOAD_OPTIMIZER),
        msg(Code.FIX_ZERO3_OFFLOAD),
        msg(Code.FIX_LORA, rank=16),
        msg(Code.FIX_QLORA, rank=16),
    ]
    assert labels[4] == msg(
        Code.FIX_MORE_GPUS_MACHINES,
        how=msg(Code.FIX_WITH_LIGER_KERNELS, fix=msg(Code.FIX_HOW_ZERO3)),
        gpus=16,
        machines=2,
        per_machine=8,
    )
    assert english(fixes) == [
        "offload optimizer states to CPU: 29.84 GiB per GPU, needs ~1,051.33 GiB of host RAM",
        "ZeRO-3 with optimizer and parameters offloaded to CPU: 13.41 GiB per GPU, needs "
        "~1,182.75 GiB of host RAM",
        "LoRA (rank 16): 28.20 GiB per GPU",
        "QLoRA (NF4, rank 16): 16.87 GiB per GPU",
        "ZeRO-3 (FSDP) with Liger kernels over 16 GPUs of this size (2 machines of 8):"
        " 75.95 GiB per GPU",
    ]
    sixteen = replace(task, gpus=16)
    assert task_memory(sixteen).per_gpu.total > capacity
    assert task_memory(replace(sixteen, framework="liger")).per_gpu.total <= capacity


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
        per_gpu = fix.params["per_gpu"]
        assert isinstance(per_gpu, Quantity) and per_gpu.unit == "bytes"
        assert per_gpu.value <= capacity, fix.english()


def test_inference_suggestions_include_quantization_and_tensor_parallelism() -> None:
    task = preset_task("llama-3.1-70b", kind="inference")
    fixes = suggest_fixes(task, usable_bytes(48))
    labels = [fix.params["fix"] for fix in fixes]
    assert msg(Code.FIX_WEIGHTS_PRECISION, precision="int4") in labels
    # 70.55 GB > 47.4 GiB
    assert msg(Code.FIX_WEIGHTS_PRECISION, precision="int8") not in labels
    # 3 GPUs would hold it, but a tensor-parallel degree must divide the 64 heads
    assert msg(Code.FIX_MORE_GPUS, how=msg(Code.FIX_HOW_TENSOR_PARALLEL), gpus=4) in labels
    text = english(fixes)
    assert any(fix.startswith("int4 weights: ") for fix in text)
    assert any(fix.startswith("tensor parallel over 4 GPUs of this size: ") for fix in text)


def test_inference_suggestions_cap_the_concurrent_sequences() -> None:
    """16 × 32768 tokens × 128 KiB = 64 GiB of KV cache; with the weights, the prefill workspace
    and vLLM's unused 10 % it needs 89 GiB, and int8 weights are not enough."""
    task = preset_task("llama-3.1-8b", kind="inference", context_len=32768, concurrent_sequences=16)
    fixes = suggest_fixes(task, usable_bytes(80))
    assert fixes[2] == msg(Code.FIX_MAX_SEQUENCES, sequences=13, context_len=32768)
    assert english(fixes) == [
        "int4 weights: 77.84 GiB per GPU",
        "fp8 KV cache: 54.23 GiB per GPU",
        "at most 13 concurrent sequences of 32768 tokens fit",
        "tensor parallel over 2 GPUs of this size: 45.56 GiB per GPU",
    ]
    most = replace(task, concurrent_sequences=13)
    assert task_memory(most).per_gpu.total <= usable_bytes(80)
    assert task_memory(replace(most, concurrent_sequences=14)).per_gpu.total > usable_bytes(80)


def test_a_fixed_task_that_does_not_fit_asks_for_a_bigger_gpu() -> None:
    fixes = suggest_fixes(Task(name="sim", kind="fixed", vram_gib=30), usable_bytes(24))
    assert fixes == [msg(Code.FIX_BIGGER_GPU, bytes=gib(30 * GiB))]
    assert english(fixes) == ["a GPU with at least 30.00 GiB of usable memory"]
