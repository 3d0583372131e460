"""Messages are data: every code has an English template, and every message the memory, time,
scenario and hardware modules produce fills exactly its template's placeholders."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

import pytest

from advisor.engine.capacity import usable_bytes
from advisor.engine.errors import AdvisorError
from advisor.engine.hardware import load_accelerators, resolve_accelerator
from advisor.engine.memory import suggest_fixes, task_memory
from advisor.engine.messages import TEMPLATES, Code, Message, Param, render
from advisor.engine.mig import profile
from advisor.engine.presets import MODEL_PRESETS
from advisor.engine.scenario import parse_scenario
from advisor.engine.serving import decode_tokens_per_s
from advisor.engine.timing import allreduce_anchor, training_time
from advisor.engine.types import ModelArch, Task
from advisor.engine.vocab import TaskKind

PLACEHOLDER = re.compile(r"%\((\w+)\)s")
ACCELERATORS = load_accelerators()


def placeholders(code: Code) -> set[str]:
    return set(PLACEHOLDER.findall(TEMPLATES[code]))


def nested(message: Message) -> Iterator[Message]:
    """`message` and every message among its parameters, depth first."""
    yield message
    stack: list[Param] = list(message.params.values())
    while stack:
        value = stack.pop()
        if isinstance(value, Message):
            yield from nested(value)
        elif isinstance(value, tuple):
            stack.extend(value)


def assert_fills_its_template(message: Message) -> None:
    for m in nested(message):
        assert set(m.params) == placeholders(m.code), m.code
    # English, and a stand-in for the Django edge that formats every parameter its own way.
    assert message.english()
    render(
        message, lambda t: f"«{t}»", lambda v, inner: inner(v) if isinstance(v, Message) else "<x>"
    )


def test_every_code_has_a_template_and_every_template_a_code() -> None:
    assert set(TEMPLATES) == set(Code)


@pytest.mark.parametrize("code", list(Code))
def test_templates_use_only_named_string_placeholders(code: Code) -> None:
    template = TEMPLATES[code]
    rest = PLACEHOLDER.sub("", template).replace("%%", "")
    assert "%" not in rest, template
    if not placeholders(code):
        # rendered without %-formatting, so a literal percent sign must not be doubled
        assert "%%" not in template, template


def test_code_values_are_unique_snake_case() -> None:
    assert len({code.value for code in Code}) == len(Code)
    assert all(re.fullmatch(r"[a-z0-9_]+", code.value) for code in Code)


# ------------------------------------------------------------------ what the modules produce


def preset(model: str, **fields: object) -> Task:
    return Task(name="t", model=model, arch=MODEL_PRESETS[model], **fields)  # type: ignore[arg-type]


TASKS = [
    Task(name="sim", kind="fixed", vram_gib=30),
    Task(name="t", kind="lora", arch=ModelArch(params=7 * 10**9)),
    # a mixture of experts over 8 GPUs, each holding every expert: expert parallelism would fit
    Task(
        name="t",
        kind="lora",
        arch=ModelArch(
            params=30 * 10**9, active_params=3 * 10**9, experts=128, experts_per_token=8
        ),
        gpus=8,
    ),
    Task(name="t", kind="full_finetune", arch=ModelArch(params=50 * 10**6), precision="fp32"),
    preset("llama-3.1-8b", kind="full_finetune", tokens=1e9),
    preset("llama-3.1-8b", kind="qlora", sharding="zero3", offload="optimizer", gpus=4),
    preset(
        "llama-3.1-70b",
        kind="full_finetune",
        sharding="zero3",
        offload="optimizer_and_params",
        activation_checkpointing="full",
        gpus=8,
        tokens=1e9,
    ),
    preset("llama-3.1-70b", kind="full_finetune", sharding="zero2", gpus=8, tokens=1e9),
    preset("llama-2-7b", kind="lora", activation_checkpointing="selective", tokens=1e8),
    preset("llama-3.1-70b", kind="inference", concurrent_sequences=32, context_len=32768),
    preset("llama-3.1-8b", kind="inference", concurrent_sequences=16, context_len=32768),
    preset("deepseek-v3", kind="inference", precision="fp8", gpus=8),
    preset("deepseek-v3", kind="full_finetune", moe_implementation="expert_parallel", gpus=16),
    preset("sdxl", kind="inference", concurrent_sequences=4),
    preset("sd-1.5", kind="lora", micro_batch=2, tokens=1e6),
    preset("flux.1-dev", kind="qlora", text_encoders="gpu", tokens=1e6),
    # diffusion pipelines (diffusion.py): each text-encoder mode, both denoiser kinds, with and
    # without checkpointing
    preset("flux.1-dev", kind="inference", text_encoders="offload"),
    preset("flux.1-dev", kind="lora", text_encoders="gpu"),
    preset("sdxl", kind="lora", text_encoders="gpu"),
    preset("sdxl", kind="lora", micro_batch=8),
    preset("sdxl", kind="lora", activation_checkpointing="full", micro_batch=8),
    preset("sd3-medium", kind="inference", concurrent_sequences=4),
    preset("sd3-medium", kind="lora", activation_checkpointing="full", resolution=768),
    preset("qwen2.5-7b", kind="inference", kv_precision="fp32", concurrent_sequences=8),
    # the implementation choices of docs/memory-model.md
    preset("llama-3.1-8b", kind="full_finetune", attention="eager", seq_len=8192, gpus=2),
    preset(
        "llama-3.1-8b",
        kind="qlora",
        attention="eager",
        seq_len=12000,
        activation_checkpointing="full",
        framework="unsloth",
    ),
    Task(
        name="t",
        kind="full_finetune",
        arch=ModelArch(params=5 * 10**9),
        master_weights=False,
        optimizer="adamw_8bit",
        framework="liger",
        activation_checkpointing="full",
    ),
    preset(
        "llama-3.1-8b",
        kind="qlora",
        framework="liger",
        lora_targets="attention",
        activation_checkpointing="full",
        activation_offload=True,
    ),
    preset("llama-3.1-8b", kind="full_finetune", framework="torchtune", fused_optimizer_step=True),
    preset("llama-3.1-8b", kind="inference", serving="hf_generate", attention="eager"),
    preset(
        "llama-3.1-8b",
        kind="inference",
        serving="hf_generate",
        context_len=32768,
        concurrent_sequences=8,
    ),
]


def memory_messages(task: Task) -> list[Message]:
    plan = task_memory(task)
    out = [*plan.notes, *plan.formulas.values()]
    for gib_ in (8, 24, 80):
        if plan.per_gpu.total > usable_bytes(gib_):
            out += suggest_fixes(task, usable_bytes(gib_), max_gpus=8)
    return out


@pytest.mark.parametrize("task", TASKS, ids=lambda t: f"{t.kind}-{t.model or t.arch}")
def test_memory_notes_formulas_and_fixes_fill_their_templates(task: Task) -> None:
    messages = memory_messages(task)
    assert messages
    for message in messages:
        assert_fills_its_template(message)


def test_the_representative_tasks_cover_every_memory_code() -> None:
    """So that the test above checks every code memory.py can produce."""
    seen = {m.code for task in TASKS for message in memory_messages(task) for m in nested(message)}
    memory_codes = {
        code
        for code in Code
        if code.name.startswith(("MEMORY_NOTE_", "FORMULA_", "FIX_", "PARAMS_"))
    }
    assert memory_codes - seen == set()


@pytest.mark.parametrize("slug", ["a100-80gb", "rtx-4090-24gb", "h100-pcie-80gb", "a800-80gb"])
@pytest.mark.parametrize("gpus", [1, 2, 8])
def test_time_warnings_notes_and_sources_fill_their_templates(slug: str, gpus: int) -> None:
    accel = ACCELERATORS[slug]
    for interconnect in ("nvlink", "pcie"):
        _, source = allreduce_anchor(accel, interconnect, gpus)  # type: ignore[arg-type]
        assert_fills_its_template(source)
        for task in TASKS:
            if not TaskKind(task.kind).trains or task.tokens is None:
                continue
            for mfu in (None, 0.75):
                task = replace(task, gpus=gpus)
                try:
                    estimate = training_time(task, accel, gpus, interconnect, mfu)  # type: ignore[arg-type]
                except AdvisorError as error:  # a UNet has no time model: said, not guessed
                    assert error.code == Code.DIFFUSION_NO_TIME_MODEL
                    assert_fills_its_template(error.detail)
                    continue
                for message in (*estimate.warnings, *estimate.notes):
                    assert_fills_its_template(message)


def errors() -> Iterator[AdvisorError]:
    def one(**fields: object) -> dict[str, object]:
        return {"tasks": [{"kind": "lora", "model": "llama-3.1-8b", **fields}]}

    scenarios: list[object] = [
        None,
        {1: 2},
        {"tasks": []},
        {"tasks": [{"kind": "fixed", "vram_gib": 1}] * 101},
        {"tasks": [{"kind": "lora", "model": "mistral-7b", "name": "a"}] * 2},
        {"tasks": [{"kind": "fixed"}]},
        {"tasks": [{"kind": "inference"}]},
        {"tasks": [{"kind": "inference", "arch": {"layers": 2}}]},
        {"tasks": [{"kind": "lora", "params": 1e9, "arch": {"active_params": 2e9}}]},
        {"tasks": [{"kind": "lora", "params": 1e9, "arch": {"layers": 0}}]},
        {"tasks": [{"kind": "lora", "params": 1e9, "arch": {"zzzzzz": 2}}]},
        {"tasks": [{1: "lora"}]},
        {**one(), "budget_per_mont": 1},
        {**one(), "objective": "fast"},
        {**one(), "constraints": {"budget_per_month": -1}},
        {**one(), "constraints": {"budget_per_month": "lots"}},
        {**one(), "constraints": {"platforms": "autodl"}},
        {**one(), "constraints": {"platforms": [""]}},
        {"tasks": [3]},
        one(master_weights="yes"),
        one(micro_batches=2),
        one(precision="bf17"),
        one(gpus=True),
        one(gpus=1.5),
        one(tokens=float("inf")),
        one(tokens=0),
        one(seq_len=0),
        one(model="llama-3.1-8"),
        one(model="gpt-5"),
        one(params=7e9),
        one(name="x" * 201),
        one(kind=None),
        one(vram_gib=20),
        one(kind="full_finetune", precision="int4"),
        one(offload="optimizer_and_params"),
        one(on={"count": 2}),
        one(on={"accelerator": "x", "count": 4}, gpus=2),
    ]
    for data in scenarios:
        with pytest.raises(AdvisorError) as caught:
            parse_scenario(data)
        yield caught.value
    for name in ("A100 48G", "zzz"):
        with pytest.raises(AdvisorError) as caught:
            resolve_accelerator(name, ACCELERATORS)
        yield caught.value
    for slug in ("a100-80gb", "l40s-48gb"):
        with pytest.raises(AdvisorError) as caught:
            profile(ACCELERATORS[slug], "9g.99gb")
        yield caught.value
    train = preset("llama-2-7b", kind="full_finetune")
    with pytest.raises(AdvisorError) as caught:
        training_time(train, ACCELERATORS["a100-80gb"], 1, "none")  # type: ignore[arg-type]
    yield caught.value
    no_peak = replace(ACCELERATORS["a100-80gb"], bf16_tflops=None, fp16_tflops=None)
    with pytest.raises(AdvisorError) as caught:
        training_time(replace(train, tokens=1e9), no_peak, 1, "none")  # type: ignore[arg-type]
    yield caught.value
    with pytest.raises(AdvisorError) as caught:
        decode_tokens_per_s(
            preset("qwen2.5-7b", kind="inference"), ACCELERATORS["ascend-910b-64gb"]
        )
    yield caught.value


def test_every_error_carries_a_code_and_renders_without_the_transition_text() -> None:
    found = list(errors())
    for error in found:
        assert error.code is not Code.GENERIC_INVALID, error.message
        assert_fills_its_template(error.detail)
        assert error.message == error.detail.english()
    expected = {
        Code.MUST_BE_OBJECT,
        Code.MUST_BE_BOOLEAN,
        Code.SCENARIO_MUST_BE_OBJECT,
        Code.KEYS_MUST_BE_STRINGS,
        Code.TASKS_REQUIRED,
        Code.TOO_MANY_TASKS,
        Code.DUPLICATE_TASK_NAME,
        Code.FIXED_NEEDS_VRAM,
        Code.MODEL_REQUIRED,
        Code.ARCH_NEEDS_PARAMS,
        Code.ACTIVE_PARAMS_EXCEED_PARAMS,
        Code.OUT_OF_RANGE,
        Code.UNKNOWN_FIELD,
        Code.UNKNOWN_FIELD_DID_YOU_MEAN,
        Code.MUST_BE_ONE_OF,
        Code.AMOUNT_OUT_OF_RANGE,
        Code.MUST_BE_NUMBER,
        Code.MUST_BE_PLATFORM_LIST,
        Code.MUST_BE_NON_EMPTY_STRING,
        Code.MUST_BE_WHOLE,
        Code.MUST_BE_FINITE,
        Code.UNKNOWN_MODEL,
        Code.UNKNOWN_MODEL_DID_YOU_MEAN,
        Code.MODEL_AND_PARAMS,
        Code.STRING_TOO_LONG,
        Code.KIND_REQUIRED,
        Code.VRAM_ONLY_FOR_FIXED,
        Code.TRAINING_PRECISION,
        Code.PARAM_OFFLOAD_NEEDS_ZERO3,
        Code.ACCELERATOR_REQUIRED,
        Code.ON_COUNT_DIFFERS,
        Code.UNKNOWN_ACCELERATOR,
        Code.UNKNOWN_ACCELERATOR_DID_YOU_MEAN,
        Code.NO_MIG,
        Code.NO_MIG_PROFILE,
        Code.TOKENS_REQUIRED,
        Code.NO_THROUGHPUT_FIGURE,
        Code.NO_BANDWIDTH_FIGURE,
    }
    assert expected - {error.code for error in found} == set()
