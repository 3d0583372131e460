"""The seed article's claims checked by the engine (advisor/engine/premises.py), without the
catalogue: the checks that need only the article's figures, the memory plan and the accelerator
table. Each returns its claim and every line as a message with a code; numbers stay numbers.

The article is "2026多任务GPU平台怎么选？多卡效率与实战配置拆解" (智星云, 2026-05-26); its figures
are the module's ARTICLE_* constants, each with the article's words."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from advisor.engine import premises
from advisor.engine.estimate import estimate
from advisor.engine.hardware import load_accelerators
from advisor.engine.messages import Code
from advisor.engine.premises import Premises, premise_checks
from advisor.engine.scenario import parse_scenario

ACCELERATORS = load_accelerators()
NOW = datetime(2026, 11, 20, 12, tzinfo=UTC)


def premises_of(scenario: dict[str, object]) -> Premises:
    parsed = parse_scenario(scenario)
    return Premises(
        scenario=parsed,
        estimate=estimate(parsed, ACCELERATORS),
        accelerators=ACCELERATORS,
        offerings=(),
        platforms={},
        now=NOW,
    )


MEDICAL_70B = {
    "tasks": [
        {
            "name": "medical 70B full fine-tune",
            "kind": "full_finetune",
            "model": "llama-3.1-70b",
            "precision": "bf16",
            "sharding": "zero3",
            "activation_checkpointing": "full",
            "seq_len": 4096,
            "tokens": 1e9,
            "gpus": 8,
            "on": {"accelerator": "a100-80gb"},
        }
    ]
}


def test_the_70b_cases_claims_are_checked_from_the_model_and_the_month() -> None:
    """Params × 20 B: Llama 3.1 70B's 70,553,706,496 parameters take 1,411 GB, not 140 (140 GB
    is the BF16 weights alone). 28,000 a month for 8 days of the 30-day billing month is 7,467,
    not 11,200, which is 12.0 days' worth."""
    checks = {
        c.id: c for c in premise_checks(("rule_of_thumb", "case_cost"), premises_of(MEDICAL_70B))
    }
    rule = checks["rule_of_thumb"]
    assert rule.holds is False and rule.verdict == "does_not_hold"
    assert rule.claim.code is Code.PREMISE_CLAIM_RULE_OF_THUMB and rule.claim.params["gb"] == 140
    [model, twenty, weights] = rule.lines
    assert model.params["params"] == 70_553_706_496
    assert round(weights.params["w"].value) == 141
    assert round(twenty.params["gb"].value) == 1411
    assert twenty.english() == "70553706496 × 20 B = 1,411 GB (1.41 TB), not 140 GB."
    cost = checks["case_cost"]
    assert cost.holds is False
    prorated, worth = cost.lines
    assert prorated.params["prorated"] == 7467 and prorated.params["month_days"] == 30
    assert worth.params["days"].value == pytest.approx(12.0)


def test_the_render_machines_per_card_price_is_read_at_the_billing_month() -> None:
    """12,000 ÷ 8 = 1,500 a card and month, 2.08 a card-hour at 720 h (vocab.HOURS_PER_MONTH)."""
    scenario = {"tasks": [{"name": "rendering", "kind": "fixed", "vram_gib": 40.0}]}
    [check] = premise_checks(("per_card",), premises_of(scenario))
    assert check.holds is True
    [line] = check.lines  # no verdict on the pick here: only the article's arithmetic
    assert line.code is Code.PREMISE_PER_CARD
    assert line.params["month"] == 720
    assert line.params["per_card"].value == 1500
    assert line.params["hour"].value == pytest.approx(1500 / 720)


def test_two_tasks_on_one_card_sum_their_memory_and_read_both_capacities() -> None:
    """The 4090 question: the two tasks' memory added up, against 24 GB and 48 GB cards."""
    scenario = {
        "tasks": [
            {
                "name": "7B LoRA",
                "kind": "lora",
                "model": "llama-2-7b",
                "seq_len": 2048,
                "activation_checkpointing": "full",
                "isolation": "soft",
            },
            {
                "name": "SDXL inference",
                "kind": "inference",
                "model": "sdxl",
                "precision": "fp16",
                "isolation": "soft",
            },
        ]
    }
    p = premises_of(scenario)
    [check] = premise_checks(("one_card",), p)
    total, small, large = check.lines
    assert total.code is Code.PREMISE_SUM_GIB
    assert total.params["terms"].code is Code.PREMISE_PLUS
    together = sum(t.per_gpu.total for t in p.estimate.tasks) / 2**30
    assert total.params["total"].value == pytest.approx(together)
    assert total.english().endswith(f"= {together:,.2f} GiB")
    assert small.params["cap"] == 24 and large.params["cap"] == 48
    assert check.holds is (
        small.params["verdict"].code is Code.PREMISE_DO_NOT_FIT
        and large.params["verdict"].code is Code.PREMISE_FIT
    )


def test_a_check_with_nothing_to_say_is_left_out_and_the_names_are_the_engines() -> None:
    """No multi-GPU training task: the NVLink check says nothing; no advice: neither does the
    check of the cheapest answer's isolation."""
    scenario = {"tasks": [{"name": "rendering", "kind": "fixed", "vram_gib": 40.0}]}
    assert premise_checks(("nvlink_gain", "mig_for_production"), premises_of(scenario)) == ()
    assert set(premises.CHECKS) >= {"mixed_saving", "five_cards", "exclusive_contract"}
