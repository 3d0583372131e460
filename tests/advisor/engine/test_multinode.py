"""A task over more GPUs than an instance has, on several instances of one offering
(docs/advisor-rules.md, "Placement"; docs/time-model.md, "Several machines"): placed on whole
instances of its own, billed for all of them, timed with the network between them."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

import pytest

from advisor.engine import timing
from advisor.engine.advise import advise
from advisor.engine.billing import job_cost
from advisor.engine.errors import NoFit
from advisor.engine.estimate import estimate
from advisor.engine.hardware import load_accelerators
from advisor.engine.messages import Code, Message
from advisor.engine.scenario import parse_scenario
from advisor.engine.suggest import what_would_fit
from advisor.engine.types import OfferingSpec, PriceSpec, Scenario
from advisor.engine.vocab import Network

ACCELERATORS = load_accelerators()
H100 = ACCELERATORS["h100-sxm-80gb"]
NOW = datetime(2026, 10, 2)
HOURLY = PriceSpec(
    unit="hour",
    amount=Decimal("200"),
    currency="CNY",
    observed_at=datetime(2026, 9, 30),
    source="test",
)
# The job: Llama 3.1 70B, full fine-tune, ZeRO-3 over 32 GPUs, full recomputation
# (52.8 GiB per GPU, docs/memory-model.md), 1e9 tokens of 4,096.
FULL_70B = {
    "name": "70b",
    "kind": "full_finetune",
    "model": "llama-3.1-70b",
    "sharding": "zero3",
    "gpus": 32,
    "activation_checkpointing": "full",
    "tokens": 1e9,
    "seq_len": 4096,
}
# Measured bus bandwidths (docs/time-model.md, "Communication" and "Several machines"): 8×H100
# NVSwitch all-reduce ~370 GB/s (NVIDIA/nccl-tests#212); between DGX H100 machines 8 × 400 Gb/s
# NDR InfiniBand at the 0.86 of line rate NCCL reaches over RDMA (NVIDIA/nccl-tests#175): 344 GB/s;
# plain Ethernet at half its line rate (an assumption of docs/time-model.md).
NVSWITCH_BUSBW = 370e9
DGX_H100_IB_BUSBW = 8 * 400 / 8 * 0.86 * 1e9
ETHERNET_100_BUSBW = 100 / 8 * 0.5 * 1e9


def h100x8(oid: str, **kw: object) -> OfferingSpec:
    return OfferingSpec(
        id=oid,
        platform="p",
        platform_name="P",
        name=oid,
        accelerator=H100,
        gpu_count=8,
        interconnect="nvlink",
        prices=(HOURLY,),
        **kw,  # type: ignore[arg-type]
    )


def seventy_b(**changes: object) -> Scenario:
    return parse_scenario({"tasks": [{**FULL_70B, **changes}], "objective": "time"})


def codes(messages: tuple[Message, ...]) -> list[Code]:
    out = []
    for m in messages:
        inner = m.params.get("message")
        out.append(inner.code if isinstance(inner, Message) else m.code)
    return out


def step_communication(weight_bytes: float, per_node: int, nodes: int, between: float) -> float:
    """ZeRO-3 per micro-batch (arXiv:1910.02054): two all-gathers of the weights and one
    reduce-scatter of the gradients, each (g−1)/g · S / busbw inside a machine plus
    (k−1)/k · S / busbw between machines."""
    inside = (per_node - 1) / per_node * weight_bytes / NVSWITCH_BUSBW
    across = (nodes - 1) / nodes * weight_bytes / between if nodes > 1 else 0.0
    return 3 * (inside + across)


def test_a_70b_full_finetune_over_32_gpus_runs_on_four_8x_h100_instances() -> None:
    """The issue's case: 32 GPUs on 8-GPU instances are ceil(32 / 8) = 4 instances, all billed
    (4 × 200 CNY an hour × the run's hours, metered), timed over 4 machines joined by the
    assumed DGX H100 network (8 × 400 Gb/s InfiniBand: 344 GB/s), which the answer says."""
    s = seventy_b()
    [rec] = advise(s, [h100x8("h100")], ACCELERATORS, now=NOW).recommendations
    assert rec.instances == 4
    [a] = rec.placement.assignments
    assert (a.instance, a.machines, a.gpu_count, a.gpus) == (0, 4, 32, tuple(range(8)))
    task = s.tasks[0]
    expected = timing.training_time(task, H100, 32, "nvlink", gpus_per_node=8)
    assert expected.nodes == 4
    assert rec.time_hours == pytest.approx(expected.hours)
    one = job_cost(HOURLY, expected.hours * 3600)  # one instance's run, metered
    assert rec.plan.cost == 4 * one
    [spans] = [
        m.params["message"]
        for m in rec.warnings
        if codes((m,)) == [Code.WARN_SPANS_MACHINES_ASSUMED]
    ]
    assert spans.params["machines"] == 4 and spans.params["network"] == Network.INFINIBAND
    assert spans.params["busbw"].value == pytest.approx(DGX_H100_IB_BUSBW / 1e9)


def test_the_network_between_instances_makes_the_run_slower_than_nvlink_alone() -> None:
    """The slow end of the range hides no communication behind the backward pass (docs/
    time-model.md, "Ranges"), so it carries all of it: on 4 machines of 8 GPUs it is longer than
    32 GPUs on one NVSwitch fabric by steps × [3 S ((7/8 + 3/4 · 370/344) − 31/32) / 370 GB/s],
    S the bf16 weights (2 bytes × 70.6 B parameters), steps = 1e9 / (4,096 × 32)."""
    task = seventy_b().tasks[0]
    assert task.arch is not None
    weights = 2 * task.arch.params
    steps = 1e9 / (4096 * 32)
    four = timing.training_time(task, H100, 32, "nvlink", gpus_per_node=8)
    one_fabric = timing.training_time(task, H100, 32, "nvlink", gpus_per_node=32)
    extra = steps * (
        step_communication(weights, 8, 4, DGX_H100_IB_BUSBW)
        - step_communication(weights, 32, 1, DGX_H100_IB_BUSBW)
    )
    assert extra > 0
    assert (four.high_hours - one_fabric.high_hours) * 3600 == pytest.approx(extra, rel=1e-9)
    assert four.hours >= one_fabric.hours


def test_an_instance_stating_a_slow_network_is_timed_and_warned_so() -> None:
    """An offering that states 100 Gb/s Ethernet between its instances: 6.25 GB/s (half the line
    rate without RDMA) instead of 344; its run is longer than the InfiniBand one by
    steps × 3 S (3/4) (1/6.25 − 1/344) / GB/s at the slow end, and the warning names it."""
    s = seventy_b()
    slow = h100x8("eth", network=Network.ETHERNET, network_gbps=100.0)
    recs = advise(s, [h100x8("ib"), slow], ACCELERATORS, now=NOW).recommendations
    assert [r.offering_id for r in recs] == ["ib", "eth"]
    ib, eth = recs
    task = s.tasks[0]
    assert task.arch is not None
    steps = 1e9 / (4096 * 32)
    weights = 2 * task.arch.params
    extra = steps * (
        step_communication(weights, 8, 4, ETHERNET_100_BUSBW)
        - step_communication(weights, 8, 4, DGX_H100_IB_BUSBW)
    )
    assert eth.time_high_hours is not None and ib.time_high_hours is not None
    assert (eth.time_high_hours - ib.time_high_hours) * 3600 == pytest.approx(extra, rel=1e-9)
    assert eth.time_hours is not None and ib.time_hours is not None
    assert eth.time_hours > ib.time_hours
    assert Code.WARN_SPANS_MACHINES_STATED in codes(eth.warnings)
    assert Code.WARN_SPANS_MACHINES_ASSUMED not in codes(eth.warnings)


def test_gpus_not_a_multiple_of_the_instance_leave_idle_gpus_billed_and_said() -> None:
    """36 GPUs on 8-GPU instances: ceil(36 / 8) = 5 instances billed, 40 − 36 = 4 GPUs idle."""
    [rec] = advise(seventy_b(gpus=36), [h100x8("h100")], ACCELERATORS, now=NOW).recommendations
    assert rec.instances == 5
    [idle] = [
        m.params["message"] for m in rec.warnings if codes((m,)) == [Code.WARN_IDLE_MACHINE_GPUS]
    ]
    assert (idle.params["idle"], idle.params["machines"], idle.params["gpus"]) == (4, 5, 36)


def test_a_task_over_instances_never_goes_on_slices() -> None:
    """MIG slices have no peer-to-peer (NVIDIA MIG User Guide): a 1g.10gb slice offering cannot
    take a task over several GPUs, however many instances."""
    sliced = OfferingSpec(
        id="slice",
        platform="p",
        platform_name="P",
        name="slice",
        accelerator=H100,
        gpu_count=1,
        sharing="mig",
        mig_profile="1g.10gb",
        prices=(HOURLY,),
    )
    with pytest.raises(NoFit):
        advise(seventy_b(), [sliced], ACCELERATORS, now=NOW)


def test_when_nothing_fits_more_gpus_are_suggested_in_whole_instances_of_the_closest_miss() -> None:
    """The 70B full fine-tune over 4 GPUs (ZeRO-3: its 16 bytes a parameter of model states
    alone, 282 GB over 4, overflow an 80 GB card) on a catalogue of 4× A100 80GB instances: the
    suggestion is the fewest GPUs that hold it in whole instances of 4 (memory.fix_variants,
    k machines of the closest miss's 4 GPUs), and that scenario is answered on k instances."""
    a100x4 = OfferingSpec(
        id="a100x4",
        platform="p",
        platform_name="P",
        name="4x A100",
        accelerator=ACCELERATORS["a100-80gb"],
        gpu_count=4,
        interconnect="nvlink",
        prices=(HOURLY,),
    )
    s = seventy_b(gpus=4)
    with pytest.raises(NoFit) as caught:
        advise(s, [a100x4], ACCELERATORS, now=NOW)
    closest = caught.value.closest_miss
    assert closest is not None and closest.gpus_per_instance == 4
    changes = what_would_fit(
        s, estimate(s, ACCELERATORS), closest, dict(caught.value.rejected), ACCELERATORS
    )
    more = [
        c
        for c in changes
        if c.change.params["change"].params["fix"].code
        in (Code.FIX_MORE_GPUS_MACHINES, Code.FIX_MORE_GPUS_MACHINES_MINIMUM)
    ]
    assert more, [c.change.english() for c in changes]
    [task] = more[0].scenario.tasks
    fix = more[0].change.params["change"].params["fix"]
    assert fix.params["per_machine"] == 4 and task.gpus == 4 * fix.params["machines"]
    [rec] = advise(more[0].scenario, [a100x4], ACCELERATORS, now=NOW).recommendations
    assert rec.instances == fix.params["machines"] > 1
