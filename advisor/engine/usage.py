"""How long each instance is used, as billing sees it: one-off jobs, recurring jobs and services.

The rules (README.md, "The scenario"; docs/advisor-rules.md, "What is costed"):

* A training task with `tokens` is a **job**: its hours on an offering are its estimated training
  time there. It runs once, or `jobs_per_month` times a month. Its `hours_per_month`, when given,
  is the window it may run in each month (a nightly slot, say); without one it may run around the
  clock (the 720 h billing month).
* Every other task (inference, fixed, training without `tokens`) is a **service**: it is busy
  `hours_per_month` hours every month, 720 (always on) when not given.
* A scenario of one-off jobs only is costed for the whole run (`CostBasis.JOB`): a 10-hour job pays
  10 hours, and a monthly plan only if it is cheaper for those hours. Anything recurring makes it a
  monthly scenario (`CostBasis.MONTH`), where a one-off job counts with its busiest month.
* A job longer than its window spans ceil(hours / window) months; it is costed for all of them
  (a monthly plan bought that many times, metered time for every hour it runs) and says so.
* Recurring runs that need more hours a month than one instance's window holds run on parallel
  instances: ceil(runs x hours / window) of them, each busy an equal share (its runs and hours),
  every one billed (`TaskUsage.parallel`; ranking._bills adds the instances). The runs of a
  recurring job are independent of each other, so they may always run side by side; the
  advice says so (warn_jobs_on_parallel_instances).

Tasks on one instance combine by the one busy-hours rule (vocab.busy_hours): tasks that may run at
any time overlap, day and night tasks add up.

Runs (how often the instance is started; idle.py prices the time between them):

* a recurring job runs `jobs_per_month` times a month;
* a one-off job runs once, or, inside a window, once a day on the days it is spread over;
* a service busy fewer than 720 hours runs once a day of the 30-day month (its busy hours split
  evenly over the days); an always-on one runs once.

An instance runs as often as the task on it that runs most often.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from advisor.engine.types import HOURS_PER_MONTH, Task
from advisor.engine.vocab import TRAINING_KINDS, CostBasis, TaskKind, When, busy_hours

_MONTH = float(HOURS_PER_MONTH)
DAYS_PER_MONTH = HOURS_PER_MONTH // 24  # the 30-day billing month
_EPS = 1e-9  # float noise when dividing hours into windows


def is_job(task: Task) -> bool:
    """A training task with a token count, or a fixed task with frames to render: it runs to
    completion, its hours come from its time."""
    if task.kind == TaskKind.FIXED:
        return task.frames is not None
    return task.kind in TRAINING_KINDS and bool(task.tokens)


def recurs(task: Task) -> bool:
    return not is_job(task) or task.jobs_per_month is not None


def basis(tasks: Sequence[Task]) -> CostBasis:
    """JOB when every task is a one-off job, else MONTH (module docstring)."""
    return CostBasis.MONTH if any(recurs(t) for t in tasks) else CostBasis.JOB


def window(task: Task) -> float:
    """Hours a month the task may run: its `hours_per_month`, or the whole billing month."""
    return _MONTH if task.hours_per_month is None else min(task.hours_per_month, _MONTH)


@dataclass(frozen=True)
class TaskUsage:
    """One task's use of its instance on one offering."""

    month_hours: float  # busy hours in its busiest month (<= 720)
    total_hours: float  # one-off: hours of the whole run; recurring: hours needed a month
    months: int  # months a one-off run spans (1 for recurring use)
    elapsed_hours: float  # wall-clock hours the run occupies (storage is kept that long)
    active_days: int | None  # days a windowed one-off run is spread over (daily plans)
    over_window: bool  # needs more hours than its window holds
    runs: float = 1.0  # starts of the instance over the costed period (module docstring)
    month_runs: float = 1.0  # starts in the busiest month
    # Instances the task runs on side by side (recurring runs beyond one window); the hours and
    # runs above are each one's.
    parallel: int = 1


def task_usage(task: Task, job_hours: float | None) -> TaskUsage:
    """`task`'s use given its training time on the offering (`job_hours`; None when unknown)."""
    win = window(task)
    if not is_job(task) or job_hours is None:
        hours = _MONTH if task.hours_per_month is None else task.hours_per_month
        hours = min(hours, _MONTH)
        runs = 1.0 if hours >= _MONTH else float(DAYS_PER_MONTH)
        return TaskUsage(hours, hours, 1, _MONTH, None, False, runs, runs)
    if task.jobs_per_month is not None:
        need = job_hours * task.jobs_per_month
        parallel = max(1, math.ceil(need / win - _EPS))
        each = need / parallel
        runs = task.jobs_per_month / parallel
        return TaskUsage(each, each, 1, _MONTH, None, parallel > 1, runs, runs, parallel)
    months = max(1, math.ceil(job_hours / win - _EPS))
    elapsed = job_hours * _MONTH / win
    days = math.ceil(elapsed / 24 - _EPS) if win < _MONTH else None
    runs = 1.0 if days is None else float(days)
    month_runs = min(runs, float(DAYS_PER_MONTH))
    return TaskUsage(
        min(job_hours, win), job_hours, months, elapsed, days, months > 1, runs, month_runs
    )


@dataclass(frozen=True)
class Usage:
    """What one instance is billed for over the costed period (a month, or the whole run).

    `hours`: busy hours in the period; `months`: whole months it spans; `active_days`: days the busy
    hours are spread over (None: not stated); `held_hours`: how long data is kept;
    `runs`: how often the instance is started in the period (the time between runs is idle),
    spread evenly over `held_hours`: daily and weekly plans cover them (billing.prepaid_cover).
    """

    hours: float
    months: int = 1
    active_days: int | None = None
    held_hours: float = _MONTH
    runs: float = 1.0

    @property
    def idle_hours(self) -> float:
        """Hours the instance is held but not busy: between its runs."""
        return max(self.held_hours - self.hours, 0.0)


def instance_usage(
    slots: Sequence[tuple[When, TaskUsage]], cost_basis: CostBasis
) -> tuple[Usage, Usage]:
    """(usage over the costed period, usage in the busiest month) of one instance."""
    month_hours = busy_hours((w, u.month_hours) for w, u in slots)
    month = Usage(month_hours, runs=_runs(month_hours, _MONTH, (u.month_runs for _, u in slots)))
    if cost_basis is CostBasis.MONTH:
        return month, month
    days = [u.active_days for _, u in slots if u.active_days is not None]
    hours = busy_hours(((w, u.total_hours) for w, u in slots), cap=False)
    held = max(u.elapsed_hours for _, u in slots)
    period = Usage(
        hours=hours,
        months=max(u.months for _, u in slots),
        active_days=max(days) if days else None,
        held_hours=held,
        runs=_runs(hours, held, (u.runs for _, u in slots)),
    )
    return period, month


def _runs(hours: float, held: float, runs: Iterable[float]) -> float:
    """An instance's runs: as often as its most frequent task; once when it is never idle."""
    return 1.0 if hours >= held - _EPS else max(runs, default=1.0)
