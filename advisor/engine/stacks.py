"""What software a task needs, and whether a card's compute stack runs it (docs/advisor-rules.md,
"Software stacks").

A task's needs are inferred from what the scenario says: every training task needs PyTorch, a
QLoRA bitsandbytes 4-bit, attention `flash` FlashAttention, a diffusion model diffusers; a
language model served needs its serving engine (`serving_engine`; default vLLM for a paged KV
cache, Hugging Face generate otherwise, which is PyTorch) and, in int4, AWQ/GPTQ kernels; a fixed
task needs its own CUDA code (unless `portable_code`), OptiX where it needs RT cores, FP64 code
where it states an FP64 rate.

The compatibility table (fixtures/compatibility.json, each rule with its original sources and
grade) says for each (need, compute stack, NVIDIA compute-capability range) whether it runs, runs
with a stated cost (`fallback`), runs only through a named port (vLLM-Ascend, torch_npu,
torch_musa, ...) whose limits are not verified, or does not run. The card's precisions (from
fixtures/accelerators.json) decide bf16 and fp8: a card without BF16 runs a bf16 task in FP16,
timed at its FP16 rate and warned (vLLM refuses bf16 below compute capability 8.0 and needs
`--dtype half`: vllm-project/vllm `_check_if_gpu_supports_dtype`); FP8 without FP8 hardware runs
only as W8A16 weights through Marlin on Ampere (vllm-project/vllm
docs/features/quantization/fp8.md @405f4e1f), and not at all elsewhere.

A CUDA card whose compute capability is not stated is taken as a current card for the rules that
depend on it, and warned so. An offering whose card cannot run a need is left out with the need's
rejection code; one that runs it only through a port is left out unless the scenario allows ports
(`allow_ports`, implied by `domestic_only`), and then carries a warning naming the port and what
is not verified.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from advisor.engine.hardware import STACK_NAMES
from advisor.engine.messages import Code, Message, msg
from advisor.engine.types import AcceleratorSpec, Task
from advisor.engine.vocab import TRAINING_KINDS, TaskKind

DEFAULT_PATH = Path(__file__).resolve().parents[2] / "fixtures" / "compatibility.json"


class Need(StrEnum):
    """Software a task needs of the card's stack (the table's `need`)."""

    PYTORCH = "pytorch"
    BITSANDBYTES_4BIT = "bitsandbytes_4bit"
    FLASH_ATTENTION = "flash_attention"
    VLLM = "vllm"
    SGLANG = "sglang"
    TENSORRT_LLM = "tensorrt_llm"
    LLAMA_CPP = "llama_cpp"
    INT4_WEIGHTS = "int4_weights"
    DIFFUSERS = "diffusers"
    CUDA_APP = "cuda_app"
    OPTIX = "optix"
    FP64_CODE = "fp64_code"


class Verdict(StrEnum):
    """From best to worst."""

    RUNS = "runs"
    FALLBACK = "fallback"
    PORT = "port"
    NO = "no"


# Serving engines (a task's `serving_engine`: scenario.SERVING_ENGINES) and the need each is.
ENGINE_NEEDS = {
    "vllm": Need.VLLM,
    "sglang": Need.SGLANG,
    "tensorrt_llm": Need.TENSORRT_LLM,
    "llama_cpp": Need.LLAMA_CPP,
    "hf": Need.PYTORCH,
}

NEED_LABELS = {
    Need.PYTORCH: Code.NEED_PYTORCH,
    Need.BITSANDBYTES_4BIT: Code.NEED_BITSANDBYTES_4BIT,
    Need.FLASH_ATTENTION: Code.NEED_FLASH_ATTENTION,
    Need.VLLM: Code.NEED_VLLM,
    Need.SGLANG: Code.NEED_SGLANG,
    Need.TENSORRT_LLM: Code.NEED_TENSORRT_LLM,
    Need.LLAMA_CPP: Code.NEED_LLAMA_CPP,
    Need.INT4_WEIGHTS: Code.NEED_INT4_WEIGHTS,
    Need.DIFFUSERS: Code.NEED_DIFFUSERS,
    Need.CUDA_APP: Code.NEED_CUDA_APP,
    Need.OPTIX: Code.NEED_OPTIX,
    Need.FP64_CODE: Code.NEED_FP64_CODE,
}
# Left out because the need does not run on the card's stack.
NEED_REJECTIONS = {
    Need.PYTORCH: Code.REJECT_STACK_PYTORCH,
    Need.BITSANDBYTES_4BIT: Code.REJECT_STACK_BITSANDBYTES,
    Need.FLASH_ATTENTION: Code.REJECT_STACK_PYTORCH,
    Need.VLLM: Code.REJECT_STACK_VLLM,
    Need.SGLANG: Code.REJECT_STACK_SGLANG,
    Need.TENSORRT_LLM: Code.REJECT_STACK_TENSORRT_LLM,
    Need.LLAMA_CPP: Code.REJECT_STACK_LLAMA_CPP,
    Need.INT4_WEIGHTS: Code.REJECT_STACK_INT4,
    Need.DIFFUSERS: Code.REJECT_STACK_DIFFUSERS,
    Need.CUDA_APP: Code.REJECT_STACK_CUDA_APP,
    Need.OPTIX: Code.REJECT_STACK_OPTIX,
    Need.FP64_CODE: Code.REJECT_STACK_FP64,
}
# What a port leaves unverified, and what a fallback costs (the table's `limits`, `fallback`).
LIMITS = {
    "vendor_image": Code.LIMIT_VENDOR_IMAGE,
    "cuda_wheels": Code.LIMIT_CUDA_WHEELS,
    "ascend_quantization": Code.LIMIT_ASCEND_QUANTIZATION,
    "vllm_musa_s4000": Code.LIMIT_VLLM_MUSA_S4000,
    "bnb_source_build": Code.LIMIT_BNB_SOURCE_BUILD,
    "llama_cpp_cann_types": Code.LIMIT_LLAMA_CPP_CANN_TYPES,
    "npu_no_backward": Code.LIMIT_NPU_NO_BACKWARD,
    "musify": Code.LIMIT_MUSIFY,
    "hip_port": Code.LIMIT_HIP_PORT,
    "unsourced": Code.LIMIT_UNSOURCED,
}
FALLBACKS = {
    "legacy_toolchain": Code.FALLBACK_LEGACY_TOOLCHAIN,
    "bnb_cuda12": Code.FALLBACK_BNB_CUDA12,
    "sdpa": Code.FALLBACK_SDPA,
    "gptq_only": Code.FALLBACK_GPTQ_ONLY,
    "rocm_int4": Code.FALLBACK_ROCM_INT4,
}
GRADES = ("primary", "secondary", "unverified")
# BF16 needs compute capability 8.0 (NVIDIA TransformerEngine support matrix); vLLM refuses it
# below (vllm-project/vllm `_check_if_gpu_supports_dtype`).
BF16_MIN_CC = 8.0
# FP8 checkpoints load as W8A16 through FP8 Marlin from Ampere (vllm-project/vllm
# docs/features/quantization/fp8.md @405f4e1f).
FP8_MARLIN_MIN_CC = 8.0


@dataclass(frozen=True)
class Rule:
    """One row of the table: `need` on `stack` with compute capability in [min_cc, below_cc)."""

    need: Need
    stack: str
    verdict: Verdict
    sources: tuple[str, ...]
    grade: str
    min_cc: float | None = None
    below_cc: float | None = None
    port: str | None = None
    limits: tuple[str, ...] = ()
    fallback: str | None = None

    def matches(self, need: Need, accel: AcceleratorSpec) -> bool:
        if need != self.need or accel.stack != self.stack:
            return False
        if self.min_cc is None and self.below_cc is None:
            return True
        cc = accel.compute_capability
        if cc is None:  # not stated: only the open range of current cards, assumed (warned)
            return self.below_cc is None
        return (self.min_cc is None or cc >= self.min_cc) and (
            self.below_cc is None or cc < self.below_cc
        )

    @property
    def ranged(self) -> bool:
        return self.min_cc is not None or self.below_cc is not None


@dataclass(frozen=True)
class Table:
    rules: tuple[Rule, ...]
    sources: tuple[tuple[str, str], ...]  # (id, citation)

    def rule(self, need: Need, accel: AcceleratorSpec) -> Rule | None:
        """The first rule for `need` on `accel`; None: no known way to run it there."""
        for r in self.rules:
            if r.matches(need, accel):
                return r
        return None


def _rule(row: Mapping[str, Any], known: frozenset[str]) -> Rule:
    rule = Rule(
        need=Need(row["need"]),
        stack=str(row["stack"]),
        verdict=Verdict(row["verdict"]),
        sources=tuple(str(s) for s in row["sources"]),
        grade=str(row["grade"]),
        min_cc=None if row.get("min_cc") is None else float(row["min_cc"]),
        below_cc=None if row.get("below_cc") is None else float(row["below_cc"]),
        port=row.get("port"),
        limits=tuple(str(x) for x in row.get("limits") or ()),
        fallback=row.get("fallback"),
    )
    problems = [s for s in rule.sources if s not in known]
    problems += [x for x in rule.limits if x not in LIMITS]
    if rule.fallback is not None and rule.fallback not in FALLBACKS:
        problems.append(rule.fallback)
    if rule.stack not in STACK_NAMES or rule.grade not in GRADES or not rule.sources:
        problems.append(f"{rule.stack}/{rule.grade}")
    if (rule.verdict is Verdict.PORT) != (rule.port is not None):
        problems.append("port")
    if (rule.verdict is Verdict.FALLBACK) != (rule.fallback is not None):
        problems.append("fallback")
    if problems:
        raise ValueError(f"compatibility rule {dict(row)}: {problems}")
    return rule


def table_from_dict(data: Mapping[str, Any]) -> Table:
    """A table from data shaped like fixtures/compatibility.json; ValueError on a rule naming an
    unknown source, limit, fallback, stack or grade."""
    sources = {str(k): str(v["cite"]) for k, v in data["sources"].items()}
    known = frozenset(sources)
    return Table(tuple(_rule(row, known) for row in data["rules"]), tuple(sources.items()))


def load_table(path: str | Path | None = None) -> Table:
    with open(path or DEFAULT_PATH, encoding="utf-8") as handle:
        return table_from_dict(json.load(handle))


# Read once at import, never changed: the repository's table.
DEFAULT_TABLE = load_table()


# ------------------------------------------------------------------------------- a task's needs


def serving_engine(task: Task) -> str | None:
    """The engine a language model is served with: the task's, else vLLM for a paged KV cache and
    Hugging Face generate for its own cache. None for anything but serving a language model."""
    if task.kind != TaskKind.INFERENCE or _diffusion(task):
        return None
    if task.serving_engine is not None:
        return task.serving_engine
    return "hf" if task.serving == "hf_generate" else "vllm"


def _diffusion(task: Task) -> bool:
    return task.arch is not None and task.arch.family == "diffusion"


def task_needs(task: Task) -> tuple[Need, ...]:
    """What `task` needs of the card's software stack (module docstring)."""
    if task.kind == TaskKind.FIXED:
        out = []
        if task.needs_rt_cores:
            out.append(Need.OPTIX)
        elif not task.portable_code:
            out.append(Need.CUDA_APP)
        if task.min_fp64_tflops is not None:
            out.append(Need.FP64_CODE)
        return tuple(out)
    out = [Need.PYTORCH]
    if _diffusion(task):
        out.append(Need.DIFFUSERS)
    engine = serving_engine(task)
    if engine is not None:
        out.append(ENGINE_NEEDS[engine])
        if task.precision == "int4" and engine in ("vllm", "sglang", "hf"):
            out.append(Need.INT4_WEIGHTS)
    if task.kind == TaskKind.QLORA:
        out.append(Need.BITSANDBYTES_4BIT)
    if task.kind in TRAINING_KINDS and task.attention == "flash":
        out.append(Need.FLASH_ATTENTION)
    return tuple(dict.fromkeys(out))


@dataclass(frozen=True)
class StackNeeds:
    """A scenario's needs: every task may land on the offering (each task's needs, with whether
    it computes in bf16 or fp8 and whether it is served or trained)."""

    needs: tuple[Need, ...]
    bf16: tuple[str, ...] = ()  # tasks computing in bf16, by name
    fp8_served: tuple[str, ...] = ()  # fp8 inference (W8A8 or W8A16)
    fp8_other: tuple[str, ...] = ()  # fp8 anywhere else
    vllm_bf16: bool = False  # a bf16 task served by vLLM


def needs_of(tasks: Sequence[Task]) -> StackNeeds:
    needs: dict[Need, None] = {}
    for t in tasks:
        needs.update(dict.fromkeys(task_needs(t)))
    served = {t.name for t in tasks if t.kind == TaskKind.INFERENCE}
    bf16 = tuple(t.name for t in tasks if t.kind != TaskKind.FIXED and t.precision == "bf16")
    fp8 = [t.name for t in tasks if t.kind != TaskKind.FIXED and t.precision == "fp8"]
    vllm_bf16 = any(serving_engine(t) == "vllm" and t.precision == "bf16" for t in tasks)
    return StackNeeds(
        tuple(needs),
        bf16,
        tuple(n for n in fp8 if n in served),
        tuple(n for n in fp8 if n not in served),
        vllm_bf16,
    )


# ------------------------------------------------------------------------------ card verdicts


@dataclass(frozen=True)
class Finding:
    need: Need
    verdict: Verdict
    rule: Rule | None


def findings(table: Table, needs: Iterable[Need], accel: AcceleratorSpec) -> tuple[Finding, ...]:
    """Each need's verdict on `accel` (no rule: it does not run there)."""
    out = []
    for need in needs:
        rule = table.rule(need, accel)
        out.append(Finding(need, Verdict.NO if rule is None else rule.verdict, rule))
    return tuple(out)


def _fp8_rejected(s: StackNeeds, accel: AcceleratorSpec) -> bool:
    if accel.precision("fp8") != "none":
        return False
    if s.fp8_other:
        return True
    cc = accel.compute_capability
    return bool(s.fp8_served) and (cc is None or cc < FP8_MARLIN_MIN_CC)


def blocked(table: Table, s: StackNeeds, accel: AcceleratorSpec, allow_ports: bool) -> Code | None:
    """Why an offering of `accel` is left out for needs `s`, None when it may run them: a need
    that does not run first, then FP8 it cannot compute, then a port the scenario does not allow."""
    found = findings(table, s.needs, accel)
    for f in found:
        if f.verdict is Verdict.NO:
            return NEED_REJECTIONS[f.need] if f.rule is not None else Code.REJECT_STACK_UNKNOWN
    if (s.fp8_served or s.fp8_other) and _fp8_rejected(s, accel):
        return Code.REJECT_NO_FP8
    if not allow_ports and any(f.verdict is Verdict.PORT for f in found):
        return Code.REJECT_STACK_PORT_ONLY
    return None


def _cc_text(accel: AcceleratorSpec) -> str:
    return "" if accel.compute_capability is None else f"{accel.compute_capability:.1f}"


def warnings(table: Table, s: StackNeeds, accel: AcceleratorSpec) -> tuple[Message, ...]:
    """What a recommendation on `accel` must say of its software: each port (its name and what
    is not verified), each fallback and its cost, bf16 run as fp16, precisions not verified."""
    out: list[Message] = []
    stack = STACK_NAMES.get(accel.stack, accel.stack)
    for f in findings(table, s.needs, accel):
        rule = f.rule
        if rule is None:
            continue
        need = msg(NEED_LABELS[f.need])
        if rule.ranged and accel.compute_capability is None:
            out.append(msg(Code.WARN_STACK_CC_UNSTATED, accelerator=accel.name, need=need))
        if f.verdict is Verdict.PORT:
            limits = tuple(msg(LIMITS[x]) for x in rule.limits)
            out.append(
                msg(
                    Code.WARN_STACK_PORT,
                    accelerator=accel.name,
                    stack=stack,
                    need=need,
                    port=rule.port,
                    limits=limits,
                )
            )
        elif f.verdict is Verdict.FALLBACK:
            assert rule.fallback is not None
            out.append(
                msg(
                    Code.WARN_STACK_FALLBACK,
                    accelerator=accel.name,
                    need=need,
                    fallback=msg(FALLBACKS[rule.fallback]),
                )
            )
    out.extend(_precision_warnings(s, accel))
    return tuple(out)


def _precision_warnings(s: StackNeeds, accel: AcceleratorSpec) -> list[Message]:
    out: list[Message] = []
    bf16 = accel.precision("bf16")
    if s.bf16 and bf16 == "none" and accel.fp16_tflops is None:
        out.append(msg(Code.WARN_BF16_NO_TENSOR_CORES, accelerator=accel.name, tasks=s.bf16))
    elif s.bf16 and bf16 == "none":
        out.append(
            msg(
                Code.WARN_BF16_AS_FP16,
                accelerator=accel.name,
                tasks=s.bf16,
                tflops=accel.fp16_tflops,
            )
        )
    if s.bf16 and bf16 == "none" and s.vllm_bf16:
        out.append(msg(Code.WARN_VLLM_DTYPE_HALF, accelerator=accel.name, cc=_cc_text(accel)))
    if s.bf16 and bf16 not in ("native", "none"):
        out.append(msg(Code.WARN_PRECISION_UNVERIFIED, accelerator=accel.name, precision="BF16"))
    fp8 = accel.precision("fp8")
    if s.fp8_served and fp8 == "none" and not _fp8_rejected(s, accel):
        out.append(msg(Code.WARN_FP8_AS_W8A16, accelerator=accel.name))
    elif (s.fp8_served or s.fp8_other) and fp8 not in ("native", "none"):
        out.append(msg(Code.WARN_PRECISION_UNVERIFIED, accelerator=accel.name, precision="FP8"))
    return out


__all__ = [
    "DEFAULT_TABLE",
    "ENGINE_NEEDS",
    "Finding",
    "Need",
    "Rule",
    "StackNeeds",
    "Table",
    "Verdict",
    "blocked",
    "findings",
    "load_table",
    "needs_of",
    "serving_engine",
    "table_from_dict",
    "task_needs",
    "warnings",
]
