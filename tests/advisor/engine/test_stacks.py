"""The compatibility table (fixtures/compatibility.json) and what advisor/engine/stacks.py decides
from it: each (task need, card) runs, falls back at a stated cost, runs through a named port, or
does not run. Each test names the original source of the rule it checks."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime
from decimal import Decimal
from typing import Any

import pytest

from advisor.engine import stacks
from advisor.engine.advise import advise
from advisor.engine.errors import InvalidWorkload, NoFit
from advisor.engine.estimate import estimate
from advisor.engine.hardware import (
    DEFAULT_PATH,
    FP64_CLASSES,
    PRECISION_SUPPORT,
    PRECISIONS,
    STACK_NAMES,
    load_accelerators,
)
from advisor.engine.messages import Code
from advisor.engine.scenario import parse_scenario, scenario_to_dict
from advisor.engine.stacks import DEFAULT_TABLE, Need, Verdict, blocked, task_needs, warnings
from advisor.engine.suggest import what_would_fit
from advisor.engine.timing import tensor_tflops
from advisor.engine.types import OfferingSpec, PriceSpec, Task

ACCELERATORS = load_accelerators()
NOW = datetime(2026, 10, 2)
TABLE_PATH = stacks.DEFAULT_PATH


def card(slug: str) -> Any:
    return ACCELERATORS[slug]


def verdict(need: Need, slug: str) -> tuple[Verdict, Any]:
    rule = DEFAULT_TABLE.rule(need, card(slug))
    return (Verdict.NO if rule is None else rule.verdict), rule


def task(**fields: Any) -> Task:
    return parse_scenario({"tasks": [{"name": "t", **fields}]}).tasks[0]


def needs(*tasks: Task) -> stacks.StackNeeds:
    return stacks.needs_of(tasks)


# ----------------------------------------------------------------------------------- the data


def test_every_rule_cites_its_original_sources_and_a_grade() -> None:
    """Each rule names sources the table lists (a URL, or repository + path + commit), never a
    summary of them; a port names itself, a fallback its cost."""
    data = json.loads(TABLE_PATH.read_text(encoding="utf-8"))
    assert len(DEFAULT_TABLE.rules) == len(data["rules"]) >= 60
    cites = dict(DEFAULT_TABLE.sources)
    for rule in DEFAULT_TABLE.rules:
        assert rule.sources and all(cites[s] for s in rule.sources)
        assert rule.grade in stacks.GRADES
        assert (rule.verdict is Verdict.PORT) == bool(rule.port)
    for cite in cites.values():  # a URL, a thread, or a repository's file at a commit
        assert "/" in cite


def test_a_rule_with_an_unknown_source_or_limit_is_refused() -> None:
    data = json.loads(TABLE_PATH.read_text(encoding="utf-8"))
    bad = dict(data["rules"][0], sources=["NOPE"])
    with pytest.raises(ValueError, match="NOPE"):
        stacks.table_from_dict({**data, "rules": [bad]})
    bad = dict(data["rules"][0], verdict="port", port="x", limits=["made_up"])
    with pytest.raises(ValueError, match="made_up"):
        stacks.table_from_dict({**data, "rules": [bad]})


def test_every_card_of_the_table_has_a_known_stack_and_graded_precisions() -> None:
    rows = json.loads(DEFAULT_PATH.read_text(encoding="utf-8"))["accelerators"]
    for row in rows:
        assert row["stack"] in STACK_NAMES, row["slug"]
        assert set(row["precisions"]) == set(PRECISIONS), row["slug"]
        assert row["precisions"]["fp64"] in FP64_CLASSES
        for name in PRECISIONS[1:]:
            assert row["precisions"][name] in PRECISION_SUPPORT, (row["slug"], name)
        assert row["stack_source"] and "reference" not in row["stack_source"]
        assert (row["compute_capability"] is not None) == (row["stack"] == "cuda")


def test_every_need_has_a_rule_on_every_stack_the_catalogue_names() -> None:
    """No need falls through to "no rule" on a card of the table: each is decided by a sourced
    rule (a NO needs its source too)."""
    for spec in ACCELERATORS.values():
        for need in Need:
            assert DEFAULT_TABLE.rule(need, spec) is not None, (need, spec.slug)


@pytest.mark.parametrize(
    ("slug", "bf16", "fp16"),
    [
        ("v100-32gb", None, 112),
        ("t4-16gb", None, 65),
        ("quadro-rtx-6000-24gb", None, 130.5),
        ("rtx-2080ti-11gb", None, 53.8),
        ("quadro-p6000-24gb", None, None),
        ("a100-80gb", 312, 312),
        ("h100-sxm-80gb", 989, 989),
    ],
)
def test_bf16_tflops_is_bf16_only(slug: str, bf16: float | None, fp16: float | None) -> None:
    """BF16 needs compute capability 8.0 (https://nvidia.github.io/TransformerEngine/
    support_matrix.html): Volta (V100 PCIe: 112 FP16 tensor TFLOPS, its datasheet as restated)
    and Turing (T4: 65) have FP16 tensor cores only; Pascal has no tensor cores. Cards with BF16
    have the same FP16 rate (absent from the row)."""
    spec = card(slug)
    assert (spec.bf16_tflops, spec.fp16_tflops) == (bf16, fp16)
    assert spec.precision("bf16") == ("native" if bf16 else "none")


def test_a_bf16_task_on_a_card_without_bf16_is_timed_at_its_fp16_rate() -> None:
    """The tensor rate timing reads (timing.tensor_tflops): BF16, else FP16."""
    assert tensor_tflops(card("v100-32gb")) == 112
    assert tensor_tflops(card("a100-80gb")) == 312
    assert tensor_tflops(card("quadro-p6000-24gb")) is None


@pytest.mark.parametrize(
    ("slug", "stack", "cc"),
    [
        ("v100-32gb", "cuda", 7.0),
        ("t4-16gb", "cuda", 7.5),
        ("a100-80gb", "cuda", 8.0),
        ("rtx-4090-24gb", "cuda", 8.9),
        ("h100-sxm-80gb", "cuda", 9.0),
        ("b200-180gb", "cuda", 10.0),
        ("ascend-910b-64gb", "cann", None),
        ("mtt-s4000-48gb", "musa", None),
        ("biren-br104-32gb", "supa", None),
    ],
)
def test_stacks_and_compute_capabilities(slug: str, stack: str, cc: float | None) -> None:
    """NVIDIA's CUDA GPUs page and ollama/ollama docs/gpu.md @074d639b (V100 7.0, T4 7.5, A100
    8.0, Ada 8.9, Hopper 9.0, B200 10.0); Ascend CANN (vllm-project/vllm-ascend README.md
    @182b75ea), Moore Threads MUSA (MooreThreads/torch_musa README.md @8b583b3f), Biren
    BIRENSUPA (BirenTechnology/ModelZoo README.md @aef07299)."""
    spec = card(slug)
    assert (spec.stack, spec.compute_capability) == (stack, cc)


# ------------------------------------------------------------------------------ the verdicts


def test_bitsandbytes_4bit() -> None:
    """bitsandbytes 0.50: NF4 from CC 6.0, the CUDA 13 wheels from sm75 (installation.mdx
    @95f9af30), so the V100 needs a CUDA 12.x build; on Ascend only the old multi-backend branch
    (commits 55016dad, 90f54199; LlamaFactory @ff6d4d12); no MUSA backend."""
    assert verdict(Need.BITSANDBYTES_4BIT, "a100-80gb")[0] is Verdict.RUNS
    assert verdict(Need.BITSANDBYTES_4BIT, "t4-16gb")[0] is Verdict.RUNS
    found, rule = verdict(Need.BITSANDBYTES_4BIT, "v100-32gb")
    assert (found, rule.fallback) == (Verdict.FALLBACK, "bnb_cuda12")
    found, rule = verdict(Need.BITSANDBYTES_4BIT, "ascend-910b-64gb")
    assert found is Verdict.PORT and "bnb_source_build" in rule.limits
    assert verdict(Need.BITSANDBYTES_4BIT, "mtt-s4000-48gb")[0] is Verdict.NO


def test_vllm_and_its_ports() -> None:
    """vLLM on CUDA from CC 7.0 (gpu.cuda.inc.md @8744bb09; V1 on CC 7.x since v0.10.2, vllm
    issue 13398); Ascend through vLLM-Ascend (README.md @182b75ea), MUSA through vLLM-MUSA
    (MooreThreads/vllm-musa README.md @010d6096, whose recipes target the S5000); no Biren port
    (ByteTora/awesome-china-gpu, June 2026)."""
    assert verdict(Need.VLLM, "v100-32gb")[0] is Verdict.RUNS
    assert verdict(Need.VLLM, "quadro-p6000-24gb")[0] is Verdict.NO
    assert verdict(Need.VLLM, "ascend-910b-64gb")[1].port == "vLLM-Ascend"
    found, rule = verdict(Need.VLLM, "mtt-s4000-48gb")
    assert (found, rule.port) == (Verdict.PORT, "vLLM-MUSA")
    assert "vllm_musa_s4000" in rule.limits
    assert verdict(Need.VLLM, "biren-br104-32gb")[0] is Verdict.NO


def test_tensorrt_llm_is_cuda_from_ampere() -> None:
    """TensorRT-LLM's supported hardware: Ampere (A100), Ada, Hopper, Blackwell; Turing and
    Volta are not listed (nvidia.github.io/TensorRT-LLM/supported-hardware.html)."""
    assert verdict(Need.TENSORRT_LLM, "a100-80gb")[0] is Verdict.RUNS
    assert verdict(Need.TENSORRT_LLM, "t4-16gb")[0] is Verdict.NO
    assert verdict(Need.TENSORRT_LLM, "ascend-910b-64gb")[0] is Verdict.NO


def test_flash_attention_falls_back_to_sdpa_before_ampere() -> None:
    """FlashAttention-2 needs Ampere or newer (Dao-AILab/flash-attention README.md @0251105a):
    V100 and T4 fall back to PyTorch SDPA; Ascend has flash-attn-npu (PyPI 0.5.1.post1), MUSA
    MATE (sglang docs/platforms/mthreads_gpu.md @7208562d)."""
    assert verdict(Need.FLASH_ATTENTION, "h100-sxm-80gb")[0] is Verdict.RUNS
    found, rule = verdict(Need.FLASH_ATTENTION, "t4-16gb")
    assert (found, rule.fallback) == (Verdict.FALLBACK, "sdpa")
    assert verdict(Need.FLASH_ATTENTION, "mtt-s4000-48gb")[1].port == "MATE"


def test_rendering_and_fp64_codes() -> None:
    """Cycles' OptiX backend is NVIDIA's, no domestic backend exists (docs.blender.org,
    gpu_rendering.html); a CUDA code runs on MUSA through musify (torch_musa README.md
    @8b583b3f), not on CANN (Fluent's GPU solver is NVIDIA-only, ansyshelp v252); FP64 has no
    usable path on CANN (diffusers PR 10123) or MUSA (torch_musa/README.md @8b583b3f)."""
    assert verdict(Need.OPTIX, "rtx-4090-24gb")[0] is Verdict.RUNS
    assert verdict(Need.OPTIX, "mtt-s4000-48gb")[0] is Verdict.NO
    assert verdict(Need.CUDA_APP, "mtt-s4000-48gb")[1].port == "musify"
    assert verdict(Need.CUDA_APP, "ascend-910b-64gb")[0] is Verdict.NO
    assert verdict(Need.FP64_CODE, "ascend-910b-64gb")[0] is Verdict.NO
    assert verdict(Need.FP64_CODE, "mtt-s4000-48gb")[0] is Verdict.NO


# ----------------------------------------------------------------------------- a task's needs


def test_needs_are_inferred_from_the_scenario() -> None:
    assert task_needs(task(kind="inference", model="llama-3.1-8b")) == (Need.PYTORCH, Need.VLLM)
    assert task_needs(
        task(kind="inference", model="llama-3.1-8b", serving="hf_generate", precision="int4")
    ) == (Need.PYTORCH, Need.INT4_WEIGHTS)
    assert Need.SGLANG in task_needs(
        task(kind="inference", model="llama-3.1-8b", serving_engine="sglang")
    )
    assert task_needs(task(kind="qlora", model="qwen2.5-7b")) == (
        Need.PYTORCH,
        Need.BITSANDBYTES_4BIT,
        Need.FLASH_ATTENTION,
    )
    assert task_needs(task(kind="lora", model="qwen2.5-7b", attention="eager")) == (Need.PYTORCH,)
    assert task_needs(task(kind="inference", model="flux.1-dev")) == (
        Need.PYTORCH,
        Need.DIFFUSERS,
    )
    assert task_needs(task(kind="fixed", vram_gib=8)) == (Need.CUDA_APP,)
    assert task_needs(task(kind="fixed", vram_gib=8, needs_rt_cores=True)) == (Need.OPTIX,)
    assert task_needs(task(kind="fixed", vram_gib=8, portable_code=True)) == ()
    assert task_needs(task(kind="fixed", vram_gib=8, min_fp64_tflops=2)) == (
        Need.CUDA_APP,
        Need.FP64_CODE,
    )


def test_a_port_is_allowed_only_when_the_scenario_allows_ports() -> None:
    """QLoRA on Ascend: only through the bitsandbytes NPU branch, so left out unless ports are
    allowed; MUSA has no bitsandbytes at all: left out either way, with that reason."""
    qlora = needs(task(kind="qlora", model="qwen2.5-7b"))
    ascend, mtt = card("ascend-910b-64gb"), card("mtt-s4000-48gb")
    assert blocked(DEFAULT_TABLE, qlora, ascend, False) is Code.REJECT_STACK_PORT_ONLY
    assert blocked(DEFAULT_TABLE, qlora, ascend, True) is None
    for allow in (False, True):
        assert blocked(DEFAULT_TABLE, qlora, mtt, allow) is Code.REJECT_STACK_BITSANDBYTES
    assert blocked(DEFAULT_TABLE, qlora, card("a100-80gb"), False) is None
    said = warnings(DEFAULT_TABLE, qlora, ascend)
    ports = {w.params["port"] for w in said if w.code is Code.WARN_STACK_PORT}
    assert ports == {
        "torch_npu",
        "bitsandbytes multi-backend-refactor (LLaMA-Factory)",
        "flash-attn-npu / torch_npu npu_fusion_attention",
    }
    assert all(w.params["stack"] == "CANN" for w in said if w.code is Code.WARN_STACK_PORT)


def test_bf16_on_a_card_without_it_is_warned_with_its_fp16_rate() -> None:
    """vLLM refuses bf16 below CC 8.0 and asks for --dtype half (vllm-project/vllm
    `_check_if_gpu_supports_dtype`); bf16-native models can overflow in fp16 (diffusers issue
    9096, PR 9097). The V100 is kept, warned, and timed at its FP16 rate; the A100 unwarned."""
    served = needs(task(kind="inference", model="llama-3.1-8b", precision="bf16"))
    v100 = card("v100-32gb")
    assert blocked(DEFAULT_TABLE, served, v100, False) is None
    codes = [w.code for w in warnings(DEFAULT_TABLE, served, v100)]
    assert Code.WARN_BF16_AS_FP16 in codes and Code.WARN_VLLM_DTYPE_HALF in codes
    half = next(
        w for w in warnings(DEFAULT_TABLE, served, v100) if w.code is Code.WARN_BF16_AS_FP16
    )
    assert half.params["tflops"] == 112
    assert warnings(DEFAULT_TABLE, served, card("a100-80gb")) == ()
    trained = needs(task(kind="lora", model="qwen2.5-7b", attention="eager"))
    codes = [w.code for w in warnings(DEFAULT_TABLE, trained, v100)]
    assert Code.WARN_BF16_AS_FP16 in codes and Code.WARN_VLLM_DTYPE_HALF not in codes


def test_fp8_runs_as_w8a16_on_ampere_and_not_before() -> None:
    """FP8 compute needs CC 8.9 (TransformerEngine support matrix); on Ampere vLLM loads FP8
    checkpoints as W8A16 through Marlin, with no FP8 speed-up (docs/features/quantization/fp8.md
    @405f4e1f); below Ampere there is no FP8 path; training in FP8 needs FP8 hardware."""
    served = needs(task(kind="inference", model="llama-3.1-8b", precision="fp8"))
    assert blocked(DEFAULT_TABLE, served, card("h100-sxm-80gb"), False) is None
    assert warnings(DEFAULT_TABLE, served, card("h100-sxm-80gb")) == ()
    assert blocked(DEFAULT_TABLE, served, card("a100-80gb"), False) is None
    codes = [w.code for w in warnings(DEFAULT_TABLE, served, card("a100-80gb"))]
    assert codes == [Code.WARN_FP8_AS_W8A16]
    assert blocked(DEFAULT_TABLE, served, card("v100-32gb"), False) is Code.REJECT_NO_FP8
    trained = needs(task(kind="lora", model="qwen2.5-7b", precision="fp8"))
    assert blocked(DEFAULT_TABLE, trained, card("a100-80gb"), False) is Code.REJECT_NO_FP8


def test_a_card_without_a_stated_compute_capability_is_taken_as_current_and_warned() -> None:
    """A CUDA card whose compute capability is not stated (a row added by hand) matches only the
    open range of current cards, and each such need is warned as assumed."""
    unknown = replace(card("a100-80gb"), compute_capability=None)
    assert DEFAULT_TABLE.rule(Need.TENSORRT_LLM, unknown).verdict is Verdict.RUNS  # type: ignore[union-attr]
    served = needs(task(kind="inference", model="llama-3.1-8b", serving_engine="tensorrt_llm"))
    assert blocked(DEFAULT_TABLE, served, unknown, False) is None
    said = warnings(DEFAULT_TABLE, served, unknown)
    assert [w.code for w in said] == [Code.WARN_STACK_CC_UNSTATED, Code.WARN_STACK_CC_UNSTATED]
    assert warnings(DEFAULT_TABLE, served, card("a100-80gb")) == ()


# ------------------------------------------------------------------------------- the scenario


def test_serving_engine_and_allow_ports_round_trip() -> None:
    data = {
        "tasks": [
            {"name": "api", "kind": "inference", "model": "llama-3.1-8b", "serving_engine": "hf"},
            {"name": "render", "kind": "fixed", "vram_gib": 8, "portable_code": True},
        ],
        "constraints": {"allow_ports": True},
    }
    scenario = parse_scenario(data)
    api, render = scenario.tasks
    assert (api.serving_engine, api.serving) == ("hf", "hf_generate")
    assert render.portable_code and scenario.constraints.allow_ports
    assert parse_scenario(scenario_to_dict(scenario)) == scenario


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        (
            {
                "kind": "inference",
                "model": "llama-3.1-8b",
                "serving_engine": "hf",
                "serving": "paged",
            },
            Code.SERVING_ENGINE_NEEDS_SERVING,
        ),
        (
            {
                "kind": "inference",
                "model": "llama-3.1-8b",
                "serving_engine": "vllm",
                "serving": "hf_generate",
            },
            Code.SERVING_ENGINE_NEEDS_SERVING,
        ),
        (
            {"kind": "inference", "model": "sdxl", "serving_engine": "vllm"},
            Code.SERVING_ENGINE_LLM_ONLY,
        ),
        # On a task that serves nothing, the engine is refused as every serving field is.
        (
            {"kind": "lora", "model": "qwen2.5-7b", "serving_engine": "vllm"},
            Code.SERVING_ONLY_FOR_INFERENCE,
        ),
    ],
)
def test_a_serving_engine_that_does_not_go_with_the_task_is_refused(
    fields: dict[str, Any], code: Code
) -> None:
    with pytest.raises(InvalidWorkload) as caught:
        parse_scenario({"tasks": [fields]})
    assert caught.value.code is code
    assert caught.value.field == "tasks[0].serving_engine"


def test_an_unknown_serving_engine_is_refused() -> None:
    with pytest.raises(InvalidWorkload) as caught:
        parse_scenario(
            {"tasks": [{"kind": "inference", "model": "llama-3.1-8b", "serving_engine": "tgi"}]}
        )
    assert caught.value.field == "tasks[0].serving_engine"


# ----------------------------------------------------------------------------- the advisor


def _offer(oid: str, slug: str, per_hour: str) -> OfferingSpec:
    price = PriceSpec(
        unit="hour", amount=Decimal(per_hour), currency="CNY", observed_at=datetime(2026, 9, 30)
    )
    return OfferingSpec(
        id=oid, platform="p", platform_name="P", name=oid, accelerator=card(slug), prices=(price,)
    )


def test_when_only_a_port_would_run_it_what_would_fit_allows_ports() -> None:
    """A QLoRA with only an Ascend 910B and an MTT S4000 to rent: the S4000 has no bitsandbytes
    (left out with that reason, even with ports), the 910B runs it only through the bitsandbytes
    NPU branch: nothing fits, and the change offered is to allow ports, which then answers on
    the 910B with the port named."""
    offers = [_offer("ascend", "ascend-910b-64gb", "3.87"), _offer("mtt", "mtt-s4000-48gb", "1.96")]
    s = parse_scenario({"tasks": [{"kind": "qlora", "model": "qwen2.5-7b", "seq_len": 1024}]})
    with pytest.raises(NoFit) as caught:
        advise(s, offers, ACCELERATORS, now=NOW)
    rejected = dict(caught.value.rejected)
    assert rejected == {Code.REJECT_STACK_PORT_ONLY: 1, Code.REJECT_STACK_BITSANDBYTES: 1}
    changes = what_would_fit(
        s, estimate(s, ACCELERATORS), caught.value.closest_miss, rejected, ACCELERATORS
    )
    [allow] = [c for c in changes if c.change.code is Code.SUGGEST_ALLOW_PORTS]
    assert allow.scenario.constraints.allow_ports
    advice = advise(allow.scenario, offers, ACCELERATORS, now=NOW)
    [rec] = advice.recommendations
    assert rec.offering_id == "ascend"
    ports = {w.params["port"] for w in rec.warnings if w.code is Code.WARN_STACK_PORT}
    assert "bitsandbytes multi-backend-refactor (LLaMA-Factory)" in ports


def test_a_card_without_tensor_cores_is_warned_without_a_rate() -> None:
    """Pascal (Quadro P6000) has neither BF16 nor FP16 tensor cores (its FP16 runs at 1/64 of
    FP32 on GP102): a bf16 LoRA there is warned so, never given an FP16 rate it lacks."""
    trained = needs(task(kind="lora", model="qwen2.5-7b", attention="eager"))
    codes = [w.code for w in warnings(DEFAULT_TABLE, trained, card("quadro-p6000-24gb"))]
    assert Code.WARN_BF16_NO_TENSOR_CORES in codes
    assert Code.WARN_BF16_AS_FP16 not in codes and Code.WARN_PRECISION_UNVERIFIED not in codes
