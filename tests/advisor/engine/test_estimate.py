"""`estimate`: each task's memory plan and, on named hardware, its fit, time and decode speed."""

from __future__ import annotations

from typing import Any

import pytest

from advisor.engine.capacity import usable_bytes
from advisor.engine.errors import InvalidWorkload
from advisor.engine.estimate import Estimate, Fit, OnResult, estimate
from advisor.engine.hardware import load_accelerators
from advisor.engine.memory_plan import MemoryBreakdown
from advisor.engine.messages import Code, Message, gib, msg
from advisor.engine.scenario import parse_scenario
from advisor.engine.types import GiB

ACCELERATORS = load_accelerators()
BREAKDOWN = ["weights", "gradients", "optimizer", "activations", "kv_cache", "overhead", "total"]


def run(*tasks: dict[str, Any]) -> Estimate:
    return estimate(parse_scenario({"tasks": list(tasks)}), ACCELERATORS)


def english(messages: tuple[Message, ...]) -> list[str]:
    return [m.english() for m in messages]


def test_a_fixed_task_on_a_named_card_gives_exactly_this_estimate() -> None:
    """Whole-result comparison; L40S 48 GB, usable = 48 GiB less the 1.25 % driver reserve."""
    usable = usable_bytes(48)
    result = run({"name": "render", "kind": "fixed", "vram_gib": 20, "on": {"accelerator": "L40S"}})
    [task] = result.tasks
    assert result.warnings == ()
    assert (task.name, task.kind, task.gpus, task.plan.sharded) == ("render", "fixed", 1, False)
    assert task.per_gpu == MemoryBreakdown(overhead=20 * GiB)
    assert task.on == OnResult("l40s-48gb", "L40S", 1, None, 48.0, "verified")
    assert task.fit == Fit(
        True, usable, usable - 20 * GiB, msg(Code.FIT_FITS, need=gib(20 * GiB), usable=gib(usable))
    )
    assert task.fit.reason.english() == "fits: 20.00 GiB of 47.40 GiB usable per GPU"
    assert task.time is None and task.decode_tokens_per_s is None


def test_without_on_a_task_has_only_its_memory_plan() -> None:
    result = run({"kind": "lora", "model": "llama-3.1-8b", "activation_checkpointing": "full"})
    [task] = result.tasks
    assert task.per_gpu.total == sum(getattr(task.per_gpu, k) for k in BREAKDOWN if k != "total")
    assert task.on is None and task.fit is None


def test_the_seed_70b_fsdp_case_on_8_a100_80gb_does_not_fit_and_names_the_fixes() -> None:
    """The vendor article's 70B case: full fine-tune with FSDP on 8x A100 80GB does not fit
    (ZeRO paper, arXiv:1910.02054: 16 B/param of model states, 70e9 x 16 B / 8 > 80 GB)."""
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
    [task] = result.tasks
    assert task.gpus == 8 and task.plan.sharded
    assert task.fit is not None and task.fit.fits is False and task.fit.headroom_bytes < 0
    text = " ".join(english(task.fit.suggestions))
    assert "offload" in text and "LoRA" in text and "over 16 GPUs" in text
    assert task.time is not None and task.time.hours > 0 and task.time.scaling_efficiency > 0.9


@pytest.mark.parametrize(("profile", "fits"), [("1g.10gb", False), ("3g.40gb", True)])
def test_llama_3_1_8b_inference_on_mig_slices(profile: str, fits: bool) -> None:
    """No fit in 1g.10gb, fits 3g.40gb; decode speed uses the slice's share of memory bandwidth
    (4 of 8 memory slices for 3g: NVIDIA MIG User Guide, "Supported MIG Profiles")."""
    result = run(
        {
            "kind": "inference",
            "model": "llama-3.1-8b",
            "on": {"accelerator": "a100-80gb", "mig_profile": profile},
        }
    )
    [task] = result.tasks
    assert task.fit is not None and task.fit.fits is fits
    assert task.on is not None
    assert task.on.capacity_gib == float(profile.split(".")[1].removesuffix("gb"))
    [whole] = run(
        {"kind": "inference", "model": "llama-3.1-8b", "on": {"accelerator": "a100-80gb"}}
    ).tasks
    share = {"1g.10gb": 1 / 8, "3g.40gb": 4 / 8}[profile]
    assert whole.decode_tokens_per_s is not None
    assert task.decode_tokens_per_s == pytest.approx(whole.decode_tokens_per_s * share, rel=0.01)


def test_a_sharded_task_never_spans_mig_slices() -> None:
    """MIG has no GPU-to-GPU peer-to-peer (NVIDIA MIG User Guide, "Application Considerations")."""
    [task] = run(
        {
            "kind": "inference",
            "model": "qwen2.5-7b",
            "on": {"accelerator": "h100-sxm-80gb", "mig_profile": "3g.40gb", "count": 2},
        }
    ).tasks
    assert task.plan.sharded and task.fit is not None and task.fit.fits is False
    assert task.fit.reason.code is Code.FIT_MIG_NO_P2P


def test_filling_more_than_90_percent_of_usable_memory_is_an_oom_risk_warning() -> None:
    result = run(
        {"name": "sim", "kind": "fixed", "vram_gib": 75, "on": {"accelerator": "a100-80gb"}}
    )
    assert result.tasks[0].fit is not None and result.tasks[0].fit.fits is True
    assert english(result.warnings) == [
        "sim: fits (75.00 GiB of 79.00 GiB usable), above 90 %: OOM risk"
    ]


def test_unverified_figures_are_flagged() -> None:
    result = run(
        {"name": "x", "kind": "fixed", "vram_gib": 8, "on": {"accelerator": "rtx-4090d-24gb"}}
    )
    [warning] = result.warnings
    assert warning.params["message"] == msg(
        Code.WARN_UNVERIFIED_FIGURES, accelerator="GeForce RTX 4090 D (China)"
    )


def test_training_without_tokens_has_no_time_and_inference_has_decode_speed() -> None:
    result = run(
        {"name": "a", "kind": "lora", "model": "mistral-7b", "on": {"accelerator": "h100-sxm"}},
        {"name": "b", "kind": "inference", "model": "mistral-7b", "on": {"accelerator": "h20"}},
    )
    lora, serve = result.tasks
    assert lora.time is None and lora.decode_tokens_per_s is None
    assert serve.decode_tokens_per_s is not None and serve.decode_tokens_per_s > 0
    assert serve.time is None


def test_a_card_without_a_bandwidth_figure_gives_a_warning_not_a_number() -> None:
    result = run(
        {"name": "s", "kind": "inference", "model": "qwen2.5-7b", "on": {"accelerator": "910B"}}
    )
    assert result.tasks[0].decode_tokens_per_s is None
    inner = {w.params["message"].code for w in result.warnings}  # type: ignore[union-attr]
    assert {w.code for w in result.warnings} == {Code.WARN_TASK}
    assert Code.WARN_NO_DECODE_ESTIMATE in inner


@pytest.mark.parametrize(
    ("on", "field"),
    [
        ({"accelerator": "A100 48G"}, "tasks[0].on.accelerator"),
        ({"accelerator": "a100-80gb", "mig_profile": "3g.20gb"}, "tasks[0].on.mig_profile"),
        ({"accelerator": "l40s-48gb", "mig_profile": "1g.10gb"}, "tasks[0].on.mig_profile"),
    ],
)
def test_bad_hardware_names_their_field(on: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidWorkload) as caught:
        run({"kind": "inference", "model": "llama-3.1-8b", "on": on})
    assert caught.value.field == field
