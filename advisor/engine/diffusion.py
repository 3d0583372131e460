"""GPU memory of diffusion pipelines (SD 1.5, SDXL, SD3/SD3.5, FLUX.1): inference and training;
and the work of one training image, which timing.py times (docs/time-model.md, "Diffusion
training": a transformer denoiser's FLOPs over its image and text tokens; none for a UNet).

A pipeline is a denoiser (a UNet, SD3's MMDiT or Flux's double- and single-stream transformer),
one to three text encoders and a VAE (types.DiffusionArch; presets.py gives each component's
count). Memory is counted by component and precision, with the tensors the denoiser keeps at
the task's resolution and batch, as memory.py counts them for language models
(docs/memory-model.md, "Diffusion models"):

* Weights: the denoiser at the task's precision (a LoRA base may be quantised: fp8, int8, int4,
  or NF4 for QLoRA), the text encoders at `text_encoder_precision` unless they are offloaded or
  their outputs cached, the VAE in 16 bits (fp32 where the pipeline upcasts it: SDXL), and the
  LoRA adapters of every attention projection (`attention`) or every linear layer of the blocks
  (`all_linear`), counted from the denoiser's shape.
* Training activations: the 16-bit tensors autograd keeps per block and token (transformers) or
  per channel and latent pixel (UNet ResNets and transformer layers), all of them without
  checkpointing; with full checkpointing each block's input plus one block recomputed and its
  backward workspace (diffusers' gradient checkpointing, per block). Attention runs through
  PyTorch SDPA (diffusers' AttnProcessor2_0): no score matrix is kept.
* Inference: one block's live tensors (×2 with classifier-free guidance, which denoises every
  image with and without its prompt) and the VAE's decode at full resolution. PyTorch's caching
  allocator keeps the denoiser's freed blocks while the VAE, whose full-resolution tensors are
  larger than any of them, takes new ones: both workspaces are counted.

Sizes are int bytes; the published peaks the tests check are in
tests/advisor/engine/test_diffusion.py.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, replace

from advisor.engine.errors import InvalidWorkload
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
from advisor.engine.messages import Code, Message, gib, msg
from advisor.engine.presets import PRESET_INFO
from advisor.engine.types import DiffusionArch, Precision, Task, TextEncoders
from advisor.engine.vocab import TaskKind

VALUE_BYTES = 2  # 16-bit activations; fp32 compute doubles every count
# 16-bit weights where a component is not quantised (the VAE: quantising it is numerically
# unstable, Hugging Face blog quanto-diffusers, which leaves it in 16 bits).
HALF = 2.0
FP32 = 4.0

# --- transformer denoisers (diffusers FluxTransformer2DModel, SD3Transformer2DModel), tensors of
# the hidden width kept per token for the backward pass of a frozen block with adapters on every
# linear layer (what a LoRA of all linear layers and a full fine-tune both need):
# a joint block, per stream: the norm's input and its modulated output (2), the RMS-normed q and
# k inputs (2), SDPA's q, k, v and output (4), the gated attention output (1), the second norm's
# input and modulated output (2), the MLP's GELU input and output (2 × mlp_ratio = 8) and the
# gated MLP output (1): 20.
JOINT_BLOCK_TENSORS = 20
# A single-stream block (Flux): norm and modulated input (2), q/k norms (2), q, k, v and output
# (4), the MLP's GELU input and output (8), the concatenated [attention, MLP] input of proj_out
# (1 + mlp_ratio = 5) and the gate (1): 22.
SINGLE_BLOCK_TENSORS = 22
# Backward workspace while a block is differentiated: the gradients of its MLP activations (2 ×
# mlp_ratio hidden-wide tensors) and of the residual stream in and out (2).
DIT_WORKSPACE_TENSORS = 2 * 4 + 2
# Inference, no autograd: the live tensors of one block at once: input, norm, modulated input,
# q, k, v and their fp32 RMSNorm and RoPE temporaries (counted as 4 16-bit tensors), the
# attention output, the MLP's input and GELU output (8), the concatenation (5) and the output.
DIT_INFERENCE_TENSORS = 24

# --- UNets (diffusers UNet2DConditionModel): channel-tensors kept per latent pixel.
# A frozen ResNet block keeps its two GroupNorms' inputs and the SiLUs' inputs (2 of its input
# width, 2 of its output width); a trainable one also its two convolutions' inputs.
RESNET_FROZEN_IN, RESNET_FROZEN_OUT = 2, 2
RESNET_TRAINABLE_EXTRA = 1  # each convolution's input, of its in and out width
# A BasicTransformerBlock of width c (self-attention, cross-attention to the text, GEGLU feed-
# forward): three LayerNorm inputs (3), self-attention q, k, v, output and the shared input of
# the projections (5), cross-attention q and output and its input (3), GEGLU's input (1), its 8c
# projection (8), the GELU input (4), the gated product (4), and the residual outputs (the
# remaining 0: they are the next norm's input): 28.
UNET_TRANSFORMER_TENSORS = 28
UNET_TRANSFORMER_WRAPPER = 3  # Transformer2DModel's GroupNorm, proj_in and proj_out inputs
# Inference: a transformer layer's GEGLU projection, GELU and product alive at once (8 + 4 + 4).
UNET_INFERENCE_TENSORS = 16

# --- VAE (diffusers AutoencoderKL: block_out_channels 128, 256, 512, 512). Decoding, the widest
# stage is the last up block at full resolution: the upsampled 256-channel input, its GroupNorm
# and SiLU outputs (3 × 256) and the 128-channel convolution and shortcut outputs (2 × 128) of
# 16-bit values per output pixel. Encoding (training without cached latents) runs the mirror
# stage at 128 channels: conv_in output, GroupNorm, SiLU and conv outputs (4 × 128).
VAE_DECODE_BYTES_PER_PIXEL = VALUE_BYTES * (3 * 256 + 2 * 128)
VAE_ENCODE_BYTES_PER_PIXEL = VALUE_BYTES * 4 * 128

TEXT_ENCODER_MODES: tuple[TextEncoders, ...] = ("gpu", "offload", "cached")

# A suggestion and the changed task it describes (None: no change fits; a bigger GPU would).
Fix = tuple[Message, Task | None]


# ------------------------------------------------------------------------------------ the pipeline


def arch_of(task: Task) -> DiffusionArch:
    if task.arch is None or task.arch.diffusion is None:
        raise ValueError(f"task {task.name!r} is not a diffusion pipeline")
    return task.arch.diffusion


def resolution(task: Task) -> int:
    """Pixels on a side: the task's, or the model's native resolution."""
    return task.resolution or arch_of(task).native_resolution


def text_encoder_mode(task: Task) -> TextEncoders:
    """Where the text encoders are: the task's choice, else cached outputs for training (the
    `--cache_text_encoder_outputs --cache_latents` kohya's SDXL and FLUX guides recommend, and
    SimpleTuner's design) and on the GPU for inference (a diffusers pipeline moved to CUDA)."""
    if task.text_encoders is not None:
        return task.text_encoders
    return "gpu" if task.kind == TaskKind.INFERENCE else "cached"


def text_encoder_precision(task: Task) -> Precision:
    return task.text_encoder_precision or task.precision


def _denoiser_bytes_per_param(task: Task) -> float:
    if task.kind == TaskKind.QLORA:
        return NF4_BYTES_PER_PARAM
    if task.kind == TaskKind.FULL_FINETUNE:
        return PRECISION_BYTES[compute_precision(task)]
    return PRECISION_BYTES[task.precision]


def _denoiser_label(task: Task) -> str:
    return "nf4" if task.kind == TaskKind.QLORA else task.precision


def _vae_fp32(task: Task, d: DiffusionArch) -> bool:
    """The VAE runs in fp32: an fp32 task, or a pipeline that upcasts it to decode (SDXL)."""
    return task.precision == "fp32" or (d.vae_fp32 and task.kind == TaskKind.INFERENCE)


def _component(name: str, params: int, size: float, precision: str) -> Message:
    return msg(
        Code.FORMULA_DIFFUSION_COMPONENT,
        component=name,
        params=params_label(params),
        bytes_per_param=_bytes(size),
        precision=precision,
    )


def _bytes(size: float) -> float | int:
    return int(size) if float(size).is_integer() else round(size, 4)


def _plus(a: Message | None, b: Message) -> Message:
    return b if a is None else msg(Code.FORMULA_PLUS, a=a, b=b)


@dataclass(frozen=True)
class _Weights:
    bytes: int
    formula: Message | None


def _sum(parts: list[tuple[int, Message]]) -> _Weights:
    total, formula = 0, None
    for size, part in parts:
        total += size
        formula = _plus(formula, part)
    return _Weights(total, formula)


def _denoiser_weights(task: Task, d: DiffusionArch) -> tuple[int, Message]:
    size = _denoiser_bytes_per_param(task)
    name = {"unet": "UNet", "mmdit": "MMDiT", "flux": "transformer"}[d.denoiser]
    return math.ceil(d.denoiser_params * size), _component(
        name, d.denoiser_params, size, _denoiser_label(task)
    )


def _text_encoder_weights(task: Task, d: DiffusionArch) -> list[tuple[int, Message]]:
    precision = text_encoder_precision(task)
    size = PRECISION_BYTES[precision]
    return [
        (math.ceil(params * size), _component(name, params, size, precision))
        for name, params in d.text_encoders
    ]


def _vae_weights(task: Task, d: DiffusionArch) -> tuple[int, Message]:
    size = FP32 if _vae_fp32(task, d) else HALF
    return math.ceil(d.vae_params * size), _component(
        "VAE", d.vae_params, size, "fp32" if size == FP32 else "bf16"
    )


# --------------------------------------------------------------------------------- LoRA adapters


def _linear(rank: int, d_in: int, d_out: int) -> int:
    return rank * (d_in + d_out)


def lora_params(d: DiffusionArch, rank: int, targets: str = "all_linear") -> int:
    """Σ r·(d_in + d_out) over the adapted linear layers of the denoiser's blocks.

    Transformers: q, k, v and the output of each stream's attention (`attention`), plus the MLP's
    two matrices (`all_linear`; Flux single blocks: proj_mlp and proj_out). UNet transformer
    layers: self-attention q, k, v, out; cross-attention q and out (c × c) and k, v from the text
    (context × c); `all_linear` adds GEGLU's c -> 8c and 4c -> c and each Transformer2DModel's
    proj_in and proj_out (c × c). ResNet convolutions are not adapted (kohya's networks.lora
    without conv_dim, diffusers' default targets).
    """
    everything = targets == "all_linear"
    if d.denoiser in ("mmdit", "flux"):
        h, m = d.hidden, d.mlp_ratio * d.hidden
        stream = 3 * _linear(rank, h, h) + _linear(rank, h, h)
        if everything:
            stream += _linear(rank, h, m) + _linear(rank, m, h)
        single = 3 * _linear(rank, h, h)
        if everything:
            single += _linear(rank, h, m) + _linear(rank, h + m, h)
        return 2 * stream * d.blocks + single * d.single_blocks
    total = 0
    for c, layers, modules in _unet_transformer_layers(d):
        layer = 4 * _linear(rank, c, c)
        layer += 2 * _linear(rank, c, c) + 2 * _linear(rank, d.context_dim, c)
        if everything:
            layer += _linear(rank, c, 8 * c) + _linear(rank, 4 * c, c)
            total += modules * 2 * _linear(rank, c, c)
        total += layer * layers
    return total


def _unet_transformer_layers(d: DiffusionArch) -> Iterator[tuple[int, int, int]]:
    """(channels, transformer layers, Transformer2DModel modules) of each level and the mid."""
    for c, depth in d.levels:
        if depth:
            modules = d.layers_per_block + (d.layers_per_block + 1)
            yield c, depth * modules, modules
    if d.mid_depth:
        yield d.levels[-1][0], d.mid_depth, 1


def task_lora_params(task: Task) -> int:
    return lora_params(arch_of(task), task.lora_rank, task.lora_targets)


# ------------------------------------------------------------------------------- the denoiser


def image_tokens(d: DiffusionArch, pixels: int) -> int:
    """Transformer tokens of one image: latent pixels grouped in patch × patch."""
    side = pixels // (d.vae_factor * d.patch)
    return side * side


@dataclass(frozen=True)
class _UnetModule:
    """One module of the UNet's forward pass: its saved channel-tokens per image (no
    checkpointing), its checkpoint (its input), and its live set at inference."""

    saved: int
    checkpoint: int
    inference: int


def _unet_modules(d: DiffusionArch, latent: int, trainable: bool) -> tuple[list[_UnetModule], int]:
    """The UNet's modules in forward order and the skip connections' channel-tokens."""
    modules: list[_UnetModule] = []
    skips: list[int] = []

    def tokens(level: int) -> int:
        side = max(1, latent >> level)
        return side * side

    def resnet(c_in: int, c_out: int, n: int) -> None:
        saved = RESNET_FROZEN_IN * c_in + RESNET_FROZEN_OUT * c_out
        if trainable:
            saved += RESNET_TRAINABLE_EXTRA * (c_in + c_out)
        modules.append(_UnetModule(saved * n, c_in * n, (2 * c_in + c_out) * n))

    def transformer(c: int, depth: int, n: int) -> None:
        wrapper = UNET_TRANSFORMER_WRAPPER * c * n
        for _ in range(depth):
            modules.append(
                _UnetModule(UNET_TRANSFORMER_TENSORS * c * n, c * n, UNET_INFERENCE_TENSORS * c * n)
            )
        modules.append(_UnetModule(wrapper, wrapper, 0))

    last = len(d.levels) - 1
    channels = d.levels[0][0]
    skips.append(channels * tokens(0))  # conv_in
    for level, (c, depth) in enumerate(d.levels):
        n = tokens(level)
        for _ in range(d.layers_per_block):
            resnet(channels, c, n)
            channels = c
            if depth:
                transformer(c, depth, n)
            skips.append(c * n)
        if level < last:
            skips.append(c * tokens(level + 1))  # the downsampler's output
    n = tokens(last)
    resnet(channels, channels, n)
    if d.mid_depth:
        transformer(channels, d.mid_depth, n)
    resnet(channels, channels, n)
    stack = list(skips)
    for level in range(last, -1, -1):
        c, depth = d.levels[level]
        n = tokens(level)
        for _ in range(d.layers_per_block + 1):
            skip = stack.pop() // n
            resnet(channels + skip, c, n)
            channels = c
            if depth:
                transformer(c, depth, n)
    return modules, sum(skips)


@dataclass(frozen=True)
class _Activations:
    gpu: int
    host: int
    formula: Message


def _value_scale(task: Task) -> int:
    return 2 if compute_precision(task) == "fp32" else 1


def _batch(task: Task) -> int:
    return task.micro_batch


def _dit_training(task: Task, d: DiffusionArch, pixels: int) -> _Activations:
    batch, h = _batch(task), d.hidden
    image, text = image_tokens(d, pixels), d.text_tokens
    tokens = image + text
    joint = JOINT_BLOCK_TENSORS * VALUE_BYTES * h
    single = SINGLE_BLOCK_TENSORS * VALUE_BYTES * h
    workspace = DIT_WORKSPACE_TENSORS * VALUE_BYTES * h
    blocks = d.blocks + d.single_blocks
    largest = single if d.single_blocks else joint
    per_block = (joint * d.blocks + single * d.single_blocks) // blocks
    if task.activation_checkpointing == "full":
        checkpoint = VALUE_BYTES * h
        kept = blocks
        if task.activation_offload:
            kept = min(blocks, OFFLOAD_LAYERS_IN_FLIGHT)
        gpu = batch * tokens * (kept * checkpoint + largest + workspace)
        host = batch * tokens * (blocks - kept) * checkpoint
        formula = msg(
            Code.FORMULA_DIT_ACTIVATIONS_CHECKPOINTED,
            blocks=kept,
            tokens=tokens,
            image=image,
            text=text,
            batch=batch,
            input=count_quantity(checkpoint),
            per_token=count_quantity(largest + workspace),
        )
    else:
        gpu = batch * tokens * (per_block * blocks + workspace)
        host = 0
        formula = msg(
            Code.FORMULA_DIT_ACTIVATIONS,
            blocks=blocks,
            tokens=tokens,
            image=image,
            text=text,
            batch=batch,
            per_token=count_quantity(per_block),
            workspace=count_quantity(workspace),
        )
    scale = _value_scale(task)
    return _Activations(gpu * scale, host * scale, formula)


def _unet_training(task: Task, d: DiffusionArch, pixels: int) -> _Activations:
    batch = _batch(task)
    latent = pixels // d.vae_factor
    modules, _skips = _unet_modules(d, latent, task.kind == TaskKind.FULL_FINETUNE)
    largest = max(m.saved for m in modules)
    if task.activation_checkpointing == "full":
        checkpoints = sum(m.checkpoint for m in modules)
        host = 0
        if task.activation_offload:
            host, checkpoints = (
                checkpoints,
                OFFLOAD_LAYERS_IN_FLIGHT * max(m.checkpoint for m in modules),
            )
        # One module recomputed and its backward workspace.
        channel_tokens = checkpoints + 2 * largest
        formula = msg(
            Code.FORMULA_UNET_ACTIVATIONS_CHECKPOINTED,
            latent=latent,
            checkpoints=count_quantity(checkpoints),
            recomputed=count_quantity(2 * largest),
            batch=batch,
        )
    else:
        host = 0
        saved = sum(m.saved for m in modules)
        channel_tokens = saved + largest
        formula = msg(
            Code.FORMULA_UNET_ACTIVATIONS,
            latent=latent,
            saved=count_quantity(saved),
            workspace=count_quantity(largest),
            batch=batch,
        )
    scale = _value_scale(task) * VALUE_BYTES * batch
    return _Activations(channel_tokens * scale, host * scale, formula)


def _denoiser_training(task: Task, d: DiffusionArch, pixels: int) -> _Activations:
    if d.denoiser == "unet":
        return _unet_training(task, d, pixels)
    return _dit_training(task, d, pixels)


def _guided(task: Task, d: DiffusionArch) -> int:
    """Images denoised at once: each twice under classifier-free guidance."""
    return task.concurrent_sequences * (2 if d.cfg else 1)


def _denoiser_inference(task: Task, d: DiffusionArch, pixels: int) -> tuple[int, Message]:
    batch = _guided(task, d)
    if d.denoiser == "unet":
        latent = pixels // d.vae_factor
        modules, skips = _unet_modules(d, latent, trainable=False)
        live = max(m.inference for m in modules)
        total = batch * VALUE_BYTES * (skips + live)
        return total, msg(
            Code.FORMULA_UNET_INFERENCE,
            latent=latent,
            skips=count_quantity(skips),
            live=count_quantity(live),
            batch=batch,
        )
    tokens = image_tokens(d, pixels) + d.text_tokens
    per_token = DIT_INFERENCE_TENSORS * VALUE_BYTES * d.hidden
    return batch * tokens * per_token, msg(
        Code.FORMULA_DIT_INFERENCE, tokens=tokens, batch=batch, per_token=count_quantity(per_token)
    )


def _vae_pass(
    task: Task, d: DiffusionArch, code: Code, pixels: int, images: int, per_pixel: int
) -> tuple[int, Message]:
    """The VAE's workspace decoding (or encoding) `images` images of pixels × pixels."""
    per_pixel *= 2 if _vae_fp32(task, d) else 1
    return images * pixels * pixels * per_pixel, msg(
        code, pixels=pixels, images=images, per_pixel=count_quantity(per_pixel)
    )


# ------------------------------------------------------------------------------------- memory


def _notes(d: DiffusionArch, pixels: int, mode: TextEncoders) -> list[Message]:
    names = tuple(name for name, _ in d.text_encoders)
    code = {
        "gpu": Code.MEMORY_NOTE_TEXT_ENCODERS_GPU,
        "offload": Code.MEMORY_NOTE_TEXT_ENCODERS_OFFLOADED,
        "cached": Code.MEMORY_NOTE_TEXT_ENCODERS_CACHED,
    }[mode]
    notes = [
        msg(Code.MEMORY_NOTE_DIFFUSION_RESOLUTION, pixels=pixels, native=d.native_resolution),
        msg(code, encoders=names),
    ]
    return notes


def task_memory(task: Task) -> MemoryPlan:
    """Per-GPU memory of a diffusion task: every GPU runs the whole pipeline (data parallel)."""
    if task.kind == TaskKind.INFERENCE:
        return _inference(task)
    return _training(task)


def _inference(task: Task) -> MemoryPlan:
    d = arch_of(task)
    pixels = resolution(task)
    mode = text_encoder_mode(task)
    notes = _notes(d, pixels, mode)
    denoiser = _denoiser_weights(task, d)
    encoders = _text_encoder_weights(task, d)
    vae = _vae_weights(task, d)
    work, work_formula = _denoiser_inference(task, d, pixels)
    decode, decode_formula = _vae_pass(
        task,
        d,
        Code.FORMULA_VAE_DECODE,
        pixels,
        task.concurrent_sequences,
        VAE_DECODE_BYTES_PER_PIXEL,
    )
    if d.cfg:
        notes.append(msg(Code.MEMORY_NOTE_CFG, batch=_guided(task, d)))
    if d.vae_fp32:
        notes.append(msg(Code.MEMORY_NOTE_VAE_FP32))
    host = 0
    if mode == "offload":
        # diffusers' enable_model_cpu_offload: one model on the GPU at a time; the largest phase
        # is the memory, the rest waits in host RAM.
        phases = [
            (denoiser[0] + work, [denoiser], work, work_formula),
            (vae[0] + decode, [vae], decode, decode_formula),
            *((size + 0, [(size, f)], 0, None) for size, f in encoders),
        ]
        _, parts, activations, a_formula = max(phases, key=lambda p: p[0])
        weights = _sum(parts)
        host = denoiser[0] + vae[0] + sum(size for size, _ in encoders) - weights.bytes
        notes.append(msg(Code.MEMORY_NOTE_HOST_RAM, host=gib(host)))
    else:
        parts = [denoiser, *(encoders if mode == "gpu" else []), vae]
        weights = _sum(parts)
        activations = work + decode
        a_formula = msg(Code.FORMULA_PLUS, a=work_formula, b=decode_formula)
        notes.append(msg(Code.MEMORY_NOTE_DIFFUSION_ALLOCATOR))
    formulas: dict[str, Message] = {}
    if weights.formula is not None:
        formulas["weights"] = formula_result(weights.formula, weights.bytes)
    if a_formula is not None:
        formulas["activations"] = formula_result(a_formula, activations)
    formulas["overhead"] = overhead_formula()
    return MemoryPlan(
        gpus=task.gpus,
        per_gpu=MemoryBreakdown(weights.bytes, 0, 0, activations, 0, OVERHEAD_BYTES),
        sharded=False,
        notes=tuple(notes),
        formulas=formulas,
        offloaded_bytes=host * task.gpus,
    )


def _training(task: Task) -> MemoryPlan:
    d = arch_of(task)
    pixels = resolution(task)
    mode = text_encoder_mode(task)
    notes = _notes(d, pixels, mode)
    precision = compute_precision(task)
    size = PRECISION_BYTES[precision]
    denoiser = _denoiser_weights(task, d)
    if task.kind == TaskKind.FULL_FINETUNE:
        trainable = d.denoiser_params
        parts = [denoiser]
    else:
        trainable = task_lora_params(task)
        adapters = math.ceil(trainable * size)
        parts = [denoiser, (adapters, _component("LoRA", trainable, size, precision))]
        targets = (
            Code.LORA_TARGETS_BLOCK_ALL_LINEAR
            if task.lora_targets == "all_linear"
            else Code.LORA_TARGETS_BLOCK_ATTENTION
        )
        notes.append(
            msg(
                Code.MEMORY_NOTE_DIFFUSION_LORA,
                rank=task.lora_rank,
                targets=msg(targets),
                trainable=count_quantity(trainable),
            )
        )
    resident = [*parts]
    host = 0
    encoders = _text_encoder_weights(task, d)
    vae = _vae_weights(task, d)
    if mode == "gpu":
        resident += [*encoders, vae]
    elif mode == "offload":
        host += sum(s for s, _ in encoders) + vae[0]
    weights = _sum(resident)
    div_w, div_g, div_o = zero_divisors(task)
    label = params_label(trainable)
    grad_bytes = math.ceil(trainable * size / div_g)
    opt_size = optimizer_bytes_per_param(task)
    opt_bytes = math.ceil(trainable * opt_size / div_o)
    master = task.master_weights and precision != "fp32"
    formulas: dict[str, Message] = {}
    assert weights.formula is not None
    w_bytes = math.ceil(weights.bytes / div_w)
    w_formula = weights.formula
    if div_w > 1:
        w_formula = msg(Code.FORMULA_SHARDED, formula=w_formula, gpus=div_w, sharding=task.sharding)
    formulas["weights"] = formula_result(w_formula, w_bytes)
    g_formula = msg(
        Code.FORMULA_GRADIENTS, params=label, bytes_per_param=_bytes(size), precision=precision
    )
    o_formula = msg(
        Code.FORMULA_OPTIMIZER_MASTER if master else Code.FORMULA_OPTIMIZER,
        params=label,
        bytes_per_param=_bytes(opt_size),
        optimizer=task.optimizer,
    )
    if task.offload != "none":
        host += math.ceil(trainable * opt_size) + trainable * 4
        grad_bytes = opt_bytes = 0
        formulas["optimizer"] = msg(Code.FORMULA_OPTIMIZER_OFFLOADED)
        formulas["gradients"] = msg(Code.FORMULA_GRADIENTS_STREAMED)
    else:
        formulas["gradients"] = formula_result(g_formula, grad_bytes)
        formulas["optimizer"] = formula_result(o_formula, opt_bytes)
    acts = _denoiser_training(task, d, pixels)
    activations, a_formula = acts.gpu, acts.formula
    if mode == "gpu":
        encode, e_formula = _vae_pass(
            task, d, Code.FORMULA_VAE_ENCODE, pixels, task.micro_batch, VAE_ENCODE_BYTES_PER_PIXEL
        )
        activations += encode
        a_formula = msg(Code.FORMULA_PLUS, a=a_formula, b=e_formula)
    formulas["activations"] = formula_result(a_formula, activations)
    formulas["overhead"] = overhead_formula()
    notes.append(msg(Code.MEMORY_NOTE_DIFFUSION_SDPA))
    if acts.host:
        notes.append(msg(Code.MEMORY_NOTE_HOST_RAM_ACTIVATIONS, host=gib(acts.host)))
    if host:
        notes.append(msg(Code.MEMORY_NOTE_HOST_RAM, host=gib(host)))
    return MemoryPlan(
        gpus=task.gpus,
        per_gpu=MemoryBreakdown(w_bytes, grad_bytes, opt_bytes, activations, 0, OVERHEAD_BYTES),
        sharded=task.gpus > 1 and task.sharding != "none",
        notes=tuple(notes),
        formulas=formulas,
        offloaded_bytes=host + acts.host * task.gpus,
    )


# ------------------------------------------------------------------------------------ suggestions


def _fits(task: Task, capacity: int) -> int | None:
    total = task_memory(task).per_gpu.total
    return total if total <= capacity else None


def _candidates(task: Task) -> list[tuple[Message, Task]]:
    """Single changes on the same GPU, those that change nothing of the result first."""
    out: list[tuple[Message, Task]] = []
    mode = text_encoder_mode(task)
    training = task.kind != TaskKind.INFERENCE
    if training:
        if mode != "cached":
            out.append((msg(Code.FIX_CACHE_TEXT_ENCODERS), replace(task, text_encoders="cached")))
        if task.activation_checkpointing != "full":
            full = replace(task, activation_checkpointing="full")
            out.append((msg(Code.FIX_FULL_CHECKPOINTING), full))
        if not task.activation_offload:
            offloaded = replace(task, activation_checkpointing="full", activation_offload=True)
            out.append((msg(Code.FIX_OFFLOAD_CHECKPOINTS), offloaded))
        if task.optimizer == "adamw":
            out.append((msg(Code.FIX_OPTIMIZER_8BIT), replace(task, optimizer="adamw_8bit")))
    elif mode == "gpu":
        out.append((msg(Code.FIX_OFFLOAD_TEXT_ENCODERS), replace(task, text_encoders="offload")))
    if mode != "cached" and PRECISION_BYTES["fp8"] < PRECISION_BYTES[text_encoder_precision(task)]:
        out.append(
            (
                msg(Code.FIX_TEXT_ENCODER_PRECISION, precision="fp8"),
                replace(task, text_encoder_precision="fp8"),
            )
        )
    if task.kind in (TaskKind.INFERENCE, TaskKind.LORA):
        encoders = text_encoder_precision(task)
        for precision in ("fp8", "int4"):
            if PRECISION_BYTES[precision] >= PRECISION_BYTES[task.precision]:
                continue
            # The VAE stays 16-bit and, under LoRA, the adapters train in bf16; loaded text
            # encoders are quantised with the denoiser, as the diffusers quantisation blog does.
            both = mode != "cached" and PRECISION_BYTES[precision] < PRECISION_BYTES[encoders]
            code = Code.FIX_WEIGHTS_AND_TEXT_ENCODERS if both else Code.FIX_WEIGHTS_PRECISION
            variant = replace(
                task, precision=precision, text_encoder_precision=precision if both else encoders
            )
            out.append((msg(code, precision=precision), variant))
    if task.kind in (TaskKind.FULL_FINETUNE, TaskKind.LORA):
        qlora = replace(task, kind=TaskKind.QLORA, precision=compute_precision(task))
        out.append((msg(Code.FIX_QLORA, rank=task.lora_rank), qlora))
    return out


def _with_images(task: Task, images: int) -> Task:
    """`task` generating (inference) or training on (micro-batch) `images` images at once."""
    if task.kind == TaskKind.INFERENCE:
        return replace(task, concurrent_sequences=images)
    return replace(task, micro_batch=images)


def _max_images(task: Task, capacity: int) -> list[Fix]:
    """The most images at once that fit (binary search over the batch)."""
    images = task.concurrent_sequences if task.kind == TaskKind.INFERENCE else task.micro_batch
    if images <= 1 or _fits(_with_images(task, 1), capacity) is None:
        return []
    lo, hi = 1, images - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if _fits(_with_images(task, mid), capacity) is None:
            hi = mid - 1
        else:
            lo = mid
    variant = _with_images(task, lo)
    total = task_memory(variant).per_gpu.total
    return [(per_gpu_fix(msg(Code.FIX_MAX_IMAGES, images=lo), total), variant)]


def fix_variants(task: Task, capacity: int) -> list[Fix]:
    """What would make a diffusion task fit GPUs of `capacity` usable bytes, each with the
    changed task; a larger batch never needs more GPUs (every GPU runs the whole pipeline)."""
    fixes: list[Fix] = []
    for label, variant in _candidates(task):
        total = _fits(variant, capacity)
        if total is None and variant.kind != TaskKind.INFERENCE:
            # The change together with full checkpointing, as memory.py suggests for LLMs.
            variant = replace(variant, activation_checkpointing="full")
            label = msg(Code.FIX_WITH_FULL_CHECKPOINTING, fix=label)
            total = _fits(variant, capacity)
        if total is not None:
            fixes.append((per_gpu_fix(label, total, task_memory(variant).offloaded_bytes), variant))
    fixes.extend(_max_images(task, capacity))
    if not fixes:
        need = task_memory(task).per_gpu.total
        fixes.append((msg(Code.FIX_BIGGER_GPU, bytes=gib(need)), None))
    return fixes


# ------------------------------------------------------------------------------ training work

# Weights a token passes through in a transformer denoiser's block: q, k, v and the attention
# output (4·h²) and the MLP's two matrices (2 · mlp_ratio · h² = 8·h²), 12·h² in all. A joint
# (double-stream) block has one such set per stream and each token passes through its own
# stream's; a Flux single-stream block fuses them (to_q, to_k, to_v: 3·h², proj_mlp h → 4h: 4·h²,
# proj_out 5h → h: 5·h²): 12·h² too (diffusers FluxTransformerBlock, FluxSingleTransformerBlock,
# JointTransformerBlock). The AdaLN modulation, timestep and guidance embedders act once per
# image, not per token: FLUX.1's 11.9B weights are 6.45B per token.
TOKEN_WEIGHTS_PER_BLOCK = 12
# bitsandbytes' dequantize_4bit before each 4-bit matmul reads the codes and their absmax
# (0.5 B per parameter) and writes the 16-bit weight (2 B): 2.5 B per parameter and pass, the
# fast end; the matmul then reads the 16-bit copy again where it is not cached (+2 B), the slow
# end; expected between them. A pass is the forward, the backward (the input gradient of each
# frozen linear layer), and the forward again under full checkpointing.
BNB_DEQUANT_BYTES_PER_PASS = (2.5, 3.5, 4.5)


@dataclass(frozen=True)
class DenoiserWork:
    """The work of one training image (docs/time-model.md, "Diffusion training"): FLOPs executed
    by the denoiser (forward, backward, recomputation) and by the text encoders where their
    outputs are not cached, of which forward; what it is made of, for the notes."""

    flops: float
    forward: float
    image_tokens: int
    text_tokens: int
    token_params: int
    text_encoder_flops: float
    pixels: int
    # QLoRA: bytes per base parameter dequantized per micro-batch (fast, expected, slow end)
    dequant_bytes: tuple[float, float, float]


def token_params(d: DiffusionArch) -> int:
    """Weights each token passes through: 12·h² per block (TOKEN_WEIGHTS_PER_BLOCK)."""
    return TOKEN_WEIGHTS_PER_BLOCK * d.hidden * d.hidden * (d.blocks + d.single_blocks)


def training_work(task: Task, field: str) -> DenoiserWork:
    """FLOPs of one training image at the task's resolution: a transformer denoiser's
    (4N or 6N)·s + 12·L·h·s² over its s = image + text tokens (N its per-token weights, the
    convention of docs/time-model.md "Training FLOPs" for language models, attention over the
    whole s × s matrix: a denoiser's attention is not causal), one more forward pass with full
    checkpointing, and 2·N_te per text token where the text encoders run for each image.

    A UNet has no such count here (its convolutions' work is not sourced): InvalidWorkload
    DIFFUSION_NO_TIME_MODEL, which the ranking and the estimate turn into "no time"."""
    d = arch_of(task)
    if d.denoiser == "unet":
        preset = task.model or (task.arch.variant if task.arch is not None else None)
        name = PRESET_INFO[preset].name if preset in PRESET_INFO else "UNet"
        raise InvalidWorkload(Code.DIFFUSION_NO_TIME_MODEL, field, model=name)
    pixels = resolution(task)
    image = image_tokens(d, pixels)
    tokens = image + d.text_tokens
    n = token_params(d)
    layers = d.blocks + d.single_blocks
    attention = 12 * layers * d.hidden * tokens * tokens
    forward = 2 * n * tokens + attention / 3
    total = float((6 if task.kind == TaskKind.FULL_FINETUNE else 4) * n * tokens + attention)
    if task.activation_checkpointing == "full":
        total += forward
    encoders = 0.0
    if text_encoder_mode(task) != "cached":
        encoders = 2.0 * d.text_encoder_params * d.text_tokens
    passes = 3 if task.activation_checkpointing == "full" else 2
    low, mid, high = BNB_DEQUANT_BYTES_PER_PASS
    return DenoiserWork(
        flops=total + encoders,
        forward=forward + encoders,
        image_tokens=image,
        text_tokens=d.text_tokens,
        token_params=n,
        text_encoder_flops=encoders,
        pixels=pixels,
        dequant_bytes=(low * passes, mid * passes, high * passes),
    )
