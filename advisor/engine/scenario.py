"""The scenario JSON contract (README.md, "The scenario"): parsing, validation and the way back.

`parse_scenario` accepts any JSON-like value and returns a `Scenario` or raises `InvalidWorkload`
whose `field` is a path such as `tasks[0].precision`; nothing else may escape it. Model presets are
resolved to their architecture here; accelerator names are checked later against the table.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Mapping
from dataclasses import replace
from decimal import Decimal, InvalidOperation
from typing import Any, TypeVar, cast

from advisor.engine import vocab
from advisor.engine.errors import InvalidWorkload
from advisor.engine.hf_config import arch_from_config
from advisor.engine.messages import Code, hours, msg
from advisor.engine.model_catalogue import MODELS
from advisor.engine.presets import MODEL_PRESETS
from advisor.engine.types import Constraints, ModelArch, Objective, OnHardware, Scenario, Task
from advisor.engine.vocab import Currency, Isolation, TaskKind, When

T = TypeVar("T")

# Bounds: generous enough for any real workload, tight enough to keep the arithmetic sane.
MAX_TASKS = 100
MAX_PARAMS = 1e14  # 100 trillion parameters
MAX_TOKENS_PER_SEQUENCE = 10_000_000  # seq_len, context_len
MAX_TRAINING_TOKENS = 1e16
MAX_GPUS = 100_000
MAX_COUNT = 1_000_000  # micro_batch, concurrent_sequences, lora_rank, arch dimensions
MAX_VRAM_GIB = 1_000_000
# Busy hours a month: at most the billing month (vocab.HOURS_PER_MONTH, 30 days), which is what
# usage.py bills; a longer calendar month is refused, not billed as 720 h without a word.
MAX_HOURS_PER_MONTH = vocab.HOURS_PER_MONTH
MAX_NAME = 200
MAX_JOBS_PER_MONTH = 10_000
# A job on spot: checkpoint interval and restart time, minutes (a day at most).
MAX_SPOT_MINUTES = 24 * 60

KINDS = tuple(vocab.TaskKind)
PRECISIONS = ("fp32", "bf16", "fp16", "fp8", "int8", "int4")
# Full fine-tuning keeps trainable weights in one of these (Transformer Math 101); fp8/int
# training is not modelled. LoRA/QLoRA may use any base precision; adapters then train in bf16.
TRAINING_PRECISIONS = ("fp32", "bf16", "fp16")
OPTIMIZERS = ("adamw", "adamw_8bit", "sgd_momentum")
SHARDINGS = ("none", "zero1", "zero2", "zero3")
SHARDING_ALIASES = {"fsdp": "zero3"}  # FSDP full sharding is ZeRO-3 (docs/memory-model.md)
OFFLOADS = ("none", "optimizer", "optimizer_and_params")
CHECKPOINTING = ("none", "selective", "full")
# Memory-relevant implementation choices (docs/memory-model.md): FlashAttention/SDPA or eager
# attention; the trainer (Hugging Face Transformers/TRL/PEFT, the same with Liger kernels,
# torchtune, Unsloth: its loss, kernels and QLoRA path); LoRA on attention projections only or on
# every linear layer; a paged KV cache (vLLM, SGLang) or Hugging Face generate's concatenated one.
ATTENTIONS = ("flash", "eager")
FRAMEWORKS = ("hf", "pytorch", "liger", "torchtune", "unsloth")
LORA_TARGETS = ("attention", "all_linear")
SERVINGS = ("paged", "hf_generate")
# A mixture of experts' training (docs/time-model.md, "Mixture of experts").
MOE_IMPLEMENTATIONS = ("expert_loop", "grouped_gemm", "expert_parallel")
# Serving workload (docs/time-model.md, "Serving"): the kind of use whose prompt and output
# lengths apply by default (serving.WORKLOAD_SHAPES) and the engine family whose published runs
# set the efficiency (serving.ENGINE_RANGES); inference tasks only.
WORKLOADS = ("chat", "rag", "batch")
SERVING_ENGINES = ("vllm", "sglang", "tensorrt_llm", "llama_cpp", "hf")
WORKLOAD_FIELDS = ("workload", "prompt_tokens", "output_tokens", "serving_engine")
# Diffusion models (docs/memory-model.md, "Diffusion models"): where the text encoders are.
TEXT_ENCODER_MODES = ("gpu", "offload", "cached")
# Images are sized in whole latent patches: 8 pixels per latent pixel × a 2 × 2 patch.
RESOLUTION_MULTIPLE = 16
MIN_RESOLUTION, MAX_RESOLUTION = 64, 16384
# Fixed tasks (docs/time-model.md, "Fixed tasks"): the figure a time is scaled by.
SCALE_BY = ("fp32", "fp64", "bf16", "bandwidth")
MAX_FRAMES = 1e9
MAX_SECONDS_PER_FRAME = 1e7
MAX_TFLOPS = 1e6
WHENS = tuple(vocab.When)
ISOLATIONS = tuple(vocab.Isolation)
# The error message lists objectives in this order; vocab's order is the form's.
OBJECTIVES = (vocab.Objective.COST, vocab.Objective.TIME, vocab.Objective.BALANCED)
CURRENCIES = tuple(vocab.Currency)
PRICE_TIERS = tuple(vocab.PriceTier)

ARCH_KEYS = (
    "layers",
    "hidden",
    "heads",
    "kv_heads",
    "head_dim",
    "intermediate",
    "vocab",
    "mla_kv_lora_rank",
    "mla_rope_head_dim",
    "active_params",
    "experts",
    "experts_per_token",
)
# Besides the shape: the model family and, for a diffusion model, the preset it is built like.
ARCH_KINDS = ("family", "variant")
FAMILIES = ("llm", "diffusion")
# Every task field: those all kinds share, and each kind group's (vocab.FIELD_GROUPS).
TASK_KEYS = frozenset(
    {"name", "kind", "gpus", "when", "hours_per_month", "isolation", "on"}.union(
        *vocab.FIELD_GROUPS.values()
    )
)
ON_KEYS = frozenset(
    {"accelerator", "count", "mig_profile", "mfu", "gpus_per_node", "network", "network_gbps"}
)
NETWORKS = tuple(vocab.Network)
MAX_NETWORK_GBPS = 1_000_000  # Gb/s per machine; the largest sold today is 3,200 (AWS p5)
MAX_STARTUP_MINUTES = 24 * 60  # a run that takes a day to start is no run
MAX_TRANSFER_MBPS = 1_000_000  # Mbit/s: 1 Tbit/s, beyond any rented link
TOP_KEYS = frozenset({"tasks", "constraints", "objective", "preset"})


# ----------------------------------------------------------------------------- primitive readers


def _mapping(value: object, path: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise InvalidWorkload(Code.MUST_BE_OBJECT, path)
    for key in value:
        if not isinstance(key, str):
            raise InvalidWorkload(Code.KEYS_MUST_BE_STRINGS, path, key=repr(key))
    return cast(Mapping[str, Any], value)


def _only_keys(data: Mapping[str, Any], allowed: frozenset[str], path: str) -> None:
    unknown = sorted(set(data) - allowed)
    if unknown:
        close = difflib.get_close_matches(unknown[0], sorted(allowed), n=1)
        where = f"{path}.{unknown[0]}" if path else unknown[0]
        if close:
            raise InvalidWorkload(Code.UNKNOWN_FIELD_DID_YOU_MEAN, where, suggestion=close[0])
        raise InvalidWorkload(Code.UNKNOWN_FIELD, where)


def _string(value: object, path: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidWorkload(Code.MUST_BE_NON_EMPTY_STRING, path)
    if len(value) > MAX_NAME:
        raise InvalidWorkload(Code.STRING_TOO_LONG, path, max=MAX_NAME)
    return value.strip()


def _choice(
    value: object, choices: tuple[str, ...], path: str, aliases: Mapping[str, str] | None = None
) -> str:
    aliases = aliases or {}
    if isinstance(value, str):
        key = value.strip().lower() if choices != CURRENCIES else value.strip().upper()
        key = aliases.get(key, key)
        if key in choices:
            return key
    raise InvalidWorkload(Code.MUST_BE_ONE_OF, path, choices=tuple(choices))


def _boolean(value: object, path: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidWorkload(Code.MUST_BE_BOOLEAN, path)
    return value


def _number(value: object, path: str, low: float, high: float, *, low_open: bool = False) -> float:
    """A finite number within [low, high] ((low, high] when `low_open`); bools are not numbers."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidWorkload(Code.MUST_BE_NUMBER, path)
    number = float(value) if abs(value) < 1e300 else math.inf
    if not math.isfinite(number):
        raise InvalidWorkload(Code.MUST_BE_FINITE, path)
    below = number <= low if low_open else number < low
    if below or number > high:
        bounds = msg(
            Code.RANGE_LOW_OPEN if low_open else Code.RANGE_CLOSED, low=float(low), high=float(high)
        )
        raise InvalidWorkload(Code.OUT_OF_RANGE, path, range=bounds)
    return number


def _hours_per_month(value: object, path: str) -> float:
    """Busy hours (a service) or the window (a job) in a month: above 0, at most the billing
    month, and said so where a calendar month's 744 h is given."""
    given = isinstance(value, (int, float)) and not isinstance(value, bool)
    if given and math.isfinite(cast(float, value)) and cast(float, value) > MAX_HOURS_PER_MONTH:
        raise InvalidWorkload(
            Code.HOURS_OVER_MONTH,
            path,
            high=hours(MAX_HOURS_PER_MONTH),
            days=MAX_HOURS_PER_MONTH // 24,
        )
    return _number(value, path, 0, MAX_HOURS_PER_MONTH, low_open=True)


def _integer(value: object, path: str, low: int, high: float) -> int:
    number = _number(value, path, low, high)
    if not number.is_integer():
        raise InvalidWorkload(Code.MUST_BE_WHOLE, path)
    return int(number)


def _nullable(reader: Callable[[object, str], T]) -> Callable[[object, str], T | None]:
    def read(value: object, path: str) -> T | None:
        return None if value is None else reader(value, path)

    return read


# ---------------------------------------------------------------------------------------- tasks


def _count(high: float) -> Callable[[object, str], int]:
    return lambda value, path: _integer(value, path, 1, high)


def _enum(
    choices: tuple[str, ...], aliases: Mapping[str, str] | None = None
) -> Callable[[object, str], str]:
    return lambda value, path: _choice(value, choices, path, aliases)


def _member(kind: Callable[[str], T], choices: tuple[str, ...]) -> Callable[[object, str], T]:
    """A vocabulary field: one of `choices`, as the member of its enum."""
    return lambda value, path: kind(_choice(value, choices, path))


# Readers for the task fields that map one-to-one onto Task attributes.
_TASK_READERS: dict[str, Callable[[object, str], Any]] = {
    "name": _string,
    "kind": _member(TaskKind, KINDS),
    "precision": _enum(PRECISIONS),
    "optimizer": _enum(OPTIMIZERS),
    "master_weights": _boolean,
    "sharding": _enum(SHARDINGS, SHARDING_ALIASES),
    "offload": _enum(OFFLOADS),
    "activation_checkpointing": _enum(CHECKPOINTING),
    "activation_offload": _boolean,
    "attention": _enum(ATTENTIONS),
    "framework": _enum(FRAMEWORKS),
    "lora_targets": _enum(LORA_TARGETS),
    "fused_optimizer_step": _boolean,
    "moe_implementation": _enum(MOE_IMPLEMENTATIONS),
    "micro_batch": _count(MAX_COUNT),
    "gradient_accumulation": _count(MAX_COUNT),
    "seq_len": _count(MAX_TOKENS_PER_SEQUENCE),
    "lora_rank": _count(MAX_COUNT),
    "tokens": _nullable(lambda v, p: _number(v, p, 0, MAX_TRAINING_TOKENS, low_open=True)),
    "context_len": _count(MAX_TOKENS_PER_SEQUENCE),
    "concurrent_sequences": _count(MAX_COUNT),
    "kv_precision": _enum(PRECISIONS),
    "serving": _enum(SERVINGS),
    "workload": _enum(WORKLOADS),
    "prompt_tokens": _count(MAX_TOKENS_PER_SEQUENCE),
    "output_tokens": _count(MAX_TOKENS_PER_SEQUENCE),
    "serving_engine": _enum(SERVING_ENGINES),
    "vram_gib": _nullable(lambda v, p: _number(v, p, 0, MAX_VRAM_GIB, low_open=True)),
    "resolution": _count(MAX_RESOLUTION),
    "text_encoders": _enum(TEXT_ENCODER_MODES),
    "text_encoder_precision": _enum(PRECISIONS),
    "frames": lambda v, p: _number(v, p, 0, MAX_FRAMES, low_open=True),
    "seconds_per_frame": lambda v, p: _number(v, p, 0, MAX_SECONDS_PER_FRAME, low_open=True),
    "reference_accelerator": _string,
    "scale_by": _enum(SCALE_BY),
    "min_fp64_tflops": lambda v, p: _number(v, p, 0, MAX_TFLOPS, low_open=True),
    "needs_rt_cores": _boolean,
    "needs_nvenc": _boolean,
    "portable_code": _boolean,
    "gpus": _count(MAX_GPUS),
    "when": _member(When, WHENS),
    "hours_per_month": lambda v, p: _hours_per_month(v, p),
    "jobs_per_month": lambda v, p: _number(v, p, 0, MAX_JOBS_PER_MONTH, low_open=True),
    "isolation": _member(Isolation, ISOLATIONS),
}


def _diffusion_variants() -> tuple[str, ...]:
    return tuple(key for key, arch in MODEL_PRESETS.items() if arch.diffusion is not None)


def _diffusion_arch(params: float, given: Mapping[str, Any], path: str) -> ModelArch:
    """A diffusion model built like a preset (`variant`), its denoiser of `params` parameters:
    the text encoders, VAE and block shape are the variant's."""
    variants = _diffusion_variants()
    if given.get("variant") is None:
        raise InvalidWorkload(
            Code.DIFFUSION_NEEDS_VARIANT, f"{path}.arch.variant", choices=variants
        )
    variant = _choice(given["variant"], variants, f"{path}.arch.variant")
    shape = sorted(set(given) - {"family", "variant"})
    if shape:
        raise InvalidWorkload(Code.ONLY_FOR_LLM_ARCH, f"{path}.arch.{shape[0]}")
    base = MODEL_PRESETS[variant].diffusion
    assert base is not None
    d = replace(base, denoiser_params=max(1, round(params)))
    total = d.denoiser_params + d.text_encoder_params + d.vae_params
    return ModelArch(params=total, family="diffusion", diffusion=d, variant=variant)


def _arch(data: Mapping[str, Any], path: str) -> ModelArch:
    params = _number(data.get("params"), f"{path}.params", 0, MAX_PARAMS, low_open=True)
    given = _mapping(data["arch"], f"{path}.arch") if data.get("arch") is not None else {}
    _only_keys(given, frozenset(ARCH_KEYS + ARCH_KINDS), f"{path}.arch")
    family = "llm"
    if given.get("family") is not None:
        family = _choice(given["family"], FAMILIES, f"{path}.arch.family")
    if family == "diffusion":
        return _diffusion_arch(params, given, path)
    if given.get("variant") is not None:
        raise InvalidWorkload(Code.ONLY_FOR_DIFFUSION, f"{path}.arch.variant")
    dims: dict[str, Any] = {
        key: _integer(
            value, f"{path}.arch.{key}", 1, MAX_PARAMS if key == "active_params" else MAX_COUNT
        )
        for key, value in given.items()
        if value is not None and key not in ARCH_KINDS
    }
    if dims.get("active_params", 0) > params:
        raise InvalidWorkload(Code.ACTIVE_PARAMS_EXCEED_PARAMS, f"{path}.arch.active_params")
    if dims.get("experts_per_token", 0) > dims.get("experts", math.inf):
        raise InvalidWorkload(
            Code.EXPERTS_PER_TOKEN_EXCEED_EXPERTS, f"{path}.arch.experts_per_token"
        )
    return ModelArch(params=max(1, round(params)), **dims)


def _model(data: Mapping[str, Any], kind: str, path: str) -> tuple[str | None, ModelArch | None]:
    """The model's id and architecture: from `model` (a name of the model catalogue), from
    `config` (a Hugging Face config.json) or from `params` and `arch`; one of them, never two."""
    given = [key for key in ("model", "config", "params", "arch") if data.get(key) is not None]
    if "model" in given or "config" in given:
        first = "model" if "model" in given else "config"
        for key in given:
            if key != first and (key, first) != ("arch", "params"):
                code = Code.MODEL_AND_PARAMS if first == "model" and key != "config" else None
                raise InvalidWorkload(code or Code.CONFIG_AND_MODEL, f"{path}.{key}")
        if first == "config":
            arch = arch_from_config(data["config"], f"{path}.config")
            if arch.params > MAX_PARAMS:
                raise InvalidWorkload(Code.CONFIG_TOO_LARGE, f"{path}.config", most=MAX_PARAMS)
            return None, arch
        return MODELS.resolve(_string(data["model"], f"{path}.model"), f"{path}.model")
    if data.get("params") is not None:
        return None, _arch(data, path)
    if data.get("arch") is not None:
        raise InvalidWorkload(Code.ARCH_NEEDS_PARAMS, f"{path}.params")
    if kind != "fixed":
        raise InvalidWorkload(Code.MODEL_REQUIRED, f"{path}.model")
    return None, None


def _network_gbps(value: object, path: str) -> float:
    return _number(value, path, 0, MAX_NETWORK_GBPS, low_open=True)


def _on(value: object, path: str, *, default_count: int) -> OnHardware:
    """`on`; without a count it takes the task's `gpus`."""
    data = _mapping(value, path)
    _only_keys(data, ON_KEYS, path)
    if data.get("accelerator") is None:
        raise InvalidWorkload(Code.ACCELERATOR_REQUIRED, f"{path}.accelerator")
    mfu = data.get("mfu")
    return OnHardware(
        accelerator=_string(data["accelerator"], f"{path}.accelerator"),
        count=default_count
        if data.get("count") is None
        else _count(MAX_GPUS)(data["count"], f"{path}.count"),
        mig_profile=_nullable(_string)(data.get("mig_profile"), f"{path}.mig_profile"),
        mfu=None if mfu is None else _number(mfu, f"{path}.mfu", 0, 1, low_open=True),
        gpus_per_node=_nullable(_count(MAX_GPUS))(
            data.get("gpus_per_node"), f"{path}.gpus_per_node"
        ),
        network=_nullable(_member(vocab.Network, NETWORKS))(data.get("network"), f"{path}.network"),
        network_gbps=_nullable(_network_gbps)(data.get("network_gbps"), f"{path}.network_gbps"),
    )


def _check_task(task: Task, data: Mapping[str, Any], path: str) -> None:
    """Cross-field rules a single field's reader cannot see."""
    if task.kind == "fixed" and task.vram_gib is None:
        raise InvalidWorkload(Code.FIXED_NEEDS_VRAM, f"{path}.vram_gib")
    if task.kind != "fixed" and task.vram_gib is not None:
        raise InvalidWorkload(Code.VRAM_ONLY_FOR_FIXED, f"{path}.vram_gib")
    _check_diffusion(task, data, path)
    _check_fixed(task, data, path)
    _check_moe(task, data, path)
    _check_workload(task, data, path)
    _check_serving_engine(task, path)
    if task.kind in ("full_finetune", "qlora") and task.precision not in TRAINING_PRECISIONS:
        raise InvalidWorkload(
            Code.TRAINING_PRECISION,
            f"{path}.precision",
            kind=TaskKind(task.kind),
            precisions=TRAINING_PRECISIONS,
        )
    if task.jobs_per_month is not None and not _is_job(task):
        raise InvalidWorkload(Code.JOBS_NEED_TOKENS, f"{path}.jobs_per_month")
    if task.offload == "optimizer_and_params" and task.sharding != "zero3":
        raise InvalidWorkload(Code.PARAM_OFFLOAD_NEEDS_ZERO3, f"{path}.offload")
    if task.on is not None and "gpus" in data and task.gpus != task.on.count:
        raise InvalidWorkload(
            Code.ON_COUNT_DIFFERS, f"{path}.on.count", count=task.on.count, gpus=task.gpus
        )


def _check_serving_engine(task: Task, path: str) -> None:
    """A serving engine serves a language model, with its own KV cache (hf: generate's)."""
    engine = task.serving_engine
    if engine is None:
        return
    if task.kind != TaskKind.INFERENCE or (task.arch is not None and task.arch.family != "llm"):
        raise InvalidWorkload(Code.SERVING_ENGINE_LLM_ONLY, f"{path}.serving_engine")
    if (engine == "hf") != (task.serving == "hf_generate"):
        raise InvalidWorkload(
            Code.SERVING_ENGINE_NEEDS_SERVING,
            f"{path}.serving_engine",
            engine=engine,
            serving=task.serving,
        )


def _is_job(task: Task) -> bool:
    """A training task with tokens, or a fixed task with frames (usage.is_job)."""
    if task.kind == "fixed":
        return task.frames is not None
    return task.kind in vocab.TRAINING_KINDS and bool(task.tokens)


def _check_diffusion(task: Task, data: Mapping[str, Any], path: str) -> None:
    """Image fields need an image model; an image's side is a whole number of latent patches."""
    diffusion = task.arch is not None and task.arch.family == "diffusion"
    for key in vocab.FIELD_GROUPS["diffusion"]:
        if data.get(key) is not None and not diffusion:
            raise InvalidWorkload(Code.ONLY_FOR_DIFFUSION, f"{path}.{key}")
    if task.resolution is not None:
        if task.resolution < MIN_RESOLUTION:
            bounds = msg(Code.RANGE_CLOSED, low=float(MIN_RESOLUTION), high=float(MAX_RESOLUTION))
            raise InvalidWorkload(Code.OUT_OF_RANGE, f"{path}.resolution", range=bounds)
        if task.resolution % RESOLUTION_MULTIPLE:
            raise InvalidWorkload(
                Code.RESOLUTION_MULTIPLE, f"{path}.resolution", multiple=RESOLUTION_MULTIPLE
            )


def _check_moe(task: Task, data: Mapping[str, Any], path: str) -> None:
    """How experts run is a mixture of experts' choice; expert parallelism needs GPUs to split
    the experts over."""
    if data.get("moe_implementation") is None:
        return
    if task.arch is None or not task.arch.active_params:
        raise InvalidWorkload(Code.MOE_IMPLEMENTATION_NEEDS_MOE, f"{path}.moe_implementation")
    if task.moe_implementation == "expert_parallel" and task.gpus < 2:
        raise InvalidWorkload(Code.EXPERT_PARALLEL_NEEDS_GPUS, f"{path}.moe_implementation")


def _check_workload(task: Task, data: Mapping[str, Any], path: str) -> None:
    """The workload's fields belong to inference tasks; stated lengths fit the context (one
    stated alone leaves at least a token of the context for the other)."""
    for key in WORKLOAD_FIELDS:
        if data.get(key) is not None and task.kind != "inference":
            raise InvalidWorkload(Code.SERVING_ONLY_FOR_INFERENCE, f"{path}.{key}")
    prompt, output = task.prompt_tokens, task.output_tokens
    if prompt is None and output is None:
        return
    total = (prompt or 1) + (output or 1)
    if total > task.context_len:
        key = "output_tokens" if output is not None else "prompt_tokens"
        raise InvalidWorkload(
            Code.SERVING_WORKLOAD_OVER_CONTEXT,
            f"{path}.{key}",
            total=(prompt or 0) + (output or 0),
            context_len=task.context_len,
        )


def _check_fixed(task: Task, data: Mapping[str, Any], path: str) -> None:
    """The fixed group's other fields belong to fixed tasks; a time needs its three inputs."""
    for key in vocab.FIELD_GROUPS["fixed"]:
        if key != "vram_gib" and data.get(key) not in (None, False) and task.kind != "fixed":
            raise InvalidWorkload(Code.ONLY_FOR_FIXED, f"{path}.{key}")
    timed = ("frames", "seconds_per_frame", "reference_accelerator")
    given = [key for key in timed if data.get(key) is not None]
    if given and len(given) < len(timed):
        missing = next(key for key in timed if key not in given)
        raise InvalidWorkload(Code.FIXED_TIME_FIELDS, f"{path}.{missing}")


def parse_task(value: object, index: int) -> Task:
    """One task of the `tasks` list; `index` places errors at `tasks[index]`."""
    path = f"tasks[{index}]"
    data = _mapping(value, path)
    _only_keys(data, TASK_KEYS, path)
    if data.get("kind") is None:
        raise InvalidWorkload(Code.KIND_REQUIRED, f"{path}.kind")
    kwargs: dict[str, Any] = {"name": f"task {index + 1}"}
    for key, reader in _TASK_READERS.items():
        if data.get(key) is not None:
            kwargs[key] = reader(data[key], f"{path}.{key}")
    kwargs["model"], kwargs["arch"] = _model(data, kwargs["kind"], path)
    if kwargs.get("serving_engine") == "hf" and data.get("serving") is None:
        kwargs["serving"] = "hf_generate"  # generate's own cache, unless stated otherwise
    if data.get("on") is not None:
        on = _on(data["on"], f"{path}.on", default_count=kwargs.get("gpus", 1))
        kwargs["on"] = on
        kwargs.setdefault("gpus", on.count)
    task = Task(**kwargs)
    _check_task(task, data, path)
    return task


# -------------------------------------------------------------------------------- constraints


def _decimal(value: object, path: str) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise InvalidWorkload(Code.MUST_BE_NUMBER, path)
    try:
        amount = Decimal(str(value).strip())
    except InvalidOperation:
        raise InvalidWorkload(Code.MUST_BE_NUMBER, path) from None
    if not amount.is_finite() or amount < 0 or amount > Decimal("1e15"):
        raise InvalidWorkload(Code.AMOUNT_OUT_OF_RANGE, path)
    return amount


def _platforms(value: object, path: str) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise InvalidWorkload(Code.MUST_BE_PLATFORM_LIST, path)
    return tuple(_string(item, f"{path}[{i}]").lower() for i, item in enumerate(value))


# ---- renters' filters: location, delivery form, host resources, who may rent
DELIVERY_FORMS = tuple(vocab.DeliveryForm)
MAX_REGION = 64
MAX_HOST_FIGURE = 1e6  # vCPUs, GiB of RAM or GB of disk per GPU


def _countries(value: object, path: str) -> tuple[str, ...]:
    """ISO 3166-1 alpha-2 codes, upper case, each once."""
    if not isinstance(value, list):
        raise InvalidWorkload(Code.MUST_BE_COUNTRY_LIST, path)
    out: list[str] = []
    for i, item in enumerate(value):
        code = item.strip().upper() if isinstance(item, str) else ""
        if len(code) != 2 or not code.isascii() or not code.isalpha():
            raise InvalidWorkload(Code.MUST_BE_COUNTRY_LIST, f"{path}[{i}]")
        out.append(code)
    return tuple(dict.fromkeys(out))


def _regions(value: object, path: str) -> tuple[str, ...]:
    """Region codes as platforms name them, compared lower case."""
    if not isinstance(value, list):
        raise InvalidWorkload(Code.MUST_BE_REGION_LIST, path)
    out: list[str] = []
    for i, item in enumerate(value):
        if not isinstance(item, str) or not item.strip() or len(item.strip()) > MAX_REGION:
            raise InvalidWorkload(Code.MUST_BE_REGION_LIST, f"{path}[{i}]")
        out.append(item.strip().lower())
    return tuple(dict.fromkeys(out))


def _delivery_forms(value: object, path: str) -> tuple[vocab.DeliveryForm, ...]:
    if not isinstance(value, list):
        raise InvalidWorkload(Code.MUST_BE_DELIVERY_FORM_LIST, path, choices=DELIVERY_FORMS)
    forms = (
        vocab.DeliveryForm(_choice(item, DELIVERY_FORMS, f"{path}[{i}]"))
        for i, item in enumerate(value)
    )
    return tuple(dict.fromkeys(forms))


def _per_gpu(value: object, path: str) -> float:
    return _number(value, path, 0, MAX_HOST_FIGURE)


_CONSTRAINT_READERS: dict[str, Callable[[object, str], Any]] = {
    "budget_per_month": _decimal,
    "currency": _member(Currency, CURRENCIES),
    "deadline_hours": lambda v, p: _number(v, p, 0, 1e7, low_open=True),
    "physically_exclusive": _boolean,
    "require_nvlink": _boolean,
    "domestic_only": _boolean,
    "platforms": _platforms,
    "fresh_only": _boolean,
    "allow_interruptible": _boolean,
    # Rank market floors ("from", the lowest listed offer) and statistics as if bookable.
    "include_market_statistics": _boolean,
    # Cards that run the tasks' software only through a port (stacks.py); domestic_only implies it.
    "allow_ports": _boolean,
    # Data kept on the platform's storage (datasets, checkpoints), GB; priced per platform.
    "storage_gb": lambda v, p: _number(v, p, 0, 1e9),
    # The renter's price tier (list, member, student, enterprise); the loader prices with it.
    "price_tier": _member(vocab.PriceTier, PRICE_TIERS),
    # Start-up time of each run, minutes (a day at most): billed where the platform bills it.
    "startup_minutes": lambda v, p: _number(v, p, 0, MAX_STARTUP_MINUTES),
    # Link speed for moving the data between the legs of a plan across platforms, Mbit/s.
    "transfer_mbps": lambda v, p: _number(v, p, 0, MAX_TRANSFER_MBPS, low_open=True),
    # A job on spot (restarts.py): minutes of work between checkpoints (0: none) and minutes to
    # run again after an interruption, each a day at most.
    "checkpoint_minutes": lambda v, p: _number(v, p, 0, MAX_SPOT_MINUTES),
    "restart_minutes": lambda v, p: _number(v, p, 0, MAX_SPOT_MINUTES),
    # ---- renters' filters (README "The scenario"): an offering that does not state what one
    # reads is left out with a reason of its own.
    "countries": _countries,
    "regions": _regions,
    "delivery_forms": _delivery_forms,
    "min_vcpus_per_gpu": _per_gpu,
    "min_ram_gib_per_gpu": _per_gpu,
    "min_disk_gb_per_gpu": _per_gpu,
    "foreign_renter": _boolean,
}


# Accepted and read as its replacement: include_stale (before fresh_only) = not fresh_only.
_DEPRECATED_CONSTRAINTS = frozenset({"include_stale"})


def parse_constraints(value: object) -> Constraints:
    data = _mapping(value, "constraints")
    _only_keys(data, frozenset(_CONSTRAINT_READERS) | _DEPRECATED_CONSTRAINTS, "constraints")
    kwargs = {
        key: reader(data[key], f"constraints.{key}")
        for key, reader in _CONSTRAINT_READERS.items()
        if data.get(key) is not None
    }
    if data.get("include_stale") is not None and "fresh_only" not in kwargs:
        kwargs["fresh_only"] = not _boolean(data["include_stale"], "constraints.include_stale")
    return Constraints(**kwargs)


def parse_scenario(data: object) -> Scenario:
    """Validate a scenario given as parsed JSON; raise InvalidWorkload naming the bad field."""
    if not isinstance(data, Mapping):
        raise InvalidWorkload(Code.SCENARIO_MUST_BE_OBJECT)
    top = _mapping(data, "tasks")
    _only_keys(top, TOP_KEYS, "")
    tasks = top.get("tasks")
    if not isinstance(tasks, list) or not tasks:
        raise InvalidWorkload(Code.TASKS_REQUIRED, "tasks")
    if len(tasks) > MAX_TASKS:
        raise InvalidWorkload(Code.TOO_MANY_TASKS, "tasks", max=MAX_TASKS)
    parsed = tuple(parse_task(task, i) for i, task in enumerate(tasks))
    names = [task.name for task in parsed]
    for i, name in enumerate(names):
        if name in names[:i]:
            raise InvalidWorkload(Code.DUPLICATE_TASK_NAME, f"tasks[{i}].name", name=name)
    constraints = top.get("constraints")
    objective = top.get("objective")
    preset = top.get("preset")
    return Scenario(
        tasks=parsed,
        constraints=Constraints() if constraints is None else parse_constraints(constraints),
        objective=Objective.BALANCED
        if objective is None
        else Objective(_choice(objective, OBJECTIVES, "objective")),
        preset=None if preset is None else _string(preset, "preset").lower(),
    )


# ------------------------------------------------------------------------------------ way back


def _arch_to_dict(arch: ModelArch) -> dict[str, Any]:
    if arch.diffusion is not None:
        return {"family": "diffusion", "variant": arch.variant}
    return {key: getattr(arch, key) for key in ARCH_KEYS if getattr(arch, key) is not None}


def task_to_dict(task: Task) -> dict[str, Any]:
    """A task as contract JSON that `parse_task` reads back to an equal Task."""
    out: dict[str, Any] = {}
    # The fixed and diffusion groups' fields are refused on other tasks: written only where they
    # belong.
    skip = set() if task.kind == "fixed" else set(vocab.FIELD_GROUPS["fixed"])
    if task.arch is None or task.arch.family != "diffusion":
        skip |= set(vocab.FIELD_GROUPS["diffusion"])
    if task.kind != "inference":
        skip |= set(WORKLOAD_FIELDS)
    for key in _TASK_READERS:
        value = getattr(task, key)
        if value is not None and key not in skip:
            out[key] = value
    if task.model is not None:
        out["model"] = task.model
    elif task.arch is not None and task.arch.diffusion is not None:
        out["params"] = task.arch.diffusion.denoiser_params
        out["arch"] = _arch_to_dict(task.arch)
    elif task.arch is not None:
        out["params"] = task.arch.params
        if _arch_to_dict(task.arch):
            out["arch"] = _arch_to_dict(task.arch)
    if task.on is not None:
        on: dict[str, Any] = {"accelerator": task.on.accelerator, "count": task.on.count}
        if task.on.mig_profile is not None:
            on["mig_profile"] = task.on.mig_profile
        if task.on.mfu is not None:
            on["mfu"] = task.on.mfu
        for key in ("gpus_per_node", "network", "network_gbps"):
            if getattr(task.on, key) is not None:
                on[key] = getattr(task.on, key)
        out["on"] = on
    return out


def scenario_to_dict(scenario: Scenario) -> dict[str, Any]:
    """A scenario as contract JSON; `parse_scenario(scenario_to_dict(s)) == s`."""
    constraints: dict[str, Any] = {}
    for key in _CONSTRAINT_READERS:
        value = getattr(scenario.constraints, key)
        if isinstance(value, Decimal):
            value = str(value)
        elif isinstance(value, tuple):
            value = list(value)
        if value is not None:
            constraints[key] = value
    out: dict[str, Any] = {
        "tasks": [task_to_dict(task) for task in scenario.tasks],
        "constraints": constraints,
        "objective": scenario.objective,
    }
    if scenario.preset is not None:
        out["preset"] = scenario.preset
    return out
