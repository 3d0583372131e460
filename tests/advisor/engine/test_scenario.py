"""The scenario JSON contract (README.md, "The scenario"): what parses, and where errors point."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest

from advisor.engine.errors import InvalidWorkload
from advisor.engine.messages import Code, Message, msg
from advisor.engine.presets import MODEL_PRESETS
from advisor.engine.scenario import parse_scenario, scenario_to_dict
from advisor.engine.types import Constraints, ModelArch, OnHardware, Task


def one_task(**fields: Any) -> dict[str, Any]:
    task = {"kind": "lora", "model": "llama-3.1-8b"}
    task.update(fields)
    return {"tasks": [task]}


def error_field(data: object) -> str | None:
    with pytest.raises(InvalidWorkload) as caught:
        parse_scenario(data)
    return caught.value.field


def test_a_minimal_task_gets_the_documented_defaults() -> None:
    scenario = parse_scenario(one_task())
    assert scenario.tasks == (
        Task(name="task 1", kind="lora", model="llama-3.1-8b", arch=MODEL_PRESETS["llama-3.1-8b"]),
    )
    assert scenario.constraints == Constraints()
    assert scenario.objective == "balanced"


def test_the_design_example_parses() -> None:
    """The contract's example task ("night fine-tune"), field for field."""
    data = {
        "tasks": [
            {
                "name": "night fine-tune",
                "kind": "full_finetune",
                "model": "llama-3.1-70b",
                "precision": "bf16",
                "optimizer": "adamw",
                "master_weights": True,
                "sharding": "fsdp",
                "offload": "none",
                "activation_checkpointing": "full",
                "micro_batch": 1,
                "seq_len": 4096,
                "lora_rank": 16,
                "tokens": 2e9,
                "gpus": 8,
                "when": "night",
                "hours_per_month": 300,
                "isolation": "hard",
                "on": {"accelerator": "a100-80gb", "count": 8, "mfu": 0.4},
            }
        ],
        "constraints": {
            "budget_per_month": "20000.50",
            "currency": "usd",
            "deadline_hours": 48,
            "physically_exclusive": True,
            "require_nvlink": True,
            "domestic_only": False,
            "platforms": ["AutoDL", "lambda"],
            "fresh_only": True,
            "allow_interruptible": True,
        },
        "objective": "time",
    }
    scenario = parse_scenario(data)
    task = scenario.tasks[0]
    assert task.sharding == "zero3"  # "fsdp" = "zero3"
    assert task.on == OnHardware(accelerator="a100-80gb", count=8, mfu=0.4)
    assert (task.tokens, task.hours_per_month, task.when) == (2e9, 300.0, "night")
    assert scenario.constraints == Constraints(
        budget_per_month=Decimal("20000.50"),
        currency="USD",
        deadline_hours=48.0,
        physically_exclusive=True,
        require_nvlink=True,
        platforms=("autodl", "lambda"),
        fresh_only=True,
        allow_interruptible=True,
    )
    assert scenario.objective == "time"


def test_include_stale_is_read_as_the_opposite_of_fresh_only() -> None:
    """The constraint before `fresh_only` keeps working: include_stale false = fresh only."""
    task = {"kind": "fixed", "vram_gib": 8}

    def constraints(**given: object) -> Constraints:
        return parse_scenario({"tasks": [task], "constraints": given}).constraints

    assert constraints(include_stale=False).fresh_only
    assert not constraints(include_stale=True).fresh_only
    assert not constraints().fresh_only  # stale prices are shown by default
    assert constraints(include_stale=True, fresh_only=True).fresh_only


@pytest.mark.parametrize("field", ["hours_per_month", "jobs_per_month"])
def test_hours_and_jobs_per_month_must_be_above_zero(field: str) -> None:
    """Zero busy hours would make a monthly plan look free; the 400 names the field."""
    task = {"kind": "lora", "model": "llama-2-7b", "tokens": 1e8, field: 0}
    with pytest.raises(InvalidWorkload) as raised:
        parse_scenario({"tasks": [task]})
    assert raised.value.field == f"tasks[0].{field}"


def test_busy_hours_above_the_billing_month_are_refused_saying_why() -> None:
    """usage.py bills at most the 720 h billing month (30 days, vocab.HOURS_PER_MONTH): 744 h,
    a 31-day month, is refused with the month's length rather than billed as 720 h unsaid;
    720 h itself is the whole month."""
    assert parse_scenario(one_task(hours_per_month=720)).tasks[0].hours_per_month == 720
    with pytest.raises(InvalidWorkload) as raised:
        parse_scenario(one_task(hours_per_month=744))
    assert raised.value.field == "tasks[0].hours_per_month"
    assert raised.value.code is Code.HOURS_OVER_MONTH
    assert raised.value.message == "at most 720 h: the billing month is 30 days (720 h)"


@pytest.mark.parametrize(
    "task",
    [
        {"kind": "fixed", "vram_gib": 8},
        {"kind": "inference", "model": "llama-2-7b"},
        {"kind": "lora", "model": "llama-2-7b"},
    ],
)
def test_only_a_training_job_runs_a_number_of_times_a_month(task: dict[str, object]) -> None:
    with pytest.raises(InvalidWorkload) as raised:
        parse_scenario({"tasks": [{**task, "jobs_per_month": 4}]})
    assert raised.value.code == Code.JOBS_NEED_TOKENS
    assert raised.value.field == "tasks[0].jobs_per_month"


def test_params_with_a_partial_arch_build_a_model_arch() -> None:
    scenario = parse_scenario(
        {"tasks": [{"kind": "full_finetune", "params": 7.5e9, "arch": {"layers": 32}}]}
    )
    assert scenario.tasks[0].arch == ModelArch(params=7_500_000_000, layers=32)
    assert scenario.tasks[0].model is None


def test_on_without_a_count_takes_the_tasks_gpus_and_gpus_defaults_to_on_count() -> None:
    with_gpus = parse_scenario(one_task(gpus=4, on={"accelerator": "h100-sxm-80gb"}))
    with_count = parse_scenario(one_task(on={"accelerator": "h100-sxm-80gb", "count": 2}))
    assert with_gpus.tasks[0].on.count == 4
    assert with_count.tasks[0].gpus == 2


@pytest.mark.parametrize(
    ("data", "field", "code"),
    [
        (one_task(colour="red"), "tasks[0].colour", Code.UNKNOWN_FIELD),
        (one_task(precision=5), "tasks[0].precision", Code.MUST_BE_ONE_OF),
        (one_task(precision="bf17"), "tasks[0].precision", Code.MUST_BE_ONE_OF),
        (one_task(gpus=True), "tasks[0].gpus", Code.MUST_BE_NUMBER),
        (one_task(gpus=1.5), "tasks[0].gpus", Code.MUST_BE_WHOLE),
        (one_task(micro_batch=0), "tasks[0].micro_batch", Code.OUT_OF_RANGE),
        (one_task(seq_len=10_000_001), "tasks[0].seq_len", Code.OUT_OF_RANGE),
        (one_task(context_len=-1), "tasks[0].context_len", Code.OUT_OF_RANGE),
        (one_task(hours_per_month=721), "tasks[0].hours_per_month", Code.HOURS_OVER_MONTH),
        (one_task(hours_per_month=0), "tasks[0].hours_per_month", Code.OUT_OF_RANGE),
        (one_task(master_weights="yes"), "tasks[0].master_weights", Code.MUST_BE_BOOLEAN),
        (one_task(tokens=float("nan")), "tasks[0].tokens", Code.MUST_BE_FINITE),
        (one_task(tokens=0), "tasks[0].tokens", Code.OUT_OF_RANGE),
        (one_task(model="llama-4"), "tasks[0].model", Code.UNKNOWN_MODEL_DID_YOU_MEAN),
        (one_task(params=7e9), "tasks[0].params", Code.MODEL_AND_PARAMS),
        (one_task(on={"accelerator": "a100-80gb", "mfu": 0}), "tasks[0].on.mfu", Code.OUT_OF_RANGE),
        (
            one_task(on={"accelerator": "a100-80gb", "mfu": 1.5}),
            "tasks[0].on.mfu",
            Code.OUT_OF_RANGE,
        ),
        (one_task(on={"count": 2}), "tasks[0].on.accelerator", Code.ACCELERATOR_REQUIRED),
        (
            one_task(on={"accelerator": "a100-80gb", "socket": 1}),
            "tasks[0].on.socket",
            Code.UNKNOWN_FIELD,
        ),
        (
            one_task(on={"accelerator": "x", "count": 4}, gpus=2),
            "tasks[0].on.count",
            Code.ON_COUNT_DIFFERS,
        ),
        (one_task(on="a100-80gb"), "tasks[0].on", Code.MUST_BE_OBJECT),
        (one_task(kind="training"), "tasks[0].kind", Code.MUST_BE_ONE_OF),
        (one_task(kind=None), "tasks[0].kind", Code.KIND_REQUIRED),
        (
            one_task(offload="optimizer_and_params"),
            "tasks[0].offload",
            Code.PARAM_OFFLOAD_NEEDS_ZERO3,
        ),
        (one_task(vram_gib=20), "tasks[0].vram_gib", Code.VRAM_ONLY_FOR_FIXED),
        (
            one_task(kind="full_finetune", precision="int4"),
            "tasks[0].precision",
            Code.TRAINING_PRECISION,
        ),
        (one_task(kind="qlora", precision="fp8"), "tasks[0].precision", Code.TRAINING_PRECISION),
        ({"tasks": [{"kind": "fixed"}]}, "tasks[0].vram_gib", Code.FIXED_NEEDS_VRAM),
        ({"tasks": [{"kind": "inference"}]}, "tasks[0].model", Code.MODEL_REQUIRED),
        ({"tasks": [{"kind": "inference", "params": 0}]}, "tasks[0].params", Code.OUT_OF_RANGE),
        ({"tasks": [{"kind": "inference", "params": 1e15}]}, "tasks[0].params", Code.OUT_OF_RANGE),
        (
            {"tasks": [{"kind": "inference", "arch": {"layers": 2}}]},
            "tasks[0].params",
            Code.ARCH_NEEDS_PARAMS,
        ),
        (
            {"tasks": [{"kind": "lora", "params": 1e9, "arch": {"depth": 2}}]},
            "tasks[0].arch.depth",
            Code.UNKNOWN_FIELD,
        ),
        (
            {"tasks": [{"kind": "lora", "params": 1e9, "arch": {"layers": 0}}]},
            "tasks[0].arch.layers",
            Code.OUT_OF_RANGE,
        ),
        ({"tasks": []}, "tasks", Code.TASKS_REQUIRED),
        ({"tasks": "all"}, "tasks", Code.TASKS_REQUIRED),
        ({"tasks": [3]}, "tasks[0]", Code.MUST_BE_OBJECT),
        ({**one_task(), "budget": 3}, "budget", Code.UNKNOWN_FIELD),
        ({**one_task(), "objective": "fast"}, "objective", Code.MUST_BE_ONE_OF),
        (
            {**one_task(), "constraints": {"budget_per_month": -1}},
            "constraints.budget_per_month",
            Code.AMOUNT_OUT_OF_RANGE,
        ),
        (
            {**one_task(), "constraints": {"budget_per_month": "lots"}},
            "constraints.budget_per_month",
            Code.MUST_BE_NUMBER,
        ),
        (
            {**one_task(), "constraints": {"currency": "EUR"}},
            "constraints.currency",
            Code.MUST_BE_ONE_OF,
        ),
        (
            {**one_task(), "constraints": {"deadline_hours": 0}},
            "constraints.deadline_hours",
            Code.OUT_OF_RANGE,
        ),
        (
            {**one_task(), "constraints": {"platforms": "autodl"}},
            "constraints.platforms",
            Code.MUST_BE_PLATFORM_LIST,
        ),
        (
            {**one_task(), "constraints": {"platforms": [1]}},
            "constraints.platforms[0]",
            Code.MUST_BE_NON_EMPTY_STRING,
        ),
        ({**one_task(), "constraints": {"gpu": "a100"}}, "constraints.gpu", Code.UNKNOWN_FIELD),
        (
            {"tasks": [{"kind": "lora", "model": "mistral-7b", "name": "a"}] * 2},
            "tasks[1].name",
            Code.DUPLICATE_TASK_NAME,
        ),
    ],
)
def test_each_invalid_input_names_its_field_and_its_code(
    data: object, field: str, code: Code
) -> None:
    with pytest.raises(InvalidWorkload) as caught:
        parse_scenario(data)
    assert (caught.value.field, caught.value.code) == (field, code)
    assert caught.value.message == caught.value.detail.english()


@pytest.mark.parametrize("data", [None, [], "tasks", 3, True])
def test_a_scenario_that_is_not_an_object_is_a_non_field_error(data: object) -> None:
    assert error_field(data) is None


def error(data: object) -> InvalidWorkload:
    with pytest.raises(InvalidWorkload) as caught:
        parse_scenario(data)
    return caught.value


def test_an_unknown_preset_suggests_close_ones() -> None:
    caught = error(one_task(model="llama-3.1-8"))
    assert caught.code is Code.UNKNOWN_MODEL_DID_YOU_MEAN
    assert caught.detail.params["name"] == "llama-3.1-8"
    suggestions = caught.detail.params["suggestions"]
    assert isinstance(suggestions, tuple) and suggestions[0] == "llama-3.1-8b"
    assert caught.message.startswith("unknown model 'llama-3.1-8'; did you mean llama-3.1-8b")
    nothing_close = error(one_task(model="gpt-5"))
    assert nothing_close.detail == msg(Code.UNKNOWN_MODEL, name="gpt-5")
    assert nothing_close.message == "unknown model 'gpt-5'"


def test_an_unknown_field_suggests_the_intended_one() -> None:
    caught = error(one_task(micro_batches=2))
    assert caught.detail == msg(Code.UNKNOWN_FIELD_DID_YOU_MEAN, suggestion="micro_batch")
    assert caught.message == "unknown field; did you mean 'micro_batch'?"
    assert error(one_task(colour="red")).message == "unknown field"


def test_range_errors_keep_their_bounds_as_numbers() -> None:
    closed = error(one_task(seq_len=10_000_001))
    assert closed.detail == msg(
        Code.OUT_OF_RANGE, range=msg(Code.RANGE_CLOSED, low=1.0, high=10_000_000.0)
    )
    assert closed.message == "must be in [1, 1e+07]"
    low_open = error(one_task(on={"accelerator": "a100-80gb", "mfu": 1.5}))
    assert low_open.detail == msg(
        Code.OUT_OF_RANGE, range=msg(Code.RANGE_LOW_OPEN, low=0.0, high=1.0)
    )
    assert low_open.message == "must be in (0, 1]"


@pytest.mark.parametrize(
    ("data", "detail", "english"),
    [
        (
            one_task(kind="qlora", precision="fp8"),
            msg(Code.TRAINING_PRECISION, kind="qlora", precisions=("fp32", "bf16", "fp16")),
            "qlora trains in fp32, bf16, fp16",
        ),
        (
            one_task(on={"accelerator": "x", "count": 4}, gpus=2),
            msg(Code.ON_COUNT_DIFFERS, count=4, gpus=2),
            "on.count (4) differs from gpus (2)",
        ),
        (
            one_task(precision="bf17"),
            msg(Code.MUST_BE_ONE_OF, choices=("fp32", "bf16", "fp16", "fp8", "int8", "int4")),
            "must be one of fp32, bf16, fp16, fp8, int8, int4",
        ),
        (
            {"tasks": [{"kind": "lora", "model": "mistral-7b", "name": "a"}] * 2},
            msg(Code.DUPLICATE_TASK_NAME, name="a"),
            "duplicate task name 'a'",
        ),
        (
            {"tasks": [{"kind": "fixed", "vram_gib": 1}] * 101},
            msg(Code.TOO_MANY_TASKS, max=100),
            "at most 100 tasks",
        ),
        (
            one_task(name="x" * 201),
            msg(Code.STRING_TOO_LONG, max=200),
            "must be at most 200 characters",
        ),
        (
            {"tasks": [{1: "lora"}]},
            msg(Code.KEYS_MUST_BE_STRINGS, key="1"),
            "keys must be strings, got 1",
        ),
        (
            {"tasks": [{"kind": "lora", "params": 1e9, "arch": {"active_params": 2e9}}]},
            msg(Code.ACTIVE_PARAMS_EXCEED_PARAMS),
            "cannot exceed params",
        ),
        (
            [],
            msg(Code.SCENARIO_MUST_BE_OBJECT),
            "the scenario must be a JSON object with a tasks list",
        ),
    ],
)
def test_specific_rules_have_their_own_code_and_parameters(
    data: object, detail: Message, english: str
) -> None:
    caught = error(data)
    assert caught.detail == detail
    assert caught.message == english


def test_a_scenario_survives_the_round_trip_through_json() -> None:
    data = {
        "tasks": [
            {
                "name": "train",
                "kind": "full_finetune",
                "params": 7.5e9,
                "arch": {"layers": 32, "hidden": 4096},
                "sharding": "zero2",
                "gpus": 8,
                "tokens": 1e9,
                "on": {"accelerator": "A100 80G", "mig_profile": None, "mfu": 0.35},
            },
            {"name": "serve", "kind": "inference", "model": "qwen2.5-7b", "kv_precision": "fp8"},
            {"name": "render", "kind": "fixed", "vram_gib": 20.5, "isolation": "soft"},
        ],
        "constraints": {"budget_per_month": 1234.5, "platforms": ["autodl"]},
        "objective": "cost",
    }
    scenario = parse_scenario(data)
    again = parse_scenario(json.loads(json.dumps(scenario_to_dict(scenario))))
    assert again == scenario


def test_storage_gb_is_read_from_the_constraints():
    from advisor.engine.scenario import parse_scenario

    scenario = parse_scenario(
        {
            "tasks": [{"name": "r", "kind": "fixed", "vram_gib": 8}],
            "constraints": {"storage_gb": 500},
        }
    )
    assert scenario.constraints.storage_gb == 500


def test_a_negative_storage_size_names_its_field():
    import pytest

    from advisor.engine.errors import InvalidWorkload
    from advisor.engine.scenario import parse_scenario

    with pytest.raises(InvalidWorkload) as excinfo:
        parse_scenario(
            {
                "tasks": [{"name": "r", "kind": "fixed", "vram_gib": 8}],
                "constraints": {"storage_gb": -1},
            }
        )
    assert excinfo.value.field == "constraints.storage_gb"
