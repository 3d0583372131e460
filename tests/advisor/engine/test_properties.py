"""Properties that must hold for every input, checked with hypothesis."""

from __future__ import annotations

import re
from dataclasses import fields, replace

from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.engine.capacity import usable_bytes
from advisor.engine.errors import InvalidWorkload
from advisor.engine.memory import suggest_fixes, task_memory
from advisor.engine.messages import TEMPLATES, Code, Message
from advisor.engine.scenario import TASK_KEYS, parse_scenario, scenario_to_dict
from advisor.engine.types import ModelArch, Scenario, Task
from tests.conftest import examples

json_scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
# Task-shaped objects: real keys with arbitrary values, to get past the first checks.
task_like = st.dictionaries(st.sampled_from(sorted(TASK_KEYS)), json_values, max_size=8)
scenario_like = st.fixed_dictionaries(
    {"tasks": st.lists(task_like, max_size=3)},
    optional={"constraints": json_values, "objective": json_values},
)


def fills_its_template(message: Message) -> bool:
    """The message and each nested one give exactly their template's placeholders, so that
    every rendering (English here, the reader's language at the edge) succeeds."""
    if set(message.params) != set(re.findall(r"%\((\w+)\)s", TEMPLATES[message.code])):
        return False
    inner = [v for v in message.params.values() if isinstance(v, Message)]
    return all(fills_its_template(m) for m in inner) and bool(message.english())


def parses_or_rejects(data: object) -> None:
    """Nothing but InvalidWorkload, and that with a code (not the transition's plain text)."""
    try:
        parse_scenario(data)
    except InvalidWorkload as error:
        assert error.code is not Code.GENERIC_INVALID
        assert fills_its_template(error.detail), error.detail
        assert error.message == error.detail.english()


@settings(max_examples=examples(300))
@given(json_values)
def test_parse_scenario_raises_nothing_but_invalid_workload_for_any_json(data: object) -> None:
    parses_or_rejects(data)


@settings(max_examples=examples(300))
@given(scenario_like)
def test_parse_scenario_raises_nothing_but_invalid_workload_for_task_shaped_json(data) -> None:
    parses_or_rejects(data)


shapes = st.one_of(
    st.just({}),
    st.fixed_dictionaries({"layers": st.integers(1, 128)}),
    st.fixed_dictionaries({"hidden": st.integers(64, 16384)}),
    st.fixed_dictionaries(
        {
            "layers": st.integers(1, 128),
            "hidden": st.integers(64, 16384),
            "heads": st.sampled_from([8, 16, 32, 64]),
            "kv_heads": st.sampled_from([1, 4, 8]),
            "vocab": st.integers(1000, 200_000),
        }
    ),
)


@st.composite
def tasks(draw: st.DrawFn) -> Task:
    """Valid tasks of every ML kind with a model given by params (and maybe a shape)."""
    kind = draw(st.sampled_from(["full_finetune", "lora", "qlora", "inference"]))
    sharding = draw(st.sampled_from(["none", "zero1", "zero2", "zero3"]))
    offloads = ["none", "optimizer"] + (["optimizer_and_params"] if sharding == "zero3" else [])
    precisions = ["fp32", "bf16", "fp16"]
    if kind in ("lora", "inference"):
        precisions += ["fp8", "int8", "int4"]
    return Task(
        name="t",
        kind=kind,
        arch=ModelArch(params=draw(st.integers(10**6, 10**12)), **draw(shapes)),
        precision=draw(st.sampled_from(precisions)),
        optimizer=draw(st.sampled_from(["adamw", "adamw_8bit", "sgd_momentum"])),
        master_weights=draw(st.booleans()),
        sharding=sharding,
        offload=draw(st.sampled_from(offloads)),
        activation_checkpointing=draw(st.sampled_from(["none", "selective", "full"])),
        micro_batch=draw(st.integers(1, 8)),
        seq_len=draw(st.integers(1, 32768)),
        lora_rank=draw(st.integers(1, 256)),
        context_len=draw(st.integers(1, 131072)),
        concurrent_sequences=draw(st.integers(1, 64)),
        kv_precision=draw(st.sampled_from(["fp32", "bf16", "fp8"])),
        gpus=draw(st.integers(1, 64)),
    )


@given(tasks())
def test_memory_components_are_never_negative(task: Task) -> None:
    per_gpu = task_memory(task).per_gpu
    assert all(getattr(per_gpu, f.name) >= 0 for f in fields(per_gpu))


@settings(max_examples=examples(50))
@given(tasks(), st.sampled_from([8, 24, 80]))
def test_every_note_formula_and_fix_fills_its_template(task: Task, capacity_gib: int) -> None:
    plan = task_memory(task)
    messages = [*plan.notes, *plan.formulas.values()]
    if plan.per_gpu.total > usable_bytes(capacity_gib):
        messages += suggest_fixes(task, usable_bytes(capacity_gib))
    for message in messages:
        assert fills_its_template(message), message


@given(tasks(), st.integers(1, 10**12))
def test_more_parameters_never_need_less_memory(task: Task, extra: int) -> None:
    assert task.arch is not None
    bigger = replace(task, arch=replace(task.arch, params=task.arch.params + extra))
    assert task_memory(bigger).per_gpu.total >= task_memory(task).per_gpu.total


@given(tasks(), st.integers(1, 512))
def test_more_zero_gpus_never_need_more_per_gpu(task: Task, extra: int) -> None:
    """From two GPUs up. Going from one GPU to two, ZeRO-3 starts all-gathering one layer, which
    can outweigh the saving on very small models (DeepSpeed's largest_layer_memory)."""
    if task.kind == "inference" or task.sharding == "none":
        task = replace(task, kind="full_finetune", sharding="zero2", precision="bf16")
    task = replace(task, gpus=max(task.gpus, 2))
    more = replace(task, gpus=task.gpus + extra)
    assert task_memory(more).per_gpu.total <= task_memory(task).per_gpu.total


@given(st.lists(tasks(), min_size=1, max_size=3))
def test_valid_scenarios_survive_the_round_trip(task_list: list[Task]) -> None:
    named = [replace(task, name=f"task {i}") for i, task in enumerate(task_list)]
    scenario = Scenario(tasks=tuple(named))
    assert parse_scenario(scenario_to_dict(scenario)) == scenario
