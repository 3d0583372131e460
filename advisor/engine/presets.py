"""Model presets: the published architectures a scenario can name instead of giving `params`.

Figures are the models' published configurations: Meta's sku_list (meta-llama/llama-models) for
Llama 3.1, the Hugging Face config.json of the others, the DeepSeek-V3 README for its totals
(docs/memory-model.md, "Model presets"). The parameter counts are exact: a parameter counter
(embeddings, untied LM head, attention with grouped KV heads and Qwen's QKV bias, SwiGLU MLP,
RMSNorm weights; DeepSeek-V3 with MLA projections, 3 dense layers and 58 MoE layers of 256 routed
+ 1 shared experts) over these shapes gives 8.03B, 70.55B, 405.85B, 6.74B, 68.98B, 7.24B, 7.62B,
14.77B, 32.76B, 72.71B and 671.0B / 37.6B active, the official totals.
Diffusion pipelines (SD 1.5, SDXL, SD3 Medium, SD3.5 Medium and Large, FLUX.1 dev and schnell)
carry each component's count and the denoiser's shape (types.DiffusionArch); each preset's source
says where from.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from advisor.engine.types import DiffusionArch, ModelArch


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


# The three text encoders and the VAE every Stable Diffusion 3 and 3.5 pipeline ships
# (stabilityai/stable-diffusion-3-medium-diffusers text_encoder*/ and vae/ config.json files [S]).
SD3_TEXT_ENCODERS = (
    ("CLIP ViT-L/14", 123_650_304),
    ("OpenCLIP ViT-bigG/14", 694_659_840),
    ("T5-XXL encoder", 4_762_310_656),
)
SD3_VAE_PARAMS = 83_819_683
# FLUX.1 [dev]; [schnell] is the same architecture with fewer T5 tokens.
FLUX_DEV = DiffusionArch(
    denoiser="flux",
    denoiser_params=11_901_408_320,
    text_encoders=(("CLIP ViT-L/14", 123_060_480), ("T5-XXL encoder", 4_762_310_656)),
    vae_params=83_819_683,
    native_resolution=1024,
    latent_channels=16,
    cfg=False,  # guidance-distilled: the guidance scale is an input, one pass per step
    blocks=19,
    single_blocks=38,
    hidden=3072,
    text_tokens=512,  # FluxPipeline max_sequence_length for dev
)


def _diffusion(d: DiffusionArch, info: PresetInfo) -> tuple[ModelArch, PresetInfo]:
    """A pipeline preset: `params` is the whole pipeline, every component counted."""
    total = d.denoiser_params + d.text_encoder_params + d.vae_params
    return ModelArch(params=total, family="diffusion", diffusion=d), info


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
            experts=256,  # routed, besides 1 shared (n_routed_experts, n_shared_experts)
            experts_per_token=8,  # num_experts_per_tok
        ),
        PresetInfo(
            "DeepSeek-V3 (671B MoE, 37.6B active)",
            "deepseek-ai/DeepSeek-V3 README [V] and config.json [S]",
        ),
    ),
    # Diffusion pipelines: every component's parameter count, the denoiser's shape from its
    # diffusers config.json, and the text the pipeline feeds it (docs/memory-model.md,
    # "Diffusion models").
    "sd-1.5": _diffusion(
        DiffusionArch(
            denoiser="unet",
            denoiser_params=859_520_964,
            text_encoders=(("CLIP ViT-L/14", 123_060_480),),
            vae_params=83_653_863,
            native_resolution=512,
            levels=((320, 1), (640, 1), (1280, 1), (1280, 0)),
            mid_depth=1,
            context_dim=768,
        ),
        PresetInfo(
            "Stable Diffusion 1.5",
            "UNet 859.5M + CLIP text 123.1M + VAE 83.7M, fast.ai forum count [V]; UNet shape: "
            "runwayml/stable-diffusion-v1-5 unet/config.json [S]",
        ),
    ),
    "sdxl": _diffusion(
        DiffusionArch(
            denoiser="unet",
            denoiser_params=2_567_463_684,
            text_encoders=(("CLIP ViT-L/14", 123_060_480), ("OpenCLIP ViT-bigG/14", 694_659_840)),
            vae_params=83_653_863,
            native_resolution=1024,
            # The SDXL VAE overflows in fp16: its config sets force_upcast and the pipeline
            # decodes in fp32 (diffusers StableDiffusionXLPipeline.upcast_vae).
            vae_fp32=True,
            levels=((320, 0), (640, 2), (1280, 10)),
            mid_depth=10,
            context_dim=2048,
        ),
        PresetInfo(
            "Stable Diffusion XL base",
            "UNet 2.6B and text encoders 817M, Podell et al. 2023 (arXiv:2307.01952) [V]; "
            "component counts and UNet shape: stabilityai/stable-diffusion-xl-base-1.0 "
            "config.json files [S]",
        ),
    ),
    "sd3-medium": _diffusion(
        DiffusionArch(
            denoiser="mmdit",
            denoiser_params=2_028_328_000,
            text_encoders=SD3_TEXT_ENCODERS,
            vae_params=SD3_VAE_PARAMS,
            native_resolution=1024,
            latent_channels=16,
            blocks=24,
            hidden=1536,
            text_tokens=77 + 256,  # CLIP's 77 tokens and T5's max_sequence_length 256
        ),
        PresetInfo(
            "Stable Diffusion 3 Medium",
            "MMDiT 2.028B, Hugging Face blog quanto-diffusers [V]; depth 24 (hidden 64 × 24): "
            "stabilityai/stable-diffusion-3-medium-diffusers transformer/config.json [S]",
        ),
    ),
    "sd3.5-medium": _diffusion(
        DiffusionArch(
            denoiser="mmdit",
            denoiser_params=2_500_000_000,
            text_encoders=SD3_TEXT_ENCODERS,
            vae_params=SD3_VAE_PARAMS,
            native_resolution=1024,
            latent_channels=16,
            blocks=24,
            hidden=1536,
            text_tokens=77 + 256,
        ),
        PresetInfo(
            "Stable Diffusion 3.5 Medium",
            "MMDiT-X 2.5 billion parameters, stabilityai/stable-diffusion-3.5-medium model "
            "card [S]; text encoders and VAE as SD3 Medium",
        ),
    ),
    "sd3.5-large": _diffusion(
        DiffusionArch(
            denoiser="mmdit",
            denoiser_params=8_100_000_000,
            text_encoders=SD3_TEXT_ENCODERS,
            vae_params=SD3_VAE_PARAMS,
            native_resolution=1024,
            latent_channels=16,
            blocks=38,
            hidden=2432,  # 64 × depth 38
            text_tokens=77 + 256,
        ),
        PresetInfo(
            "Stable Diffusion 3.5 Large",
            "MMDiT 8.1 billion parameters, stabilityai/stable-diffusion-3.5-large model card "
            "[S]; depth 38: its transformer/config.json [S]",
        ),
    ),
    "flux.1-dev": _diffusion(
        FLUX_DEV,
        PresetInfo(
            "FLUX.1 [dev]",
            "transformer 23.8 GB, T5 9.52 GB, CLIP 246 MB, VAE 168 MB in BF16, Hugging Face "
            "blog diffusers-quantization [V]; 19 double and 38 single blocks of 3072: "
            "black-forest-labs/FLUX.1-dev transformer/config.json [S]",
        ),
    ),
    "flux.1-schnell": _diffusion(
        # Timestep-distilled, no guidance either.
        replace(FLUX_DEV, text_tokens=256),  # FluxPipeline max_sequence_length for schnell
        PresetInfo(
            "FLUX.1 [schnell]",
            "the FLUX.1 [dev] architecture (black-forest-labs/FLUX.1-schnell config.json) [S]; "
            "256 T5 tokens (diffusers' documented schnell setting)",
        ),
    ),
}

MODEL_PRESETS: dict[str, ModelArch] = {key: arch for key, (arch, _) in _PRESETS.items()}
PRESET_INFO: dict[str, PresetInfo] = {key: info for key, (_, info) in _PRESETS.items()}
