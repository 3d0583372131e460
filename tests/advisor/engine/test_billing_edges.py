"""Billing at the edges: prepaid periods cover the calendar the instance is held, recurring runs
that do not fit one instance's month, a deadline against offerings without a time estimate, and
the metering of hourly prices (docs/billing-rules.md)."""

from __future__ import annotations

from decimal import Decimal

from advisor.engine import prune, ranking, usage
from advisor.engine.advise import advise
from advisor.engine.billing import cents, monthly_cost, prepaid_cover
from advisor.engine.messages import Code
from advisor.engine.presets import MODEL_PRESETS
from advisor.engine.pricing.charges import run_units
from advisor.engine.pricing.kind import Metering
from advisor.engine.types import Constraints, Scenario, Task
from advisor.engine.vocab import BillingUnit
from tests.advisor.engine.test_ranking import ACCELERATORS, NOW, fixed, offer, price, scenario

# 优云智算 RTX 4090 48GB, compshare.cn/price-list (2026-09-10): ¥3.30 an hour, ¥72.60 a day,
# ¥1,980 a month.
CS_HOUR, CS_DAY, CS_MONTH = "3.30", "72.60", "1980"


# --- prepaid periods cover the days the instance is held -----------------------------------------


def test_a_service_busy_12_hours_a_day_needs_a_day_plan_for_each_of_the_30_days() -> None:
    """A service busy 360 h a month runs once a day of the 30-day month (usage.py), 12 h each:
    a day plan reserves the card for its day, used or not, so 30 of them (¥72.60 × 30 = ¥2,178),
    not the 15 of its busy hours packed into whole days (¥1,089); a week plan covers 7 of the
    days, ceil(30 / 7) = 5 weeks."""
    use = usage.task_usage(fixed("svc", 40, hours_per_month=360, when="day"), None)
    assert use.runs == 30
    assert prepaid_cover(24, 360, use.runs, 720) == 30
    assert prepaid_cover(168, 360, use.runs, 720) == 5
    assert monthly_cost(price("day", CS_DAY), 360, sessions=30) == Decimal("2178.00")


def test_the_hourly_price_wins_over_thirty_day_plans_for_a_12_hour_day() -> None:
    """优云智算 4090 48GB (compshare.cn/price-list, 2026-09-10), 12 h a day: by the hour
    360 × ¥3.30 = ¥1,188; 30 day plans ¥2,178; the month ¥1,980. The hourly price wins."""
    off = offer(
        "cs-4090-48g",
        "rtx-4090-48gb",
        price("hour", CS_HOUR),
        price("day", CS_DAY),
        price("month", CS_MONTH),
    )
    advice = advise(
        scenario(fixed("svc", 40, hours_per_month=360, when="day")), [off], ACCELERATORS, now=NOW
    )
    (rec,) = advice.recommendations
    assert (rec.plan.unit, rec.cost) == ("hour", Decimal("1188.00"))


def test_day_plans_win_only_when_every_day_is_busy_enough() -> None:
    """The day plan beats ¥3.30 an hour above ¥72.60 / ¥3.30 = 22 h of a day (the break-even
    per day, billing.break_even_hours): at 23 h a day, 30 day plans (¥2,178) cost less than
    690 h by the hour (¥2,277)."""
    off = offer("cs", "rtx-4090-48gb", price("hour", CS_HOUR), price("day", CS_DAY))
    advice = advise(
        scenario(fixed("svc", 40, hours_per_month=690, when="day")), [off], ACCELERATORS, now=NOW
    )
    (rec,) = advice.recommendations
    assert (rec.plan.unit, rec.cost) == ("day", Decimal("2178.00"))


def test_a_recurring_job_needs_a_prepaid_period_for_each_run_apart() -> None:
    """4 runs a month of 3 h are 180 h apart (720 / 4): each run needs its own day plan (4, not
    the 1 of 12 h packed) and its own week plan (4: a week does not reach the next run)."""
    held = usage.Usage(hours=12.0, runs=4.0)
    assert run_units(Metering(BillingUnit.DAY, 1, None), held) == Decimal(4)
    assert run_units(Metering(BillingUnit.WEEK, 1, None), held) == Decimal(4)
    assert run_units(Metering(BillingUnit.MONTH, 1, None), held) == Decimal(1)


def test_a_windowed_one_off_job_needs_a_day_plan_for_each_day_it_is_spread_over() -> None:
    """A one-off run of 100 h in a window of 360 h a month (12 h a day) takes 200 h of the
    calendar, ceil(200 / 24) = 9 days: 9 day plans, 2 week plans."""
    task = Task(name="ft", kind="lora", model="m", tokens=1e9, hours_per_month=360)
    task_use = usage.task_usage(task, 100.0)
    period, _month = usage.instance_usage([("always", task_use)], usage.basis([task]))  # type: ignore[list-item]
    assert (task_use.active_days, period.runs) == (9, 9.0)
    assert run_units(Metering(BillingUnit.DAY, 1, None), period) == Decimal(9)
    assert run_units(Metering(BillingUnit.WEEK, 1, None), period) == Decimal(2)


# --- a deadline leaves out what has no time estimate ----------------------------------------------

LORA = Task(
    name="lora",
    kind="lora",
    model="llama-2-7b",
    arch=MODEL_PRESETS["llama-2-7b"],
    activation_checkpointing="full",
    tokens=5e7,
)


def _untimed_and_timed() -> list:
    """A Quadro P6000 (NVIDIA Quadro P6000 datasheet: 12 TFLOPS FP32, no tensor cores, so no
    BF16 figure): no time estimate for training; an RTX 4090 (165.2 BF16 TFLOPS with FP32
    accumulate) has one."""
    return [
        offer("p6000", "quadro-p6000-24gb", price("hour", "1.00")),
        offer("4090", "rtx-4090-24gb", price("hour", "1.98")),
    ]


def test_a_deadline_leaves_out_an_offering_whose_time_cannot_be_estimated() -> None:
    """Without a deadline the P6000 is ranked, with a warning and no time; with a deadline the
    time cannot be held to it, so it is left out and counted as "no time estimate", whichever
    way the advice is found (the lazy prune.rank of advise, and every offering priced by
    ranking.evaluate_offering)."""
    offerings = _untimed_and_timed()
    free = advise(scenario(LORA), offerings, ACCELERATORS, now=NOW)
    times = {r.offering_id: r.time_hours for r in free.recommendations}
    assert times["p6000"] is None and times["4090"] is not None
    bound = Scenario(tasks=(LORA,), constraints=Constraints(deadline_hours=times["4090"] * 2))
    advice = advise(bound, offerings, ACCELERATORS, now=NOW)
    assert [r.offering_id for r in advice.recommendations] == ["4090"]
    assert advice.rejected == {Code.REJECT_NO_TIME_ESTIMATE: 1}
    ctx = ranking.Context(bound, ACCELERATORS, NOW, (), (), 30)
    kept = [c for off in offerings if (c := ranking.evaluate_offering(ctx, off)) is not None]
    assert [c.offering.id for c in kept] == ["4090"]
    assert dict(ctx.rejected) == {Code.REJECT_NO_TIME_ESTIMATE: 1}
    lazy = ranking.Context(bound, ACCELERATORS, NOW, (), (), 30)
    ranked = prune.rank(lazy, prune.OfferingIndex(offerings), "cost", 20)
    assert ranked is not None and dict(lazy.rejected) == {Code.REJECT_NO_TIME_ESTIMATE: 1}


def test_a_deadline_keeps_offerings_for_tasks_that_get_no_time() -> None:
    """A service has no training time on any card: a deadline does not leave it out."""
    offerings = _untimed_and_timed()
    bound = scenario(fixed("svc", 10), deadline_hours=1.0)
    advice = advise(bound, offerings, ACCELERATORS, now=NOW)
    assert {r.offering_id for r in advice.recommendations} == {"p6000", "4090"}
    assert advice.rejected == {}


# --- metering: a platform's hourly rule bills started hours; unknown metering is stated ----------

# 智星云 RTX 4090 cloud VM: 时租 ¥1.50 (the seed article, 智星云 on itself, 2026-05-26).
ZXY_HOUR = "1.50"


def test_sixty_quarter_hour_runs_bill_sixty_started_hours_on_an_hourly_meter() -> None:
    """60 runs of 15 minutes at ¥1.50 an hour: per second 15 h, ¥22.50; per started hour
    (智星云's "按小时计费", the seed article) 60 h, ¥90."""
    use = usage.Usage(hours=15.0, runs=60.0)
    per_second = Metering(BillingUnit.HOUR, 1, None)
    per_started_hour = Metering(BillingUnit.HOUR, 3600, None)
    assert run_units(per_second, use) * Decimal(ZXY_HOUR) == Decimal("22.50")
    assert run_units(per_started_hour, use) * Decimal(ZXY_HOUR) == Decimal("90.00")


def _svc_on(granularity: int | None):
    off = offer("zxy", "rtx-4090-24gb", price("hour", ZXY_HOUR, granularity_seconds=granularity))
    svc = fixed("svc", 10, hours_per_month=15, when="day")
    (rec,) = advise(scenario(svc), [off], ACCELERATORS, now=NOW).recommendations
    return rec


def test_unknown_metering_is_assumed_per_second_and_the_answer_says_what_hours_would_cost() -> None:
    """A service busy 15 h a month runs 30 times, 30 minutes each (usage.py): per second
    15 × ¥1.50 = ¥22.50; per started hour 30 × ¥1.50 = ¥45. A platform that states its step is
    billed by it without a word; one that does not is billed per second, and the advice says so
    with the ¥22.50 that per-started-hour billing would add."""
    assert _svc_on(3600).cost == Decimal("45.00")
    stated = _svc_on(1)
    assert stated.cost == Decimal("22.50")
    assert Code.WARN_METERING_ASSUMED not in {w.code for w in stated.warnings}
    assumed = _svc_on(None)
    assert assumed.cost == Decimal("22.50")
    (note,) = [w for w in assumed.warnings if w.code is Code.WARN_METERING_ASSUMED]
    assert note.english() == (
        "P does not state how it meters pay-as-you-go time: assumed per second; billed per "
        "started hour, this plan would cost 22.50 CNY/month more"
    )


def test_unknown_metering_is_not_mentioned_where_runs_are_whole_hours() -> None:
    """A service always on is one run of 720 h: per second and per started hour bill alike."""
    off = offer("x", "rtx-4090-24gb", price("hour", ZXY_HOUR))
    (rec,) = advise(scenario(fixed("svc", 10)), [off], ACCELERATORS, now=NOW).recommendations
    assert Code.WARN_METERING_ASSUMED not in {w.code for w in rec.warnings}


# --- recurring runs that do not fit one instance's month ------------------------------------------


def _render(runs: float, hours_per_run: float, window: float | None = None) -> Task:
    """A render job timed on its own card (reference = the offering's card: speed-up 1), so each
    run takes exactly frames × seconds per frame."""
    return Task(
        name="render",
        kind="fixed",
        vram_gib=10,
        frames=hours_per_run * 3600,
        seconds_per_frame=1.0,
        reference_accelerator="rtx-4090-24gb",
        jobs_per_month=runs,
        hours_per_month=window,
    )


def test_runs_beyond_one_instances_month_are_costed_on_parallel_instances() -> None:
    """1,000 runs a month of 32.5 h need 32,500 h, 45 × the 720 h month of one instance: they
    run side by side on ceil(32,500 / 720) = 46 instances, each billed. AutoDL's RTX 4090 at
    ¥1.98 an hour (AutoDL market listing, autumn 2026): 32,500 × ¥1.98 = ¥64,350 a month, not
    the ¥1,425.60 of one instance's 720 h. The advice says so."""
    off = offer("4090", "rtx-4090-24gb", price("hour", "1.98"))
    advice = advise(scenario(_render(1000, 32.5)), [off], ACCELERATORS, now=NOW)
    (rec,) = advice.recommendations
    assert rec.time_hours == 32.5
    assert rec.instances == 46
    assert cents(rec.cost) == Decimal("64350.00")
    (note,) = [
        w.params["message"]
        for w in rec.warnings
        if w.code is Code.WARN_TASK
        and w.params["message"].code is Code.WARN_JOBS_ON_PARALLEL_INSTANCES
    ]
    assert note.params["instances"].value == 46
    assert note.english() == (
        "1,000 runs a month need 32,500 h, more than one instance's window of 720 h a month: "
        "costed on 46 instances side by side"
    )


def test_runs_beyond_a_window_share_instances_each_inside_it() -> None:
    """10 runs of 30 h inside a 240 h a month window (8 h a day) need 300 h: 2 instances, each
    busy 150 h. A month plan (¥1,052, AutoDL's 4090 listing) is bought for each: ¥2,104."""
    use = usage.task_usage(_render(10, 30, 240), 30.0)
    assert (use.parallel, use.month_hours, use.runs) == (2, 150.0, 5.0)
    off = offer("4090", "rtx-4090-24gb", price("month", "1052"))
    (rec,) = advise(scenario(_render(10, 30, 240)), [off], ACCELERATORS, now=NOW).recommendations
    assert (rec.instances, rec.cost) == (2, Decimal("2104.00"))


def test_runs_that_fit_one_instance_stay_on_one() -> None:
    """20 runs of 30 h are 600 h, inside the 720 h month: one instance, 600 × ¥1.98 = ¥1,188."""
    off = offer("4090", "rtx-4090-24gb", price("hour", "1.98"))
    (rec,) = advise(scenario(_render(20, 30)), [off], ACCELERATORS, now=NOW).recommendations
    assert (rec.instances, rec.cost) == (1, Decimal("1188.00"))
    assert usage.task_usage(_render(20, 30), 30.0).parallel == 1
