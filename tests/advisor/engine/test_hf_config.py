"""A pasted Hugging Face config.json, a model picked by name and the same shape typed by hand give
one estimate (docs/memory-model.md, "A model by name or by its config.json").

The three configs are the models' published config.json files, as served by Hugging Face (the
fields the reader ignores, such as rope_scaling or bos_token_id, are kept so that the reader is
tested on what a person pastes)."""

from __future__ import annotations

from typing import Any

import pytest

from advisor.engine.errors import InvalidWorkload
from advisor.engine.estimate import estimate
from advisor.engine.hardware import load_accelerators
from advisor.engine.hf_config import arch_from_config, count_params, shape_of_config
from advisor.engine.messages import Code
from advisor.engine.presets import MODEL_PRESETS
from advisor.engine.scenario import ARCH_KEYS, parse_scenario, scenario_to_dict

ACCELERATORS = load_accelerators()

# https://huggingface.co/meta-llama/Llama-3.1-8B/blob/main/config.json
LLAMA_3_1_8B: dict[str, Any] = {
    "architectures": ["LlamaForCausalLM"],
    "attention_bias": False,
    "attention_dropout": 0.0,
    "bos_token_id": 128000,
    "eos_token_id": 128001,
    "hidden_act": "silu",
    "hidden_size": 4096,
    "initializer_range": 0.02,
    "intermediate_size": 14336,
    "max_position_embeddings": 131072,
    "mlp_bias": False,
    "model_type": "llama",
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "pretraining_tp": 1,
    "rms_norm_eps": 1e-05,
    "rope_scaling": {
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192,
        "rope_type": "llama3",
    },
    "rope_theta": 500000.0,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.43.0.dev0",
    "use_cache": True,
    "vocab_size": 128256,
}

# https://huggingface.co/Qwen/Qwen2.5-7B/blob/main/config.json
QWEN2_5_7B: dict[str, Any] = {
    "architectures": ["Qwen2ForCausalLM"],
    "attention_dropout": 0.0,
    "bos_token_id": 151643,
    "eos_token_id": 151643,
    "hidden_act": "silu",
    "hidden_size": 3584,
    "initializer_range": 0.02,
    "intermediate_size": 18944,
    "max_position_embeddings": 131072,
    "max_window_layers": 28,
    "model_type": "qwen2",
    "num_attention_heads": 28,
    "num_hidden_layers": 28,
    "num_key_value_heads": 4,
    "rms_norm_eps": 1e-06,
    "rope_theta": 1000000.0,
    "sliding_window": 131072,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.40.1",
    "use_cache": True,
    "use_sliding_window": False,
    "use_mrope": False,
    "vocab_size": 152064,
}

# https://huggingface.co/Qwen/Qwen3-30B-A3B/blob/main/config.json
QWEN3_30B_A3B: dict[str, Any] = {
    "architectures": ["Qwen3MoeForCausalLM"],
    "attention_bias": False,
    "attention_dropout": 0.0,
    "bos_token_id": 151643,
    "decoder_sparse_step": 1,
    "eos_token_id": 151645,
    "head_dim": 128,
    "hidden_act": "silu",
    "hidden_size": 2048,
    "initializer_range": 0.02,
    "intermediate_size": 6144,
    "max_position_embeddings": 40960,
    "max_window_layers": 48,
    "mlp_only_layers": [],
    "model_type": "qwen3_moe",
    "moe_intermediate_size": 768,
    "norm_topk_prob": True,
    "num_attention_heads": 32,
    "num_experts": 128,
    "num_experts_per_tok": 8,
    "num_hidden_layers": 48,
    "num_key_value_heads": 4,
    "output_router_logits": False,
    "rms_norm_eps": 1e-06,
    "rope_scaling": None,
    "rope_theta": 1000000.0,
    "router_aux_loss_coef": 0.001,
    "sliding_window": None,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.51.0",
    "use_cache": True,
    "use_sliding_window": False,
    "vocab_size": 151936,
}

# (model name, its config.json, total parameters, active, relative tolerance). Published
# totals: Llama-3.1-8B 8.03B (meta-llama/llama-models, models/llama3_1/api/sku_list.py),
# Qwen2.5-7B 7.61B (https://huggingface.co/Qwen/Qwen2.5-7B, "Number of Parameters: 7.61B"),
# Qwen3-30B-A3B 30.5B total, 3.3B activated (https://huggingface.co/Qwen/Qwen3-30B-A3B).
PUBLISHED = [
    ("llama-3.1-8b", LLAMA_3_1_8B, 8.03e9, None, 0.001),
    ("qwen2.5-7b", QWEN2_5_7B, 7.61e9, None, 0.001),
    ("qwen3-30b-a3b", QWEN3_30B_A3B, 30.5e9, 3.3e9, 0.02),
]


def task(**model: Any) -> dict[str, Any]:
    return {
        "kind": "inference",
        "context_len": 8192,
        "concurrent_sequences": 8,
        "on": {"accelerator": "h100-sxm-80gb"},
        **model,
    }


def by_hand(name: str) -> dict[str, Any]:
    """The same model typed by hand: its parameter count and every shape field, as numbers."""
    config = next(c for n, c, *_ in PUBLISHED if n == name)
    arch = arch_from_config(config)
    return {
        "params": arch.params,
        "arch": {k: getattr(arch, k) for k in ARCH_KEYS if getattr(arch, k) is not None},
    }


@pytest.mark.parametrize(("name", "config", "total", "active", "tolerance"), PUBLISHED)
def test_a_published_config_counts_the_published_parameters(
    name: str, config: dict[str, Any], total: float, active: float | None, tolerance: float
) -> None:
    arch = arch_from_config(config)
    assert arch.params == pytest.approx(total, rel=tolerance)
    if active is None:
        assert arch.active_params is None
    else:
        assert arch.active_params == pytest.approx(active, rel=tolerance)


def test_the_counter_gives_the_presets_exact_counts_from_their_configs() -> None:
    """Llama-3.1-8B 8,030,261,248 and Qwen2.5-7B 7,615,616,512 (with Qwen2's q, k, v bias,
    which its config does not state: transformers' Qwen2Attention)."""
    assert arch_from_config(LLAMA_3_1_8B) == MODEL_PRESETS["llama-3.1-8b"]
    assert arch_from_config(QWEN2_5_7B) == MODEL_PRESETS["qwen2.5-7b"]


def test_deepseek_v3s_config_counts_671_0_billion_with_37_6_billion_active() -> None:
    """https://huggingface.co/deepseek-ai/DeepSeek-V3/blob/main/config.json (its shape fields);
    the DeepSeek-V3 README gives 671B total and 37B activated; the preset's exact counts."""
    config = {
        "model_type": "deepseek_v3",
        "hidden_size": 7168,
        "intermediate_size": 18432,
        "moe_intermediate_size": 2048,
        "num_hidden_layers": 61,
        "num_attention_heads": 128,
        "num_key_value_heads": 128,
        "n_shared_experts": 1,
        "n_routed_experts": 256,
        "num_experts_per_tok": 8,
        "first_k_dense_replace": 3,
        "kv_lora_rank": 512,
        "q_lora_rank": 1536,
        "qk_rope_head_dim": 64,
        "qk_nope_head_dim": 128,
        "v_head_dim": 128,
        "topk_method": "noaux_tc",
        "tie_word_embeddings": False,
        "vocab_size": 129280,
    }
    assert arch_from_config(config) == MODEL_PRESETS["deepseek-v3"]


@pytest.mark.parametrize("name", [name for name, *_ in PUBLISHED])
def test_by_name_by_config_and_by_hand_give_the_same_estimate(name: str) -> None:
    """One scenario three ways: the memory plan, fit, time and serving figures are equal."""
    results = [
        estimate(parse_scenario({"tasks": [task(**model)]}), ACCELERATORS)
        for model in (
            {"model": name},
            {"config": next(c for n, c, *_ in PUBLISHED if n == name)},
            by_hand(name),
        )
    ]
    assert results[0] == results[1] == results[2]
    assert results[0].tasks[0].per_gpu.total > 0


def test_a_config_task_round_trips_as_params_and_arch() -> None:
    scenario = parse_scenario({"tasks": [task(config=QWEN3_30B_A3B)]})
    again = scenario_to_dict(scenario)
    assert again["tasks"][0]["params"] == 30_532_122_624
    assert parse_scenario(again) == scenario


def test_a_vision_language_models_text_config_is_read() -> None:
    """A VLM's config nests its language model under text_config (Gemma 3, LLaVA)."""
    nested = {"model_type": "llava", "text_config": LLAMA_3_1_8B, "vision_config": {}}
    assert arch_from_config(nested) == arch_from_config(LLAMA_3_1_8B)


def test_tied_embeddings_are_counted_once() -> None:
    tied = count_params(shape_of_config({**LLAMA_3_1_8B, "tie_word_embeddings": True}))[0]
    assert MODEL_PRESETS["llama-3.1-8b"].params - tied == 128256 * 4096


@pytest.mark.parametrize(
    ("config", "code", "field"),
    [
        ([1, 2], Code.CONFIG_MUST_BE_OBJECT, "config"),
        ({"hidden_size": 4096}, Code.CONFIG_FIELD_MISSING, "config.num_hidden_layers"),
        ({**LLAMA_3_1_8B, "hidden_size": "4096"}, Code.CONFIG_NOT_A_WHOLE_NUMBER, "hidden_size"),
        ({**LLAMA_3_1_8B, "hidden_size": 4096.5}, Code.CONFIG_NOT_A_WHOLE_NUMBER, "hidden_size"),
        ({**LLAMA_3_1_8B, "num_hidden_layers": 0}, Code.CONFIG_VALUE_OUT_OF_RANGE, "layers"),
        ({**LLAMA_3_1_8B, "tie_word_embeddings": "no"}, Code.CONFIG_NOT_A_BOOLEAN, "tie_word"),
        ({**LLAMA_3_1_8B, "vocab_size": float("inf")}, Code.CONFIG_NOT_A_WHOLE_NUMBER, "vocab"),
        ({**LLAMA_3_1_8B, "num_attention_heads": 8192}, Code.CONFIG_VALUE_OUT_OF_RANGE, "heads"),
        (
            {**LLAMA_3_1_8B, "hidden_size": 10**6, "num_hidden_layers": 10**6},
            Code.CONFIG_TOO_LARGE,
            "config",
        ),
        ({**QWEN3_30B_A3B, "num_experts_per_tok": 0}, Code.CONFIG_FIELD_MISSING, "per_tok"),
        (
            {k: v for k, v in LLAMA_3_1_8B.items() if k != "intermediate_size"},
            Code.CONFIG_FIELD_MISSING,
            "config.intermediate_size",
        ),
    ],
)
def test_an_unreadable_config_names_the_field(config: object, code: Code, field: str) -> None:
    with pytest.raises(InvalidWorkload) as caught:
        parse_scenario({"tasks": [task(config=config)]})
    assert caught.value.code is code
    assert caught.value.field is not None and field in caught.value.field
    assert caught.value.field.startswith("tasks[0].config")


@pytest.mark.parametrize(
    ("other", "code"),
    [
        ({"model": "llama-3.1-8b"}, Code.CONFIG_AND_MODEL),
        ({"params": 8e9}, Code.CONFIG_AND_MODEL),
    ],
)
def test_a_config_and_another_model_in_one_task_are_refused(
    other: dict[str, Any], code: Code
) -> None:
    with pytest.raises(InvalidWorkload) as caught:
        parse_scenario({"tasks": [task(config=LLAMA_3_1_8B, **other)]})
    assert caught.value.code is code
