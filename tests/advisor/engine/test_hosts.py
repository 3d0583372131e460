"""Several cards of a per-card marketplace on one host (advisor/engine/hosts.py).

AutoDL rents N cards of one physical host as one instance, billed per card ("选择物理主机,然后在该
物理主机上创建有N块GPU卡的实例", AutoDL's documentation, autodl.com/docs/env/). The figures below
follow from that rule: an N-card instance costs N × the card's price per unit."""

from __future__ import annotations

from decimal import Decimal

from advisor.engine.advise import advise
from advisor.engine.hosts import card_counts, host_reason, host_variants, per_card
from advisor.engine.messages import Code
from advisor.engine.scenario import parse_scenario
from advisor.engine.types import Task
from advisor.engine.vocab import Interconnect, SharingMode
from tests.advisor.engine.test_ranking import ACCELERATORS, NOW, fixed, offer, price


def zero3(gpus: int, tokens: float = 5e8) -> Task:
    return Task(
        name="ft",
        kind="full_finetune",
        model="qwen2.5-7b",
        sharding="zero3",
        gpus=gpus,
        tokens=tokens,
        activation_checkpointing="full",
        seq_len=2048,
    )


def card(oid: str = "a100", slug: str = "a100-80gb", most: int | None = 8, **kw: object):
    return offer(
        oid,
        slug,
        price("hour", "5.00", min_charge=Decimal("0.01")),
        price("month", "2500"),
        platform="autodl",
        max_per_host=most,
        host_source="AutoDL docs",
        **kw,
    )


def test_counts_are_the_gpus_each_task_spans_and_all_of_them_together() -> None:
    assert card_counts([fixed("notebook", 5)]) == ()
    assert card_counts([zero3(8)]) == (8,)
    # Two spanning tasks and a one-GPU service: each span, and 4 + 2 + 1 on one host.
    assert card_counts([zero3(4), zero3(2), fixed("api", 5)]) == (2, 4, 7)


def test_an_n_card_host_costs_n_cards_and_keeps_the_minimum_charge_per_instance() -> None:
    (eight,) = host_variants([card()], [zero3(8)])
    assert (eight.gpu_count, eight.host_cards, eight.id) == (8, 8, "a100")
    assert [p.amount for p in eight.prices] == [Decimal("40.00"), Decimal("20000")]
    assert [p.min_charge for p in eight.prices] == [Decimal("0.01"), Decimal("0")]
    assert eight.interconnect == Interconnect.PCIE and eight.interconnect_bandwidth_gbps is None


def test_no_host_beyond_what_the_platform_states_and_none_where_it_states_nothing() -> None:
    assert host_variants([card(most=4)], [zero3(8)]) == []
    assert host_variants([card(most=None)], [zero3(8)]) == []
    assert [o.gpu_count for o in host_variants([card(most=4)], [zero3(2), zero3(4)])] == [2, 4]


def test_only_whole_one_card_offerings_are_rented_by_the_host() -> None:
    assert per_card(card())
    assert not per_card(card(gpus=2))
    assert not per_card(card(sharing=SharingMode.POOLED))
    assert not per_card(card(mig_profile="3g.40gb"))
    assert host_variants([card()], [fixed("api", 5)]) == []


def test_nvlink_between_the_cards_when_the_platform_states_it() -> None:
    (eight,) = host_variants([card(host_interconnect=Interconnect.NVLINK)], [zero3(8)])
    assert eight.interconnect == Interconnect.NVLINK
    assert eight.interconnect_bandwidth_gbps == ACCELERATORS["a100-80gb"].nvlink_bandwidth_gbps


def test_an_eight_gpu_job_is_rented_by_the_hour_on_one_host_not_sold_a_month() -> None:
    """A ZeRO-3 job on 8 GPUs (about a day on 8 A100s): before, only the 8-GPU machine sold by
    the month could hold it. With the per-card platform's 8-card host: 8 × 5.00 an hour for the
    job's hours, far below the 20,000 month of the fixed machine."""
    machine = offer("8x", "a100-80gb", price("month", "20000"), gpus=8, platform="monthly")
    per_card_offer = card()
    parsed = parse_scenario(
        {
            "tasks": [
                {
                    "name": "ft",
                    "kind": "full_finetune",
                    "model": "qwen2.5-7b",
                    "sharding": "zero3",
                    "gpus": 8,
                    "tokens": 5e8,
                    "activation_checkpointing": "full",
                    "seq_len": 2048,
                }
            ]
        }
    )
    tasks = list(parsed.tasks)
    offerings = [machine, per_card_offer, *host_variants([per_card_offer], tasks)]
    advice = advise(parsed, offerings, ACCELERATORS, now=NOW)
    first = advice.recommendations[0]
    assert (first.platform, first.gpus_per_instance, first.instances) == ("autodl", 8, 1)
    assert first.plan.unit == "hour"
    assert first.time_hours is not None
    # Per-second metering of 40.00 an hour for the job's hours (no start-up in this scenario).
    assert abs(float(first.plan.cost) - 40.0 * first.time_hours) < 0.05
    assert first.cost < Decimal("20000")
    codes = [r.code for r in first.reasons]
    assert Code.REASON_CARDS_ON_ONE_HOST in codes
    reason = host_reason(host_variants([per_card_offer], tasks)[0])
    assert reason is not None and reason.params["cards"] == 8 and reason.params["most"] == 8
    assert host_reason(per_card_offer) is None
