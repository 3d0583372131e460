"""OpenAPI examples for the advisor endpoints, from real engine runs on the seed catalogue.

The estimate answer is the engine's output for its request, shortened for reading (fewer notes
and formulas); the advise answer is a live body kept as JSON, with only its first recommendation.
"""

import json
from pathlib import Path

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
                    "weights": 13556785152,
                    "gradients": 79953920,
                    "optimizer": 479723520,
                    "activations": 1620058112,
                    "kv_cache": 0,
                    "overhead": 1073741824,
                    "total": 16810262528,
                },
                "per_gpu_gib": {
                    "weights": 12.63,
                    "gradients": 0.07,
                    "optimizer": 0.45,
                    "activations": 1.51,
                    "kv_cache": 0.0,
                    "overhead": 1.0,
                    "total": 15.66,
                },
                "sharded": False,
                "notes": [
                    "LoRA rank 16 on q, k, v, o, gate, up, down of every layer: 39,976,960 "
                    "trainable params (Σ r·(d_in + d_out))",
                    "each data-parallel GPU holds the activations of its own micro-batch",
                ],
                "formulas": {
                    "weights": "6.738B params × 2 B (bf16) + 39.98M params adapters × 2 B "
                    "= 12.63 GiB",
                    "gradients": "39.98M params × 2 B (bf16 gradients) = 0.07 GiB",
                    "optimizer": "39.98M params × 12 B (adamw, fp32 master copy) = 0.45 GiB",
                    "activations": "32 layer inputs × 2048 tokens × 8,192 B + final norm and "
                    "RoPE tables 2048 tokens × 16,900 B + the larger of the loss, 2048 tokens × "
                    "32000 vocab × 16 B (Hugging Face), and one layer recomputed with its backward "
                    "2048 tokens × 230,760 B (FlashAttention/SDPA, no s² scores) = 1.51 GiB",
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
                    "headroom_bytes": 8637418701,
                    "suggestions": [],
                    "reason": "fits: 15.66 GiB of 23.70 GiB usable per GPU",
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

# A live answer to that request on the seed catalogue (2026-11-20), its first recommendation;
# tests/api/test_schema.py checks that its shape is the endpoint's.
ADVISE_RESPONSE_BODY = json.loads(
    Path(__file__).with_name("example_advise.json").read_text(encoding="utf-8")
)
ADVISE_RESPONSE = OpenApiExample(
    "Training + inference mixed: the first recommendation",
    response_only=True,
    value=ADVISE_RESPONSE_BODY,
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
