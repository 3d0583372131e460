"""Idle time between runs, priced by the platforms' billing rules (advisor/engine/idle.py,
docs/billing-rules.md "Idle time between runs").

The rules pinned here are the platforms' own (the seed catalogue's BillingRules):

* AutoDL: billed per second from power-on with a minimum charge of ¥0.01
  (https://docs.gpuhub.com/billing-recharge/billing); the paid data disk is billed while the
  instance is shut down (¥0.0066 per GB and day, autodl.com/docs/price); an instance shut down
  for 15 consecutive days is released with its data ("实例连续关机15天会释放实例",
  autodl.com/docs/instance_data); the no-GPU mode costs ¥0.10 an hour (autodl.com/docs/save_money).
* 恒源云: per second (https://en.gpushare.com/docs/product/price); /hy-tmp is free up to 100 GB and
  ¥0.0004 per GB and hour above it, only while the instance runs (恒源云's announcement, reposted
  at http://readke.com/c/031TI1K2022.html).
* 矩池云: billing starts once the machine is "running", so start-up is free (matpool.com billing,
  as read by libtv 03 on 2026-10-04).
* Lambda: billed per minute (lambda.ai's pricing, via the api-evangelist/lambda-labs plans).

Hourly prices are the seed's (AutoDL RTX 4090 ¥1.98, libtv 03 of 2026-10-04) or round examples
where only the rule matters; every expected figure is the arithmetic of those rules, written out.
"""

from __future__ import annotations

import math
from dataclasses import replace
from datetime import datetime
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from advisor.engine import idle, usage
from advisor.engine.advise import advise
from advisor.engine.hardware import load_accelerators
from advisor.engine.messages import Code
from advisor.engine.presets import MODEL_PRESETS
from advisor.engine.types import (
    BillingRulesSpec,
    Constraints,
    OfferingSpec,
    PriceSpec,
    Scenario,
    StoragePriceSpec,
    Task,
)
from advisor.engine.vocab import IdleWay
from tests.conftest import examples

ACCELERATORS = load_accelerators()
NOW = datetime(2026, 10, 10)

AUTODL = BillingRulesSpec(
    metering_seconds=1,
    min_charge=Decimal("0.01"),
    min_charge_currency="CNY",
    startup_billed=True,
    idle_mode=True,
    idle_mode_price=Decimal("0.10"),
    idle_mode_unit="hour",
    idle_mode_currency="CNY",
    storage_billed_while_stopped=True,
    release_after_stopped_days=15,
)
AUTODL_DISK = StoragePriceSpec(
    "autodl", "gb_day", Decimal("0.0066"), "CNY", NOW, billed_while_stopped=True
)
HENGYUAN = BillingRulesSpec(metering_seconds=1, storage_billed_while_stopped=False)
HENGYUAN_DISK = StoragePriceSpec(
    "hengyuanyun", "gb_hour", Decimal("0.0004"), "CNY", NOW, free_gb=100, billed_while_stopped=False
)
MATPOOL = BillingRulesSpec(startup_billed=False)
LAMBDA = BillingRulesSpec(metering_seconds=60)


def hourly(amount: str, rules: BillingRulesSpec | None = None, **kw: Any) -> PriceSpec:
    """A pay-as-you-go price metered as the platform's rules say (advisor/services.py)."""
    if rules is not None:
        kw.setdefault("granularity_seconds", rules.metering_seconds)
        if rules.min_charge is not None:
            kw.setdefault("min_charge", rules.min_charge)
        kw.setdefault("startup_billed", rules.startup_billed)
    return PriceSpec(unit="hour", amount=Decimal(amount), currency="CNY", observed_at=NOW, **kw)


def offering(platform: str, rules: BillingRulesSpec | None, *prices: PriceSpec) -> OfferingSpec:
    return OfferingSpec(
        id=platform,
        platform=platform,
        platform_name=platform.upper(),
        name="RTX 4090",
        accelerator=ACCELERATORS["rtx-4090-24gb"],
        prices=prices,
        billing_rules=rules,
    )


def service(hours: float, when: str = "day") -> Task:
    return Task(name="svc", kind="fixed", vram_gib=10, hours_per_month=hours, when=when)  # type: ignore[arg-type]


def monthly_job(jobs: float = 1, tokens: float = 2e7) -> Task:
    return Task(
        name="job",
        kind="lora",
        model="llama-2-7b",
        arch=MODEL_PRESETS["llama-2-7b"],
        activation_checkpointing="full",
        tokens=tokens,
        jobs_per_month=jobs,
    )


def first(task: Task, off: OfferingSpec, storage: list[StoragePriceSpec] = (), **c: Any):  # type: ignore[assignment]
    scenario = Scenario(tasks=(task,), constraints=Constraints(**c), objective="cost")
    advice = advise(scenario, [off], ACCELERATORS, now=NOW, storage_prices=storage)
    return advice.recommendations[0]


def codes(messages) -> set[Code]:
    return {m.code for m in messages}


def seconds_of(hours: float) -> Decimal:
    """Whole seconds a per-second meter bills for `hours` (rounded up)."""
    return Decimal(math.ceil(round(hours * 3600, 6)))


# --------------------------------------------------------------------- AutoDL: release and no-GPU


def test_autodl_keeps_a_monthly_job_s_data_in_the_no_gpu_mode_past_the_15_day_release():
    """A job once a month with 100 GB kept on AutoDL: stopped for 15 days, then powered on in the
    no-GPU mode until the next run, so that the instance and its data disk are not released.

    plan = 1.98 × the job's seconds; storage = 100 GB × ¥0.0066 × 30 days = ¥19.80 (billed while
    stopped); keeping = ¥0.10 × (720 h − the billed run − 360 h)."""
    rec = first(
        monthly_job(),
        offering("autodl", AUTODL, hourly("1.98", AUTODL)),
        [AUTODL_DISK],
        storage_gb=100,
    )
    run = seconds_of(rec.time_hours)
    plan = Decimal("1.98") * run / 3600
    kept_seconds = 720 * 3600 - run - 15 * 86400
    keep = Decimal("0.10") * kept_seconds / 3600
    assert rec.storage_cost == Decimal("19.80")
    assert rec.idle.way is IdleWay.IDLE_MODE
    assert rec.idle.cost == pytest.approx(keep, abs=Decimal("1e-20"))
    assert rec.idle.kept_hours == pytest.approx(float(kept_seconds) / 3600)
    assert rec.cost == pytest.approx(plan + Decimal("19.80") + keep, abs=Decimal("1e-20"))
    assert rec.plan.converted == pytest.approx(plan, abs=Decimal("1e-20"))
    # The stopped hours of the data disk are in the storage cost, and said so.
    stopped = Decimal("100") * Decimal("0.0066") * Decimal(repr(720 - rec.time_hours)) / 24
    assert rec.idle.stopped_storage == pytest.approx(stopped, abs=Decimal("1e-12"))
    [warning] = [w for w in rec.warnings if w.code is Code.WARN_KEPT_FROM_RELEASE]
    assert warning.params["days"].value == 15
    assert warning.params["gap"].value == pytest.approx((720 - rec.time_hours) / 24)
    assert rec.idle.message.code is Code.IDLE_KEPT_IDLE_MODE


def test_without_data_to_keep_the_autodl_instance_is_released_between_monthly_runs():
    """No storage_gb: nothing to keep, so the cheapest legal way is to let AutoDL release the
    instance after 15 days and re-create it; the cost is the run alone and the advice warns."""
    rec = first(monthly_job(), offering("autodl", AUTODL, hourly("1.98", AUTODL)))
    assert rec.idle.way is IdleWay.RELEASED
    assert rec.idle.cost == 0
    assert rec.cost == pytest.approx(Decimal("1.98") * seconds_of(rec.time_hours) / 3600)
    [warning] = [w for w in rec.warnings if w.code is Code.WARN_RELEASED_BETWEEN_RUNS]
    assert warning.params["days"].value == 15 and warning.params["platform"] == "AUTODL"


def test_runs_closer_than_the_release_window_are_just_stopped():
    """Three runs a month are 10 days apart less the runs: inside AutoDL's 15 days, so stopping
    costs nothing beyond the data disk, and nothing is warned of."""
    rec = first(
        monthly_job(jobs=3),
        offering("autodl", AUTODL, hourly("1.98", AUTODL)),
        [AUTODL_DISK],
        storage_gb=100,
    )
    assert rec.idle.way is IdleWay.STOPPED and rec.idle.cost == 0
    assert rec.idle.runs == 3
    assert not codes(rec.warnings) & {Code.WARN_KEPT_FROM_RELEASE, Code.WARN_RELEASED_BETWEEN_RUNS}
    assert rec.cost == rec.plan.converted + Decimal("19.80")


def test_keeping_it_running_wins_where_the_no_gpu_mode_costs_more_than_the_gpu():
    """The cheapest way to stay powered on is whichever costs less an hour: a card at ¥0.08 an
    hour kept running beats a ¥0.10 no-GPU mode (both per second)."""
    off = offering("autodl", AUTODL, hourly("0.08", AUTODL))
    rec = first(monthly_job(), off, [AUTODL_DISK], storage_gb=100)
    run = seconds_of(rec.time_hours)
    kept = 720 * 3600 - run - 15 * 86400
    assert rec.idle.way is IdleWay.KEPT_RUNNING
    assert rec.idle.cost == pytest.approx(Decimal("0.08") * kept / 3600, abs=Decimal("1e-20"))


def test_a_platform_that_stops_idle_sessions_cannot_be_kept_running():
    """趋动云 stops sessions idle for 3600 s (ORION_TASK_IDLE_TIME): with a release rule and no
    no-GPU mode there is no way to stay on, so the instance is released and the advice says so."""
    rules = replace(AUTODL, idle_mode=False, idle_mode_price=None, idle_shutdown_seconds=3600)
    rec = first(
        monthly_job(), offering("x", rules, hourly("1.98", rules)), [AUTODL_DISK], storage_gb=100
    )
    assert rec.idle.way is IdleWay.RELEASED and rec.idle.cost == 0
    assert Code.WARN_RELEASED_BETWEEN_RUNS in codes(rec.warnings)


def test_a_prepaid_plan_wins_when_keeping_the_metered_instance_on_costs_more():
    """Without a no-GPU mode, keeping a ¥1.98/h instance on for ~357 h costs ~¥707 on top of the
    run: a ¥600 monthly plan (which keeps the instance anyway) is cheaper in all."""
    rules = replace(AUTODL, idle_mode=False, idle_mode_price=None)
    month = PriceSpec(unit="month", amount=Decimal("600"), currency="CNY", observed_at=NOW)
    rec = first(
        monthly_job(),
        offering("x", rules, hourly("1.98", rules), month),
        [AUTODL_DISK],
        storage_gb=100,
    )
    assert rec.plan.unit == "month"
    assert rec.idle.way is IdleWay.PREPAID and rec.idle.cost == 0
    assert rec.cost == Decimal("600") + Decimal("19.80")


def test_a_prepaid_plan_warns_of_release_after_expiry():
    """A platform that releases a prepaid instance N days after its plan expires: the advice says
    so with the days (7 here: 恒源云 says its instances are deleted some days after a monthly plan
    expires, without a number in the sources, so the figure is an example)."""
    rules = replace(HENGYUAN, release_after_expiry_days=7)
    month = PriceSpec(unit="month", amount=Decimal("1052"), currency="CNY", observed_at=NOW)
    rec = first(service(600, "always"), offering("hy", rules, month))
    [warning] = [w for w in rec.warnings if w.code is Code.WARN_RELEASED_AFTER_EXPIRY]
    assert warning.params["days"].value == 7
    assert rec.idle.way is IdleWay.PREPAID and rec.idle.hours == pytest.approx(120)
    assert rec.cost == Decimal("1052")


# ------------------------------------------------------- storage while stopped: AutoDL, 恒源云


def test_autodl_bills_the_data_disk_while_a_daily_service_is_stopped():
    """A service busy 240 h a month by day runs 30 times, 16 h apart: stopped between runs, its
    100 GB data disk still costs ¥0.0066/GB·day for the 480 stopped hours: ¥13.20 of the ¥19.80."""
    rec = first(
        service(240),
        offering("autodl", AUTODL, hourly("1.98", AUTODL)),
        [AUTODL_DISK],
        storage_gb=100,
    )
    assert rec.idle.way is IdleWay.STOPPED and rec.idle.cost == 0
    assert rec.idle.runs == 30 and rec.idle.gap_hours == pytest.approx(16)
    assert rec.idle.stopped_storage == Decimal("13.20")
    assert rec.storage_cost == Decimal("19.80")
    assert rec.cost == Decimal("1.98") * 240 + Decimal("19.80")
    assert rec.idle.message.code is Code.IDLE_STOPPED_STORAGE


def test_hengyuan_does_not_bill_hy_tmp_while_stopped():
    """恒源云's /hy-tmp above 100 GB costs ¥0.0004/GB·h only while the instance runs: 500 GB for a
    240-hour month is 400 × 0.0004 × 240 = ¥38.40, and the stopped hours cost nothing."""
    rec = first(
        service(240),
        offering("hengyuanyun", HENGYUAN, hourly("1.98", HENGYUAN)),
        [HENGYUAN_DISK],
        storage_gb=500,
    )
    assert rec.storage_cost == Decimal("38.40")
    assert rec.idle.way is IdleWay.STOPPED and rec.idle.stopped_storage == 0
    assert rec.idle.message.code is Code.IDLE_STOPPED
    assert rec.cost == Decimal("1.98") * 240 + Decimal("38.40")


# ------------------------------------------------------------------- start-ups and per-run charges


def test_autodl_bills_each_run_s_start_up_and_matpool_does_not():
    """Five minutes of start-up a run, 30 runs: AutoDL bills from power-on, 2.5 h × ¥1.98 =
    ¥4.95 more; 矩池云 bills from "running", so nothing more."""
    autodl = first(
        service(240), offering("autodl", AUTODL, hourly("1.98", AUTODL)), startup_minutes=5
    )
    assert autodl.idle.startup_hours == pytest.approx(2.5)
    assert autodl.idle.startup_cost == Decimal("4.95")
    assert autodl.cost == Decimal("1.98") * Decimal("242.5")
    assert Code.IDLE_STARTUP_BILLED in codes(autodl.idle.notes)
    matpool = first(
        service(240), offering("matpool", MATPOOL, hourly("1.98", MATPOOL)), startup_minutes=5
    )
    assert matpool.idle.startup_cost == 0 and matpool.cost == Decimal("1.98") * 240
    assert Code.IDLE_STARTUP_FREE in codes(matpool.idle.notes)


def test_a_platform_that_bills_start_up_asks_for_the_start_up_time():
    rec = first(service(240), offering("autodl", AUTODL, hourly("1.98", AUTODL)))
    assert Code.IDLE_STARTUP_NOT_GIVEN in codes(rec.idle.notes)
    assert rec.idle.startup_cost == 0


def test_start_up_is_counted_where_the_platform_does_not_say():
    rec = first(service(240), offering("p", None, hourly("2.00")), startup_minutes=6)
    assert rec.cost == Decimal("2.00") * 243
    assert Code.IDLE_STARTUP_ASSUMED in codes(rec.idle.notes)


def test_per_minute_metering_rounds_each_run_up():
    """Lambda bills per minute: 100.1 h a month in 30 daily runs is 12,012 s a run, billed 201
    minutes, 6,030 minutes (100.5 h) in all, where one session would be 6,006."""
    rec = first(service(100.1), offering("lambda", LAMBDA, hourly("2.00", LAMBDA)))
    assert rec.cost == Decimal("2.00") * Decimal("100.5")


def test_the_minimum_charge_applies_to_each_run():
    """AutoDL's ¥0.01 minimum per run: 30 runs of 0.36 s (0.003 h a month) at ¥1.98/h cost
    ¥0.00055 each by the meter, so ¥0.01 each, ¥0.30 a month (one session would be ¥0.01)."""
    rec = first(service(0.003), offering("autodl", AUTODL, hourly("1.98", AUTODL)))
    assert rec.cost == Decimal("0.30")


# ---------------------------------------------------------------------------------- the functions


def test_a_monthly_job_is_one_run_and_a_service_one_a_day():
    job = usage.task_usage(monthly_job(jobs=2), 10.0)
    assert (job.runs, job.month_hours) == (2.0, 20.0)
    assert usage.task_usage(service(240), None).runs == 30
    assert usage.task_usage(service(720, "always"), None).runs == 1
    one_off = usage.task_usage(replace(monthly_job(), jobs_per_month=None), 10.0)
    assert one_off.runs == 1


def test_the_release_counts_the_billed_run_not_the_estimate():
    """A run billed to the second leaves exactly the held time less its billed seconds off."""
    use = usage.Usage(hours=10.0001, runs=1.0)
    price = hourly("1.98", AUTODL)
    assert idle.off_seconds(price, use) == 720 * 3600 - 36001
    assert idle.keep_seconds(price, use, AUTODL) == 720 * 3600 - 36001 - 15 * 86400


# ----------------------------------------------------------------------------------- properties

rules_strategy = st.builds(
    lambda metering, release, mode_price, shutdown, startup_billed, stopped: BillingRulesSpec(
        metering_seconds=metering,
        min_charge=Decimal("0.01"),
        min_charge_currency="CNY",
        startup_billed=startup_billed,
        idle_mode=mode_price is not None,
        idle_mode_price=mode_price,
        idle_mode_unit="hour",
        idle_mode_currency="CNY",
        storage_billed_while_stopped=stopped,
        release_after_stopped_days=release,
        idle_shutdown_seconds=shutdown,
    ),
    st.sampled_from([1, 60]),
    st.none() | st.integers(1, 30),
    st.none() | st.decimals("0.01", "0.50", places=2),
    st.none() | st.just(3600),
    st.none() | st.booleans(),
    st.booleans(),
)


# Charges round up at the 28th digit (billing._CEIL): two equal costs reached by different
# splits of the same seconds can differ there, and only there.
DIGIT_28 = Decimal("1e-20")


def _cost(task: Task, off: OfferingSpec, storage_gb: float, startup: float) -> Decimal:
    disk = replace(AUTODL_DISK, platform=off.platform)
    rec = first(task, off, [disk], storage_gb=storage_gb, startup_minutes=startup)
    if rec.idle is not None:
        assert rec.idle.cost >= 0 and rec.idle.startup_cost >= 0 and rec.idle.hours >= 0
        assert rec.idle.kept_hours >= 0
        assert rec.cost == rec.plan.converted + (rec.storage_cost or 0) + rec.idle.cost
    return rec.cost


@settings(max_examples=examples(150), deadline=None)
@given(
    rules_strategy,
    st.decimals("0.50", "20.00", places=2),
    st.floats(1, 719),
    st.floats(0, 300),
    st.sampled_from(["day", "always", "burst"]),
    st.sampled_from([0.0, 0.0, 200.0]),
    st.sampled_from([0.0, 0.0, 3.0]),
)
def test_a_busier_service_month_never_costs_less_on_a_metered_plan(
    rules, amount, low, more, when, storage_gb, startup
):
    """Idle cost is never negative, and more busy hours never cost less on one metered plan: a
    service runs once a day, so its runs are metered one by one (per second or minute, each at
    least the minimum charge, each with its start-up) and its storage is billed for the held or the
    busy hours; all of them grow with the busy hours."""
    assume(rules.idle_mode_price is None or rules.idle_mode_price <= amount)
    high = min(low + more, 720.0)
    off = offering("p", rules, hourly(str(amount), rules))
    cheap = _cost(service(low, when), off, storage_gb, startup)
    dear = _cost(service(high, when), off, storage_gb, startup)
    assert dear >= cheap - DIGIT_28


@settings(max_examples=examples(60), deadline=None)
@given(
    rules_strategy,
    st.decimals("0.50", "20.00", places=2),
    st.floats(1e6, 1e8),
    st.floats(1.0, 4.0),
    st.sampled_from([0.5, 1.0, 2.0, 4.0]),
    st.sampled_from([0.0, 200.0]),
)
def test_a_longer_recurring_job_never_costs_less_on_a_metered_plan(
    rules, amount, tokens, factor, jobs, storage_gb
):
    """The same for recurring jobs, whose runs can be further apart than the release window: a
    longer run (more tokens, the same runs a month) never costs less. Each added second is billed
    at the plan's price and takes at most a second of keeping the instance on, which costs no more
    a second: the no-GPU mode is drawn cheaper than the GPU, as every platform sells it, and the
    instance itself is the other way to stay on. (With a no-GPU mode dearer than the GPU on a
    platform that stops idle sessions this fails, as it should.)

    Only longer runs at the same runs: more runs can cost less where a run keeps the instance from
    release (a job twice a month on AutoDL needs no no-GPU mode)."""
    assume(rules.idle_mode_price is None or rules.idle_mode_price <= amount)
    off = offering("p", rules, hourly(str(amount), rules))
    short = _cost(monthly_job(jobs, tokens), off, storage_gb, 0.0)
    long = _cost(monthly_job(jobs, tokens * factor), off, storage_gb, 0.0)
    assert long >= short - DIGIT_28


def test_a_service_idle_for_less_than_a_start_up_a_day_is_kept_on():
    """A service busy 719 h of a 720 h month is idle 2 minutes a day (1 h over 30 daily runs):
    with a 3-minute start-up it could not be stopped and started again in time, so it is kept on,
    one run of the month: 0.50 x (720 h + 3 min) = 360.025, as the always-on month costs, not
    0.50 x (719 h + 30 x 3 min) = 360.25. Busy 600 h, it is idle 4 h a day and is stopped
    between runs: 0.50 x (600 h + 30 x 3 min) = 300.75."""
    rules = BillingRulesSpec(metering_seconds=1)
    off = offering("p", rules, hourly("0.50", rules))
    kept = first(service(719, "day"), off, startup_minutes=3.0)
    always = first(service(720, "day"), off, startup_minutes=3.0)
    assert kept.cost == always.cost == Decimal("360.025")
    assert first(service(600, "day"), off, startup_minutes=3.0).cost == Decimal("300.75")
