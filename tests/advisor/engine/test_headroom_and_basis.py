"""Headroom judged once, and what a price is (docs/advisor-rules.md, "Headroom" and "What a price
is"), on small hand-made catalogues.

A paged-KV server (vLLM, SGLang) claims `gpu_memory_utilization` of its card, 0.9 by default
("If unspecified, will use the default value of 0.9",
https://docs.vllm.ai/en/latest/models/engine_args.html): its need holds that pool, so it fills
the card by design and is not warned for it. A training task that leaves under 5 % of usable
memory free (capacity.TIGHT_TRAINING_FRACTION) ranks after plans with headroom at equal cost.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from decimal import Decimal

import pytest

from advisor.engine import capacity, placement
from advisor.engine.advise import advise
from advisor.engine.errors import NoFit
from advisor.engine.estimate import estimate
from advisor.engine.hardware import load_accelerators
from advisor.engine.memory import task_memory
from advisor.engine.messages import Code
from advisor.engine.presets import MODEL_PRESETS
from advisor.engine.types import (
    Constraints,
    GiB,
    OfferingSpec,
    OnHardware,
    PriceSpec,
    Scenario,
    Task,
)
from advisor.engine.vocab import PriceBasis

ACCELERATORS = load_accelerators()
NOW = datetime(2026, 10, 2)
FRESH = datetime(2026, 9, 30)
LLAMA_8B = MODEL_PRESETS["llama-3.1-8b"]


def price(amount: str, basis: PriceBasis = PriceBasis.OFFER) -> PriceSpec:
    return PriceSpec(
        unit="hour",
        amount=Decimal(amount),
        currency="CNY",
        observed_at=FRESH,
        source="test",
        basis=basis,
    )


def offer(oid: str, slug: str, *prices: PriceSpec, platform: str = "p") -> OfferingSpec:
    return OfferingSpec(
        id=oid,
        platform=platform,
        platform_name=platform.upper(),
        name=oid,
        accelerator=ACCELERATORS[slug],
        prices=prices,
    )


def run(offerings: list[OfferingSpec], *tasks: Task, **constraints: object):
    scenario = Scenario(tasks=tasks, constraints=Constraints(**constraints), objective="cost")  # type: ignore[arg-type]
    return advise(scenario, offerings, ACCELERATORS, now=NOW)


# ------------------------------------------------------------------------------------ headroom


def test_a_paged_server_filling_its_pool_is_not_warned_and_any_other_task_is():
    """The same 95 % fill of a 4090: a paged server's pool is sized, not warned; a task without
    one gets the out-of-memory warning."""
    card = offer("a", "rtx-4090-24gb", price("2"))
    usable = capacity.usable_bytes(24)
    filled = int(usable * 0.95)
    pooled = placement.TaskNeed("chat", filled, engine_pool=True)
    codes = {w.code for w in placement.place(card, [pooled]).warnings}
    assert Code.WARN_OOM_RISK not in codes
    other = placement.TaskNeed("render", filled)
    assert Code.WARN_OOM_RISK in {w.code for w in placement.place(card, [other]).warnings}


def test_a_128k_context_service_on_named_hardware_fits_its_pool_unwarned():
    """Llama-3.1-8B served by vLLM at a 128k context on an H100: the need holds the 0.9 pool
    (memory-model.md), so it is past 90 % of usable memory by construction; it is said to fit
    its pool, not to risk OOM (three 128k sequences: 77 GB of the card's 85 GB usable)."""
    task = Task(
        name="chat",
        kind="inference",
        arch=LLAMA_8B,
        context_len=131072,
        concurrent_sequences=3,
        on=OnHardware("h100-sxm-80gb"),
    )
    usable = capacity.usable_bytes(ACCELERATORS["h100-sxm-80gb"].vram_gib)
    assert capacity.OOM_RISK_FRACTION * usable < task_memory(task).per_gpu.total <= usable
    result = estimate(Scenario(tasks=(task,)), ACCELERATORS).tasks[0]
    assert result.fit is not None and result.fit.reason.code is Code.FIT_ENGINE_POOL
    assert not [w for w in estimate(Scenario(tasks=(task,)), ACCELERATORS).warnings]


def _tight_lora() -> Task:
    """A LoRA of Llama-3.1-8B on a 24 GB card whose need leaves under 5 % of it free: the
    sequence length found by bisection (the need grows with it)."""
    usable = capacity.usable_bytes(24)
    low, high = 256, 65536
    base = Task(name="tune", kind="lora", arch=LLAMA_8B, activation_checkpointing="full")
    while low < high:
        mid = (low + high + 1) // 2
        if task_memory(replace(base, seq_len=mid)).per_gpu.total <= usable:
            low = mid
        else:
            high = mid - 1
    task = replace(base, seq_len=low)
    free = usable - task_memory(task).per_gpu.total
    if not 0 <= free < capacity.TIGHT_TRAINING_FRACTION * usable:
        pytest.skip("no sequence length puts this LoRA within 5 % of a 24 GB card")
    return task


def test_a_training_task_within_five_percent_ranks_after_one_with_headroom_at_equal_cost():
    """Two 4090s at the same ¥2/h, 24 GB listed first, 48 GB second: the LoRA that leaves under
    5 % of the 24 GB card free ranks second, warned with its headroom, and the tie says why."""
    task = _tight_lora()
    tight, roomy = (
        offer("24", "rtx-4090-24gb", price("2")),
        offer("48", "rtx-4090-48gb", price("2")),
    )
    advice = run([tight, roomy], task)
    first, second = advice.recommendations[:2]
    assert (first.offering_id, second.offering_id) == ("48", "24")
    assert first.cost == second.cost
    warning = next(w for w in second.warnings if w.code is Code.WARN_TIGHT_TRAINING)
    assert warning.params["limit"].value == capacity.TIGHT_TRAINING_FRACTION  # type: ignore[union-attr]
    assert warning.params["headroom"].value == second.headroom_bytes  # type: ignore[union-attr]
    assert second.headroom_bytes is not None and second.headroom_bytes < 1.2 * GiB
    tie = next(r for r in second.reasons if r.code is Code.REASON_TIED_WITH_FIRST)
    assert Code.DIFF_TIGHT_HEADROOM in {d.code for d in tie.params["differences"]}  # type: ignore[union-attr]
    assert Code.WARN_OOM_RISK not in {w.code for w in second.warnings}


# --------------------------------------------------------------------------- what a price is


def test_a_market_floor_is_left_out_unless_the_scenario_includes_market_statistics():
    """A "lowest listed offer" at a tenth of the list price: counted as left out by default,
    ranked first (and warned) when asked for."""
    task = Task(name="render", kind="fixed", vram_gib=10)
    floor = offer("floor", "rtx-4090-24gb", price("0.2", PriceBasis.FLOOR), platform="m")
    listed = offer("list", "rtx-4090-24gb", price("2"))
    advice = run([floor, listed], task)
    assert [r.offering_id for r in advice.recommendations] == ["list"]
    assert advice.rejected[Code.REJECT_MARKET_FIGURE] == 1
    asked = run([floor, listed], task, include_market_statistics=True)
    first = asked.recommendations[0]
    assert first.offering_id == "floor"
    assert Code.WARN_MARKET_FIGURE in {w.code for w in first.warnings}


def test_only_market_figures_is_no_fit_that_names_them():
    task = Task(name="render", kind="fixed", vram_gib=10)
    median = offer("median", "rtx-4090-24gb", price("0.3", PriceBasis.STATISTIC))
    with pytest.raises(NoFit) as caught:
        run([median], task)
    assert dict(caught.value.rejected) == {Code.REJECT_MARKET_FIGURE: 1}


def test_a_competitors_claim_ranks_after_the_platforms_own_price_at_equal_cost():
    """The claim is listed first and costs the same: the platform's own price ranks first, the
    claim second with its warning, its tie naming it."""
    task = Task(name="render", kind="fixed", vram_gib=10)
    claim = offer("claim", "rtx-4090-24gb", price("1.32", PriceBasis.CLAIM), platform="h")
    own = offer("own", "rtx-4090-24gb", price("1.32"), platform="o")
    advice = run([claim, own], task)
    first, second = advice.recommendations[:2]
    assert (first.offering_id, second.offering_id) == ("own", "claim")
    assert Code.WARN_CLAIMED_PRICE in {w.code for w in second.warnings}
    tie = next(r for r in second.reasons if r.code is Code.REASON_TIED_WITH_FIRST)
    assert Code.DIFF_CLAIMED_PRICE in {d.code for d in tie.params["differences"]}  # type: ignore[union-attr]
    # A cheaper claim still ranks first: the order is at equal cost only.
    cheaper = replace(claim, prices=(price("1.20", PriceBasis.CLAIM),))
    assert run([own, cheaper], task).recommendations[0].offering_id == "claim"
