"""A job on interruptible (spot) capacity: its expected time and its range with restarts.

The rule and its derivation are in docs/advisor-rules.md ("Spot: restarts and their cost").

A job of `work` hours saves a checkpoint every `checkpoint` hours (the last segment may be
shorter: a job shorter than the interval is one segment). Interruptions come at random, at a
constant rate of `rate` an hour (a Poisson process). An interruption loses the work since the
last checkpoint and costs `restart` hours (a new instance, the image, the checkpoint loaded)
before the segment starts again. Each segment of `tau` hours then takes, on average,

    E(tau) = (exp(rate * tau) - 1) * (1 / rate + restart)

and meets (exp(rate * tau) - 1) interruptions; the job takes (work / tau) E(tau) hours. With no
interruptions (rate 0) both are exact limits: `work` hours and none.

The rates (per hour of running):

* expected: the platform's stated figure (`OfferingSpec.interruptions_per_day`, with its source
  in fixtures/catalogue.json), else DEFAULT_INTERRUPTIONS_PER_DAY;
* low: none (the job runs through);
* high: HIGH_FACTOR times the expected rate, a stated pessimistic bound.

DEFAULT_INTERRUPTIONS_PER_DAY, one a day, is the life Google Cloud gives its preemptible VMs at
most: they "always stop after 24 hours"
(https://docs.cloud.google.com/compute/docs/instances/create-use-preemptible.md.txt). No platform
publishes an hourly rate; AWS publishes the share of capacity it reclaimed in the trailing month
per instance type, in buckets of "< 5%, 5-10%, 10-15%, 15-20% and >20%"
(https://pkg.go.dev/github.com/grailbio/base/cloud/spotadvisor, quoting the AWS Spot Instance
Advisor), which this catalogue does not hold per instance type. The default is an assumption,
said so in the advice (warn_spot_rate_assumed).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from advisor.engine.types import OfferingSpec

# Interruptions per day of running assumed where a platform states none (module docstring).
DEFAULT_INTERRUPTIONS_PER_DAY = 1.0
# The pessimistic end of the range: this many times the expected rate (a stated assumption).
HIGH_FACTOR = 2.0
# Scenario defaults (Constraints.checkpoint_minutes, restart_minutes): a checkpoint every half
# hour and ten minutes to get a new instance running from it again; both stated assumptions.
DEFAULT_CHECKPOINT_MINUTES = 30.0
DEFAULT_RESTART_MINUTES = 10.0
_MAX_EXPONENT = 700.0  # exp() of more overflows a float


def interruption_rate(off: OfferingSpec) -> float | None:
    """Interruptions per hour of running on `off`: None for on-demand capacity, else its
    platform's stated rate or the default (module docstring)."""
    if not off.interruptible:
        return None
    per_day = off.interruptions_per_day
    if per_day is None:
        per_day = DEFAULT_INTERRUPTIONS_PER_DAY
    return per_day / 24.0


def rate_assumed(off: OfferingSpec) -> bool:
    """Whether `off`'s interruption rate is the default, not its platform's."""
    return off.interruptible and off.interruptions_per_day is None


@dataclass(frozen=True)
class SpotJob:
    """One job's figures on spot capacity: its work (the time without interruptions), its
    expected time and interruptions, and the same at the pessimistic rate."""

    task: int  # the task's index in the scenario
    work_hours: float
    expected: Restarted
    high: Restarted


@dataclass(frozen=True)
class SpotFit:
    """What restarts do to the jobs of a scenario on one kind of spot offering."""

    per_day: float  # the expected rate, interruptions per day of running
    jobs: tuple[SpotJob, ...]

    @property
    def high_hours(self) -> float:
        """The longest job's time at the pessimistic rate: what a deadline is held to."""
        return max((j.high.hours for j in self.jobs), default=0.0)


@dataclass(frozen=True)
class Restarted:
    """A job's wall-clock hours and expected interruptions with restarts."""

    hours: float
    interruptions: float


def with_restarts(
    work_hours: float, rate_per_hour: float, checkpoint_hours: float, restart_hours: float
) -> Restarted:
    """The expected hours and interruptions of `work_hours` of work (module docstring)."""
    if work_hours <= 0 or rate_per_hour <= 0:
        return Restarted(max(work_hours, 0.0), 0.0)
    tau = work_hours if checkpoint_hours <= 0 else min(checkpoint_hours, work_hours)
    # expm1 keeps the small-rate case exact to the last digit.
    # (Capped where it would overflow: a segment that long is never finished anyway.)
    exponent = min(rate_per_hour * tau, _MAX_EXPONENT)
    per_segment = math.expm1(exponent)
    # (W / tau)(e^x - 1) / rate = W (e^x - 1) / x with x = rate * tau: exactly W as x -> 0, also
    # where x is too small for expm1 to tell from 0.
    stretch = per_segment / exponent if per_segment > 0 else 1.0
    # (W / tau)(e^x - 1) interruptions, written W rate (e^x - 1) / x so that a checkpoint
    # interval too short to divide by still gives W rate, its limit.
    interruptions = work_hours * rate_per_hour * stretch
    # No restart time adds nothing, even where the interruptions overflow (inf × 0 is not 0).
    restarting = interruptions * restart_hours if restart_hours > 0 else 0.0
    return Restarted(work_hours * stretch + restarting, interruptions)


__all__ = [
    "DEFAULT_CHECKPOINT_MINUTES",
    "DEFAULT_INTERRUPTIONS_PER_DAY",
    "DEFAULT_RESTART_MINUTES",
    "HIGH_FACTOR",
    "Restarted",
    "SpotFit",
    "SpotJob",
    "interruption_rate",
    "rate_assumed",
    "with_restarts",
]
