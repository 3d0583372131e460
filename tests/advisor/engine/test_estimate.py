"""`estimate`: the JSON `manage.py estimate` prints (DESIGN.md "The scenario")."""

from __future__ import annotations

import json
from typing import Any

import pytest

from advisor.engine.capacity import usable_bytes
from advisor.engine.errors import InvalidWorkload
from advisor.engine.estimate import estimate
from advisor.engine.hardware import load_accelerators
from advisor.engine.scenario import parse_scenario
from advisor.engine.types import GiB

ACCELERATORS = load_accelerators()
BREAKDOWN = ["weights", "gradients", "optimizer", "activations", "kv_cache", "overhead", "total"]


def run(*tasks: dict[str, Any]) -> dict[str, Any]:
    return estimate(parse_scenario({"tasks": list(tasks)}), ACCELERATORS)


def test_a_fixed_task_on_a_named_card_gives_exactly_this_json() -> None:
    """Whole-body comparison; L40S 48 GB, usable = 48 GiB less the 1.25 % driver reserve."""
    usable = usable_bytes(48)
    result = run({"name": "render", "kind": "fixed", "vram_gib": 20, "on": {"accelerator": "L40S"}})
    assert result == {
        "tasks": [
            {
                "name": "render",
                "kind": "fixed",
                "gpus": 1,
                "per_gpu": {
                    "weights": 0,
                    "gradients": 0,
                    "optimizer": 0,
                    "activations": 0,
                    "kv_cache": 0,
                    "overhead": 20 * GiB,
                    "total": 20 * GiB,
                },
                "per_gpu_gib": {
                    "weights": 0.0,
                    "gradients": 0.0,
                    "optimizer": 0.0,
                    "activations": 0.0,
                    "kv_cache": 0.0,
                    "overhead": 20.0,
                    "total": 20.0,
                },
                "sharded": False,
                "notes": ["stated working set of a non-ML workload (vram_gib), taken as given"],
                "formulas": {"overhead": "vram_gib 20.0 × 2^30 = 20.00 GiB"},
                "on": {
                    "accelerator": "l40s-48gb",
                    "name": "L40S",
                    "count": 1,
                    "mig_profile": None,
                    "capacity_gib": 48.0,
                    "confidence": "verified",
                },
                "fit": {
                    "fits": True,
                    "usable_bytes": usable,
                    "headroom_bytes": usable - 20 * GiB,
                    "reason": "fits: 20.00 GiB of 47.40 GiB usable per GPU",
                    "suggestions": [],
                },
            }
        ],
        "warnings": [],
    }


def test_the_output_is_json_with_a_consistent_breakdown() -> None:
    result = run({"kind": "lora", "model": "llama-3.1-8b", "activation_checkpointing": "full"})
    task = json.loads(json.dumps(result))["tasks"][0]
    assert list(task["per_gpu"]) == BREAKDOWN
    assert task["per_gpu"]["total"] == sum(task["per_gpu"][k] for k in BREAKDOWN[:-1])
    assert task["per_gpu_gib"]["total"] == round(task["per_gpu"]["total"] / GiB, 2)
    assert "on" not in task and "fit" not in task


def test_the_seed_70b_fsdp_case_on_8_a100_80gb_does_not_fit_and_names_the_fixes() -> None:
    """memory-and-time.md §9 case 7."""
    result = run(
        {
            "kind": "full_finetune",
            "model": "llama-3.1-70b",
            "sharding": "fsdp",
            "activation_checkpointing": "full",
            "tokens": 1e9,
            "on": {"accelerator": "NVIDIA A100-SXM4-80GB", "count": 8},
        }
    )
    task = result["tasks"][0]
    assert task["gpus"] == 8 and task["sharded"]
    assert task["fit"]["fits"] is False and task["fit"]["headroom_bytes"] < 0
    text = " ".join(task["fit"]["suggestions"])
    assert "offload" in text and "LoRA" in text and "over 16 GPUs" in text
    assert task["time"]["hours"] > 0 and task["time"]["scaling_efficiency"] > 0.9


@pytest.mark.parametrize(("profile", "fits"), [("1g.10gb", False), ("3g.40gb", True)])
def test_llama_3_1_8b_inference_on_mig_slices(profile: str, fits: bool) -> None:
    """memory-and-time.md §9 case 5: no fit in 1g.10gb, fits 3g.40gb; decode speed uses the
    slice's share of memory bandwidth (4 of 8 memory slices for 3g, hardware.md §7)."""
    result = run(
        {
            "kind": "inference",
            "model": "llama-3.1-8b",
            "on": {"accelerator": "a100-80gb", "mig_profile": profile},
        }
    )
    task = result["tasks"][0]
    assert task["fit"]["fits"] is fits
    assert task["on"]["capacity_gib"] == float(profile.split(".")[1].removesuffix("gb"))
    whole = run({"kind": "inference", "model": "llama-3.1-8b", "on": {"accelerator": "a100-80gb"}})[
        "tasks"
    ][0]
    share = {"1g.10gb": 1 / 8, "3g.40gb": 4 / 8}[profile]
    assert task["decode_tokens_per_s"] == pytest.approx(
        whole["decode_tokens_per_s"] * share, rel=0.01
    )


def test_a_sharded_task_never_spans_mig_slices() -> None:
    """DESIGN.md / hardware.md §7: MIG has no GPU-to-GPU P2P."""
    task = run(
        {
            "kind": "inference",
            "model": "qwen2.5-7b",
            "on": {"accelerator": "h100-sxm-80gb", "mig_profile": "3g.40gb", "count": 2},
        }
    )["tasks"][0]
    assert task["sharded"] and task["fit"]["fits"] is False
    assert "peer-to-peer" in task["fit"]["reason"]


def test_filling_more_than_90_percent_of_usable_memory_is_an_oom_risk_warning() -> None:
    result = run(
        {"name": "sim", "kind": "fixed", "vram_gib": 75, "on": {"accelerator": "a100-80gb"}}
    )
    assert result["tasks"][0]["fit"]["fits"] is True
    assert result["warnings"] == ["sim: fits (75.00 GiB of 79.00 GiB usable), above 90 %: OOM risk"]


def test_unverified_figures_are_flagged() -> None:
    result = run(
        {"name": "x", "kind": "fixed", "vram_gib": 8, "on": {"accelerator": "rtx-4090d-24gb"}}
    )
    assert result["warnings"] == [
        "x: figures for GeForce RTX 4090 D (China) are unverified (hardware.md §6)"
    ]


def test_training_without_tokens_has_no_time_and_inference_has_decode_speed() -> None:
    result = run(
        {"name": "a", "kind": "lora", "model": "mistral-7b", "on": {"accelerator": "h100-sxm"}},
        {"name": "b", "kind": "inference", "model": "mistral-7b", "on": {"accelerator": "h20"}},
    )
    lora, serve = result["tasks"]
    assert "time" not in lora and "decode_tokens_per_s" not in lora
    assert serve["decode_tokens_per_s"] > 0 and "time" not in serve


def test_a_card_without_a_bandwidth_figure_gives_a_warning_not_a_number() -> None:
    result = run(
        {"name": "s", "kind": "inference", "model": "qwen2.5-7b", "on": {"accelerator": "910B"}}
    )
    assert "decode_tokens_per_s" not in result["tasks"][0]
    assert any("no memory bandwidth figure" in w for w in result["warnings"])


@pytest.mark.parametrize(
    ("on", "field"),
    [
        ({"accelerator": "A100"}, "tasks[0].on.accelerator"),
        ({"accelerator": "a100-80gb", "mig_profile": "3g.20gb"}, "tasks[0].on.mig_profile"),
        ({"accelerator": "l40s-48gb", "mig_profile": "1g.10gb"}, "tasks[0].on.mig_profile"),
    ],
)
def test_bad_hardware_names_their_field(on: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidWorkload) as caught:
        run({"kind": "inference", "model": "llama-3.1-8b", "on": on})
    assert caught.value.field == field
