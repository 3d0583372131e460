"""What a task's memory plan is made of, shared by memory.py (language models) and diffusion.py
(diffusion models): the plan and its breakdown, the bytes per stored value and per optimizer
state, and how formulas show their numbers. Sizes are int bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from advisor.engine.messages import Code, Message, Quantity, Unit, gib, msg
from advisor.engine.types import GiB, Precision, Task

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
# Optimizer state bytes per trainable parameter in mixed precision (fp32 states), *excluding* the
# fp32 master copy; with the copy these are Transformer Math 101's AdamW 12, 8-bit AdamW 6,
# SGD+momentum 8 (https://blog.eleuther.ai/transformer-math/).
OPTIMIZER_STATE_BYTES: dict[str, int] = {"adamw": 8, "adamw_8bit": 2, "sgd_momentum": 4}
# Without a master copy ("pure" bf16/fp16 training: torchtune's default, LLaMA-Factory's
# pure_bf16) PyTorch creates the states like the parameters (torch.optim.AdamW: exp_avg and
# exp_avg_sq are zeros_like(param)): this many states of the parameter's size. 8-bit AdamW
# keeps its two 1-byte states whatever the parameter's precision (bitsandbytes).
OPTIMIZER_STATES: dict[str, int] = {"adamw": 2, "adamw_8bit": 0, "sgd_momentum": 1}
MASTER_WEIGHT_BYTES = 4  # fp32 copy in mixed precision (ZeRO paper: K = 12 = 4 + 4 + 4)
# CUDA context plus caching-allocator slack per process: ~0.5-1 GiB (docs/memory-model.md); we take
# the upper end because the activation counts do not model allocator fragmentation.
OVERHEAD_BYTES = GiB
# Activation offloading keeps the layer being computed and the one being copied on the GPU
# (torchtune OffloadActivations, Unsloth's offloaded gradient checkpointing).
OFFLOAD_LAYERS_IN_FLIGHT = 2
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
    `gpus` connected GPUs, never MIG slices. `offloaded_bytes` is the host RAM the task's
    offloaded states and activations need, job-wide.
    """

    gpus: int
    per_gpu: MemoryBreakdown
    sharded: bool
    notes: tuple[Message, ...] = ()
    formulas: dict[str, Message] = field(default_factory=dict)  # component -> formula
    offloaded_bytes: int = 0


def params_label(n: float) -> Message:
    """A parameter count as formulas show it, to 4 significant digits: 7.5B, 350M params."""
    if n >= 1e8:
        return msg(Code.PARAMS_BILLIONS, billions=float(f"{n / 1e9:.4g}"))
    return msg(Code.PARAMS_MILLIONS, millions=float(f"{n / 1e6:.4g}"))


def count_quantity(n: float) -> Quantity:
    return Quantity(n, Unit.COUNT)


def formula_result(formula: Message, n: int) -> Message:
    """`formula = n` with `n` in bytes."""
    return msg(Code.FORMULA_RESULT, formula=formula, bytes=gib(n))


def overhead_formula() -> Message:
    return msg(Code.FORMULA_OVERHEAD, bytes=gib(OVERHEAD_BYTES))


def per_gpu_fix(fix: Message, total: int, host: int = 0) -> Message:
    """`fix: <total> per GPU`, with the host RAM it needs when it offloads."""
    if host:
        return msg(Code.FIX_PER_GPU_HOST_RAM, fix=fix, per_gpu=gib(total), host=gib(host))
    return msg(Code.FIX_PER_GPU, fix=fix, per_gpu=gib(total))


def compute_precision(task: Task) -> Precision:
    """Precision of trainable weights and gradients: the task's, or bf16 for a quantized base."""
    if task.kind in ("lora", "qlora") and task.precision not in COMPUTE_PRECISIONS:
        return "bf16"
    return task.precision


def optimizer_bytes_per_param(task: Task) -> float:
    """Optimizer bytes per trainable parameter: fp32 states plus the fp32 master copy in mixed
    precision; states of the parameter's own precision without a master copy."""
    precision = compute_precision(task)
    if task.master_weights and precision != "fp32":
        return OPTIMIZER_STATE_BYTES[task.optimizer] + MASTER_WEIGHT_BYTES
    if task.optimizer == "adamw_8bit":
        return OPTIMIZER_STATE_BYTES["adamw_8bit"]
    return OPTIMIZER_STATES[task.optimizer] * PRECISION_BYTES[precision]


def zero_divisors(task: Task) -> tuple[int, int, int]:
    """Divisors of (weights, gradients, optimizer) under the ZeRO stage (ZeRO paper, Figure 1)."""
    n = task.gpus
    return {
        "none": (1, 1, 1),
        "zero1": (1, 1, n),
        "zero2": (1, n, n),
        "zero3": (n, n, n),
    }[task.sharding]
