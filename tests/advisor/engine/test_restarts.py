"""Spot capacity (docs/advisor-rules.md, "Spot: who may use it, restarts and their cost"): the
formula of a job's time with restarts against hand-computed cases and a simulation, and each rule
of the ranking on small hand-made catalogues."""

from __future__ import annotations

import math
import random
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.engine import restarts
from advisor.engine.advise import advise
from advisor.engine.errors import InvalidWorkload, NoFit
from advisor.engine.estimate import estimate
from advisor.engine.messages import Code
from advisor.engine.placement import PlacementCache
from advisor.engine.scenario import parse_scenario, scenario_to_dict
from advisor.engine.suggest import what_would_fit
from tests.advisor.engine.test_ranking import ACCELERATORS, NOW, TRAIN, offer, price
from tests.conftest import examples

# ------------------------------------------------------------------------------------ the formula


def test_without_interruptions_a_job_takes_its_work() -> None:
    assert restarts.with_restarts(10.0, 0.0, 0.5, 1 / 6) == restarts.Restarted(10.0, 0.0)


def test_the_worked_example_of_the_rules() -> None:
    """W = 10 h, checkpoint 0.5 h, restart 10 min, one interruption a day (λ = 1/24 h⁻¹):
    N = (10 / 0.5)(e^(1/48) − 1) = 20 × 0.0210519 = 0.421037; T = N (24 + 1/6) = 10.17507 h
    (docs/advisor-rules.md, by hand to 6 figures)."""
    got = restarts.with_restarts(10.0, 1 / 24, 0.5, 1 / 6)
    assert got.interruptions == pytest.approx(0.421037, abs=1e-6)
    assert got.hours == pytest.approx(10.17507, abs=1e-5)


def test_without_checkpoints_the_whole_job_is_one_segment() -> None:
    """No checkpoint (0): the classic (e^(λW) − 1)/λ of a job that must run through in one go.
    W = 2 h at λ = 0.5 h⁻¹, no restart time: (e − 1)/0.5 = 3.436564 h, e − 1 = 1.718282
    interruptions."""
    got = restarts.with_restarts(2.0, 0.5, 0.0, 0.0)
    assert got.hours == pytest.approx(2 * (math.e - 1), abs=1e-9)
    assert got.interruptions == pytest.approx(math.e - 1, abs=1e-9)


def test_a_job_shorter_than_the_checkpoint_interval_is_one_segment() -> None:
    """W = 0.25 h with a checkpoint every 0.5 h: τ = W, so (e^(λW) − 1)(1/λ + R) with λ = 1 h⁻¹,
    R = 0.1 h: 0.2840254 × 1.1 = 0.3124280 h."""
    got = restarts.with_restarts(0.25, 1.0, 0.5, 0.1)
    assert got.hours == pytest.approx(math.expm1(0.25) * 1.1, abs=1e-12)
    assert got.hours == pytest.approx(0.3124280, abs=1e-7)


def test_for_small_rates_each_interruption_costs_half_a_segment_and_a_restart() -> None:
    """First order in λτ: T ≈ W (1 + λ(τ/2 + R)); at λ = 0.001 h⁻¹, τ = 1 h, R = 0.5 h and
    W = 100 h: 100.1 h, the second-order terms under 1e-4 h."""
    got = restarts.with_restarts(100.0, 0.001, 1.0, 0.5)
    assert got.hours == pytest.approx(100 * (1 + 0.001 * (0.5 + 0.5)), abs=1e-4)


def simulate(work: float, rate: float, tau: float, restart: float, runs: int, seed: int) -> float:
    """The mean wall-clock time of `runs` simulated jobs: exponential gaps between
    interruptions while a segment runs; at each, the segment is lost and `restart` added."""
    rng = random.Random(seed)
    total = 0.0
    for _ in range(runs):
        left = work
        while left > 1e-12:
            segment = min(tau, left)
            while True:
                gap = rng.expovariate(rate)
                if gap >= segment:
                    total += segment
                    break
                total += gap + restart
            left -= segment
    return total / runs


def test_the_formula_is_the_mean_of_simulated_runs() -> None:
    """The model the formula is derived from, simulated: 20,000 runs of 6 h of work with a
    checkpoint every 1.5 h, one interruption every 4 h on average and 0.25 h to restart. The
    mean agrees with the formula (7.9805 h) within 1 % (its standard error is about 0.2 %)."""
    expected = restarts.with_restarts(6.0, 0.25, 1.5, 0.25).hours
    assert expected == pytest.approx(4 * math.expm1(0.375) * (4 + 0.25), abs=1e-9)
    assert simulate(6.0, 0.25, 1.5, 0.25, 20_000, seed=7) == pytest.approx(expected, rel=0.01)


@settings(max_examples=examples(200), deadline=None)
@given(
    st.floats(0.01, 1000),
    st.floats(0.0, 2.0),
    st.floats(0.0, 24.0),
    st.floats(0.0, 2.0),
)
def test_restarts_never_shorten_a_job_and_a_higher_rate_never_helps(
    work: float, rate: float, checkpoint: float, restart: float
) -> None:
    low = restarts.with_restarts(work, rate, checkpoint, restart)
    high = restarts.with_restarts(work, rate * 2 + 1e-3, checkpoint, restart)
    assert low.hours >= work * (1 - 1e-12)
    assert high.hours >= low.hours * (1 - 1e-12)
    assert high.interruptions >= low.interruptions


# ------------------------------------------------------------------------------------- the rules

CHAT = {"name": "chat", "kind": "inference", "model": "llama-3.1-8b", "when": "day"}


def spot_pair(**spot: Any) -> list[Any]:
    """The same 8× RTX 4090 instance on demand (¥14/h) and on spot (¥6/h)."""
    return [
        offer("od", "rtx-4090-24gb", price("hour", "14"), gpus=8),
        offer("spot", "rtx-4090-24gb", price("hour", "6"), gpus=8, interruptible=True, **spot),
    ]


def ask(scenario: dict[str, Any], offerings: list[Any]) -> Any:
    return advise(parse_scenario(scenario), offerings, ACCELERATORS, now=NOW)


def test_a_day_only_chatbot_gets_no_spot_unless_allowed() -> None:
    """User-facing whatever its `when`: a day-only inference task keeps spot out
    (reject_interruptible_service); `allow_interruptible: true` lets it in."""
    advice = ask({"tasks": [{**CHAT, "hours_per_month": 300}], "objective": "cost"}, spot_pair())
    assert [r.offering_id for r in advice.recommendations] == ["od"]
    assert advice.rejected == {Code.REJECT_INTERRUPTIBLE_SERVICE: 1}
    allowed = ask(
        {
            "tasks": [{**CHAT, "hours_per_month": 300}],
            "constraints": {"allow_interruptible": True},
            "objective": "cost",
        },
        spot_pair(),
    )
    assert [r.offering_id for r in allowed.recommendations] == ["spot", "od"]


def test_a_fixed_service_in_bursts_is_user_facing_and_a_fixed_job_is_not() -> None:
    service = {"name": "render-api", "kind": "fixed", "vram_gib": 20, "when": "burst"}
    advice = ask({"tasks": [service], "objective": "cost"}, spot_pair())
    assert advice.rejected == {Code.REJECT_INTERRUPTIBLE_SERVICE: 1}
    frames = {
        "name": "render",
        "kind": "fixed",
        "vram_gib": 20,
        "frames": 1000,
        "seconds_per_frame": 30,
        "reference_accelerator": "rtx-4090-24gb",
    }
    job = ask({"tasks": [frames], "objective": "cost"}, spot_pair())
    assert job.recommendations[0].offering_id == "spot"
    assert not job.rejected


def test_no_spot_asked_leaves_it_out_of_a_training_job_with_its_own_reason() -> None:
    default = ask({"tasks": [TRAIN], "objective": "cost"}, spot_pair())
    assert default.recommendations[0].offering_id == "spot"
    no = ask(
        {"tasks": [TRAIN], "constraints": {"allow_interruptible": False}, "objective": "cost"},
        spot_pair(),
    )
    assert [r.offering_id for r in no.recommendations] == ["od"]
    assert no.rejected == {Code.REJECT_INTERRUPTIBLE_NOT_ALLOWED: 1}


def test_when_only_spot_is_left_what_would_fit_offers_spot_for_jobs_again() -> None:
    s = parse_scenario({"tasks": [TRAIN], "constraints": {"allow_interruptible": False}})
    with pytest.raises(NoFit) as caught:
        advise(s, spot_pair()[1:], ACCELERATORS, now=NOW)
    error = caught.value
    assert dict(error.rejected) == {Code.REJECT_INTERRUPTIBLE_NOT_ALLOWED: 1}
    found = what_would_fit(
        s, estimate(s, ACCELERATORS), error.closest_miss, dict(error.rejected), ACCELERATORS
    )
    [spot] = [f for f in found if f.change.code is Code.SUGGEST_INTERRUPTIBLE_JOBS]
    assert spot.scenario.constraints.allow_interruptible is None
    assert advise(spot.scenario, spot_pair()[1:], ACCELERATORS, now=NOW).recommendations


def test_a_job_on_spot_is_billed_for_its_time_with_restarts_at_the_platforms_rate() -> None:
    """The same card on demand and on spot: the spot job's time is its work with restarts at its
    platform's stated 6 interruptions a day (λ = 0.25 h⁻¹), a checkpoint every 30 min and 10 min
    to restart, and it is billed for that time; its range runs from no interruption to the
    time at twice the rate."""
    od_spot = ask({"tasks": [TRAIN], "objective": "cost"}, spot_pair(interruptions_per_day=6.0))
    recs = {r.offering_id: r for r in od_spot.recommendations}
    work = recs["od"].time_hours
    assert work is not None
    expected = restarts.with_restarts(work, 0.25, 0.5, 1 / 6)
    spot = recs["spot"]
    assert spot.time_hours == pytest.approx(expected.hours, rel=1e-9)
    assert spot.time_hours > work * 1.05  # about 7 % longer at this rate
    # ¥6 an hour for the instance of 8 cards, for every hour of the run with its restarts.
    billed = Decimal("6") * Decimal(repr(expected.hours))
    assert spot.cost == pytest.approx(billed, abs=Decimal("0.02"))
    assert spot.time_low_hours == recs["od"].time_low_hours
    high = restarts.with_restarts(recs["od"].time_high_hours, 0.5, 0.5, 1 / 6).hours
    assert spot.time_high_hours == pytest.approx(high, rel=1e-9)
    codes = [w.code for w in spot.warnings]
    assert Code.WARN_INTERRUPTIBLE in codes and Code.WARN_SPOT_RESTART_COST in codes
    [figures] = [w for w in spot.warnings if w.code is Code.WARN_TASK]
    assert "on spot, expect" in figures.english()
    # A stated rate: nothing assumed. Without one, the default (one a day) is, and said so.
    assert Code.WARN_SPOT_RATE_ASSUMED not in codes
    assumed = ask({"tasks": [TRAIN], "objective": "cost"}, spot_pair())
    first = assumed.recommendations[0]
    assert Code.WARN_SPOT_RATE_ASSUMED in [w.code for w in first.warnings]
    assert first.time_hours == pytest.approx(
        restarts.with_restarts(work, 1 / 24, 0.5, 1 / 6).hours, rel=1e-9
    )


def test_checkpoint_and_restart_minutes_come_from_the_scenario() -> None:
    scenario = {
        "tasks": [TRAIN],
        "constraints": {"checkpoint_minutes": 120, "restart_minutes": 30},
        "objective": "cost",
    }
    advice = ask(scenario, spot_pair(interruptions_per_day=6.0))
    recs = {r.offering_id: r for r in advice.recommendations}
    work = recs["od"].time_hours
    assert recs["spot"].time_hours == pytest.approx(
        restarts.with_restarts(work, 0.25, 2.0, 0.5).hours, rel=1e-9
    )


def test_a_kept_placement_cache_does_not_carry_restart_times_across_checkpoints() -> None:
    """The fits a caller's cache keeps are keyed by the checkpoint and restart minutes too
    (pricing.terms.PricingTerms.fits): asked again with other minutes, the time follows them."""
    kept = PlacementCache()
    offers = spot_pair(interruptions_per_day=6.0)
    times = []
    for minutes in (30, 120, 30):
        s = parse_scenario(
            {"tasks": [TRAIN], "constraints": {"checkpoint_minutes": minutes}, "objective": "cost"}
        )
        advice = advise(s, offers, ACCELERATORS, now=NOW, placements=kept)
        times.append({r.offering_id: r.time_hours for r in advice.recommendations}["spot"])
    assert times[0] == times[2] < times[1]


def test_under_a_deadline_spot_is_held_to_its_time_at_the_pessimistic_rate() -> None:
    """A deadline between the spot job's expected time and its time at twice the rate leaves it
    out (misses the deadline); a deadline past both keeps it, warned with the figure held to."""
    base = ask({"tasks": [TRAIN], "objective": "cost"}, spot_pair(interruptions_per_day=6.0))
    recs = {r.offering_id: r for r in base.recommendations}
    work = recs["od"].time_hours
    expected = recs["spot"].time_hours
    high = restarts.with_restarts(work, 0.5, 0.5, 1 / 6).hours
    assert work < expected < high
    between = {
        "tasks": [TRAIN],
        "constraints": {"deadline_hours": (expected + high) / 2},
        "objective": "cost",
    }
    held = ask(between, spot_pair(interruptions_per_day=6.0))
    assert [r.offering_id for r in held.recommendations] == ["od"]
    assert held.rejected == {Code.REJECT_MISSES_DEADLINE: 1}
    past = {**between, "constraints": {"deadline_hours": high + 1}}
    kept = ask(past, spot_pair(interruptions_per_day=6.0)).recommendations[0]
    assert kept.offering_id == "spot"
    [deadline] = [w for w in kept.warnings if w.code is Code.WARN_SPOT_DEADLINE]
    assert deadline.params["high"].value == pytest.approx(high, rel=1e-9)


def test_under_a_deadline_spot_is_ranked_by_its_pessimistic_time() -> None:
    """By time: spot H100s whose expected time with restarts beats on-demand A100s, but whose
    time at twice the rate does not. Without a deadline the expected time ranks them first; with
    one (met by both) the pessimistic time does, and they rank second."""
    a100 = offer("a100", "a100-80gb", price("hour", "100"), gpus=8, interconnect="nvlink")
    h100 = {"gpus": 8, "interconnect": "nvlink"}
    work = {
        r.offering_id: r.time_hours
        for r in ask(
            {"tasks": [TRAIN], "objective": "time"},
            [a100, offer("h100", "h100-sxm-80gb", price("hour", "200"), **h100)],
        ).recommendations
    }
    # A checkpoint every two hours, and the platform rate (interruptions a day) that puts the
    # A100s (about 2.5 times the H100s' work) between the two spot times.
    per_day = next(
        n
        for n in (1, 2, 4, 6, 8, 12, 16, 24)
        if restarts.with_restarts(work["h100"], n / 24, 2.0, 1 / 6).hours
        < work["a100"]
        < restarts.with_restarts(work["h100"], 2 * n / 24, 2.0, 1 / 6).hours
    )
    spot = offer(
        "spot",
        "h100-sxm-80gb",
        price("hour", "60"),
        interruptible=True,
        interruptions_per_day=float(per_day),
        **h100,
    )
    s = {"tasks": [TRAIN], "constraints": {"checkpoint_minutes": 120}, "objective": "time"}
    assert [r.offering_id for r in ask(s, [a100, spot]).recommendations] == ["spot", "a100"]
    deadline = {**s, "constraints": {"checkpoint_minutes": 120, "deadline_hours": 1000}}
    ranked = ask(deadline, [a100, spot]).recommendations
    assert [r.offering_id for r in ranked] == ["a100", "spot"]
    assert Code.WARN_SPOT_DEADLINE in [w.code for w in ranked[1].warnings]


# ---------------------------------------------------------------------------------- the contract


def test_allow_interruptible_has_three_values_and_the_minutes_are_checked() -> None:
    assert parse_scenario({"tasks": [TRAIN]}).constraints.allow_interruptible is None
    for value in (True, False):
        s = parse_scenario({"tasks": [TRAIN], "constraints": {"allow_interruptible": value}})
        assert s.constraints.allow_interruptible is value
        assert parse_scenario(scenario_to_dict(s)) == s
    s = parse_scenario({"tasks": [TRAIN], "constraints": {"allow_interruptible": None}})
    assert s.constraints.allow_interruptible is None
    minutes = {"checkpoint_minutes": 0, "restart_minutes": 1440}
    s = parse_scenario({"tasks": [TRAIN], "constraints": minutes})
    assert (s.constraints.checkpoint_minutes, s.constraints.restart_minutes) == (0, 1440)
    assert parse_scenario(scenario_to_dict(s)) == s
    for key, value in (("checkpoint_minutes", -1), ("restart_minutes", 1441)):
        with pytest.raises(InvalidWorkload) as caught:
            parse_scenario({"tasks": [TRAIN], "constraints": {key: value}})
        assert caught.value.field == f"constraints.{key}"
        assert caught.value.code is Code.OUT_OF_RANGE
