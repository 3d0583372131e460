"""Model presets against the models' published figures: Meta's llama-models sku_list for Llama 3.1,
Hugging Face config.json for the others, the DeepSeek-V3 README (docs/memory-model.md)."""

from __future__ import annotations

import pytest

from advisor.engine.presets import MODEL_PRESETS, PRESET_INFO
from advisor.engine.types import ModelArch

REQUIRED = {
    "llama-3.1-8b",
    "llama-3.1-70b",
    "llama-3.1-405b",
    "llama-2-7b",
    "llama-2-70b",
    "mistral-7b",
    "qwen2.5-7b",
    "qwen2.5-14b",
    "qwen2.5-32b",
    "qwen2.5-72b",
    "deepseek-v3",
    "sd-1.5",
    "sdxl",
    "sd3-medium",
    "sd3.5-medium",
    "sd3.5-large",
    "flux.1-dev",
    "flux.1-schnell",
}

# (preset, params in billions: the official totals, to the printed precision)
PUBLISHED_PARAMS = [
    ("llama-3.1-8b", 8.03),
    ("llama-3.1-70b", 70.55),
    ("llama-3.1-405b", 405.85),
    ("llama-2-7b", 6.74),
    ("llama-2-70b", 68.98),
    ("mistral-7b", 7.24),
    ("qwen2.5-7b", 7.62),
    ("qwen2.5-14b", 14.77),
    ("qwen2.5-32b", 32.76),
    ("qwen2.5-72b", 72.71),
    ("deepseek-v3", 671.0),
    ("sd-1.5", 1.066),
    # SDXL base: UNet 2.567B + CLIP ViT-L 123.1M + OpenCLIP bigG 694.7M + VAE 83.7M, the
    # checkpoints' counts (the "3.5B" of the Hugging Face blog is this total rounded).
    ("sdxl", 3.47),
]

QKV_BIAS = {"qwen2.5-7b", "qwen2.5-14b", "qwen2.5-32b", "qwen2.5-72b"}


def count_dense_params(arch: ModelArch, qkv_bias: bool) -> int:
    """Independent parameter counter for Llama-style models (untied head, RMSNorm, SwiGLU)."""
    assert arch.layers and arch.hidden and arch.heads and arch.kv_heads and arch.head_dim
    assert arch.intermediate and arch.vocab
    h, q, kv = arch.hidden, arch.heads * arch.head_dim, arch.kv_heads * arch.head_dim
    attention = h * q + 2 * h * kv + q * h + ((q + 2 * kv) if qkv_bias else 0)
    block = attention + 3 * h * arch.intermediate + 2 * h
    return arch.layers * block + 2 * arch.vocab * h + h


def test_every_required_preset_exists_with_a_name_and_a_source() -> None:
    assert set(MODEL_PRESETS) >= REQUIRED
    assert set(PRESET_INFO) == set(MODEL_PRESETS)
    for info in PRESET_INFO.values():
        assert info.name and info.source and ".md" not in info.source  # the original source


@pytest.mark.parametrize(("preset", "billions"), PUBLISHED_PARAMS)
def test_parameter_counts_match_the_published_table(preset: str, billions: float) -> None:
    """A parameter counter over the published configs; rounding of the printed figure only."""
    assert MODEL_PRESETS[preset].params / 1e9 == pytest.approx(billions, abs=0.006 * billions)


DENSE_LLMS = sorted(
    p for p, a in MODEL_PRESETS.items() if a.family == "llm" and not a.active_params
)


@pytest.mark.parametrize("preset", DENSE_LLMS)
def test_dense_presets_shapes_reproduce_their_parameter_count_exactly(preset: str) -> None:
    """The shape fields and the count agree: a counter over the shape gives the stored total."""
    arch = MODEL_PRESETS[preset]
    assert count_dense_params(arch, preset in QKV_BIAS) == arch.params


def test_deepseek_v3_is_a_mixture_of_experts_with_37_6_billion_active_and_mla_cache() -> None:
    """DeepSeek-V3 README (671B total, 37B active) and config.json (kv_lora_rank 512,
    qk_rope_head_dim 64, 61 layers); the counter gives 671.0B / 37.6B."""
    arch = MODEL_PRESETS["deepseek-v3"]
    assert arch.active_params is not None
    assert arch.active_params / 1e9 == pytest.approx(37.6, abs=0.05)
    assert (arch.mla_kv_lora_rank, arch.mla_rope_head_dim, arch.layers) == (512, 64, 61)


def test_llama_3_1_8b_bf16_weights_are_16_1_gb_or_15_0_gib() -> None:
    """Llama-3.1-8B, 8.03B params × 2 B: bf16 weights 16.1 GB (15.0 GiB)."""
    weights = MODEL_PRESETS["llama-3.1-8b"].params * 2
    assert weights / 1e9 == pytest.approx(16.1, abs=0.05)
    assert weights / 2**30 == pytest.approx(15.0, abs=0.05)


def test_diffusion_presets_carry_their_components_not_a_language_model_shape() -> None:
    """Every diffusion preset is the sum of its components (types.DiffusionArch) and has no
    LLM shape for the LLM formulas to pick up."""
    diffusion = [p for p, a in MODEL_PRESETS.items() if a.family == "diffusion"]
    assert set(diffusion) >= {"sd-1.5", "sdxl", "sd3-medium", "sd3.5-large", "flux.1-dev"}
    for preset in diffusion:
        arch = MODEL_PRESETS[preset]
        assert arch.diffusion is not None and arch.layers is None
        d = arch.diffusion
        assert arch.params == d.denoiser_params + d.text_encoder_params + d.vae_params
