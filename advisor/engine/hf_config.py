"""A Hugging Face `config.json` read as a model architecture, and the parameter count of a shape.

`arch_from_config` reads the fields a decoder-only transformer's config.json names (the
transformers library's LlamaConfig, MistralConfig, MixtralConfig, Qwen2Config, Qwen3Config,
Qwen3MoeConfig, DeepseekV3Config, Gemma2Config ...): the shape, the mixture of experts and
multi-head latent attention, and counts the parameters from them with `count_params`
(docs/memory-model.md, "A model by name or by its config.json"). A vision-language model's
config nests its language model under `text_config`; that part is read.

`count_params` is the counter the model catalogue (`model_catalogue.py`) applies to the shapes
its data gives, so that a model picked by name, its pasted config.json and the same shape typed by
hand give one architecture. It reproduces the published totals (tests/advisor/engine/
test_hf_config.py): Llama-3.1-8B 8,030,261,248, Qwen2.5-7B 7,615,616,512, Mistral-7B-v0.1
7,241,732,096, DeepSeek-V3 671.0B with 37.6B active.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from advisor.engine.errors import InvalidWorkload
from advisor.engine.messages import Code
from advisor.engine.types import ModelArch

# The largest value a config's dimension may hold: the scenario's bound on `arch` fields
# (scenario.MAX_COUNT), so that the architecture read can always be written back as `arch`.
MAX_DIMENSION = 1_000_000

# Model types whose q, k and v projections carry a bias without a config field saying so
# (transformers' Qwen2Attention: `nn.Linear(..., bias=True)` for q_proj, k_proj, v_proj).
QKV_BIAS_TYPES = frozenset({"qwen2", "qwen2_moe", "qwen2_vl", "qwen2_5_vl"})
# Model types with RMSNorm on each head's query and key (transformers' Qwen3Attention q_norm and
# k_norm, Gemma 3's): head_dim weights each, per layer.
QK_NORM_TYPES = frozenset({"qwen3", "qwen3_moe", "gemma3", "gemma3_text"})
# Model types whose input and output embeddings are one matrix unless the config says otherwise
# (transformers' GemmaConfig and Gemma2Config default tie_word_embeddings=True; LlamaConfig,
# MistralConfig, Qwen2Config and the others default it to False).
TIED_BY_DEFAULT = frozenset({"gemma", "gemma2", "gemma3", "gemma3_text"})

# The fields a config must give for its architecture to be read.
REQUIRED = ("hidden_size", "num_hidden_layers", "num_attention_heads", "vocab_size")


@dataclass(frozen=True)
class Shape:
    """The fields of a config.json that the count reads, under their config names."""

    hidden: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    intermediate: int
    vocab: int
    tied: bool = False
    qkv_bias: bool = False
    qk_norm: bool = False
    # Mixture of experts: routed experts (0: dense), experts per token, an expert's width,
    # shared experts' total width, the leading dense layers.
    experts: int = 0
    experts_per_token: int = 0
    expert_intermediate: int = 0
    shared_intermediate: int = 0
    shared_gate: bool = False
    router_bias: bool = False
    first_dense_layers: int = 0
    # Multi-head latent attention (DeepSeek-V2/V3): 0 kv_lora_rank means none.
    kv_lora_rank: int = 0
    q_lora_rank: int = 0
    qk_rope_head_dim: int = 0
    qk_nope_head_dim: int = 0
    v_head_dim: int = 0


def _attention(s: Shape) -> int:
    h = s.hidden
    if s.kv_lora_rank:
        qk = s.qk_nope_head_dim + s.qk_rope_head_dim
        if s.q_lora_rank:
            q = h * s.q_lora_rank + s.q_lora_rank + s.q_lora_rank * s.heads * qk
        else:
            q = h * s.heads * qk
        kv = (
            h * (s.kv_lora_rank + s.qk_rope_head_dim)
            + s.kv_lora_rank
            + s.kv_lora_rank * s.heads * (s.qk_nope_head_dim + s.v_head_dim)
        )
        return q + kv + s.heads * s.v_head_dim * h
    q, kv = s.heads * s.head_dim, s.kv_heads * s.head_dim
    bias = q + 2 * kv if s.qkv_bias else 0
    norm = 2 * s.head_dim if s.qk_norm else 0
    return h * q + 2 * h * kv + q * h + bias + norm


def _experts(s: Shape, routed: int) -> int:
    """One MoE layer's feed-forward with `routed` experts counted: the experts, the shared
    experts (and Qwen's gate on them), the router (and DeepSeek-V3's bias on it)."""
    h = s.hidden
    router = h * s.experts + (s.experts if s.router_bias else 0)
    shared = 3 * h * s.shared_intermediate + (h if s.shared_gate else 0)
    return routed * 3 * h * s.expert_intermediate + shared + router


def count_params(s: Shape) -> tuple[int, int | None]:
    """(total parameters, active per token or None for a dense model):

    embeddings V·h, and the LM head V·h unless tied; per layer the attention (q, k, v, o; MLA's
    compressed projections and their norms), two RMSNorm weights h, and the feed-forward: SwiGLU
    3·h·I on dense layers, E·3·h·I_expert + shared + router h·E on MoE layers; the final norm h.
    Active counts k experts per token in place of E.
    """
    h = s.hidden
    embeddings = s.vocab * h * (1 if s.tied else 2)
    dense_layers = s.layers if not s.experts else min(s.first_dense_layers, s.layers)
    moe_layers = s.layers - dense_layers
    common = s.layers * (_attention(s) + 2 * h) + dense_layers * 3 * h * s.intermediate
    total = embeddings + h + common + moe_layers * _experts(s, s.experts)
    if not s.experts:
        return total, None
    active = embeddings + h + common + moe_layers * _experts(s, s.experts_per_token)
    return total, active


def arch_of(s: Shape, params: int | None = None, active: int | None = None) -> ModelArch:
    """The engine's architecture of a shape; its counts unless `params`/`active` are given."""
    total, counted_active = count_params(s)
    mla = bool(s.kv_lora_rank)
    return ModelArch(
        params=params or total,
        layers=s.layers,
        hidden=s.hidden,
        heads=s.heads,
        kv_heads=None if mla else s.kv_heads,
        head_dim=None if mla else s.head_dim,
        intermediate=s.intermediate,
        vocab=s.vocab,
        mla_kv_lora_rank=s.kv_lora_rank or None,
        mla_rope_head_dim=(s.qk_rope_head_dim or None) if mla else None,
        active_params=active or counted_active,
        experts=s.experts or None,
        experts_per_token=s.experts_per_token or None,
    )


# --------------------------------------------------------------------------- reading a config


def _dimension(config: Mapping[str, Any], key: str, path: str, *, low: int = 1) -> int:
    value = config[key]
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if not number or not math.isfinite(value) or value != int(value):
        raise InvalidWorkload(Code.CONFIG_NOT_A_WHOLE_NUMBER, f"{path}.{key}", key=key)
    if not low <= value <= MAX_DIMENSION:
        raise InvalidWorkload(Code.CONFIG_VALUE_OUT_OF_RANGE, f"{path}.{key}", key=key)
    return int(value)


def _optional(config: Mapping[str, Any], key: str, path: str, default: int = 0) -> int:
    if config.get(key) is None:
        return default
    return _dimension(config, key, path, low=0)


def _first(config: Mapping[str, Any], keys: tuple[str, ...], path: str) -> int:
    """The first of `keys` the config gives (its models name one field several ways)."""
    for key in keys:
        if config.get(key) is not None:
            return _optional(config, key, path)
    return 0


def _flag(config: Mapping[str, Any], key: str, path: str, default: bool) -> bool:
    value = config.get(key)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise InvalidWorkload(Code.CONFIG_NOT_A_BOOLEAN, f"{path}.{key}", key=key)
    return value


def shape_of_config(config: object, path: str = "config") -> Shape:
    """The shape a config.json gives; InvalidWorkload (a `config` code) naming what is missing or
    unreadable."""
    if not isinstance(config, Mapping):
        raise InvalidWorkload(Code.CONFIG_MUST_BE_OBJECT, path)
    if config.get("hidden_size") is None and isinstance(config.get("text_config"), Mapping):
        # A vision-language model: its language model's config; the vision tower is not counted.
        path = f"{path}.text_config"
        outer = str(config.get("model_type") or "")
        config = {"model_type": outer, **config["text_config"]}
    assert isinstance(config, Mapping)
    for key in REQUIRED:
        if config.get(key) is None:
            raise InvalidWorkload(Code.CONFIG_FIELD_MISSING, f"{path}.{key}", key=key)
    model_type = str(config.get("model_type") or "").lower()
    hidden = _dimension(config, "hidden_size", path)
    heads = _dimension(config, "num_attention_heads", path)
    experts = _first(config, ("num_local_experts", "num_experts", "n_routed_experts"), path)
    intermediate = _optional(config, "intermediate_size", path)
    expert_intermediate = _optional(config, "moe_intermediate_size", path) or intermediate
    if not intermediate and not experts:
        raise InvalidWorkload(
            Code.CONFIG_FIELD_MISSING, f"{path}.intermediate_size", key="intermediate_size"
        )
    shared = _optional(config, "n_shared_experts", path) * expert_intermediate
    shared_gate = False
    if config.get("shared_expert_intermediate_size"):
        shared = _optional(config, "shared_expert_intermediate_size", path)
        shared_gate = True  # Qwen2-MoE's sigmoid gate on the shared expert: h -> 1
    head_dim = _optional(config, "head_dim", path) or hidden // heads
    if head_dim < 1:  # more heads than the hidden size has dimensions
        raise InvalidWorkload(
            Code.CONFIG_VALUE_OUT_OF_RANGE,
            f"{path}.num_attention_heads",
            key="num_attention_heads",
        )
    shape = Shape(
        hidden=hidden,
        layers=_dimension(config, "num_hidden_layers", path),
        heads=heads,
        kv_heads=_optional(config, "num_key_value_heads", path) or heads,
        head_dim=head_dim,
        intermediate=intermediate or expert_intermediate,
        vocab=_dimension(config, "vocab_size", path),
        tied=_flag(config, "tie_word_embeddings", path, model_type in TIED_BY_DEFAULT),
        qkv_bias=_flag(config, "attention_bias", path, model_type in QKV_BIAS_TYPES),
        qk_norm=model_type in QK_NORM_TYPES,
        experts=experts,
        experts_per_token=_optional(config, "num_experts_per_tok", path) if experts else 0,
        expert_intermediate=expert_intermediate if experts else 0,
        shared_intermediate=shared if experts else 0,
        shared_gate=shared_gate and bool(experts),
        router_bias=bool(experts) and config.get("topk_method") == "noaux_tc",
        first_dense_layers=_optional(config, "first_k_dense_replace", path),
        kv_lora_rank=_optional(config, "kv_lora_rank", path),
        q_lora_rank=_optional(config, "q_lora_rank", path),
        qk_rope_head_dim=_optional(config, "qk_rope_head_dim", path),
        qk_nope_head_dim=_optional(config, "qk_nope_head_dim", path),
        v_head_dim=_optional(config, "v_head_dim", path),
    )
    if shape.experts and not 1 <= shape.experts_per_token <= shape.experts:
        raise InvalidWorkload(
            Code.CONFIG_FIELD_MISSING, f"{path}.num_experts_per_tok", key="num_experts_per_tok"
        )
    if shape.kv_lora_rank and not (shape.qk_nope_head_dim and shape.v_head_dim):
        key = "qk_nope_head_dim" if not shape.qk_nope_head_dim else "v_head_dim"
        raise InvalidWorkload(Code.CONFIG_FIELD_MISSING, f"{path}.{key}", key=key)
    return shape


def arch_from_config(config: object, path: str = "config") -> ModelArch:
    """The architecture a Hugging Face config.json describes, its parameters counted."""
    return arch_of(shape_of_config(config, path))
