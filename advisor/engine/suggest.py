"""What would fit when nothing does: changes to a scenario, each a whole scenario to run again.

`what_would_fit` turns a NoFit into candidate changes, nearest first:

* a task that does not fit the GPUs it was asked on (`on`), or the card of the closest miss: the
  memory fixes of memory.fix_variants (checkpointing, offload, LoRA, QLoRA, more GPUs, lower
  precision...), each as the task changed so, more GPUs counted in whole instances of the
  closest miss (k machines of its n GPUs, as placement puts a task over several instances);
  and, for a task pinned with `on`, the same task on any hardware the catalogue has;
* the closest miss over budget: the budget that admits it (its busiest month, rounded up to a
  whole unit of the currency); past the deadline: the deadline it meets (whole hours, up);
* each constraint that left offerings out (physical exclusivity, NVLink, domestic accelerators,
  chosen platforms, fresh prices only, no spot capacity for services or none at all, no ports
  to other compute stacks: stacks.py): the scenario without it.

These are candidates: the caller runs each against the catalogue and keeps those that are
answered with recommendations (advisor/services.py), so a suggestion offered is one that works.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from decimal import Decimal

from advisor.engine.capacity import usable_bytes
from advisor.engine.errors import ClosestMiss
from advisor.engine.estimate import Estimate
from advisor.engine.memory import fix_variants, task_memory
from advisor.engine.messages import Code, Message, Money, hours, msg
from advisor.engine.timing import DEFAULT_GPUS_PER_NODE
from advisor.engine.types import AcceleratorSpec, Constraints, Scenario, Task
from advisor.engine.vocab import BillingUnit

# At most this many candidates: a list a person reads, and each is run once more to check it.
MAX_SUGGESTIONS = 10


@dataclass(frozen=True)
class Suggestion:
    """One change (`change`, a sentence) and the scenario with it made."""

    change: Message
    scenario: Scenario


def what_would_fit(
    scenario: Scenario,
    estimate: Estimate,
    closest: ClosestMiss | None,
    rejected: Mapping[Code, int],
    accelerators: Mapping[str, AcceleratorSpec],
) -> list[Suggestion]:
    """Candidate changes that may let the advisor answer `scenario` (module docstring)."""
    out: list[Suggestion] = []
    out.extend(_memory(scenario, estimate, closest, accelerators))
    if closest is not None:
        out.extend(_nearest(scenario, closest))
    out.extend(_relaxed(scenario, rejected))
    unique: dict[Scenario, Suggestion] = {}
    for s in out:
        if s.scenario != scenario:
            unique.setdefault(s.scenario, s)
    return list(unique.values())[:MAX_SUGGESTIONS]


def _with_task(scenario: Scenario, index: int, task: Task) -> Scenario:
    tasks = (*scenario.tasks[:index], task, *scenario.tasks[index + 1 :])
    return replace(scenario, tasks=tasks, preset=None)


def _with_constraints(scenario: Scenario, **changes: object) -> Scenario:
    constraints = replace(scenario.constraints, **changes)  # type: ignore[arg-type]
    return replace(scenario, constraints=constraints, preset=None)


def _memory(
    scenario: Scenario,
    estimate: Estimate,
    closest: ClosestMiss | None,
    accelerators: Mapping[str, AcceleratorSpec],
) -> list[Suggestion]:
    """Memory fixes for each task too big for its GPUs: those of `on`, else the closest miss's."""
    out: list[Suggestion] = []
    memory_miss = closest is not None and closest.reason is Code.REJECT_DOES_NOT_FIT
    card = accelerators.get(closest.accelerator) if closest is not None and memory_miss else None
    for index, (task, est) in enumerate(zip(scenario.tasks, estimate.tasks, strict=True)):
        if task.on is not None:
            if est.fit is None or est.fit.fits:
                continue
            capacity = est.fit.usable_bytes
            per_machine = task.on.gpus_per_node or DEFAULT_GPUS_PER_NODE
        elif (
            card is not None and closest is not None and closest.reason is Code.REJECT_DOES_NOT_FIT
        ):
            capacity = usable_bytes(card.vram_gib)
            if task_memory(task).per_gpu.total <= capacity:
                continue
            # More GPUs come in whole instances of the closest miss: a task over more GPUs than
            # one holds is placed on several (placement.py).
            per_machine = closest.gpus_per_instance
        else:
            continue
        for change, variant in fix_variants(task, capacity, per_machine):
            if variant is not None:
                label = msg(Code.SUGGEST_TASK_CHANGE, task=task.name, change=change)
                out.append(Suggestion(label, _with_task(scenario, index, variant)))
        if task.on is not None:
            # The card by its name, not as the scenario spells it (a slug or an alias).
            named = est.on.name if est.on is not None else task.on.accelerator
            label = msg(Code.SUGGEST_ANY_HARDWARE, task=task.name, accelerator=named)
            out.append(Suggestion(label, _with_task(scenario, index, replace(task, on=None))))
    return out


def _nearest(scenario: Scenario, closest: ClosestMiss) -> list[Suggestion]:
    """The budget or deadline the closest miss needs."""
    c = scenario.constraints
    if closest.reason is Code.REJECT_OVER_BUDGET and c.budget_per_month is not None:
        budget = Decimal(math.ceil(closest.closeness))
        label = msg(Code.SUGGEST_BUDGET, budget=Money(budget, c.currency, per=BillingUnit.MONTH))
        return [Suggestion(label, _with_constraints(scenario, budget_per_month=budget))]
    if closest.reason is Code.REJECT_MISSES_DEADLINE and c.deadline_hours is not None:
        deadline = float(math.ceil(closest.closeness))
        label = msg(Code.SUGGEST_DEADLINE, hours=hours(deadline, places=0))
        return [Suggestion(label, _with_constraints(scenario, deadline_hours=deadline))]
    return []


def _relaxed(scenario: Scenario, rejected: Mapping[Code, int]) -> list[Suggestion]:
    """The scenario without each constraint that left offerings out."""
    c = scenario.constraints
    defaults = Constraints()
    # (what left offerings out, whether the scenario asks for it, the change, the fields)
    options: list[tuple[Code, bool, Code, dict[str, object]]] = [
        (
            Code.REJECT_NOT_EXCLUSIVE,
            c.physically_exclusive,
            Code.SUGGEST_NOT_EXCLUSIVE,
            {"physically_exclusive": defaults.physically_exclusive},
        ),
        (
            Code.REJECT_EXCLUSIVE_UNKNOWN,
            c.physically_exclusive,
            Code.SUGGEST_NOT_EXCLUSIVE,
            {"physically_exclusive": defaults.physically_exclusive},
        ),
        (
            Code.REJECT_NO_NVLINK,
            c.require_nvlink,
            Code.SUGGEST_NO_NVLINK,
            {"require_nvlink": defaults.require_nvlink},
        ),
        (
            Code.REJECT_NOT_DOMESTIC,
            c.domestic_only,
            Code.SUGGEST_NOT_DOMESTIC_ONLY,
            {"domestic_only": defaults.domestic_only},
        ),
        (
            Code.REJECT_NOT_ON_PLATFORMS,
            bool(c.platforms),
            Code.SUGGEST_ALL_PLATFORMS,
            {"platforms": defaults.platforms},
        ),
        (
            Code.REJECT_NO_CURRENT_PRICE,
            c.fresh_only,
            Code.SUGGEST_STALE_PRICES,
            {"fresh_only": defaults.fresh_only},
        ),
        (
            Code.REJECT_STACK_PORT_ONLY,
            not c.allow_ports,
            Code.SUGGEST_ALLOW_PORTS,
            {"allow_ports": True},
        ),
        (
            Code.REJECT_INTERRUPTIBLE_SERVICE,
            c.allow_interruptible is not True,
            Code.SUGGEST_INTERRUPTIBLE,
            {"allow_interruptible": True},
        ),
        (
            Code.REJECT_MARKET_FIGURE,
            not c.include_market_statistics,
            Code.SUGGEST_INCLUDE_MARKET,
            {"include_market_statistics": True},
        ),
        # "No spot" asked: spot for jobs again (the default), services still kept from it.
        (
            Code.REJECT_INTERRUPTIBLE_NOT_ALLOWED,
            c.allow_interruptible is False,
            Code.SUGGEST_INTERRUPTIBLE_JOBS,
            {"allow_interruptible": defaults.allow_interruptible},
        ),
    ]
    options += _renting_relaxed(c, defaults)
    out: list[Suggestion] = []
    for reason, active, code, fields in options:
        if active and rejected.get(reason):
            label = _relax_label(code, c)
            out.append(Suggestion(label, _with_constraints(scenario, **fields)))
    return out


def _renting_relaxed(
    c: Constraints, defaults: Constraints
) -> list[tuple[Code, bool, Code, dict[str, object]]]:
    """The renters' filters (ranking.renting_miss), each dropped where it left offerings out; a
    renter from abroad is who the renter is, never relaxed."""
    host: dict[str, object] = {
        "min_vcpus_per_gpu": defaults.min_vcpus_per_gpu,
        "min_ram_gib_per_gpu": defaults.min_ram_gib_per_gpu,
        "min_disk_gb_per_gpu": defaults.min_disk_gb_per_gpu,
    }
    sized = bool(c.min_vcpus_per_gpu or c.min_ram_gib_per_gpu or c.min_disk_gb_per_gpu)
    countries: dict[str, object] = {"countries": defaults.countries}
    regions: dict[str, object] = {"regions": defaults.regions}
    forms: dict[str, object] = {"delivery_forms": defaults.delivery_forms}
    return [
        (Code.REJECT_NOT_IN_COUNTRIES, bool(c.countries), Code.SUGGEST_ANY_COUNTRY, countries),
        (Code.REJECT_COUNTRY_UNKNOWN, bool(c.countries), Code.SUGGEST_ANY_COUNTRY, countries),
        (Code.REJECT_NOT_IN_REGIONS, bool(c.regions), Code.SUGGEST_ANY_REGION, regions),
        (Code.REJECT_REGION_UNKNOWN, bool(c.regions), Code.SUGGEST_ANY_REGION, regions),
        (
            Code.REJECT_NOT_DELIVERY_FORM,
            bool(c.delivery_forms),
            Code.SUGGEST_ANY_DELIVERY_FORM,
            forms,
        ),
        (
            Code.REJECT_DELIVERY_FORM_UNKNOWN,
            bool(c.delivery_forms),
            Code.SUGGEST_ANY_DELIVERY_FORM,
            forms,
        ),
        *(
            (reason, sized, Code.SUGGEST_ANY_HOST_SIZE, host)
            for reason in (
                Code.REJECT_FEW_VCPUS,
                Code.REJECT_VCPUS_UNKNOWN,
                Code.REJECT_LITTLE_RAM,
                Code.REJECT_RAM_UNKNOWN,
                Code.REJECT_LITTLE_DISK,
                Code.REJECT_DISK_UNKNOWN,
            )
        ),
    ]


def _relax_label(code: Code, c: Constraints) -> Message:
    if code is Code.SUGGEST_ALL_PLATFORMS:
        return msg(code, platforms=c.platforms)
    if code is Code.SUGGEST_ANY_COUNTRY:
        return msg(code, countries=c.countries)
    if code is Code.SUGGEST_ANY_REGION:
        return msg(code, regions=c.regions)
    return msg(code)


__all__ = ["MAX_SUGGESTIONS", "Suggestion", "what_would_fit"]
