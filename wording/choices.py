"""The translated labels of the project's closed sets, and the Django choices derived from them.

The sets themselves, their order and their behaviour are `advisor/engine/vocab.py`; this module
adds only what the Django side shows: one label per member, in English, marked for translation.
Every choices class (the models', the advisor form's, the API's) is built from a vocab enum and
its labels here, so adding a member to vocab means adding its label here (and a migration where a
model field uses the choices). A member without a label, or a label for no member, stops the
import with ImproperlyConfigured, and tests/test_vocabulary.py checks the labels are translated.

Where one set is shown in two styles there are two named mappings: billing units are "per hour"
in choices and prices (BILLING_UNIT_LABELS) and "hour" in sentences such as "hour plan"
(UNIT_NOUNS); placement modes read as the recommendation shows them (PLACEMENT_LABELS).
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.db import models
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from advisor.engine import vocab

Labels = Mapping[StrEnum, Promise]

BILLING_UNIT_LABELS: Labels = {
    vocab.BillingUnit.SECOND: _("per second"),
    vocab.BillingUnit.MINUTE: _("per minute"),
    vocab.BillingUnit.HOUR: _("per hour"),
    vocab.BillingUnit.DAY: _("per day"),
    vocab.BillingUnit.WEEK: _("per week"),
    vocab.BillingUnit.MONTH: _("per month"),
}
# A billing unit as a noun, for sentences ("the hour plan", "busy hours per month").
UNIT_NOUNS: Labels = {
    vocab.BillingUnit.SECOND: _("second"),
    vocab.BillingUnit.MINUTE: _("minute"),
    vocab.BillingUnit.HOUR: _("hour"),
    vocab.BillingUnit.DAY: _("day"),
    vocab.BillingUnit.WEEK: _("week"),
    vocab.BillingUnit.MONTH: _("month"),
}
STORAGE_UNIT_LABELS: Labels = {
    vocab.StorageUnit.GB_HOUR: _("per GB-hour"),
    vocab.StorageUnit.GB_DAY: _("per GB-day"),
    vocab.StorageUnit.GB_MONTH: _("per GB-month"),
    vocab.StorageUnit.TB_MONTH: _("per TB-month"),
}
CURRENCY_LABELS: Labels = {
    vocab.Currency.CNY: _("CNY (¥)"),
    vocab.Currency.USD: _("USD ($)"),
}
PRICE_TIER_LABELS: Labels = {
    vocab.PriceTier.LIST: _("list price"),
    vocab.PriceTier.MEMBER: _("member price"),
    vocab.PriceTier.STUDENT: _("student price"),
    vocab.PriceTier.ENTERPRISE: _("enterprise price"),
}
PRICE_BASIS_LABELS: Labels = {
    vocab.PriceBasis.OFFER: _("bookable price"),
    vocab.PriceBasis.FLOOR: _('market floor ("from")'),
    vocab.PriceBasis.STATISTIC: _("market statistic"),
    vocab.PriceBasis.CLAIM: _("competitor's claim"),
}
SHARING_MODE_LABELS: Labels = {
    vocab.SharingMode.EXCLUSIVE: _("exclusive whole GPU"),
    vocab.SharingMode.MIG: _("MIG slice"),
    vocab.SharingMode.POOLED: _("pooled slice"),
    vocab.SharingMode.VIRTUALIZED: _("virtualized (passthrough)"),
}
MULTI_TASK_LABELS: Labels = {
    vocab.MultiTask.MIG: _("MIG (hardware partitions)"),
    vocab.MultiTask.POOLED: _("pooled slices (sGPU)"),
    vocab.MultiTask.INSTANCE: _("instance level (one task per instance)"),
}
INTERCONNECT_LABELS: Labels = {
    vocab.Interconnect.NVLINK: _("NVLink / NVSwitch"),
    vocab.Interconnect.PCIE: _("PCIe"),
    vocab.Interconnect.NONE: _("none"),
}
NETWORK_LABELS: Labels = {
    vocab.Network.INFINIBAND: _("InfiniBand"),
    vocab.Network.ROCE: _("RoCE (RDMA over Ethernet)"),
    vocab.Network.EFA: _("AWS EFA"),
    vocab.Network.ETHERNET: _("Ethernet (TCP, no RDMA)"),
}
DELIVERY_FORM_LABELS: Labels = {
    vocab.DeliveryForm.BARE_METAL: _("bare metal"),
    vocab.DeliveryForm.CLOUD_CONTAINER: _("cloud container"),
    vocab.DeliveryForm.CLOUD_VM: _("cloud VM"),
    vocab.DeliveryForm.POOLED_CONTAINER: _("pooled container"),
}
TASK_KIND_LABELS: Labels = {
    vocab.TaskKind.FULL_FINETUNE: _("Full fine-tune"),
    vocab.TaskKind.LORA: _("LoRA fine-tune"),
    vocab.TaskKind.QLORA: _("QLoRA fine-tune"),
    vocab.TaskKind.INFERENCE: _("Inference (serving)"),
    vocab.TaskKind.FIXED: _("Fixed VRAM (rendering, simulation)"),
}
WHEN_LABELS: Labels = {
    vocab.When.ALWAYS: _("Always"),
    vocab.When.DAY: _("Daytime"),
    vocab.When.NIGHT: _("Night"),
    vocab.When.BURST: _("In bursts"),
}
ISOLATION_LABELS: Labels = {
    vocab.Isolation.HARD: _("Hard (exclusive GPU or MIG)"),
    vocab.Isolation.SOFT: _("Soft (a pooled or shared GPU is fine)"),
}
OBJECTIVE_LABELS: Labels = {
    vocab.Objective.BALANCED: _("Balanced (cost and time)"),
    vocab.Objective.COST: _("Lowest cost"),
    vocab.Objective.TIME: _("Shortest time"),
}
# How a task sits on its GPU, as a recommendation shows it.
PLACEMENT_LABELS: Labels = {
    vocab.PlacementMode.WHOLE: _("exclusive GPU"),
    vocab.PlacementMode.MIG: _("MIG slice (hardware isolation)"),
    vocab.PlacementMode.POOLED: _("pooled share (soft isolation)"),
    vocab.PlacementMode.SHARED: _("shared GPU (no isolation between your tasks)"),
}
# What a recommendation's ranked cost covers.
COST_BASIS_LABELS: Labels = {
    vocab.CostBasis.JOB: _("for the whole job"),
    vocab.CostBasis.MONTH: _("per month"),
}
# How an instance spends the time between its runs.
IDLE_WAY_LABELS: Labels = {
    vocab.IdleWay.STOPPED: _("stopped"),
    vocab.IdleWay.IDLE_MODE: _("stopped, then no-GPU mode"),
    vocab.IdleWay.KEPT_RUNNING: _("stopped, then kept running"),
    vocab.IdleWay.RELEASED: _("stopped and released"),
    vocab.IdleWay.PREPAID: _("paid by the prepaid plan"),
}

# The label each vocab enum is shown with by default (`label()`); the other styles are above.
LABELS: dict[type[StrEnum], Labels] = {
    vocab.BillingUnit: BILLING_UNIT_LABELS,
    vocab.StorageUnit: STORAGE_UNIT_LABELS,
    vocab.Currency: CURRENCY_LABELS,
    vocab.PriceTier: PRICE_TIER_LABELS,
    vocab.PriceBasis: PRICE_BASIS_LABELS,
    vocab.SharingMode: SHARING_MODE_LABELS,
    vocab.MultiTask: MULTI_TASK_LABELS,
    vocab.Interconnect: INTERCONNECT_LABELS,
    vocab.Network: NETWORK_LABELS,
    vocab.DeliveryForm: DELIVERY_FORM_LABELS,
    vocab.TaskKind: TASK_KIND_LABELS,
    vocab.When: WHEN_LABELS,
    vocab.Isolation: ISOLATION_LABELS,
    vocab.Objective: OBJECTIVE_LABELS,
    vocab.PlacementMode: PLACEMENT_LABELS,
    vocab.CostBasis: COST_BASIS_LABELS,
    vocab.IdleWay: IDLE_WAY_LABELS,
}
# Every mapping of labels, by name, each checked against its enum below (and by the tests).
ALL_LABELS: dict[str, tuple[type[StrEnum], Labels]] = {
    "BILLING_UNIT_LABELS": (vocab.BillingUnit, BILLING_UNIT_LABELS),
    "UNIT_NOUNS": (vocab.BillingUnit, UNIT_NOUNS),
    "STORAGE_UNIT_LABELS": (vocab.StorageUnit, STORAGE_UNIT_LABELS),
    "CURRENCY_LABELS": (vocab.Currency, CURRENCY_LABELS),
    "PRICE_TIER_LABELS": (vocab.PriceTier, PRICE_TIER_LABELS),
    "PRICE_BASIS_LABELS": (vocab.PriceBasis, PRICE_BASIS_LABELS),
    "SHARING_MODE_LABELS": (vocab.SharingMode, SHARING_MODE_LABELS),
    "MULTI_TASK_LABELS": (vocab.MultiTask, MULTI_TASK_LABELS),
    "INTERCONNECT_LABELS": (vocab.Interconnect, INTERCONNECT_LABELS),
    "NETWORK_LABELS": (vocab.Network, NETWORK_LABELS),
    "DELIVERY_FORM_LABELS": (vocab.DeliveryForm, DELIVERY_FORM_LABELS),
    "TASK_KIND_LABELS": (vocab.TaskKind, TASK_KIND_LABELS),
    "WHEN_LABELS": (vocab.When, WHEN_LABELS),
    "ISOLATION_LABELS": (vocab.Isolation, ISOLATION_LABELS),
    "OBJECTIVE_LABELS": (vocab.Objective, OBJECTIVE_LABELS),
    "PLACEMENT_LABELS": (vocab.PlacementMode, PLACEMENT_LABELS),
    "COST_BASIS_LABELS": (vocab.CostBasis, COST_BASIS_LABELS),
    "IDLE_WAY_LABELS": (vocab.IdleWay, IDLE_WAY_LABELS),
}


def check_labels(enum: type[StrEnum], labels: Labels, name: str) -> None:
    """ImproperlyConfigured unless `labels` has exactly one label for each member of `enum`."""
    missing = [m.value for m in enum if m not in labels]
    unknown = [str(k) for k in labels if not isinstance(k, enum)]
    if missing or unknown:
        problems = []
        if missing:
            problems.append(f"no label for {', '.join(missing)}")
        if unknown:
            problems.append(f"labels for no member: {', '.join(unknown)}")
        raise ImproperlyConfigured(
            f"wording/choices.py {name} ({enum.__name__}): {'; '.join(problems)}"
        )


# `Any`: the class is made at run time, so its members (BillingUnit.HOUR, ...) are unknown to mypy.
def text_choices(enum: type[StrEnum], labels: Labels, name: str = "") -> Any:
    """A Django TextChoices class with the members of `enum`, in its order, labelled by `labels`.

    Its members are `str`, equal to the vocab ones: `BillingUnit.HOUR == vocab.BillingUnit.HOUR`.
    """
    check_labels(enum, labels, name or enum.__name__)
    # The functional Enum API takes module=; django-stubs' TextChoices overloads leave it out.
    return models.TextChoices(  # type: ignore[call-overload]
        enum.__name__, [(m.name, (m.value, labels[m])) for m in enum], module=__name__
    )


for _name, (_enum, _labels) in ALL_LABELS.items():
    check_labels(_enum, _labels, _name)
_missing_enums = [
    e.__name__
    for e in vars(vocab).values()
    if isinstance(e, type) and issubclass(e, StrEnum) and e is not StrEnum and e not in LABELS
]
if _missing_enums:
    raise ImproperlyConfigured(f"wording/choices.py LABELS: no labels for {_missing_enums}")

BillingUnit = text_choices(vocab.BillingUnit, BILLING_UNIT_LABELS)
StorageUnit = text_choices(vocab.StorageUnit, STORAGE_UNIT_LABELS)
Currency = text_choices(vocab.Currency, CURRENCY_LABELS)
PriceTier = text_choices(vocab.PriceTier, PRICE_TIER_LABELS)
PriceBasis = text_choices(vocab.PriceBasis, PRICE_BASIS_LABELS)
SharingMode = text_choices(vocab.SharingMode, SHARING_MODE_LABELS)
MultiTask = text_choices(vocab.MultiTask, MULTI_TASK_LABELS)
Interconnect = text_choices(vocab.Interconnect, INTERCONNECT_LABELS)
Network = text_choices(vocab.Network, NETWORK_LABELS)
DeliveryForm = text_choices(vocab.DeliveryForm, DELIVERY_FORM_LABELS)
TaskKind = text_choices(vocab.TaskKind, TASK_KIND_LABELS)
When = text_choices(vocab.When, WHEN_LABELS)
Isolation = text_choices(vocab.Isolation, ISOLATION_LABELS)
Objective = text_choices(vocab.Objective, OBJECTIVE_LABELS)


def label(member: StrEnum) -> str:
    """The translated label of a vocab enum member (or of a choices member), in the active
    language: "per hour" for BillingUnit.HOUR, "exclusive GPU" for PlacementMode.WHOLE."""
    if isinstance(member, models.Choices):
        return str(member.label)
    labels = LABELS.get(type(member))
    if labels is None:
        raise TypeError(f"{member!r} is not a member of a vocabulary enum")
    return str(labels[member])


def values(enum: type[StrEnum]) -> list[str]:
    """The members' values as plain strings, in order: choices for the API's schema."""
    return [m.value for m in enum]
