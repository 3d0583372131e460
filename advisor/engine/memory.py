"""GPU memory a task needs, per GPU, by component, with the formula behind each number.

Model states follow the ZeRO paper's table (Rajbhandari et al. 2020, arXiv:1910.02054) and
EleutherAI's Transformer Math 101; activations follow Korthikanti et al. 2022 (arXiv:2205.05198);
LoRA (Hu et al. 2021), QLoRA (Dettmers et al. 2023, arXiv:2305.14314) and inference (weights, KV
cache with KV heads, workspace) as docs/memory-model.md explains, with sources. There is no
single "bytes per parameter" constant: each component is computed from the task's precision,
optimizer, sharding, offload and shape. Sizes are int bytes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

from advisor.engine.messages import Code, Message, Quantity, Unit, gib, msg
from advisor.engine.types import GiB, ModelArch, Precision, Task
from advisor.engine.vocab import TaskKind

# Bytes per stored value (Transformer Math 101). int4 is 4 bits plus one fp16 scale per group of
# 32 weights = 4.5 bits, inside the usual 0.5-0.56 bytes of 4-bit formats with their scales.
PRECISION_BYTES: dict[str, float] = {
    "fp32": 4.0,
    "bf16": 2.0,
    "fp16": 2.0,
    "fp8": 1.0,
    "int8": 1.0,
    "int4": 0.5625,
}
# NF4 with double quantization: 4 + 0.127 bits per parameter (QLoRA, arXiv:2305.14314).
NF4_BYTES_PER_PARAM = 4.127 / 8
# Optimizer state bytes per trainable parameter *excluding* the fp32 master copy; with the copy
# these are Transformer Math 101's AdamW 12, 8-bit AdamW 6, SGD+momentum 8
# (https://blog.eleuther.ai/transformer-math/).
OPTIMIZER_STATE_BYTES: dict[str, int] = {"adamw": 8, "adamw_8bit": 2, "sgd_momentum": 4}
MASTER_WEIGHT_BYTES = 4  # fp32 copy in mixed precision (ZeRO paper: K = 12 = 4 + 4 + 4)
# CUDA context plus caching-allocator slack per process: ~0.5-1 GiB (docs/memory-model.md);
# we take the upper end because the activation formulas do not model allocator fragmentation.
OVERHEAD_BYTES = GiB
# Korthikanti et al. 2022 (arXiv:2205.05198) per-layer activation bytes (16-bit): sbh(34 + 5as/h).
LINEAR_ACTIVATION_FACTOR = 34
ATTENTION_ACTIVATION_FACTOR = 5
FULL_RECOMPUTE_FACTOR = 2  # full recomputation keeps the 2sbh layer inputs (Korthikanti)
LOGIT_BYTES = 4  # the loss upcasts the s·b·vocab logits to fp32
# Inference workspace: the activation term ctx·h·10 bytes of the gpu_poor calculator
# (RahulSChand/gpu_poor, src/App.js); its ctx²·heads·2 attention-score term is dropped because
# FlashAttention/paged attention never store the score matrix.
INFERENCE_ACTIVATION_FACTOR = 10
# DeepSpeed ZeRO-3 keeps the largest layer gathered: largest_layer_memory = 4 · its params
# (DeepSpeed estimate_zero3_model_states_mem_needs).
ZERO3_LAYER_BYTES = 4
# Without published shapes we assume params ≈ 12·L·h² (Transformer Math 101 per-layer count) and
# h = 128·L, the aspect ratio of Llama-2-7B (4096/32) and GPT-3 175B (12288/96).
ASSUMED_HIDDEN_PER_LAYER = 128
ASSUMED_HEAD_DIM = 128  # every LLM preset (presets.py, from the models' configs) has 128-dim heads
# Diffusion pipelines: an allowance, not a measurement; only parameter counts are published. 1 GiB
# for a 512² image (SD 1.5 class), 4× that for SDXL-class models generating at 1024² (4× the
# pixels).
DIFFUSION_ACTIVATION_BYTES = GiB
SDXL_CLASS_PARAMS = 2_000_000_000
SDXL_CLASS_ACTIVATION_FACTOR = 4
COMPUTE_PRECISIONS = ("fp32", "bf16", "fp16")


@dataclass(frozen=True)
class MemoryBreakdown:
    """Bytes on one GPU by component."""

    weights: int = 0
    gradients: int = 0
    optimizer: int = 0
    activations: int = 0
    kv_cache: int = 0
    overhead: int = 0

    @property
    def total(self) -> int:
        return (
            self.weights
            + self.gradients
            + self.optimizer
            + self.activations
            + self.kv_cache
            + self.overhead
        )


@dataclass(frozen=True)
class MemoryPlan:
    """A task's memory on each of its `gpus` GPUs.

    `sharded` is true when the per-GPU figures hold only while the task's GPUs work together
    (ZeRO stages over several GPUs, tensor-parallel inference): placement must then give the task
    `gpus` connected GPUs, never MIG slices. `offloaded_bytes` is host RAM for offloaded states.
    """

    gpus: int
    per_gpu: MemoryBreakdown
    sharded: bool
    notes: tuple[Message, ...] = ()
    formulas: dict[str, Message] = field(default_factory=dict)  # component -> formula
    offloaded_bytes: int = 0


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


def _params(n: float) -> Message:
    """A parameter count as formulas show it, to 4 significant digits: 7.5B, 350M params."""
    if n >= 1e8:
        return msg(Code.PARAMS_BILLIONS, billions=float(f"{n / 1e9:.4g}"))
    return msg(Code.PARAMS_MILLIONS, millions=float(f"{n / 1e6:.4g}"))


def _result(formula: Message, n: int) -> Message:
    """`formula = n` with `n` in bytes."""
    return msg(Code.FORMULA_RESULT, formula=formula, bytes=gib(n))


def _overhead_formula() -> Message:
    return msg(Code.FORMULA_OVERHEAD, bytes=gib(OVERHEAD_BYTES))


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
    )


def _arch(task: Task) -> ModelArch:
    if task.arch is None:  # parse_scenario always resolves one; a bug if not
        raise ValueError(f"task {task.name!r} has no resolved architecture")
    return task.arch


def _embedding_params(arch: ModelArch, dims: Dims) -> int:
    """Input embedding plus LM head (untied in every preset), capped at the model's size."""
    return min(2 * dims.vocab * dims.hidden, arch.params)


def largest_layer_params(arch: ModelArch) -> int:
    """Parameters of the biggest single module: one transformer block or the embedding.

    With a derived shape the block is the assumed 12·h², not params/L, so that the figure never
    shrinks as params grow (params/L drops each time the derived L steps up).
    """
    dims = dims_of(arch)
    embedding = _embedding_params(arch, dims)
    if dims.approximated:
        block = min(12 * dims.hidden**2, arch.params)
    else:
        block = (arch.params - embedding) // dims.layers
    return max(block, embedding // 2)


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


def lora_adapter_params(arch: ModelArch, rank: int) -> int:
    """Σ r·(d_in + d_out) over q, k, v, o of every layer; k/v are kv_heads·head_dim wide."""
    dims = dims_of(arch)
    q_width = dims.heads * dims.head_dim
    kv_width = dims.kv_heads * dims.head_dim
    per_layer = rank * (
        (dims.hidden + q_width) + 2 * (dims.hidden + kv_width) + (q_width + dims.hidden)
    )
    return per_layer * dims.layers


def compute_precision(task: Task) -> Precision:
    """Precision of trainable weights and gradients: the task's, or bf16 for a quantized base."""
    if task.kind in ("lora", "qlora") and task.precision not in COMPUTE_PRECISIONS:
        return "bf16"
    return task.precision


def task_memory(task: Task) -> MemoryPlan:
    """Per-GPU memory of `task` on its `task.gpus` GPUs."""
    if task.kind == "fixed":
        stated = int((task.vram_gib or 0) * GiB)
        return MemoryPlan(
            gpus=task.gpus,
            per_gpu=MemoryBreakdown(overhead=stated),
            sharded=False,
            notes=(msg(Code.MEMORY_NOTE_FIXED_STATED),),
            formulas={"overhead": _result(msg(Code.FORMULA_FIXED, vram_gib=task.vram_gib), stated)},
        )
    if task.kind == "inference":
        return _inference_memory(task)
    return _training_memory(task)


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


def _optimizer_bytes(task: Task, precision: Precision) -> int:
    master = MASTER_WEIGHT_BYTES if task.master_weights and precision != "fp32" else 0
    return OPTIMIZER_STATE_BYTES[task.optimizer] + master


def _base_weights(task: Task, arch: ModelArch) -> tuple[int, Message, Message | None]:
    """Bytes of the full model's weights as stored for training, formula, and a note."""
    if task.kind == "qlora":
        dims = dims_of(arch)
        kept = _embedding_params(arch, dims)
        quantized = arch.params - kept
        total = math.ceil(quantized * NF4_BYTES_PER_PARAM) + kept * 2
        formula = msg(
            Code.FORMULA_WEIGHTS_NF4,
            quantized=_params(quantized),
            bytes_per_param=Quantity(NF4_BYTES_PER_PARAM, Unit.COUNT, 4),
            kept=_params(kept),
        )
        return total, formula, msg(Code.MEMORY_NOTE_QLORA_BF16)
    size = PRECISION_BYTES[task.precision]
    formula = msg(
        Code.FORMULA_WEIGHTS,
        params=_params(arch.params),
        bytes_per_param=size,
        precision=task.precision,
    )
    return math.ceil(arch.params * size), formula, None


def _model_states(task: Task, arch: ModelArch) -> _States:
    precision = compute_precision(task)
    weight_size = PRECISION_BYTES[precision]
    opt_size = _optimizer_bytes(task, precision)
    weights, w_formula, note = _base_weights(task, arch)
    notes = [note] if note else []
    if task.kind == "full_finetune":
        trainable = arch.params
    else:
        trainable = lora_adapter_params(arch, task.lora_rank)
        weights += math.ceil(trainable * weight_size)
        w_formula = msg(
            Code.FORMULA_PLUS_ADAPTERS,
            formula=w_formula,
            adapters=_params(trainable),
            bytes_per_param=weight_size,
        )
        notes.append(
            msg(
                Code.MEMORY_NOTE_LORA_ADAPTERS,
                rank=task.lora_rank,
                trainable=Quantity(trainable, Unit.COUNT),
            )
        )
    label = _params(trainable)
    master = opt_size > OPTIMIZER_STATE_BYTES[task.optimizer]
    return _States(
        weights=weights,
        gradients=math.ceil(trainable * weight_size),
        optimizer=trainable * opt_size,
        trainable=trainable,
        formulas={
            "weights": w_formula,
            "gradients": msg(
                Code.FORMULA_GRADIENTS,
                params=label,
                bytes_per_param=weight_size,
                precision=precision,
            ),
            "optimizer": msg(
                Code.FORMULA_OPTIMIZER_MASTER if master else Code.FORMULA_OPTIMIZER,
                params=label,
                bytes_per_param=opt_size,
                optimizer=task.optimizer,
            ),
        },
        notes=tuple(notes),
    )


def _divisors(task: Task) -> tuple[int, int, int]:
    """Divisors of (weights, gradients, optimizer) under the ZeRO stage (ZeRO paper, Figure 1)."""
    n = task.gpus
    return {
        "none": (1, 1, 1),
        "zero1": (1, 1, n),
        "zero2": (1, n, n),
        "zero3": (n, n, n),
    }[task.sharding]


def _activation_bytes_16bit(task: Task, dims: Dims) -> tuple[int, Message]:
    """Korthikanti et al. activation bytes for one micro-batch over all layers."""
    s, b, h, a, layers = task.seq_len, task.micro_batch, dims.hidden, dims.heads, dims.layers
    sbh = s * b * h
    one_layer = sbh * LINEAR_ACTIVATION_FACTOR + ATTENTION_ACTIVATION_FACTOR * a * s * s * b
    if task.activation_checkpointing == "none":
        return (
            one_layer * layers,
            msg(Code.FORMULA_ACTIVATIONS_NONE, s=s, b=b, h=h, a=a, L=layers),
        )
    if task.activation_checkpointing == "selective":
        return (
            LINEAR_ACTIVATION_FACTOR * sbh * layers,
            msg(Code.FORMULA_ACTIVATIONS_SELECTIVE, s=s, b=b, h=h, L=layers),
        )
    return (
        FULL_RECOMPUTE_FACTOR * sbh * layers + one_layer,
        msg(Code.FORMULA_ACTIVATIONS_FULL, s=s, b=b, h=h, a=a, L=layers),
    )


def _training_activations(task: Task, arch: ModelArch) -> tuple[int, Message, list[Message]]:
    if arch.family == "diffusion":
        allowance = _diffusion_allowance(arch) * task.micro_batch
        return (
            allowance,
            msg(
                Code.FORMULA_ALLOWANCE_PER_MICRO_BATCH,
                bytes=gib(allowance),
                micro_batch=task.micro_batch,
            ),
            [msg(Code.MEMORY_NOTE_DIFFUSION_TRAINING)],
        )
    dims = dims_of(arch)
    layer_bytes, formula = _activation_bytes_16bit(task, dims)
    scale = 2 if compute_precision(task) == "fp32" else 1  # the formulas assume 2-byte values
    logits = task.seq_len * task.micro_batch * dims.vocab * LOGIT_BYTES
    notes = [
        msg(Code.MEMORY_NOTE_ACTIVATIONS_UPPER_BOUND),
        msg(Code.MEMORY_NOTE_ACTIVATIONS_PER_GPU),
    ]
    if scale == 2:
        formula = msg(Code.FORMULA_FP32_DOUBLED, formula=formula)
    formula = msg(Code.FORMULA_PLUS_LOGITS, formula=formula)
    return layer_bytes * scale + logits, formula, notes


def _diffusion_allowance(arch: ModelArch) -> int:
    factor = SDXL_CLASS_ACTIVATION_FACTOR if arch.params >= SDXL_CLASS_PARAMS else 1
    return DIFFUSION_ACTIVATION_BYTES * factor


def _approximation_notes(arch: ModelArch) -> list[Message]:
    if arch.family == "diffusion":
        return []
    dims = dims_of(arch)
    if not dims.approximated:
        return []
    return [msg(Code.MEMORY_NOTE_SHAPE_ASSUMED, layers=dims.layers, hidden=dims.hidden)]


def _training_memory(task: Task) -> MemoryPlan:
    arch = _arch(task)
    states = _model_states(task, arch)
    div_w, div_g, div_o = _divisors(task)
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
    activations, a_formula, a_notes = _training_activations(task, arch)
    notes += a_notes
    if offloaded:
        notes.append(msg(Code.MEMORY_NOTE_HOST_RAM, host=gib(offloaded)))
    formulas.update(activations=_result(a_formula, activations), overhead=o_formula)
    for key, value in (("weights", weights), ("gradients", gradients), ("optimizer", optimizer)):
        if value:
            formulas[key] = _result(formulas[key], value)
    return MemoryPlan(
        gpus=task.gpus,
        per_gpu=MemoryBreakdown(weights, gradients, optimizer, activations, 0, overhead),
        sharded=task.gpus > 1 and task.sharding != "none",
        notes=tuple(notes),
        formulas=formulas,
        offloaded_bytes=offloaded,
    )


def _training_overhead(task: Task, arch: ModelArch) -> tuple[int, Message]:
    formula = _overhead_formula()
    gathers = task.sharding == "zero3" and (task.gpus > 1 or task.offload == "optimizer_and_params")
    if not gathers:
        return OVERHEAD_BYTES, formula
    layer = ZERO3_LAYER_BYTES * largest_layer_params(arch)
    gathered = msg(
        Code.FORMULA_PLUS_ZERO3_LAYER, formula=formula, params=_params(largest_layer_params(arch))
    )
    return OVERHEAD_BYTES + layer, _result(gathered, OVERHEAD_BYTES + layer)


# ---------------------------------------------------------------------------------------- inference


def _inference_memory(task: Task) -> MemoryPlan:
    arch = _arch(task)
    n = task.gpus
    size = PRECISION_BYTES[task.precision]
    weights = math.ceil(arch.params * size / n)

    def split(formula: Message) -> Message:
        return msg(Code.FORMULA_TENSOR_PARALLEL, formula=formula, gpus=n) if n > 1 else formula

    weights_formula = msg(
        Code.FORMULA_WEIGHTS,
        params=_params(arch.params),
        bytes_per_param=size,
        precision=task.precision,
    )
    formulas = {
        "weights": _result(split(weights_formula), weights),
        "overhead": _overhead_formula(),
    }
    notes = _approximation_notes(arch)
    if arch.active_params:
        notes.append(msg(Code.MEMORY_NOTE_MOE_ALL_EXPERTS))
    if arch.family == "diffusion":
        activations = _diffusion_allowance(arch) * task.concurrent_sequences
        kv = 0
        formulas["activations"] = msg(
            Code.FORMULA_ALLOWANCE_PER_IMAGE,
            bytes=gib(_diffusion_allowance(arch)),
            concurrent=task.concurrent_sequences,
        )
        notes.append(
            msg(
                Code.MEMORY_NOTE_DIFFUSION_INFERENCE,
                small=Quantity(DIFFUSION_ACTIVATION_BYTES, Unit.BYTES, 0),
                large=Quantity(
                    SDXL_CLASS_ACTIVATION_FACTOR * DIFFUSION_ACTIVATION_BYTES, Unit.BYTES, 0
                ),
            )
        )
    else:
        per_token = kv_bytes_per_token(arch, task.kv_precision)
        tokens = task.context_len * task.concurrent_sequences
        kv = math.ceil(per_token * tokens / n)
        kv_formula = msg(
            Code.FORMULA_KV_CACHE,
            bytes_per_token=Quantity(per_token, Unit.COUNT),
            kv_precision=task.kv_precision,
            context_len=task.context_len,
            sequences=task.concurrent_sequences,
        )
        formulas["kv_cache"] = _result(split(kv_formula), kv)
        dims = dims_of(arch)
        activations = task.context_len * dims.hidden * INFERENCE_ACTIVATION_FACTOR + (
            task.concurrent_sequences * dims.vocab * LOGIT_BYTES
        )
        formulas["activations"] = _result(msg(Code.FORMULA_INFERENCE_ACTIVATIONS), activations)
    return MemoryPlan(
        gpus=n,
        per_gpu=MemoryBreakdown(weights, 0, 0, activations, kv, OVERHEAD_BYTES),
        sharded=n > 1,
        notes=tuple(notes),
        formulas=formulas,
    )


# ------------------------------------------------------------------------------------ suggestions

# How far the ZeRO-3 / tensor-parallel search looks; beyond this a suggestion is not realistic.
MAX_SEARCH_GPUS = 1024


def _fits(task: Task, capacity: int) -> int | None:
    total = task_memory(task).per_gpu.total
    return total if total <= capacity else None


def _with_checkpointing(task: Task, capacity: int) -> tuple[Task, int] | None:
    """`task` if it fits, else the same with full checkpointing if that fits."""
    total = _fits(task, capacity)
    if total is not None:
        return task, total
    if task.kind == "inference" or task.activation_checkpointing == "full":
        return None
    variant = replace(task, activation_checkpointing="full")
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


def _per_gpu(fix: Message, total: int, host: int = 0) -> Message:
    """`fix: <total> per GPU`, with the host RAM it needs when it offloads."""
    if host:
        return msg(Code.FIX_PER_GPU_HOST_RAM, fix=fix, per_gpu=gib(total), host=gib(host))
    return msg(Code.FIX_PER_GPU, fix=fix, per_gpu=gib(total))


def _training_fixes(task: Task, capacity: int, max_gpus: int) -> list[Message]:
    candidates: list[tuple[Message, Task]] = []
    if task.activation_checkpointing != "full":
        candidates.append(
            (msg(Code.FIX_FULL_CHECKPOINTING), replace(task, activation_checkpointing="full"))
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
    if task.kind == "full_finetune":
        candidates.append(
            (msg(Code.FIX_LORA, rank=task.lora_rank), replace(task, kind=TaskKind.LORA))
        )
    if task.kind in ("full_finetune", "lora"):
        candidates.append(
            (msg(Code.FIX_QLORA, rank=task.lora_rank), replace(task, kind=TaskKind.QLORA))
        )
    fixes: list[Message] = []
    for label, variant in candidates:
        found = _with_checkpointing(variant, capacity)
        if found is None:
            continue
        fitted, total = found
        if fitted.activation_checkpointing != variant.activation_checkpointing:
            label = msg(Code.FIX_WITH_FULL_CHECKPOINTING, fix=label)
        fixes.append(_per_gpu(label, total, task_memory(fitted).offloaded_bytes))
    fixes.extend(_more_gpus_fix(task, capacity, max_gpus, sharding="zero3"))
    return fixes


def _more_gpus_fix(task: Task, capacity: int, max_gpus: int, **changes: Any) -> list[Message]:
    least = _min_gpus(task, capacity, **changes)
    inference = task.kind == "inference"
    how = msg(Code.FIX_HOW_TENSOR_PARALLEL if inference else Code.FIX_HOW_ZERO3)
    if least is None and not inference and task.activation_checkpointing != "full":
        changes["activation_checkpointing"] = "full"
        least = _min_gpus(task, capacity, **changes)
        how = msg(Code.FIX_WITH_FULL_CHECKPOINTING, fix=how)
    if least is None:
        return []
    count = _machines(least, max_gpus)
    total = task_memory(replace(task, gpus=count, **changes)).per_gpu.total
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
    return [_per_gpu(what, total)]


def _inference_fixes(task: Task, capacity: int, max_gpus: int) -> list[Message]:
    fixes: list[Message] = []
    for precision in ("int8", "int4"):
        if PRECISION_BYTES[precision] < PRECISION_BYTES[task.precision]:
            total = _fits(replace(task, precision=precision), capacity)
            if total is not None:
                fixes.append(_per_gpu(msg(Code.FIX_WEIGHTS_PRECISION, precision=precision), total))
    if PRECISION_BYTES["fp8"] < PRECISION_BYTES[task.kv_precision]:
        total = _fits(replace(task, kv_precision="fp8"), capacity)
        if total is not None:
            fixes.append(_per_gpu(msg(Code.FIX_KV_PRECISION, precision="fp8"), total))
    fixes.extend(_max_sequences_fix(task, capacity))
    fixes.extend(_more_gpus_fix(task, capacity, max_gpus))
    return fixes


def _max_sequences_fix(task: Task, capacity: int) -> list[Message]:
    if task.concurrent_sequences <= 1:
        return []
    one = task_memory(replace(task, concurrent_sequences=1)).per_gpu.total
    per_sequence = task_memory(replace(task, concurrent_sequences=2)).per_gpu.total - one
    if one > capacity or per_sequence <= 0:
        return []
    most = 1 + (capacity - one) // per_sequence
    return [msg(Code.FIX_MAX_SEQUENCES, sequences=most, context_len=task.context_len)]


def suggest_fixes(task: Task, capacity_bytes_per_gpu: int, max_gpus: int = 8) -> list[Message]:
    """What would make `task` fit GPUs of `capacity_bytes_per_gpu` usable bytes, computed.

    `max_gpus` is the GPUs in one machine: counts above it are rounded up to whole machines.
    """
    if task.kind == "fixed":
        need = task_memory(task).per_gpu.total
        return [msg(Code.FIX_BIGGER_GPU, bytes=gib(need))]
    if task.kind == "inference":
        return _inference_fixes(task, capacity_bytes_per_gpu, max_gpus)
    return _training_fixes(task, capacity_bytes_per_gpu, max_gpus)
