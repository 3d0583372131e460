"""Software stacks and precisions through the seed catalogue (advisor/engine/stacks.py,
fixtures/compatibility.json; docs/advisor-rules.md, "Software stacks"): no card is ranked as a
drop-in for CUDA work unless it runs the tasks' software, a port is proposed only when allowed and
is then named with what it leaves unverified, bf16 on a card without BF16 is never silent, and an
FP64 need is met only by a stated figure.

Sources: Moore Threads' stack is MUSA with torch_musa, CUDA code ported with musify
(MooreThreads/torch_musa README.md @8b583b3f); Huawei Ascend is CANN with torch_npu and vLLM-Ascend
(vllm-project/vllm-ascend README.md @182b75ea); bitsandbytes ships no NPU or MUSA backend
(bitsandbytes-foundation/bitsandbytes docs/source/installation.mdx @95f9af30); BF16 needs compute
capability 8.0 (https://nvidia.github.io/TransformerEngine/support_matrix.html) and vLLM refuses it
below, asking for --dtype half (vllm-project/vllm `_check_if_gpu_supports_dtype`).
"""

from __future__ import annotations

from typing import Any

import pytest

from advisor.engine.messages import Code
from advisor.presets import PRESETS
from advisor.services import AdviceReport, advise_scenario
from tests.conftest import NOW

pytestmark = pytest.mark.usefixtures("seed", "frozen")


def report_of(body: dict[str, Any], **constraints: Any) -> AdviceReport:
    body = {**body, "constraints": {**body.get("constraints", {}), **constraints}}
    return advise_scenario(body, now=NOW)


def cards_and_warnings(report: AdviceReport) -> list[tuple[str, set[Code], Any]]:
    """(card slug, warning codes, warnings) of every recommendation and every leg of a plan."""
    assert report.advice is not None, report.no_fit
    out = []
    for r in report.advice.recommendations:
        out.append((r.accelerator, {w.code for w in r.warnings}, r.warnings))
        for leg in r.legs:
            out.append((leg.accelerator, {w.code for w in leg.warnings}, leg.warnings))
    return out


def stack_of(report: AdviceReport, slug: str) -> str:
    return report.catalogue.accelerators[slug].stack


@pytest.mark.parametrize("slug", ["rendering-simulation", "mixed-platforms"])
def test_presets_no_longer_put_a_musa_card_first_for_cuda_work(slug: str) -> None:
    """ "Rendering + simulation" and Tip 4 were answered with AutoDL's MTT S4000 first; their
    tasks are CUDA work (a renderer's and solver's CUDA code; PyTorch training and vLLM), which
    MUSA runs only through a port the scenario does not allow: #1 is now a CUDA card, and no
    recommendation is on another stack."""
    report = advise_scenario(PRESETS[slug].named_scenario(), now=NOW)
    assert report.advice is not None
    first = report.advice.recommendations[0]
    assert stack_of(report, first.accelerator) == "cuda"
    assert all(stack_of(report, card) == "cuda" for card, _, _ in cards_and_warnings(report))
    assert report.advice.rejected[Code.REJECT_STACK_PORT_ONLY] >= 1


@pytest.mark.parametrize(
    ("slug", "port"), [("rendering-simulation", "musify"), ("mixed-platforms", "torch_musa")]
)
def test_with_domestic_only_the_presets_still_answer_with_the_port_named(
    slug: str, port: str
) -> None:
    """domestic_only implies ports: the presets are answered on domestic cards, each carrying a
    warning that names its stack and port (musify for the renderer's CUDA code, torch_musa for
    PyTorch) and what is not verified (the vendor's image)."""
    report = report_of(PRESETS[slug].scenario, domestic_only=True)
    for card, codes, _ in cards_and_warnings(report):
        assert stack_of(report, card) != "cuda"
        assert Code.WARN_STACK_PORT in codes, card
    first = report.advice.recommendations[0]  # type: ignore[union-attr]
    ports = [w for w in first.warnings if w.code is Code.WARN_STACK_PORT]
    assert port in {w.params["port"] for w in ports}
    assert all(w.params["limits"] for w in ports)


SCENARIOS = [
    {
        "tasks": [
            {"kind": "inference", "model": "qwen2.5-32b", "precision": "int4", "when": "always"}
        ]
    },
    {"tasks": [{"kind": "inference", "model": "llama-3.1-8b", "precision": "bf16"}]},
    {"tasks": [{"kind": "qlora", "model": "qwen2.5-7b", "seq_len": 1024}]},
    {"tasks": [{"kind": "lora", "model": "sdxl", "when": "day", "hours_per_month": 200}]},
    {"tasks": [{"kind": "inference", "model": "flux.1-dev", "when": "always"}]},
]


@pytest.mark.parametrize("constraints", [{}, {"allow_ports": True}, {"domestic_only": True}])
@pytest.mark.parametrize("body", SCENARIOS, ids=lambda b: b["tasks"][0]["model"])
def test_no_card_off_cuda_without_a_port_warning(body: dict[str, Any], constraints: Any) -> None:
    """Whatever the scenario: a recommendation on a card whose stack is not CUDA exists only where
    ports are allowed, and carries the port's warning; by default every card is a CUDA card."""
    report = report_of(body, **constraints)
    if report.advice is None:
        assert constraints.get("domestic_only"), report.no_fit
        return
    for card, codes, _ in cards_and_warnings(report):
        if stack_of(report, card) != "cuda":
            assert constraints, card
            assert Code.WARN_STACK_PORT in codes, card


def test_no_bf16_task_on_a_card_without_bf16_unwarned() -> None:
    """An 8B bf16 API (vLLM by default): any recommendation on a V100, T4 or Turing card says it
    runs in FP16 at the card's FP16 rate and that vLLM needs --dtype half; the seed's V100 32GB
    card carries both when it is asked for by name."""
    body = {"tasks": [{"kind": "inference", "model": "llama-3.1-8b", "precision": "bf16"}]}
    report = report_of(body)
    for card, codes, _ in cards_and_warnings(report):
        if report.catalogue.accelerators[card].precision("bf16") != "native":
            assert Code.WARN_BF16_AS_FP16 in codes, card
            assert Code.WARN_VLLM_DTYPE_HALF in codes, card
    pinned = {"tasks": [{**body["tasks"][0], "on": {"accelerator": "v100-32gb"}}]}
    on_v100 = report_of(pinned)
    assert on_v100.advice is not None
    for _, codes, warnings in cards_and_warnings(on_v100):
        assert {Code.WARN_BF16_AS_FP16, Code.WARN_VLLM_DTYPE_HALF} <= codes
        half = next(w for w in warnings if w.code is Code.WARN_BF16_AS_FP16)
        assert half.params["tflops"] == 112  # the V100's FP16 tensor rate, not a BF16 one


def test_a_bitsandbytes_qlora_never_gets_an_ascend_card_without_allow_ports() -> None:
    """QLoRA is bitsandbytes 4-bit: on Ascend only through its old NPU branch, built from source
    (bitsandbytes commits 55016dad and 90f54199; hiyouga/LlamaFactory @ff6d4d12). Without
    allow_ports no Ascend card is recommended; with it, the Ascend card names that port."""
    body = {"tasks": [{"kind": "qlora", "model": "qwen2.5-7b", "seq_len": 1024}]}
    report = report_of(body)
    assert all(stack_of(report, card) != "cann" for card, _, _ in cards_and_warnings(report))
    ported = report_of(body, domestic_only=True)
    found = [
        w for card, _, ws in cards_and_warnings(ported) for w in ws if card.startswith("ascend")
    ]
    assert found, "the seed's Ascend offering runs QLoRA through the port"
    ports = {w.params["port"] for w in found if w.code is Code.WARN_STACK_PORT}
    assert "bitsandbytes multi-backend-refactor (LLaMA-Factory)" in ports
    # MUSA has no bitsandbytes at all: left out even with ports, with its reason.
    assert ported.advice is not None
    assert ported.advice.rejected[Code.REJECT_STACK_BITSANDBYTES] >= 1


def test_an_fp64_requirement_is_met_only_by_a_stated_figure() -> None:
    """A CFD job needing 5 TFLOPS of FP64: every card recommended states at least that (A100
    9.7, H100 34 ...); cards that do not state it (Ascend, MUSA, Biren) are left out with
    reject_fp64_not_stated, not passed with a warning."""
    body = {
        "tasks": [
            {"kind": "fixed", "name": "cfd", "vram_gib": 30, "min_fp64_tflops": 5, "when": "always"}
        ]
    }
    report = report_of(body)
    for card, _, _ in cards_and_warnings(report):
        fp64 = report.catalogue.accelerators[card].fp64_tflops
        assert fp64 is not None and fp64 >= 5, card
    assert report.advice is not None
    assert report.advice.rejected[Code.REJECT_FP64_NOT_STATED] >= 1
    domestic = report_of(body, domestic_only=True)
    assert domestic.advice is None and domestic.no_fit is not None
