"""GPU memory a task needs, per GPU, by component, with the formula behind each number.

Model states follow the ZeRO paper's table (Rajbhandari et al. 2020, arXiv:1910.02054) and
EleutherAI's Transformer Math 101. Activations count, layer by layer, the tensors autograd keeps
for the backward pass of a LLaMA-style block (the method of Korthikanti et al. 2022,
arXiv:2205.05198, applied to RMSNorm, SwiGLU and FlashAttention), with what a frozen LoRA base
does not keep (Hu et al. 2021; Dettmers et al. 2023, arXiv:2305.14314), and peak at the larger of
the loss's hold on the logits and one layer's backward (with full checkpointing: its
recomputation), checked against PyTorch's MemTracker (tests/advisor/engine/
test_memory_measured.py); the trainer (`framework`) decides the loss, the kernels and the QLoRA
path.
Inference is weights, a paged or concatenated KV cache (KV heads, not query heads) and a prefill
workspace. docs/memory-model.md gives every formula
with its source and the published measurements the tests check. There is no single "bytes per
parameter" constant: each component is computed from the task's precision, optimizer, sharding,
offload, implementation choices and shape. Sizes are int bytes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from advisor.engine import diffusion
from advisor.engine.memory_plan import (
    NF4_BYTES_PER_PARAM,
    OFFLOAD_LAYERS_IN_FLIGHT,
    OVERHEAD_BYTES,
    PRECISION_BYTES,
    MemoryBreakdown,
    MemoryPlan,
    compute_precision,
    count_quantity,
    formula_result,
    optimizer_bytes_per_param,
    overhead_formula,
    params_label,
    per_gpu_fix,
    zero_divisors,
)
from advisor.engine.messages import Code, Message, Quantity, Unit, fraction, gib, msg
from advisor.engine.types import GiB, ModelArch, Precision, Task
from advisor.engine.vocab import TaskKind

# --- activations (docs/memory-model.md, "Training: activations"), bytes per token of one layer.
# Values are 16-bit (2 B) in mixed precision and 4 B in fp32 training: `_value_bytes`. The counts
# are what autograd saves for the backward pass, tensor by tensor, in the modules of Hugging Face's
# Llama (and Meta's reference code), checked against PyTorch's MemTracker in
# tests/advisor/engine/test_memory_measured.py.
# RMSNorm (LlamaRMSNorm: x.float(), x · rsqrt(mean(x²) + ε), cast back, scale) keeps its fp32
# input (4 B: the upcast copy, or in fp32 training the input itself) and the fp32 rsqrt statistic
# (4 B per token); trainable, also the normalised tensor (for the weight's gradient) and its
# output (the next projections' input), one value each: 8·h + 4 in 16-bit, 12·h + 4 in fp32.
NORM_FP32_INPUT_BYTES = 4
NORM_STAT_BYTES = 4
NORM_TRAINABLE_VALUES = 2
# A LoRA adapter's A matrix keeps its input (the norm's output, one value per hidden unit), its B
# matrix A's output (one value per rank).
ADAPTER_INPUT_VALUES = 1
# FlashAttention-2 and PyTorch SDPA keep q, k, v and the output (one value each) and the fp32
# log-sum-exp per head (4 B), never the s × s scores (Dao 2023, arXiv:2307.08691, Algorithm 1).
FLASH_LSE_BYTES = 4
# Eager attention (Hugging Face eager_attention_forward) repeats k and v to every query head
# (repeat_kv copies them), so its products keep q, the repeated k and v and the output: four
# q-wide tensors. Per head and token pair it keeps the fp32 softmax output (4 B, for the softmax
# backward) and its 16-bit copy (2 B, for the product with V; none in fp32, where .to() is a
# no-op): 6 B in mixed precision; Korthikanti et al. count 5 B with dropout and fp16 softmax.
EAGER_ATTENTION_TENSORS = 4
EAGER_SOFTMAX_BYTES = 4
# The softmax backward of the layer being differentiated holds the fp32 softmax output, its
# gradient and its input's gradient, 4 + 4 + 4 B per head and token pair, where the layer kept
# the scores (the 16-bit copy is freed once the product with V is differentiated).
EAGER_BACKWARD_SCORE_BYTES = 12
# SwiGLU MLP, trainable: gate and up outputs, silu(gate) and the product (the down projection's
# input): four intermediate-wide tensors. Frozen: the product is kept only for a down adapter.
MLP_TRAINABLE_TENSORS = 4
MLP_FROZEN_TENSORS = 3
# Backward workspace of the layer being differentiated: the gradients of its two widest tensors
# (the MLP's gate and up) and of the residual stream in and out.
WORKSPACE_INTERMEDIATE_TENSORS = 2
WORKSPACE_HIDDEN_TENSORS = 2
# RoPE's cos and sin tables (one value per token and head dimension each), made once per forward
# and kept by every layer's rotation (Su et al. 2021, arXiv:2104.09864; LlamaRotaryEmbedding).
ROPE_TABLES = 2
# --- the trainer (`framework`, docs/memory-model.md, "The loss").
# Bytes per token per vocabulary entry the loss holds at its peak. Hugging Face's default loss:
# 16-bit logits 2 + fp32 upcast 4 + fp32 log-softmax 4 + its fp32 gradient 4 + the 16-bit
# gradient 2 = 16. A plain PyTorch loop, F.cross_entropy(logits.float(), targets): nothing keeps
# the 16-bit logits or their fp32 copy past the forward (ToCopyBackward saves no tensor,
# LogSoftmaxBackward its output), and the peak is at the log-softmax's backward: its fp32 output,
# the gradient nll_loss hands it and the gradient it makes, 4 + 4 + 4 = 12 (the forward's
# 2 + 4 + 4 = 10 is lower). torchtune's CEWithChunkedOutputLoss keeps the 16-bit logits of every
# chunk (2) and builds the fp32 upcast, log-softmax and gradient (4 + 4 + 4) one of its 8 chunks
# at a time: 2 + 12/8 = 3.5. Liger's fused linear cross-entropy and Apple's Cut Cross Entropy
# (Unsloth) never materialise the logits.
LOSS_BYTES_PER_ENTRY: dict[str, float] = {"hf": 16, "pytorch": 12, "torchtune": 3.5}
# A fused loss keeps the final hidden state and its gradient: 2 + 2 B per hidden unit.
FUSED_LOSS_HIDDEN_BYTES = 4
LOSS_NAMES = {
    "hf": "Hugging Face",
    "pytorch": "PyTorch",
    "torchtune": "torchtune CEWithChunkedOutputLoss",
    "liger": "Liger FusedLinearCrossEntropy",
    "unsloth": "Unsloth CCE",
}
# Fused RMSNorm and SwiGLU kernels (Liger, Unsloth) keep a norm's 16-bit input instead of its
# fp32 copy (and the fp32 rsqrt statistic) and recompute silu(gate) in the backward pass.
FUSED_KERNELS = frozenset({"liger", "unsloth"})
NORM_FUSED_TRAINABLE_VALUES = 2  # 16-bit input + 16-bit output
NORM_FUSED_FROZEN_VALUES = 1
# QLoRA through bitsandbytes' Linear4bit (Hugging Face PEFT, also with Liger): MatMul4Bit saves
# its input whenever the input needs a gradient, although only the frozen weight's gradient
# would use it; PEFT's prepare_model_for_kbit_training casts every weight that is not 4-bit
# (embeddings, LM head) to fp32. A plain PyTorch loop (`pytorch`) is counted with torchao's NF4
# tensors, PyTorch's own (torchtune uses them), which do neither.
BNB_QLORA = frozenset({"hf", "liger"})

# --- ZeRO-3 / FSDP: the unit being computed and the next one, prefetched (FSDP's default
# backward_prefetch=BACKWARD_PRE and forward_prefetch; DeepSpeed's stage3_prefetch_bucket_size),
# each in the precision the weights are stored in (NF4 stays NF4 when gathered).
ZERO3_GATHERED_UNITS = 2

# --- inference (docs/memory-model.md, "Inference")
# vLLM's default block_size (16 tokens): a sequence's cache is allocated in whole blocks.
KV_BLOCK_TOKENS = 16
# vLLM's default gpu_memory_utilization: the server claims this fraction of the GPU.
GPU_MEMORY_UTILIZATION = 0.9
# vLLM profiles one forward pass of max_num_batched_tokens tokens (chunked prefill): 8192 for
# `vllm serve` on GPUs of 70 GiB or more (2048 below), EngineArgs.get_batch_defaults.
PREFILL_CHUNK_TOKENS = 8192
# Prefill workspace per token: the MLP's gate, up and activation (3 intermediate-wide 16-bit
# tensors) and the hidden states around it (3 hidden-wide); 110 KB/token for Llama-3.1-8B,
# vLLM's profiled peak (~108-111 KB/token in vllm-project/vllm#10517's logs).
PREFILL_INTERMEDIATE_BYTES = 6
PREFILL_HIDDEN_BYTES = 6
# Sampling logits per sequence and vocabulary entry: vLLM samples from fp32 logits (4 B);
# Hugging Face generate keeps the 16-bit last-token logits and their fp32 copy (2 + 4 B).
SAMPLING_LOGIT_BYTES = {"paged": 4, "hf_generate": 6}
# generate() with eager attention: one layer's scores at a time, the fp32 softmax and its 16-bit
# copy, 6 B per head and token pair.
PREFILL_SCORE_BYTES = 6

# Without published shapes we assume params ≈ 12·L·h² (Transformer Math 101 per-layer count) and
# h = 128·L, the aspect ratio of Llama-2-7B (4096/32) and GPT-3 175B (12288/96).
ASSUMED_HIDDEN_PER_LAYER = 128
ASSUMED_HEAD_DIM = 128  # every LLM preset (presets.py, from the models' configs) has 128-dim heads
# SwiGLU intermediate size when not given: 8/3·h, LLaMA's sizing (2/3 of a 4h MLP, Touvron et al.
# 2023), which keeps the assumed 12·h² per layer (4h² attention + 3·h·I MLP).
ASSUMED_MLP_RATIO = 8 / 3


@dataclass(frozen=True)
class Dims:
    """Transformer shape used by the formulas; `approximated` when derived from params alone."""

    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    vocab: int
    approximated: bool
    intermediate: int = 0

    @property
    def q_width(self) -> int:
        return self.heads * self.head_dim

    @property
    def kv_width(self) -> int:
        return self.kv_heads * self.head_dim


def dims_of(arch: ModelArch) -> Dims:
    """The arch's shape, filling what is missing from params with the documented assumptions."""
    layers, hidden = arch.layers, arch.hidden
    approximated = layers is None or hidden is None
    if layers is None and hidden is None:
        per_layer = 12 * ASSUMED_HIDDEN_PER_LAYER**2
        layers = max(1, round((arch.params / per_layer) ** (1 / 3)))
        hidden = ASSUMED_HIDDEN_PER_LAYER * layers
    elif hidden is None:
        assert layers is not None
        hidden = max(1, round(math.sqrt(arch.params / (12 * layers))))
    elif layers is None:
        layers = max(1, round(arch.params / (12 * hidden**2)))
    assert layers is not None and hidden is not None
    head_dim = arch.head_dim or (hidden // arch.heads if arch.heads else ASSUMED_HEAD_DIM)
    heads = arch.heads or max(1, hidden // max(head_dim, 1))
    return Dims(
        layers=layers,
        hidden=hidden,
        heads=heads,
        kv_heads=arch.kv_heads or heads,  # no GQA information: assume full multi-head KV
        head_dim=max(head_dim, 1),
        vocab=arch.vocab or 0,
        approximated=approximated,
        intermediate=arch.intermediate or round(ASSUMED_MLP_RATIO * hidden),
    )


def _arch(task: Task) -> ModelArch:
    if task.arch is None:  # parse_scenario always resolves one; a bug if not
        raise ValueError(f"task {task.name!r} has no resolved architecture")
    return task.arch


def _embedding_params(arch: ModelArch, dims: Dims) -> int:
    """Input embedding plus LM head (untied in every preset), capped at the model's size."""
    return min(2 * dims.vocab * dims.hidden, arch.params)


def _block_params(arch: ModelArch, dims: Dims) -> int:
    """One transformer block. With a derived shape the block is the assumed 12·h², not params/L,
    so that the figure never shrinks as params grow (params/L drops each time L steps up)."""
    if dims.approximated:
        return min(12 * dims.hidden**2, arch.params)
    return (arch.params - _embedding_params(arch, dims)) // dims.layers


def largest_layer_params(arch: ModelArch) -> int:
    """Parameters of the biggest single module: one transformer block or the embedding."""
    dims = dims_of(arch)
    return max(_block_params(arch, dims), _embedding_params(arch, dims) // 2)


def largest_tensor_params(arch: ModelArch) -> int:
    """The biggest single weight tensor: the embedding (vocab × h), or an MLP matrix (I × h)."""
    dims = dims_of(arch)
    return min(max(dims.vocab, dims.intermediate, dims.hidden) * dims.hidden, arch.params)


def kv_bytes_per_token(arch: ModelArch, kv_precision: Precision = "bf16") -> int:
    """KV-cache bytes per token: 2·L·kv_heads·head_dim·bytes, or (kv_lora + rope)·L·bytes for MLA.

    Use the config's num_key_value_heads, not the query heads (grouped-query attention).
    """
    if arch.family == "diffusion":
        return 0
    dims = dims_of(arch)
    size = PRECISION_BYTES[kv_precision]
    if arch.mla_kv_lora_rank is not None:
        width = arch.mla_kv_lora_rank + (arch.mla_rope_head_dim or 0)
        return math.ceil(width * dims.layers * size)
    return math.ceil(2 * dims.layers * dims.kv_heads * dims.head_dim * size)


def lora_adapter_params(arch: ModelArch, rank: int, targets: str = "all_linear") -> int:
    """Σ r·(d_in + d_out) over the adapted matrices of every layer: q, k, v, o (k/v are
    kv_heads·head_dim wide), and for `all_linear` also gate, up (h -> I) and down (I -> h)."""
    dims = dims_of(arch)
    q_width, kv_width, h = dims.q_width, dims.kv_width, dims.hidden
    per_layer = rank * ((h + q_width) + 2 * (h + kv_width) + (q_width + h))
    if targets == "all_linear":
        per_layer += rank * 3 * (h + dims.intermediate)
    return per_layer * dims.layers


def task_lora_params(task: Task) -> int:
    """The task's trainable LoRA parameters (its rank and targets)."""
    return lora_adapter_params(_arch(task), task.lora_rank, task.lora_targets)


def task_memory(task: Task) -> MemoryPlan:
    """Per-GPU memory of `task` on its `task.gpus` GPUs."""
    if task.kind == "fixed":
        stated = int((task.vram_gib or 0) * GiB)
        return MemoryPlan(
            gpus=task.gpus,
            per_gpu=MemoryBreakdown(overhead=stated),
            sharded=False,
            notes=(msg(Code.MEMORY_NOTE_FIXED_STATED),),
            formulas={
                "overhead": formula_result(msg(Code.FORMULA_FIXED, vram_gib=task.vram_gib), stated)
            },
        )
    if task.arch is not None and task.arch.family == "diffusion":
        return diffusion.task_memory(task)
    if task.kind == "inference":
        return _inference_memory(task)
    return _training_memory(task)


def holds_engine_pool(task: Task) -> bool:
    """Whether `task`'s need is a paged-KV server's memory pool (`_inference_memory`: the need ÷
    GPU_MEMORY_UTILIZATION): the server fills that share of the card by design
    (docs/advisor-rules.md, "Headroom")."""
    llm = task.arch is None or task.arch.family != "diffusion"
    return task.kind == "inference" and task.serving == "paged" and llm


# ----------------------------------------------------------------------------------------- training


@dataclass(frozen=True)
class _States:
    """Whole-model training states before sharding (bytes) and their formulas."""

    weights: int
    gradients: int
    optimizer: int
    trainable: int
    formulas: dict[str, Message]
    notes: tuple[Message, ...]


def _bytes_param(size: float) -> float | int:
    """A per-parameter byte count as formulas show it: 12, 3.5."""
    return int(size) if float(size).is_integer() else size


def _per_param(size: float) -> float | int | Quantity:
    """Bytes per parameter of a mix (NF4 blocks): whole numbers as they are, else 4 places."""
    return int(size) if float(size).is_integer() else Quantity(size, Unit.COUNT, 4)


def _base_weights(task: Task, arch: ModelArch) -> tuple[int, Message, Message | None]:
    """Bytes of the full model's weights as stored for training, formula, and a note."""
    if task.kind == "qlora":
        dims = dims_of(arch)
        kept = _embedding_params(arch, dims)
        quantized = arch.params - kept
        nf4 = math.ceil(quantized * NF4_BYTES_PER_PARAM)
        nf4_per_param = Quantity(NF4_BYTES_PER_PARAM, Unit.COUNT, 4)
        if task.framework in BNB_QLORA:
            # The Hugging Face stack prepares a k-bit model with PEFT's
            # prepare_model_for_kbit_training (TRL's SFTTrainer calls it), which casts every
            # weight that is not 4-bit, the embeddings and LM head included, to fp32.
            formula = msg(
                Code.FORMULA_WEIGHTS_NF4_FP32_KEPT,
                quantized=params_label(quantized),
                bytes_per_param=nf4_per_param,
                kept=params_label(kept),
            )
            return nf4 + kept * 4, formula, msg(Code.MEMORY_NOTE_QLORA_FP32_KEPT)
        formula = msg(
            Code.FORMULA_WEIGHTS_NF4,
            quantized=params_label(quantized),
            bytes_per_param=nf4_per_param,
            kept=params_label(kept),
        )
        return nf4 + kept * 2, formula, msg(Code.MEMORY_NOTE_QLORA_BF16)
    size = PRECISION_BYTES[task.precision]
    formula = msg(
        Code.FORMULA_WEIGHTS,
        params=params_label(arch.params),
        bytes_per_param=size,
        precision=task.precision,
    )
    return math.ceil(arch.params * size), formula, None


def _model_states(task: Task, arch: ModelArch) -> _States:
    precision = compute_precision(task)
    weight_size = PRECISION_BYTES[precision]
    opt_size = optimizer_bytes_per_param(task)
    weights, w_formula, note = _base_weights(task, arch)
    notes = [note] if note else []
    if task.kind == "full_finetune":
        trainable = arch.params
        largest = largest_tensor_params(arch)
    else:
        trainable = task_lora_params(task)
        largest = task.lora_rank * max(dims_of(arch).intermediate, dims_of(arch).hidden)
        weights += math.ceil(trainable * weight_size)
        w_formula = msg(
            Code.FORMULA_PLUS_ADAPTERS,
            formula=w_formula,
            adapters=params_label(trainable),
            bytes_per_param=weight_size,
        )
        targets = (
            Code.LORA_TARGETS_ALL_LINEAR
            if task.lora_targets == "all_linear"
            else Code.LORA_TARGETS_ATTENTION
        )
        notes.append(
            msg(
                Code.MEMORY_NOTE_LORA_TARGETS,
                rank=task.lora_rank,
                targets=msg(targets),
                trainable=count_quantity(trainable),
            )
        )
    label = params_label(trainable)
    gradients = math.ceil(trainable * weight_size)
    g_formula = msg(
        Code.FORMULA_GRADIENTS, params=label, bytes_per_param=weight_size, precision=precision
    )
    if task.fused_optimizer_step and largest < trainable:
        # torchtune optimizer_in_bwd: each parameter is stepped as soon as its gradient is ready
        # and the gradient freed, so only the largest tensor's gradient ever exists.
        gradients = math.ceil(largest * weight_size)
        g_formula = msg(
            Code.FORMULA_GRADIENTS_FUSED_STEP,
            params=params_label(largest),
            bytes_per_param=weight_size,
        )
    master = task.master_weights and precision != "fp32"
    return _States(
        weights=weights,
        gradients=gradients,
        optimizer=math.ceil(trainable * opt_size),
        trainable=trainable,
        formulas={
            "weights": w_formula,
            "gradients": g_formula,
            "optimizer": msg(
                Code.FORMULA_OPTIMIZER_MASTER if master else Code.FORMULA_OPTIMIZER,
                params=label,
                bytes_per_param=_bytes_param(opt_size),
                optimizer=task.optimizer,
            ),
        },
        notes=tuple(notes),
    )


def _value_bytes(task: Task) -> int:
    """Bytes of one activation value: 4 in fp32 training, else 2 (bf16/fp16 compute, also under
    a quantized base or fp8 matmuls, whose kernels keep their activations in 16-bit)."""
    return 4 if compute_precision(task) == "fp32" else 2


def _norm_bytes(task: Task, hidden: int, trainable: bool) -> int:
    """Bytes per token one RMSNorm keeps (NORM_* above)."""
    v = _value_bytes(task)
    if task.framework in FUSED_KERNELS:
        values = NORM_FUSED_TRAINABLE_VALUES if trainable else NORM_FUSED_FROZEN_VALUES
        return values * v * hidden + NORM_STAT_BYTES
    values = NORM_TRAINABLE_VALUES if trainable else 0
    return (NORM_FP32_INPUT_BYTES + values * v) * hidden + NORM_STAT_BYTES


def _layer_halves(task: Task, dims: Dims) -> tuple[int, int]:
    """Bytes per token one layer keeps for the backward pass, without the s² scores of eager
    attention, split into its attention half (the first norm, the q/k/v inputs, the attention
    tensors) and its MLP half (the second norm, the MLP's inputs and tensors).

    Full fine-tuning keeps what every weight gradient needs; a frozen LoRA/QLoRA base keeps only
    what the gradient flowing back to earlier adapters needs, plus each adapter's input and its
    A matrix's output.
    """
    v = _value_bytes(task)
    h, inter = dims.hidden, dims.intermediate
    if task.attention == "flash":  # q, k, v, output and the log-sum-exp
        attention = v * 2 * (dims.q_width + dims.kv_width) + FLASH_LSE_BYTES * dims.heads
    elif task.activation_checkpointing == "selective":
        # The recomputed core (repeat_kv, scores, softmax, product with V) keeps its inputs and
        # output only.
        attention = v * 2 * (dims.q_width + dims.kv_width)
    else:
        attention = EAGER_ATTENTION_TENSORS * v * dims.q_width
    recomputed_silu = 1 if task.framework in FUSED_KERNELS else 0
    if task.kind == "full_finetune":
        norm = _norm_bytes(task, h, trainable=True)
        return norm + attention, norm + (MLP_TRAINABLE_TENSORS - recomputed_silu) * v * inter
    # Every linear layer's input is kept when each has an adapter, or when bitsandbytes keeps it.
    all_inputs = task.lora_targets == "all_linear" or (
        task.kind == "qlora" and task.framework in BNB_QLORA
    )
    norm = _norm_bytes(task, h, trainable=False)
    adapter_input = ADAPTER_INPUT_VALUES * v * h
    rank = v * task.lora_rank  # one A matrix's output
    mlp_tensors = (MLP_TRAINABLE_TENSORS if all_inputs else MLP_FROZEN_TENSORS) - recomputed_silu
    mlp = norm + mlp_tensors * v * inter
    if all_inputs:
        mlp += adapter_input
    if task.lora_targets == "all_linear":
        mlp += 3 * rank  # gate, up, down
    return norm + adapter_input + 4 * rank + attention, mlp  # q, k, v, o


def layer_bytes_per_token(task: Task, dims: Dims) -> int:
    """Bytes one layer keeps per token for the backward pass, without the s² scores of eager
    attention (docs/memory-model.md, "Training: activations")."""
    return sum(_layer_halves(task, dims))


def eager_score_bytes(task: Task) -> int:
    """Bytes eager attention keeps per head and token pair: the fp32 softmax and its 16-bit copy
    (none in fp32 training)."""
    v = _value_bytes(task)
    return EAGER_SOFTMAX_BYTES + (v if v < EAGER_SOFTMAX_BYTES else 0)


def _outside_layers_bytes(task: Task, dims: Dims) -> int:
    """Bytes per token kept outside the layers: the final norm (trainable with the LM head) and
    RoPE's cos and sin tables."""
    norm = _norm_bytes(task, dims.hidden, trainable=task.kind == "full_finetune")
    return norm + ROPE_TABLES * _value_bytes(task) * dims.head_dim


def _attention_label(task: Task, recomputed: bool) -> Message:
    if task.attention == "flash":
        return msg(Code.ATTENTION_FLASH)
    return msg(Code.ATTENTION_RECOMPUTED if recomputed else Code.ATTENTION_EAGER)


@dataclass(frozen=True)
class _Activations:
    gpu: int
    host: int  # offloaded to host RAM, per GPU
    formula: Message


@dataclass(frozen=True)
class _Layers:
    """What the layers keep through the backward pass, and one layer's backward on top of it."""

    kept: int  # on the GPU
    host: int  # offloaded to host RAM, per GPU
    formula: Message
    backward: int  # the layer being differentiated: its workspace (and its recomputation)
    backward_formula: Message


def _layer_activations(task: Task, dims: Dims) -> _Layers:
    """The layers' share of the activations for one micro-batch.

    The backward pass runs a layer from its end: first its MLP, with the whole layer kept and the
    MLP's gradients on top; then, with the MLP's half freed, its attention, whose eager softmax
    backward holds 12 B per head and token pair. The layer being differentiated peaks at the
    larger of the two; with full checkpointing it is recomputed first, beside every checkpoint.
    """
    v = _value_bytes(task)
    s, tokens, layers = task.seq_len, task.seq_len * task.micro_batch, dims.layers
    attention_half, mlp_half = _layer_halves(task, dims)
    layer = attention_half + mlp_half
    eager = task.attention == "eager"
    scores = eager_score_bytes(task) * dims.heads * s if eager else 0
    mlp_gradients = v * (
        WORKSPACE_INTERMEDIATE_TENSORS * dims.intermediate + WORKSPACE_HIDDEN_TENSORS * dims.hidden
    )
    # The eager softmax's backward: the attention half, the fp32 softmax with its two gradients,
    # and the gradients of the residual stream.
    softmax_backward = (
        attention_half
        + EAGER_BACKWARD_SCORE_BYTES * dims.heads * s
        + v * WORKSPACE_HIDDEN_TENSORS * dims.hidden
        if eager
        else 0
    )
    checkpointing = task.activation_checkpointing
    if checkpointing == "full":
        # Each layer keeps its input; the layer being differentiated is recomputed in full, its
        # tensors beside every checkpoint (its own included, which the recomputation reads).
        per_layer = v * dims.hidden
        backward = max(layer + scores + mlp_gradients, softmax_backward)
        formula = msg(
            Code.FORMULA_ACTIVATIONS_INPUTS,
            layers=layers,
            tokens=tokens,
            input=count_quantity(per_layer),
        )
        backward_formula = msg(
            Code.FORMULA_RECOMPUTED_BACKWARD,
            tokens=tokens,
            per_token=count_quantity(backward),
            attention=_attention_label(task, recomputed=False),
        )
    else:
        # Selective recomputation (Korthikanti et al.) recomputes the attention core: with eager
        # attention only the layer being differentiated holds its s² scores; FlashAttention keeps
        # none to begin with. The backward term is what the layer holds beyond what it keeps.
        selective = checkpointing == "selective"
        per_layer = layer + (0 if selective else scores)
        backward = max(mlp_gradients, softmax_backward - per_layer)
        formula = msg(
            Code.FORMULA_ACTIVATIONS_LAYERS,
            layers=layers,
            tokens=tokens,
            per_token=count_quantity(per_layer),
            attention=_attention_label(task, recomputed=selective),
        )
        backward_formula = msg(
            Code.FORMULA_LAYER_BACKWARD, tokens=tokens, per_token=count_quantity(backward)
        )
    kept = layers
    if task.activation_offload:
        kept = min(layers, OFFLOAD_LAYERS_IN_FLIGHT)
        formula = msg(Code.FORMULA_ACTIVATIONS_IN_FLIGHT, formula=formula, kept=kept, layers=layers)
    return _Layers(
        kept=tokens * kept * per_layer,
        host=tokens * (layers - kept) * per_layer,
        formula=formula,
        backward=tokens * backward,
        backward_formula=backward_formula,
    )


def _loss(task: Task, dims: Dims, tokens: int) -> tuple[int, Message | None]:
    """The loss's peak (bytes) and its formula; none without a vocabulary (the shape note says
    the figures are approximate)."""
    if task.framework not in LOSS_BYTES_PER_ENTRY:  # a fused linear cross-entropy
        per_token = FUSED_LOSS_HIDDEN_BYTES * dims.hidden
        return tokens * per_token, msg(
            Code.FORMULA_FUSED_LOSS,
            tokens=tokens,
            per_token=count_quantity(per_token),
            loss=LOSS_NAMES[task.framework],
        )
    if not dims.vocab:
        return 0, None
    entry = LOSS_BYTES_PER_ENTRY[task.framework]
    return math.ceil(tokens * dims.vocab * entry), msg(
        Code.FORMULA_LOSS,
        tokens=tokens,
        vocab=dims.vocab,
        bytes_per_entry=_bytes_param(entry),
        loss=LOSS_NAMES[task.framework],
    )


def _training_activations(task: Task, arch: ModelArch) -> tuple[_Activations, list[Message]]:
    """The activations' peak: what the layers and the rest of the model keep, plus the larger of
    the loss (at the start of the backward pass, before any layer's backward) and one layer's
    backward (after the loss's tensors are freed)."""
    dims = dims_of(arch)
    tokens = task.seq_len * task.micro_batch
    layers = _layer_activations(task, dims)
    outside = _outside_layers_bytes(task, dims)
    formula = msg(
        Code.FORMULA_PLUS_OUTSIDE_LAYERS,
        formula=layers.formula,
        tokens=tokens,
        per_token=count_quantity(outside),
    )
    kept = layers.kept + tokens * outside
    if task.attention == "eager" and task.activation_checkpointing != "none":
        # The additive causal mask (s × s, made once per forward, broadcast over the batch) is an
        # input of every recomputed layer, so it lives through the backward pass.
        v = _value_bytes(task)
        kept += v * task.seq_len**2
        formula = msg(
            Code.FORMULA_PLUS_CAUSAL_MASK, formula=formula, tokens=task.seq_len, bytes_per_entry=v
        )
    loss, loss_formula = _loss(task, dims, tokens)
    if loss_formula is None:
        formula = msg(Code.FORMULA_PLUS_BACKWARD, formula=formula, backward=layers.backward_formula)
    else:
        formula = msg(
            Code.FORMULA_PLUS_LARGER_OF,
            formula=formula,
            loss=loss_formula,
            backward=layers.backward_formula,
        )
    notes = [msg(Code.MEMORY_NOTE_ACTIVATIONS_SAVED, attention=_attention_note(task))]
    if task.kind != "full_finetune":
        notes.append(msg(Code.MEMORY_NOTE_FROZEN_INPUTS))
    notes.append(msg(Code.MEMORY_NOTE_ACTIVATIONS_PER_GPU))
    gpu = kept + max(loss, layers.backward)
    return _Activations(gpu, layers.host, formula), notes


def _attention_note(task: Task) -> Message:
    return msg(Code.ATTENTION_FLASH if task.attention == "flash" else Code.ATTENTION_EAGER)


def _approximation_notes(arch: ModelArch) -> list[Message]:
    dims = dims_of(arch)
    if not dims.approximated:
        return []
    return [msg(Code.MEMORY_NOTE_SHAPE_ASSUMED, layers=dims.layers, hidden=dims.hidden)]


# ------------------------------------------------------------------------ mixture of experts

# Expert parallelism (moe_implementation "expert_parallel", docs/time-model.md "Mixture of
# experts") splits the routed experts over the GPUs of one machine: the task's GPUs, at most an
# 8-GPU board's (timing.DEFAULT_GPUS_PER_NODE).
EXPERT_PARALLEL_MAX_GPUS = 8


def expert_split(arch: ModelArch) -> tuple[float, float]:
    """(non-expert, routed-expert) parameters: with E experts of which k per token, the routed
    experts X and the rest D satisfy D + X = params and D + X·k/E = active_params; without E and
    k, the experts are taken as everything not active (X = params − active)."""
    params, active = float(arch.params), float(arch.active_params or arch.params)
    if arch.experts and arch.experts_per_token and arch.experts_per_token < arch.experts:
        routed = (params - active) / (1 - arch.experts_per_token / arch.experts)
        return params - routed, routed
    return active, params - active


def expert_parallel_gpus(task: Task) -> int:
    """GPUs a task's routed experts are split over: 1 unless it runs expert parallel."""
    arch = task.arch
    if arch is None or task.moe_implementation != "expert_parallel":
        return 1
    if not arch.active_params or arch.active_params >= arch.params:
        return 1
    return max(1, min(task.gpus, EXPERT_PARALLEL_MAX_GPUS))


def _split_experts(
    task: Task, arch: ModelArch, states: _States, divisors: tuple[int, int, int], ep: int
) -> tuple[tuple[int, int, int], Message]:
    """Per-GPU (weights, gradients, optimizer) when the routed experts are split over `ep` GPUs:
    each GPU keeps its own experts whole, the rest as `sharding` says (ZeRO over more GPUs
    already divides them further). A LoRA's adapters are left whole: they are small."""
    dense, routed = expert_split(arch)
    share = routed / (dense + routed)
    trains_experts = task.kind == "full_finetune"
    out = []
    for size, div, split in zip(
        (states.weights, states.gradients, states.optimizer),
        divisors,
        (True, trains_experts, trains_experts),
        strict=True,
    ):
        if split:
            out.append(math.ceil(size * (1 - share) / div + size * share / max(div, ep)))
        else:
            out.append(math.ceil(size / div))
    note = msg(Code.MEMORY_NOTE_EXPERT_PARALLEL, share=fraction(share), gpus=ep)
    weights, gradients, optimizer = out
    return (weights, gradients, optimizer), note


def _training_memory(task: Task) -> MemoryPlan:
    arch = _arch(task)
    states = _model_states(task, arch)
    div_w, div_g, div_o = zero_divisors(task)
    weights = math.ceil(states.weights / div_w)
    gradients = math.ceil(states.gradients / div_g)
    optimizer = math.ceil(states.optimizer / div_o)
    formulas = dict(states.formulas)
    for key, div in (("weights", div_w), ("gradients", div_g), ("optimizer", div_o)):
        if div > 1:
            formulas[key] = msg(
                Code.FORMULA_SHARDED, formula=formulas[key], gpus=div, sharding=task.sharding
            )
    notes = [*states.notes, *_approximation_notes(arch)]
    ep = expert_parallel_gpus(task)
    if ep > 1:
        (weights, gradients, optimizer), ep_note = _split_experts(
            task, arch, states, (div_w, div_g, div_o), ep
        )
        notes.append(ep_note)
        split = ("weights", "gradients", "optimizer") if task.kind == "full_finetune" else ()
        for key in split or ("weights",):
            formulas[key] = msg(Code.FORMULA_EXPERTS_SPLIT, formula=formulas[key], gpus=ep)
    offloaded = 0
    if task.offload != "none":
        # DeepSpeed ZeRO-Offload: fp32 states and gradients live on the CPU; the GPU keeps
        # 16-bit parameters only (ZeRO-2 offload gpu = 2P).
        offloaded = states.optimizer + states.trainable * 4
        optimizer = gradients = 0
        formulas["optimizer"] = msg(Code.FORMULA_OPTIMIZER_OFFLOADED)
        formulas["gradients"] = msg(Code.FORMULA_GRADIENTS_STREAMED)
    if task.offload == "optimizer_and_params":
        offloaded += states.weights
        weights = 0
        formulas["weights"] = msg(Code.FORMULA_WEIGHTS_OFFLOADED)
    overhead, o_formula = _training_overhead(task, arch)
    activations, a_notes = _training_activations(task, arch)
    notes += a_notes
    if offloaded:
        notes.append(msg(Code.MEMORY_NOTE_HOST_RAM, host=gib(offloaded)))
    if activations.host:
        notes.append(msg(Code.MEMORY_NOTE_HOST_RAM_ACTIVATIONS, host=gib(activations.host)))
        offloaded += activations.host * task.gpus
    formulas.update(
        activations=formula_result(activations.formula, activations.gpu), overhead=o_formula
    )
    for key, value in (("weights", weights), ("gradients", gradients), ("optimizer", optimizer)):
        if value:
            formulas[key] = formula_result(formulas[key], value)
    return MemoryPlan(
        gpus=task.gpus,
        per_gpu=MemoryBreakdown(weights, gradients, optimizer, activations.gpu, 0, overhead),
        sharded=task.gpus > 1 and (task.sharding != "none" or expert_parallel_gpus(task) > 1),
        notes=tuple(notes),
        formulas=formulas,
        offloaded_bytes=offloaded,
    )


def _gathered_unit(task: Task, arch: ModelArch) -> tuple[int, int]:
    """(params, bytes) of the largest unit ZeRO-3 gathers, in the precision it is stored in: a
    transformer block (NF4 under QLoRA) or the embedding (16-bit even under QLoRA)."""
    dims = dims_of(arch)
    block, embedding = _block_params(arch, dims), _embedding_params(arch, dims) // 2
    if task.kind == "qlora":
        block_size, embedding_size = NF4_BYTES_PER_PARAM, 2.0
    elif task.kind == "full_finetune":
        block_size = embedding_size = PRECISION_BYTES[compute_precision(task)]
    else:  # a LoRA base stays in the task's precision
        block_size = embedding_size = PRECISION_BYTES[task.precision]
    block_bytes, embedding_bytes = (
        math.ceil(block * block_size),
        math.ceil(embedding * embedding_size),
    )
    return (block, block_bytes) if block_bytes >= embedding_bytes else (embedding, embedding_bytes)


def _training_overhead(task: Task, arch: ModelArch) -> tuple[int, Message]:
    formula = overhead_formula()
    gathers = task.sharding == "zero3" and (task.gpus > 1 or task.offload == "optimizer_and_params")
    if not gathers:
        return OVERHEAD_BYTES, formula
    params, unit_bytes = _gathered_unit(task, arch)
    gathered = ZERO3_GATHERED_UNITS * unit_bytes
    formula = msg(
        Code.FORMULA_PLUS_ZERO3_GATHER,
        formula=formula,
        units=ZERO3_GATHERED_UNITS,
        params=params_label(params),
        bytes_per_param=_per_param(unit_bytes / params if params else 0.0),
        precision="nf4" if task.kind == "qlora" and unit_bytes < 2 * params else task.precision,
    )
    if task.kind == "full_finetune":
        # The unit's full gradient exists until its reduce-scatter (FSDP, ZeRO-3).
        size = PRECISION_BYTES[compute_precision(task)]
        gathered += math.ceil(params * size)
        formula = msg(
            Code.FORMULA_PLUS_ZERO3_GRADIENT,
            formula=formula,
            params=params_label(params),
            bytes_per_param=size,
        )
    return OVERHEAD_BYTES + gathered, formula_result(formula, OVERHEAD_BYTES + gathered)


# ---------------------------------------------------------------------------------------- inference


def _kv_cache(task: Task, arch: ModelArch) -> tuple[int, Message]:
    """The KV cache of all sequences, whole-model (before tensor-parallel division)."""
    per_token = kv_bytes_per_token(arch, task.kv_precision)
    sequences = task.concurrent_sequences
    if task.serving == "paged":
        blocked = math.ceil(task.context_len / KV_BLOCK_TOKENS) * KV_BLOCK_TOKENS
        return per_token * blocked * sequences, msg(
            Code.FORMULA_KV_PAGED,
            bytes_per_token=count_quantity(per_token),
            kv_precision=task.kv_precision,
            blocked=blocked,
            context_len=task.context_len,
            block=KV_BLOCK_TOKENS,
            sequences=sequences,
        )
    # Hugging Face generate's cache grows by torch.cat, and the old cache is still referenced by
    # the step's inputs while the new one is built: two full copies (transformers#30536).
    return 2 * per_token * task.context_len * sequences, msg(
        Code.FORMULA_KV_CONCAT,
        bytes_per_token=count_quantity(per_token),
        kv_precision=task.kv_precision,
        context_len=task.context_len,
        sequences=sequences,
    )


def _prefill_workspace(task: Task, dims: Dims) -> tuple[int, Message]:
    """The largest forward pass's intermediates plus the sampling logits, per GPU."""
    n, sequences = task.gpus, task.concurrent_sequences
    tokens = task.context_len * sequences  # generate prefills every prompt at once
    if task.serving == "paged":
        tokens = min(tokens, PREFILL_CHUNK_TOKENS)  # chunked prefill
    per_token = math.ceil(
        PREFILL_INTERMEDIATE_BYTES * dims.intermediate / n + PREFILL_HIDDEN_BYTES * dims.hidden
    )
    entry = SAMPLING_LOGIT_BYTES[task.serving]
    total = tokens * per_token + sequences * dims.vocab * entry
    formula = msg(
        Code.FORMULA_PREFILL_WORKSPACE,
        tokens=tokens,
        per_token=count_quantity(per_token),
        sequences=sequences,
        vocab=dims.vocab,
        bytes_per_entry=entry,
    )
    if task.serving == "hf_generate" and task.attention == "eager":
        heads = math.ceil(dims.heads / n)
        total += PREFILL_SCORE_BYTES * heads * task.context_len**2 * sequences
        formula = msg(
            Code.FORMULA_PLUS_PREFILL_SCORES,
            formula=formula,
            heads=heads,
            tokens=task.context_len,
            sequences=sequences,
        )
    return total, formula


def _inference_memory(task: Task) -> MemoryPlan:
    arch = _arch(task)
    n = task.gpus
    size = PRECISION_BYTES[task.precision]
    weights = math.ceil(arch.params * size / n)

    def split(formula: Message) -> Message:
        return msg(Code.FORMULA_TENSOR_PARALLEL, formula=formula, gpus=n) if n > 1 else formula

    weights_formula = msg(
        Code.FORMULA_WEIGHTS,
        params=params_label(arch.params),
        bytes_per_param=size,
        precision=task.precision,
    )
    formulas = {"weights": formula_result(split(weights_formula), weights)}
    notes = _approximation_notes(arch)
    if arch.active_params:
        notes.append(msg(Code.MEMORY_NOTE_MOE_ALL_EXPERTS))
    whole_kv, kv_formula = _kv_cache(task, arch)
    kv = math.ceil(whole_kv / n)
    formulas["kv_cache"] = formula_result(split(kv_formula), kv)
    activations, a_formula = _prefill_workspace(task, dims_of(arch))
    formulas["activations"] = formula_result(a_formula, activations)
    overhead, o_formula = OVERHEAD_BYTES, overhead_formula()
    if task.serving == "paged":
        # vLLM sizes its KV pool inside gpu_memory_utilization of the GPU and leaves the rest
        # unused: the GPU must be the need ÷ 0.9.
        need = weights + kv + activations + overhead
        unused = math.ceil(need / GPU_MEMORY_UTILIZATION) - need
        overhead += unused
        o_formula = formula_result(
            msg(
                Code.FORMULA_PLUS_PREALLOCATION,
                formula=o_formula,
                unused=gib(unused),
                utilization=fraction(GPU_MEMORY_UTILIZATION),
            ),
            overhead,
        )
        notes.append(
            msg(
                Code.MEMORY_NOTE_PAGED_PREALLOCATES,
                utilization=fraction(GPU_MEMORY_UTILIZATION),
            )
        )
    formulas["overhead"] = o_formula
    return MemoryPlan(
        gpus=n,
        per_gpu=MemoryBreakdown(weights, 0, 0, activations, kv, overhead),
        sharded=n > 1,
        notes=tuple(notes),
        formulas=formulas,
    )


# ------------------------------------------------------------------------------------ suggestions

# How far the ZeRO-3 / tensor-parallel search looks; beyond this a suggestion is not realistic.
MAX_SEARCH_GPUS = 1024
# A suggestion: what to change, and the task changed so (None when only other hardware helps).
Fix = tuple[Message, Task | None]


def _fits(task: Task, capacity: int) -> int | None:
    total = task_memory(task).per_gpu.total
    return total if total <= capacity else None


def _checkpointed(task: Task) -> Task | None:
    """`task` with full activation checkpointing, or None when it already recomputes."""
    if task.kind == "inference" or task.activation_checkpointing == "full":
        return None
    return replace(task, activation_checkpointing="full")


def _with_checkpointing(task: Task, capacity: int) -> tuple[Task, int] | None:
    """`task` if it fits, else the same with full checkpointing if that fits."""
    total = _fits(task, capacity)
    if total is not None:
        return task, total
    variant = _checkpointed(task)
    if variant is None:
        return None
    total = _fits(variant, capacity)
    return (variant, total) if total is not None else None


def _min_tensor_parallel(task: Task, capacity: int) -> int | None:
    """Smallest tensor-parallel degree that fits; it must divide the attention heads, as
    vLLM and Megatron require."""
    arch = _arch(task)
    if arch.family == "diffusion":
        return None
    heads = dims_of(arch).heads
    for degree in range(task.gpus + 1, min(heads, MAX_SEARCH_GPUS) + 1):
        if heads % degree == 0 and _fits(replace(task, gpus=degree), capacity) is not None:
            return degree
    return None


def _min_gpus(task: Task, capacity: int, **changes: Any) -> int | None:
    """Smallest GPU count above the task's at which the changed task fits (binary search)."""
    if task.kind == "inference":
        return _min_tensor_parallel(task, capacity)
    lo, hi = task.gpus + 1, MAX_SEARCH_GPUS
    if _fits(replace(task, gpus=hi, **changes), capacity) is None:
        return None
    while lo < hi:
        mid = (lo + hi) // 2
        if _fits(replace(task, gpus=mid, **changes), capacity) is None:
            lo = mid + 1
        else:
            hi = mid
    return lo


def _machines(count: int, max_gpus: int) -> int:
    """GPU count rounded up to whole machines of `max_gpus` when it exceeds one machine."""
    return count if count <= max_gpus else math.ceil(count / max_gpus) * max_gpus


def _training_candidates(task: Task) -> list[tuple[Message, Task]]:
    """Single changes that need no more GPUs, those that change nothing but the code first."""
    candidates: list[tuple[Message, Task]] = []
    if task.attention == "eager":
        candidates.append((msg(Code.FIX_FLASH_ATTENTION), replace(task, attention="flash")))
    if task.framework == "hf":
        candidates.append((msg(Code.FIX_LIGER_KERNELS), replace(task, framework="liger")))
    if task.activation_checkpointing != "full":
        candidates.append(
            (msg(Code.FIX_FULL_CHECKPOINTING), replace(task, activation_checkpointing="full"))
        )
    if not task.activation_offload:
        candidates.append(
            (
                msg(Code.FIX_OFFLOAD_ACTIVATIONS),
                replace(task, activation_checkpointing="full", activation_offload=True),
            )
        )
    if task.kind == "full_finetune" and not task.fused_optimizer_step and task.offload == "none":
        candidates.append(
            (msg(Code.FIX_FUSED_OPTIMIZER_STEP), replace(task, fused_optimizer_step=True))
        )
    if task.offload == "none":
        candidates.append((msg(Code.FIX_OFFLOAD_OPTIMIZER), replace(task, offload="optimizer")))
    if task.offload != "optimizer_and_params":
        candidates.append(
            (
                msg(Code.FIX_ZERO3_OFFLOAD),
                replace(task, sharding="zero3", offload="optimizer_and_params"),
            )
        )
    split = replace(task, moe_implementation="expert_parallel")
    if task.gpus > 1 and expert_parallel_gpus(split) > expert_parallel_gpus(task):
        candidates.append((msg(Code.FIX_EXPERT_PARALLEL, gpus=expert_parallel_gpus(split)), split))
    if task.kind == "full_finetune":
        candidates.append(
            (msg(Code.FIX_LORA, rank=task.lora_rank), replace(task, kind=TaskKind.LORA))
        )
    if task.kind in ("full_finetune", "lora"):
        candidates.append(
            (msg(Code.FIX_QLORA, rank=task.lora_rank), replace(task, kind=TaskKind.QLORA))
        )
    return candidates


def _training_fixes(task: Task, capacity: int, max_gpus: int) -> list[Fix]:
    fixes: list[Fix] = []
    for label, variant in _training_candidates(task):
        found = _with_checkpointing(variant, capacity)
        if found is None:
            continue
        fitted, total = found
        if fitted.activation_checkpointing != variant.activation_checkpointing:
            label = msg(Code.FIX_WITH_FULL_CHECKPOINTING, fix=label)
        fixes.append((per_gpu_fix(label, total, task_memory(fitted).offloaded_bytes), fitted))
    fixes.extend(_more_gpus_fix(task, capacity, max_gpus, sharding="zero3"))
    return fixes


def _with_gpus(task: Task, gpus: int, **changes: Any) -> Task:
    """`task` over `gpus` GPUs (and `on` hardware, when given, counted alike)."""
    on = task.on if task.on is None else replace(task.on, count=gpus)
    return replace(task, gpus=gpus, on=on, **changes)


def _more_gpus_fix(task: Task, capacity: int, max_gpus: int, **changes: Any) -> list[Fix]:
    """The fewest GPUs that hold the task: as it is, or with full checkpointing, or with Liger
    kernels as well, when that needs fewer (recomputing costs time and Liger one flag, not
    GPUs)."""
    inference = task.kind == "inference"
    how = msg(Code.FIX_HOW_TENSOR_PARALLEL if inference else Code.FIX_HOW_ZERO3)
    least = _min_gpus(task, capacity, **changes)
    if not inference:
        for key, value, label in (
            ("activation_checkpointing", "full", Code.FIX_WITH_FULL_CHECKPOINTING),
            ("framework", "liger", Code.FIX_WITH_LIGER_KERNELS),
        ):
            if getattr(task, key) == value or (key == "framework" and task.framework != "hf"):
                continue
            cheaper = {**changes, key: value}
            fewer = _min_gpus(task, capacity, **cheaper)
            if fewer is not None and (least is None or fewer < least):
                least, changes, how = fewer, cheaper, msg(label, fix=how)
    if least is None:
        return []
    count = _machines(least, max_gpus)
    variant = _with_gpus(task, count, **changes)
    total = task_memory(variant).per_gpu.total
    if count <= max_gpus:
        what = msg(Code.FIX_MORE_GPUS, how=how, gpus=count)
    elif count != least:
        what = msg(
            Code.FIX_MORE_GPUS_MACHINES_MINIMUM,
            how=how,
            gpus=count,
            machines=count // max_gpus,
            per_machine=max_gpus,
            minimum=least,
        )
    else:
        what = msg(
            Code.FIX_MORE_GPUS_MACHINES,
            how=how,
            gpus=count,
            machines=count // max_gpus,
            per_machine=max_gpus,
        )
    return [(per_gpu_fix(what, total), variant)]


def _inference_fixes(task: Task, capacity: int, max_gpus: int) -> list[Fix]:
    fixes: list[Fix] = []
    variants: list[tuple[Task, Message]] = []
    if task.serving == "hf_generate":
        variants.append((replace(task, serving="paged"), msg(Code.FIX_PAGED_SERVING)))
    for precision in ("int8", "int4"):
        if PRECISION_BYTES[precision] < PRECISION_BYTES[task.precision]:
            fix = msg(Code.FIX_WEIGHTS_PRECISION, precision=precision)
            variants.append((replace(task, precision=precision), fix))
    if PRECISION_BYTES["fp8"] < PRECISION_BYTES[task.kv_precision]:
        variants.append(
            (replace(task, kv_precision="fp8"), msg(Code.FIX_KV_PRECISION, precision="fp8"))
        )
    for variant, label in variants:
        total = _fits(variant, capacity)
        if total is not None:
            fixes.append((per_gpu_fix(label, total), variant))
    fixes.extend(_max_sequences_fix(task, capacity))
    fixes.extend(_more_gpus_fix(task, capacity, max_gpus))
    return fixes


def _max_sequences_fix(task: Task, capacity: int) -> list[Fix]:
    """The most concurrent sequences that fit (memory grows with them; binary search)."""
    if (
        task.concurrent_sequences <= 1
        or _fits(replace(task, concurrent_sequences=1), capacity) is None
    ):
        return []
    lo, hi = 1, task.concurrent_sequences - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if _fits(replace(task, concurrent_sequences=mid), capacity) is None:
            hi = mid - 1
        else:
            lo = mid
    fix = msg(Code.FIX_MAX_SEQUENCES, sequences=lo, context_len=task.context_len)
    return [(fix, replace(task, concurrent_sequences=lo))]


def suggest_fixes(task: Task, capacity_bytes_per_gpu: int, max_gpus: int = 8) -> list[Message]:
    """What would make `task` fit GPUs of `capacity_bytes_per_gpu` usable bytes, computed.

    Changes on the same GPUs come first (attention kernel, Liger, checkpointing, offload, LoRA,
    QLoRA); more GPUs last, at the fewest that hold the task. `max_gpus` is the GPUs in one
    machine: counts above it are rounded up to whole machines.
    """
    return [label for label, _ in fix_variants(task, capacity_bytes_per_gpu, max_gpus)]


def fix_variants(task: Task, capacity_bytes_per_gpu: int, max_gpus: int = 8) -> list[Fix]:
    """suggest_fixes with the changed task each message describes (None: no change of the
    task makes it fit; a bigger GPU would), so that a suggestion can be run as a scenario."""
    if task.kind == "fixed":
        need = task_memory(task).per_gpu.total
        return [(msg(Code.FIX_BIGGER_GPU, bytes=gib(need)), None)]
    if task.arch is not None and task.arch.family == "diffusion":
        return diffusion.fix_variants(task, capacity_bytes_per_gpu)
    if task.kind == "inference":
        return _inference_fixes(task, capacity_bytes_per_gpu, max_gpus)
    return _training_fixes(task, capacity_bytes_per_gpu, max_gpus)
