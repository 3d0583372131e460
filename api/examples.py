"""OpenAPI examples for the advisor endpoints, from real engine runs on the seed catalogue.

Both answers are the engine's output for the example request on the seed catalogue, shortened for
reading: fewer notes and formulas, and only the first of the advise answer's recommendations.
"""

from drf_spectacular.utils import OpenApiExample

from advisor.presets import PRESETS

LORA_7B = {
    "tasks": [
        {
            "name": "7B LoRA",
            "kind": "lora",
            "model": "llama-2-7b",
            "precision": "bf16",
            "activation_checkpointing": "full",
            "micro_batch": 1,
            "seq_len": 2048,
            "lora_rank": 16,
            "tokens": 1e8,
            "on": {"accelerator": "rtx-4090-24gb"},
        }
    ]
}

ESTIMATE_REQUEST = OpenApiExample("7B LoRA on an RTX 4090 24GB", value=LORA_7B, request_only=True)

ESTIMATE_RESPONSE = OpenApiExample(
    "7B LoRA on an RTX 4090 24GB: fits",
    response_only=True,
    value={
        "tasks": [
            {
                "name": "7B LoRA",
                "kind": "lora",
                "gpus": 1,
                "per_gpu": {
                    "weights": 13510385664,
                    "gradients": 33554432,
                    "optimizer": 201326592,
                    "activations": 1755316224,
                    "kv_cache": 0,
                    "overhead": 1073741824,
                    "total": 16574324736,
                },
                "per_gpu_gib": {
                    "weights": 12.58,
                    "gradients": 0.03,
                    "optimizer": 0.19,
                    "activations": 1.63,
                    "kv_cache": 0.0,
                    "overhead": 1.0,
                    "total": 15.44,
                },
                "sharded": False,
                "notes": [
                    "LoRA rank 16 on q, k, v, o of every layer: 16,777,216 trainable params "
                    "(Σ r·(d_in + d_out))",
                    "each data-parallel GPU holds the activations of its own micro-batch",
                ],
                "formulas": {
                    "weights": "6.738B params × 2 B (bf16) + 16.78M params adapters × 2 B "
                    "= 12.58 GiB",
                    "gradients": "16.78M params × 2 B (bf16 gradients) = 0.03 GiB",
                    "optimizer": "16.78M params × 12 B (adamw, fp32 master copy) = 0.19 GiB",
                    "activations": "2·s·b·h·L + one layer's s·b·h·(34 + 5·a·s/h) (full "
                    "recomputation) with s=2048, b=1, h=4096, a=32, L=32 + logits s·b·vocab "
                    "× 4 B = 1.63 GiB",
                    "overhead": "CUDA context + allocator 1.00 GiB",
                },
                "on": {
                    "accelerator": "rtx-4090-24gb",
                    "name": "GeForce RTX 4090",
                    "count": 1,
                    "mig_profile": None,
                    "capacity_gib": 24.0,
                    "confidence": "secondary",
                },
                "fit": {
                    "fits": True,
                    "usable_bytes": 25447681229,
                    "headroom_bytes": 8873356493,
                    "suggestions": [],
                    "reason": "fits: 15.44 GiB of 23.70 GiB usable per GPU",
                },
                "time": {
                    "hours": 17.0,
                    "mfu": 0.4,
                    "compute_seconds": 61184.2,
                    "comm_seconds": 0.0,
                    "scaling_efficiency": 1.0,
                    "warnings": [],
                    "notes": ["MFU 0.40 of dense peak 165.2 TFLOPS"],
                },
            }
        ],
        "warnings": [],
    },
)

# The vendor article's "组合一：训练+推理混跑": the advisor page's preset, one scenario for both.
TRAINING_INFERENCE = PRESETS["training-inference"].scenario

ADVISE_REQUEST = OpenApiExample(
    "Training + inference mixed (the seed article)", value=TRAINING_INFERENCE, request_only=True
)

ADVISE_RESPONSE = OpenApiExample(
    "Training + inference mixed: the first recommendation",
    response_only=True,
    value={
        "estimate": {
            "tasks": [
                {
                    "name": "daytime inference",
                    "kind": "inference",
                    "gpus": 1,
                    "per_gpu": {
                        "weights": 16060522496,
                        "gradients": 0,
                        "optimizer": 0,
                        "activations": 343752704,
                        "kv_cache": 17179869184,
                        "overhead": 1073741824,
                        "total": 34657886208,
                    },
                    "per_gpu_gib": {
                        "weights": 14.96,
                        "gradients": 0.0,
                        "optimizer": 0.0,
                        "activations": 0.32,
                        "kv_cache": 16.0,
                        "overhead": 1.0,
                        "total": 32.28,
                    },
                    "sharded": False,
                    "notes": [],
                    "formulas": {
                        "weights": "8.03B params × 2 B (bf16) = 14.96 GiB",
                        "kv_cache": (
                            "131,072 B/token (bf16) × 8192 context × 16 sequences = 16.00 GiB"
                        ),
                    },
                },
                {
                    "name": "night fine-tune",
                    "kind": "full_finetune",
                    "gpus": 8,
                    "per_gpu": {
                        "weights": 2007565312,
                        "gradients": 2007565312,
                        "optimizer": 12045391872,
                        "activations": 6429868032,
                        "kv_cache": 0,
                        "overhead": 3175088128,
                        "total": 25665478656,
                    },
                    "per_gpu_gib": {
                        "weights": 1.87,
                        "gradients": 1.87,
                        "optimizer": 11.22,
                        "activations": 5.99,
                        "kv_cache": 0.0,
                        "overhead": 2.96,
                        "total": 23.9,
                    },
                    "sharded": True,
                    "notes": [
                        (
                            "activations per Korthikanti et al. (34 + 5as/h per"
                            " layer) are an upper bound for LLaMA-style SwiGLU "
                            "models with FlashAttention, which store no s² "
                            "attention scores"
                        ),
                    ],
                    "formulas": {
                        "weights": ("8.03B params × 2 B (bf16) ÷ 8 GPUs (zero3) = 1.87 GiB"),
                        "optimizer": (
                            "8.03B params × 12 B (adamw, fp32 master copy) ÷ 8 "
                            "GPUs (zero3) = 11.22 GiB"
                        ),
                    },
                },
            ],
            "warnings": [],
        },
        "as_of": "2026-11-30T12:00:00+00:00",
        "objective": "balanced",
        "currency": "CNY",
        "considered": 24,
        "fitting": 2,
        "rejected": {
            "does not fit": 21,
            "no current price": 1,
        },
        "pareto": [
            2,
            3,
        ],
        "recommendations": [
            {
                "rank": 1,
                "offering_id": 2,
                "offering": "RTX 4090 48G × 8 bare metal",
                "platform": "zhixingyun",
                "platform_name": "智星云 (Zhixingyun (AI Galaxy))",
                "accelerator": "rtx-4090-48gb",
                "instances": 1,
                "gpus_per_instance": 8,
                "plan": {
                    "unit": "month",
                    "units": [
                        "month",
                    ],
                    "price": "12000.00",
                    "monthly": "12000.00",
                    "currency": "CNY",
                    "converted": "12000.00",
                    "converted_currency": "CNY",
                    "rate": None,
                    "rate_date": None,
                    "rate_source": "",
                },
                "monthly_cost": "12000.00",
                "storage_cost": None,
                "job_cost": "12000.00",
                "time_hours": 35.268,
                "headroom_bytes": 16237476250,
                "isolation": [
                    "exclusive GPU",
                ],
                "price_age_days": 188,
                "price_source": (
                    "2026多任务GPU平台怎么选？多卡效率与实战配置拆解 — 智星云 on itself "
                    "(2026-05-26)"
                ),
                "price_source_kind": "vendor_claim",
                "pareto": True,
                "placement": [
                    {
                        "task": "daytime inference",
                        "instance": 0,
                        "gpus": [
                            0,
                        ],
                        "mode": "whole",
                        "mig_profile": None,
                        "mig_start": None,
                        "pooled_share": None,
                        "usable_bytes": 50895362458,
                        "used_bytes": 34657886208,
                        "headroom_bytes": 16237476250,
                    },
                    {
                        "task": "night fine-tune",
                        "instance": 0,
                        "gpus": [
                            0,
                            1,
                            2,
                            3,
                            4,
                            5,
                            6,
                            7,
                        ],
                        "mode": "whole",
                        "mig_profile": None,
                        "mig_start": None,
                        "pooled_share": None,
                        "usable_bytes": 50895362458,
                        "used_bytes": 25665478656,
                        "headroom_bytes": 25229883802,
                    },
                ],
                "decode_tokens_per_s": {
                    "daytime inference": 30.3,
                },
                "reasons": [
                    (
                        "Runs all 2 task(s) on 1 instance(s) of 8× GeForce "
                        "RTX 4090 48GB (modified) (exclusive GPU)"
                    ),
                    "Best of 2 fitting offerings by cost and time",
                    ("On the Pareto front: nothing else is both cheaper and faster"),
                    ("Cheapest billing here: month plan, 12000.00 CNY/month"),
                    ("Training takes about 35.3 h, scaling efficiency 96%"),
                ],
                "warnings": [
                    ("Facts about this platform come from its own marketing (vendor claim)"),
                    "The month price is stale (188 days old)",
                ],
            },
        ],
    },
)

INVALID_FIELD = OpenApiExample(
    "A field the engine rejects",
    response_only=True,
    status_codes=["400"],
    value={
        "error": {
            "status": 400,
            "code": "invalid",
            "message": "tasks[0].precision: must be one of fp32, bf16, fp16, fp8, int8, int4",
            "fields": {"tasks[0].precision": ["must be one of fp32, bf16, fp16, fp8, int8, int4"]},
        }
    },
)

NO_FIT = OpenApiExample(
    "Nothing fits",
    response_only=True,
    status_codes=["422"],
    value={
        "error": {
            "status": 422,
            "code": "no_fit",
            "message": "No offering can run this scenario: 24 offerings considered, 24 do not fit.",
            "fields": {},
        }
    },
)
