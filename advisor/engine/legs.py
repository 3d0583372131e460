"""A plan's legs: an offering, how many instances, how they are billed and what they run.

A recommendation is a plan of one or more legs (docs/advisor-rules.md, "Plans"): a single
offering is a plan of one leg (plans.leg_of), a split over offerings or platforms a plan of
several (plans.search_plans). These are the types both the ranking and the plans read; they
depend on nothing that prices.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from advisor.engine.messages import Code, Message, hours, msg
from advisor.engine.placement import Placement
from advisor.engine.serving import ServingEstimate
from advisor.engine.vocab import BillingUnit, CostBasis


@dataclass(frozen=True)
class BillingChoice:
    """The cheapest way to pay for the scenario's use of one offering (usage.py)."""

    unit: str  # a billing unit, or "mixed"
    units: tuple[str, ...]  # the unit each instance is billed by
    price: Decimal | None  # the unit price (None for a mixed plan)
    basis: CostBasis  # what `cost` covers: the whole run of the jobs, or a month
    cost: Decimal  # the plan over the costed period, in `currency`
    monthly: Decimal  # the plan in the busiest month, in `currency`
    currency: str
    converted: Decimal  # `cost` in `target_currency`
    converted_monthly: Decimal  # `monthly` in `target_currency`
    target_currency: str
    rate: Decimal | None
    rate_date: datetime | None
    rate_source: str = ""


@dataclass(frozen=True)
class TaskServing:
    """An inference task on a recommendation: what it serves where placement put it, and what its
    output costs: the busiest month's charge of its instance (its GPU-hours' share of it, when
    the instance runs other tasks too) ÷ the output tokens it generates in its busy hours that
    month at the expected rate with the prompts' prefill (hourly plans: price per hour ÷ tokens
    per hour; prepaid plans: the plan ÷ the tokens of the busy hours), and the same at the ends
    of the engine's range."""

    task: str
    estimate: ServingEstimate
    # Per million output tokens, all-in (the prefill's GPU time included), at the expected
    # output rate; target currency; None when nothing is generated.
    cost_per_million_tokens: Decimal | None
    currency: str
    # Other tasks run on the same instance: its charge is split among them by GPU-hours.
    instance_shared: bool
    # The same at the engine's fast end (low) and slow end (high) of its published runs.
    cost_low: Decimal | None = None
    cost_high: Decimal | None = None
    # The charge split by GPU time as an API prices tokens: the prompts' prefill share per
    # million input tokens, the decode's per million output tokens (expected).
    input_cost_per_million: Decimal | None = None
    output_cost_per_million: Decimal | None = None


@dataclass(frozen=True)
class Leg:
    """One offering of a plan: what it runs, how it is billed and what it costs."""

    platform: str
    platform_name: str
    offering_id: int | str
    offering_name: str
    accelerator: str
    instances: int
    gpus_per_instance: int
    plan: BillingChoice
    tasks: tuple[str, ...]
    cost: Decimal  # ranked basis, target currency, storage included
    monthly_cost: Decimal  # the busiest month, storage included
    storage_cost: Decimal | None
    time_hours: float | None
    placement: Placement
    price_source_kind: str
    vendor_claim: bool
    gpu_hours: float  # GPU-hours used in the busiest month (instance busy hours × its GPUs)
    # Each instance's busy hours in the busiest month, busiest first (as a Recommendation's).
    instance_hours: tuple[float, ...] = ()
    # The tasks of `tasks` this leg runs only a share of (a share split, `share_splits`).
    shares: tuple[TaskShare, ...] = ()
    # What the ranked plan reads of its legs: prices seen stale, the oldest price's age and
    # source, the leg's warnings, and the months its run spans.
    stale: bool = False
    price_age_days: int = 0
    price_source: str = ""
    warnings: tuple[Message, ...] = ()
    months: int = 1
    # The range of `time_hours` (timing.TimeEstimate), and what its inference tasks serve here.
    time_low_hours: float | None = None
    time_high_hours: float | None = None
    serving: tuple[TaskServing, ...] = ()
    # Training run to completion on this leg, and its range (ranking.job_costs).
    job_cost: Decimal | None = None
    job_cost_low: Decimal | None = None
    job_cost_high: Decimal | None = None
    # The card's name, for sentences (`accelerator` is its slug, for data).
    accelerator_name: str = ""
    # Where to book it (OfferingSpec.url).
    offering_url: str = ""

    @property
    def gpus(self) -> int:
        return self.instances * self.gpus_per_instance

    def share_of(self, task: str) -> TaskShare | None:
        """The share of `task` this leg runs; None when it runs the whole task."""
        return next((s for s in self.shares if s.task == task), None)

    def task_labels(self) -> tuple[str | Message, ...]:
        """Each task the leg runs: its name, or, for a share, "train: 720 h of 1,000 h"."""
        out: list[str | Message] = []
        for name in self.tasks:
            share = self.share_of(name)
            out.append(name if share is None else share.label())
        return tuple(out)


@dataclass(frozen=True)
class TaskShare:
    """The part of one task's hours a leg runs (module docstring, "Share splits").

    `fraction` of the task's work (its tokens): `hours` on this leg's offering, of the
    `total_hours` the whole task takes there; `periods` whole prepaid periods of `unit` on the
    base leg (0 on the metered leg)."""

    task: str
    fraction: float
    hours: float
    total_hours: float
    unit: BillingUnit
    periods: int
    base: bool

    def label(self) -> Message:
        return msg(
            Code.PLAN_TASK_SHARE,
            task=self.task,
            hours=hours(self.hours),
            total=hours(self.total_hours),
        )
