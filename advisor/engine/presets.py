"""Model presets: the published architectures a scenario can name instead of giving `params`.

Figures are the models' published configurations: Meta's sku_list (meta-llama/llama-models) for
Llama 3.1, the Hugging Face config.json of the others, the DeepSeek-V3 README for its totals
(docs/memory-model.md, "Model presets"). The parameter counts are exact: a parameter counter
(embeddings, untied LM head, attention with grouped KV heads and Qwen's QKV bias, SwiGLU MLP,
RMSNorm weights; DeepSeek-V3 with MLA projections, 3 dense layers and 58 MoE layers of 256 routed
+ 1 shared experts) over these shapes gives 8.03B, 70.55B, 405.85B, 6.74B, 68.98B, 7.24B, 7.62B,
14.77B, 32.76B, 72.71B and 671.0B / 37.6B active, the official totals.
Diffusion pipelines have no transformer shape we can use; their counts are the published totals
(each preset's source says where from).
"""

from __future__ import annotations

from dataclasses import dataclass

from advisor.engine.types import ModelArch


@dataclass(frozen=True)
class PresetInfo:
    """What the UI shows about a preset besides its architecture."""

    name: str
    source: str


_LLAMA31 = "meta-llama/llama-models, models/llama3_1/api/sku_list.py [V]"
_HF_CONFIG = "the model's Hugging Face config.json, as vendored in several repositories [S]"


def _llm(
    params: int,
    layers: int,
    hidden: int,
    heads: int,
    kv_heads: int,
    intermediate: int,
    vocab: int,
) -> ModelArch:
    # Every LLM preset here uses 128-dim heads (head_dim in the models' configs).
    return ModelArch(
        params=params,
        layers=layers,
        hidden=hidden,
        heads=heads,
        kv_heads=kv_heads,
        head_dim=128,
        intermediate=intermediate,
        vocab=vocab,
    )


_PRESETS: dict[str, tuple[ModelArch, PresetInfo]] = {
    "llama-3.1-8b": (
        _llm(8_030_261_248, 32, 4096, 32, 8, 14336, 128256),
        PresetInfo("Llama 3.1 8B", _LLAMA31),
    ),
    "llama-3.1-70b": (
        _llm(70_553_706_496, 80, 8192, 64, 8, 28672, 128256),
        PresetInfo("Llama 3.1 70B", _LLAMA31),
    ),
    "llama-3.1-405b": (
        _llm(405_853_388_800, 126, 16384, 128, 8, 53248, 128256),
        PresetInfo("Llama 3.1 405B", _LLAMA31),
    ),
    "llama-2-7b": (
        _llm(6_738_415_616, 32, 4096, 32, 32, 11008, 32000),
        PresetInfo("Llama 2 7B", "Llama 2 Hugging Face config.json"),
    ),
    "llama-2-70b": (
        _llm(68_976_648_192, 80, 8192, 64, 8, 28672, 32000),
        PresetInfo("Llama 2 70B", "Llama 2 Hugging Face config.json"),
    ),
    "mistral-7b": (
        _llm(7_241_732_096, 32, 4096, 32, 8, 14336, 32000),
        PresetInfo("Mistral 7B v0.1", _HF_CONFIG),
    ),
    "qwen2.5-7b": (
        _llm(7_615_616_512, 28, 3584, 28, 4, 18944, 152064),
        PresetInfo("Qwen2.5 7B", _HF_CONFIG),
    ),
    "qwen2.5-14b": (
        _llm(14_770_033_664, 48, 5120, 40, 8, 13824, 152064),
        PresetInfo("Qwen2.5 14B", _HF_CONFIG),
    ),
    "qwen2.5-32b": (
        _llm(32_763_876_352, 64, 5120, 40, 8, 27648, 152064),
        PresetInfo("Qwen2.5 32B", _HF_CONFIG),
    ),
    "qwen2.5-72b": (
        _llm(72_706_203_648, 80, 8192, 64, 8, 29568, 152064),
        PresetInfo("Qwen2.5 72B", _HF_CONFIG),
    ),
    "deepseek-v3": (
        ModelArch(
            params=671_026_419_200,
            layers=61,
            hidden=7168,
            heads=128,
            # MLA has no per-head K/V cache; the cache is the latent below (config.json).
            kv_heads=None,
            head_dim=None,
            intermediate=18432,  # the 3 dense layers; experts are 2048 wide
            vocab=129280,
            mla_kv_lora_rank=512,
            mla_rope_head_dim=64,
            active_params=37_552_297_472,
        ),
        PresetInfo(
            "DeepSeek-V3 (671B MoE, 37.6B active)",
            "deepseek-ai/DeepSeek-V3 README [V] and config.json [S]",
        ),
    ),
    "sd-1.5": (
        ModelArch(params=1_066_000_000, family="diffusion"),
        PresetInfo(
            "Stable Diffusion 1.5",
            "UNet 859.5M + CLIP text 123.1M + VAE 83.7M, fast.ai forum count [V]",
        ),
    ),
    "sdxl": (
        ModelArch(params=3_500_000_000, family="diffusion"),
        PresetInfo(
            "Stable Diffusion XL base",
            "whole base pipeline 3.5B, Hugging Face blog simple_sdxl_optimizations [V]",
        ),
    ),
}

MODEL_PRESETS: dict[str, ModelArch] = {key: arch for key, (arch, _) in _PRESETS.items()}
PRESET_INFO: dict[str, PresetInfo] = {key: info for key, (_, info) in _PRESETS.items()}
