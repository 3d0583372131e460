"""Training time: the formulas and measurements of docs/time-model.md and
docs/accelerators.md."""

from __future__ import annotations

import pytest

from advisor.engine.errors import InvalidWorkload
from advisor.engine.hardware import load_accelerators
from advisor.engine.memory import lora_adapter_params
from advisor.engine.messages import Code, fraction
from advisor.engine.presets import MODEL_PRESETS
from advisor.engine.timing import (
    DEFAULT_MFU,
    allreduce_anchor,
    allreduce_seconds,
    training_flops,
    training_time,
)
from advisor.engine.types import Task

ACCELERATORS = load_accelerators()


def train(model: str = "llama-2-7b", **fields) -> Task:
    fields.setdefault("kind", "full_finetune")
    fields.setdefault("tokens", 1e9)
    return Task(name="t", model=model, arch=MODEL_PRESETS[model], **fields)


# ---------------------------------------------------------------------------- interconnects


@pytest.mark.parametrize(
    ("slug", "interconnect", "gpus", "low", "high"),
    [
        ("a100-80gb", "nvlink", 8, 200, 200),
        ("a100-40gb", "nvlink", 8, 200, 200),
        ("h100-sxm-80gb", "nvlink", 8, 370, 480),
        ("h800-80gb", "nvlink", 8, 215, 215),
        ("rtx-4090-24gb", "pcie", 8, 25, 35),
        ("rtx-5090-32gb", "pcie", 8, 28, 28),
        ("rtx-5090-32gb", "pcie", 4, 35, 35),
    ],
)
def test_allreduce_bus_bandwidth_matches_the_measured_anchors(slug, interconnect, gpus, low, high):
    """NCCL all-reduce bus bandwidths: 8×A100 NVSwitch ~200 GB/s (NVIDIA/nccl-tests#149),
    8×H100 370-480 (nccl-tests#212), 8×H800 215 (nccl#1374), consumer PCIe 25-35 (nccl#1639)."""
    assert low <= allreduce_anchor(ACCELERATORS[slug], interconnect, gpus)[0] <= high


def test_unmeasured_nvlink_cards_scale_from_the_nearest_anchor_and_say_so() -> None:
    """A800 NVLink 400 GB/s (secondary spec pages) scaled from the 8×A100 600 GB/s anchor."""
    busbw, source = allreduce_anchor(ACCELERATORS["a800-80gb"], "nvlink", 8)
    assert busbw == pytest.approx(200 * 400 / 600)
    assert source.code is Code.BUSBW_SOURCE_NVLINK_SCALED
    assert (source.params["bandwidth"], source.params["anchor_bandwidth"]) == (400, 600)
    assert "nccl-tests#149" in str(source.params["source"])
    assert source.english().endswith(", scaled by NVLink 400/600 GB/s")


def test_a_two_gpu_nvlink_bridge_uses_its_measurement_and_larger_rings_fall_back_to_pcie() -> None:
    """2×H100 PCIe + NVLink bridge ~116 GB/s (NVIDIA/nccl#1161)."""
    h100_pcie = ACCELERATORS["h100-pcie-80gb"]
    assert allreduce_anchor(h100_pcie, "nvlink", 2)[0] == 116
    assert allreduce_anchor(h100_pcie, "nvlink", 4)[0] == 35


def test_nvlink_asked_for_a_card_without_it_is_pcie() -> None:
    assert allreduce_anchor(ACCELERATORS["l40s-48gb"], "nvlink", 8)[0] == 28


def test_allreduce_of_7b_gradients_takes_a_tenth_of_a_second_on_a100_and_a_second_on_pcie() -> None:
    """Ring all-reduce, 2(N−1)/N · G / busbw: 14 GB of bf16 gradients, 8 GPUs: 0.12 s at 200 GB/s,
    ~1.0 s at 25 GB/s."""
    assert allreduce_seconds(14e9, 8, 200) == pytest.approx(0.12, abs=0.005)
    assert allreduce_seconds(14e9, 8, 25) == pytest.approx(1.0, abs=0.03)
    assert allreduce_seconds(14e9, 1, 25) == 0


# ------------------------------------------------------------------------------- FLOPs and time


@pytest.mark.parametrize(
    ("kind", "checkpointing", "per_token"),
    [
        ("full_finetune", "none", 6),
        ("full_finetune", "selective", 6),
        ("full_finetune", "full", 8),
        ("lora", "none", 4),
        ("lora", "full", 6),
        ("qlora", "full", 6),
    ],
)
def test_training_flops_per_parameter_and_token(kind, checkpointing, per_token) -> None:
    """Kaplan et al. 2020 (arXiv:2001.08361) and Transformer Math 101: 6ND, 8ND with full
    recomputation; LoRA 4ND, 6ND with full checkpointing (docs/time-model.md)."""
    task = train(kind=kind, activation_checkpointing=checkpointing)
    assert training_flops(task) == per_token * MODEL_PRESETS["llama-2-7b"].params * 1e9


def test_a_mixture_of_experts_trains_at_its_active_parameters() -> None:
    """6ND with the DeepSeek-V3 active count (README and config.json): 37.6B per token, not 671B."""
    task = train("deepseek-v3")
    assert training_flops(task) == 6 * MODEL_PRESETS["deepseek-v3"].active_params * 1e9


def test_one_gpu_time_is_flops_over_peak_times_mfu() -> None:
    """time = 6ND / (dense BF16 peak × MFU); H100 SXM 989 TFLOPS dense (NVIDIA H100 datasheet,
    half its sparse figure)."""
    estimate = training_time(train(), ACCELERATORS["h100-sxm-80gb"], 1, "none")
    expected = 6 * MODEL_PRESETS["llama-2-7b"].params * 1e9 / (989e12 * DEFAULT_MFU)
    assert estimate.compute_seconds == pytest.approx(expected)
    assert estimate.hours == pytest.approx(expected / 3600)
    assert (estimate.comm_seconds, estimate.scaling_efficiency) == (0, 1)


def test_fp32_training_runs_at_the_fp32_peak() -> None:
    h100 = ACCELERATORS["h100-sxm-80gb"]
    bf16 = training_time(train(), h100, 1, "none")
    fp32 = training_time(train(precision="fp32"), h100, 1, "none")
    assert fp32.compute_seconds / bf16.compute_seconds == pytest.approx(989 / 67)


def test_nvlink_scales_a_7b_full_fine_tune_where_pcie_does_not() -> None:
    """DDP on 8 NVLink A100s scales at 97-98 % (willgpaik/pytorch-ddp-bench); on consumer PCIe the
    all-reduce of 14 GB of gradients (~1 s) is comparable to the compute of a step."""
    task = train(gpus=8)
    nvlink = training_time(task, ACCELERATORS["a100-80gb"], 8, "nvlink")
    pcie = training_time(task, ACCELERATORS["rtx-4090-24gb"], 8, "pcie")
    assert nvlink.scaling_efficiency > 0.95
    assert pcie.scaling_efficiency < 0.8
    [warning] = pcie.warnings
    assert warning.code is Code.TIME_WARN_SCALING
    assert warning.params["efficiency"] == fraction(pcie.scaling_efficiency)
    assert warning.english().startswith(f"scaling efficiency {pcie.scaling_efficiency:.0%}: ")
    assert [note.code for note in pcie.notes] == [Code.TIME_NOTE_MFU, Code.TIME_NOTE_BUSBW]
    assert pcie.notes[1].english() == (
        "all-reduce busbw 28 GB/s (PCIe: 8×RTX 5090 PCIe 28 GB/s (4 GPUs: 35 GB/s), nccl#1639)"
    )


def test_lora_scales_near_linearly_even_on_pcie() -> None:
    """A LoRA's gradient sync is megabytes, so it scales even on PCIe."""
    task = train("llama-3.1-8b", kind="lora", gpus=8)
    estimate = training_time(task, ACCELERATORS["rtx-4090-24gb"], 8, "pcie")
    assert estimate.scaling_efficiency > 0.99
    assert lora_adapter_params(MODEL_PRESETS["llama-3.1-8b"], 16) * 2 < 30e6


def test_zero3_moves_one_and_a_half_times_the_gradient_traffic() -> None:
    """ZeRO paper (arXiv:1910.02054): ZeRO-3 moves 3Ψ instead of 2Ψ."""
    slow = 1.0  # GB/s, so that communication is exposed and proportional to volume
    card = ACCELERATORS["a100-80gb"]
    ddp = training_time(train(gpus=8), card, 8, "pcie", busbw_gbps=slow)
    zero3 = training_time(train(gpus=8, sharding="zero3"), card, 8, "pcie", busbw_gbps=slow)
    hidden = ddp.compute_seconds * 0.5 * 2 / 3
    assert (zero3.comm_seconds + hidden) / (ddp.comm_seconds + hidden) == pytest.approx(1.5)


def test_an_mfu_above_60_percent_is_flagged() -> None:
    """Flag MFU above 60 %: no published run exceeds 54.2 % (Korthikanti et al. 2022; PaLM 46.2 %;
    Megatron-LM 52 %; docs/time-model.md)."""
    card = ACCELERATORS["h100-sxm-80gb"]
    assert training_time(train(), card, 1, "none", mfu=0.6).warnings == ()
    [warning] = training_time(train(), card, 1, "none", mfu=0.7).warnings
    assert warning.code is Code.TIME_WARN_MFU_HIGH and warning.params == {"mfu": fraction(0.7)}
    assert warning.english() == "MFU 70% is above the 60 % no published run reaches"


def test_missing_tokens_name_the_tasks_field() -> None:
    with pytest.raises(InvalidWorkload) as caught:
        training_time(train(tokens=None), ACCELERATORS["a100-80gb"], 1, "none", index=3)
    assert caught.value.field == "tasks[3].tokens"
    assert caught.value.code is Code.TOKENS_REQUIRED


def test_the_notes_name_the_mfu_and_the_peak_and_qlora_dequantization() -> None:
    estimate = training_time(train(kind="qlora"), ACCELERATORS["h100-sxm-80gb"], 1, "none")
    assert [note.english() for note in estimate.notes] == [
        "MFU 0.40 of dense peak 989 TFLOPS",
        "QLoRA dequantization slows steps; gpu_poor applies ×1.75, not applied here",
    ]


# Decode speed is serving.py's: tests/advisor/engine/test_serving.py.
