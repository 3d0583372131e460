"""The scenario fields of the time model: gradient_accumulation and the machines of `on`, read,
validated, written back, and used by the estimate (docs/time-model.md, "Steps and gradient
accumulation", "Several machines")."""

from __future__ import annotations

import pytest

from advisor.engine.errors import InvalidWorkload
from advisor.engine.estimate import estimate
from advisor.engine.hardware import load_accelerators
from advisor.engine.messages import Code
from advisor.engine.scenario import parse_scenario, scenario_to_dict
from advisor.engine.vocab import Network

ACCELERATORS = load_accelerators()


def scenario(**task):
    base = {"kind": "full_finetune", "model": "llama-2-7b", "tokens": 1e9}
    return {"tasks": [{**base, **task}]}


def test_gradient_accumulation_and_the_machines_round_trip() -> None:
    data = scenario(
        gradient_accumulation=8,
        sharding="zero3",
        on={
            "accelerator": "h100-sxm-80gb",
            "count": 16,
            "gpus_per_node": 8,
            "network": "RoCE",
            "network_gbps": 3200,
        },
    )
    parsed = parse_scenario(data)
    [task] = parsed.tasks
    assert task.gradient_accumulation == 8
    assert task.on is not None and task.on.network is Network.ROCE
    assert (task.on.gpus_per_node, task.on.network_gbps) == (8, 3200)
    assert parse_scenario(scenario_to_dict(parsed)) == parsed


def test_gradient_accumulation_defaults_to_one_step_per_micro_batch() -> None:
    [task] = parse_scenario(scenario()).tasks
    assert task.gradient_accumulation == 1
    assert "gradient_accumulation" in scenario_to_dict(parse_scenario(scenario()))["tasks"][0]


@pytest.mark.parametrize(
    ("task", "field"),
    [
        ({"gradient_accumulation": 0}, "tasks[0].gradient_accumulation"),
        ({"gradient_accumulation": 1.5}, "tasks[0].gradient_accumulation"),
        ({"on": {"accelerator": "a100-80gb", "network": "carrier pigeon"}}, "tasks[0].on.network"),
        ({"on": {"accelerator": "a100-80gb", "network_gbps": 0}}, "tasks[0].on.network_gbps"),
        ({"on": {"accelerator": "a100-80gb", "gpus_per_node": 0}}, "tasks[0].on.gpus_per_node"),
    ],
)
def test_bad_values_name_their_field(task, field) -> None:
    with pytest.raises(InvalidWorkload) as caught:
        parse_scenario(scenario(**task))
    assert caught.value.field == field


def test_the_estimate_times_an_on_task_over_several_machines_on_the_stated_network() -> None:
    """16 H100s over 100 Gb/s Ethernet between two machines of 8 spend far longer on a 7B DDP
    run's all-reduce than over the default 3,200 Gb/s InfiniBand; both give steps and s/step."""

    def time(on):
        result = estimate(parse_scenario(scenario(gpus=16, on=on)), ACCELERATORS)
        [task] = result.tasks
        assert task.time is not None
        return task.time

    default = time({"accelerator": "h100-sxm-80gb", "count": 16})
    ethernet = time(
        {"accelerator": "h100-sxm-80gb", "count": 16, "network": "ethernet", "network_gbps": 100}
    )
    assert default.nodes == ethernet.nodes == 2
    assert ethernet.comm_seconds > 10 * default.comm_seconds
    assert Code.TIME_NOTE_NETWORK_ASSUMED in {n.code for n in default.notes}
    assert Code.TIME_NOTE_NETWORK_ASSUMED not in {n.code for n in ethernet.notes}
    assert default.steps == ethernet.steps == -(-1e9 // (2048 * 16))
    assert default.low_hours < default.hours < default.high_hours


def test_the_memory_suggestions_count_machines_of_the_stated_size() -> None:
    """The seed article's 70B full fine-tune on A100 80GB machines of 4: more GPUs are suggested
    in whole machines of 4, not of the default 8."""
    data = scenario(
        model="llama-3.1-70b",
        sharding="zero3",
        activation_checkpointing="full",
        on={"accelerator": "a100-80gb", "count": 4, "gpus_per_node": 4},
    )
    [task] = estimate(parse_scenario(data), ACCELERATORS).tasks
    assert task.fit is not None and not task.fit.fits
    machines = [
        s.params["fix"]
        for s in task.fit.suggestions
        if s.code is Code.FIX_PER_GPU and s.params["fix"].code is Code.FIX_MORE_GPUS_MACHINES
    ]
    assert machines and all(m.params["per_machine"] == 4 for m in machines)
