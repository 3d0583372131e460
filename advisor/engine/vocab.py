"""The project's closed sets, each written once with the behaviour it carries.

Every layer derives from these: the engine's types, Django model and form choices
(`wording/choices.py` adds the translated labels), the API's serializer and filter choices,
the explorer's SQL unit tables and the advisor form's per-kind field groups. Adding a member here
and its label in `wording/choices.py` is the whole change; a test fails if a label is missing.

The rules that several layers apply to these values (staleness, busy hours of an instance, the
Pareto front, price per GPU-hour) are here too, so that no layer re-derives them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timedelta
from decimal import Decimal
from enum import StrEnum
from fractions import Fraction
from typing import TypeVar

T = TypeVar("T")

# A billing month is 30 days (720 h): the convention of the Chinese platforms' 包月 plans (AutoDL's
# billing help, "包月按30天计算") and of every monthly figure the advisor shows.
HOURS_PER_MONTH = 720


class BillingUnit(StrEnum):
    """The period a price is quoted for. Metered units are charged for the time used (per second
    on AutoDL and its clones, AutoDL help "计费说明"); prepaid units (包日/包周/包月) reserve the
    GPU for the whole period."""

    SECOND = "second"
    MINUTE = "minute"
    HOUR = "hour"
    DAY = "day"
    WEEK = "week"
    MONTH = "month"

    @property
    def seconds(self) -> int:
        return _UNIT_SECONDS[self]

    @property
    def hours(self) -> Fraction:
        """Hours in one unit, exact (a second is 1/3600 h)."""
        return Fraction(self.seconds, 3600)

    @property
    def metered(self) -> bool:
        return self in _METERED

    @property
    def prepaid(self) -> bool:
        return not self.metered

    @property
    def default_granularity_seconds(self) -> int:
        """Metering step when a price does not name one: metered prices are metered per second,
        prepaid plans are bought in whole units."""
        return 1 if self.metered else self.seconds


_UNIT_SECONDS = {
    BillingUnit.SECOND: 1,
    BillingUnit.MINUTE: 60,
    BillingUnit.HOUR: 3600,
    BillingUnit.DAY: 86400,
    BillingUnit.WEEK: 7 * 86400,
    BillingUnit.MONTH: HOURS_PER_MONTH * 3600,
}
_METERED = frozenset({BillingUnit.SECOND, BillingUnit.MINUTE, BillingUnit.HOUR})
METERED_UNITS = frozenset(u for u in BillingUnit if u.metered)
PREPAID_UNITS = frozenset(u for u in BillingUnit if u.prepaid)


class TaskKind(StrEnum):
    FULL_FINETUNE = "full_finetune"
    LORA = "lora"
    QLORA = "qlora"
    INFERENCE = "inference"
    FIXED = "fixed"

    @property
    def trains(self) -> bool:
        return self in _TRAINING

    @property
    def field_groups(self) -> frozenset[str]:
        """The groups of scenario fields that apply to this kind (FIELD_GROUPS)."""
        return frozenset(g for g, kinds in _GROUP_KINDS.items() if self in kinds)


_TRAINING = frozenset({TaskKind.FULL_FINETUNE, TaskKind.LORA, TaskKind.QLORA})
TRAINING_KINDS = frozenset(k for k in TaskKind if k.trains)
# Scenario fields by group; a group applies to the kinds listed for it.
FIELD_GROUPS: dict[str, tuple[str, ...]] = {
    "model": ("model", "config", "params", "arch", "precision", "attention"),
    "training": (
        "optimizer",
        "master_weights",
        "sharding",
        "offload",
        "activation_checkpointing",
        "activation_offload",
        "framework",
        "lora_targets",
        "fused_optimizer_step",
        "moe_implementation",
        "micro_batch",
        "gradient_accumulation",
        "seq_len",
        "lora_rank",
        "tokens",
        "jobs_per_month",
    ),
    "inference": (
        "context_len",
        "concurrent_sequences",
        "kv_precision",
        "serving",
        "workload",
        "prompt_tokens",
        "output_tokens",
        "serving_engine",
    ),
    # Diffusion models only (the scenario refuses them for a language model).
    "diffusion": ("resolution", "text_encoders", "text_encoder_precision"),
    "fixed": (
        "vram_gib",
        "frames",
        "seconds_per_frame",
        "reference_accelerator",
        "scale_by",
        "min_fp64_tflops",
        "needs_rt_cores",
        "needs_nvenc",
        "portable_code",
    ),
}
_GROUP_KINDS: dict[str, frozenset[TaskKind]] = {
    "model": frozenset(TaskKind) - {TaskKind.FIXED},
    "training": _TRAINING,
    "inference": frozenset({TaskKind.INFERENCE}),
    "diffusion": frozenset(TaskKind) - {TaskKind.FIXED},
    "fixed": frozenset({TaskKind.FIXED}),
}


def kinds_of_group(group: str) -> tuple[TaskKind, ...]:
    """The kinds a field group applies to, in declaration order."""
    return tuple(k for k in TaskKind if k in _GROUP_KINDS[group])


class Currency(StrEnum):
    CNY = "CNY"
    USD = "USD"

    @property
    def symbol(self) -> str:
        """How a price list writes the currency before an amount: ¥1.88, $2.49."""
        return _CURRENCY_SYMBOLS[self]


_CURRENCY_SYMBOLS = {Currency.CNY: "¥", Currency.USD: "$"}


class PriceTier(StrEnum):
    """Who a price is for. A platform's list price is what anyone pays; member, student and
    enterprise prices are discounts a renter qualifies for (AutoDL members pay 95 % of list, its
    `level_config`; 优云智算 gives universities and enterprises 5 % off). A renter is quoted their
    tier's price where the platform states one, else the list price."""

    LIST = "list"
    MEMBER = "member"
    STUDENT = "student"
    ENTERPRISE = "enterprise"


class PriceBasis(StrEnum):
    """What a price is, as its source states it (docs/advisor-rules.md, "What a price is"): an
    offer one can book (the list price or a tier's, `PriceTier`), a market floor (a "from" price,
    the lowest listed offer of a marketplace), a statistic of a market (its median), or another
    platform's statement of this platform's price (a competitor's claim). Floors and statistics
    are shown, never ranked as bookable unless a scenario asks for them
    (`include_market_statistics`)."""

    OFFER = "offer"
    FLOOR = "floor"
    STATISTIC = "statistic"
    CLAIM = "claim"

    @property
    def market(self) -> bool:
        """A market figure (a floor or a statistic), not a price one can book as stated."""
        return self in (PriceBasis.FLOOR, PriceBasis.STATISTIC)


class Objective(StrEnum):
    BALANCED = "balanced"
    COST = "cost"
    TIME = "time"


class When(StrEnum):
    """When a task runs. Tasks whose times overlap run at the same time; day and night tasks are
    time-shifted and share an instance and its bill."""

    ALWAYS = "always"
    DAY = "day"
    NIGHT = "night"
    BURST = "burst"

    @property
    def shift(self) -> str:
        """The slot the task occupies: "day", "night", or "base" (any time)."""
        return self.value if self in (When.DAY, When.NIGHT) else "base"


class Isolation(StrEnum):
    HARD = "hard"  # a whole GPU or a MIG slice
    SOFT = "soft"  # a pooled or shared GPU is acceptable


class SharingMode(StrEnum):
    """How an offering's GPU is sold: a whole card, a MIG slice, a pooled software slice (趋动云
    OrionX/sGPU), or a VM with passthrough."""

    EXCLUSIVE = "exclusive"
    MIG = "mig"
    POOLED = "pooled"
    VIRTUALIZED = "virtualized"


class MultiTask(StrEnum):
    """A platform's finest granularity for running several tasks on one machine."""

    MIG = "mig"
    POOLED = "pooled"
    INSTANCE = "instance"


class Interconnect(StrEnum):
    NVLINK = "nvlink"  # NVLink or NVSwitch
    PCIE = "pcie"
    NONE = "none"


class Network(StrEnum):
    """How an instance reaches other instances (the inter-node network of a multi-node task)."""

    INFINIBAND = "infiniband"
    ROCE = "roce"  # RDMA over Converged Ethernet
    EFA = "efa"  # AWS Elastic Fabric Adapter
    ETHERNET = "ethernet"  # plain TCP/IP, no RDMA


class DeliveryForm(StrEnum):
    """How an offering is handed to the renter (platforms.models.DeliveryForm holds the same)."""

    BARE_METAL = "bare_metal"
    CLOUD_CONTAINER = "cloud_container"
    CLOUD_VM = "cloud_vm"
    POOLED_CONTAINER = "pooled_container"


class PlacementMode(StrEnum):
    """How a task sits on its GPU in a placement."""

    WHOLE = "whole"  # exclusive GPU(s)
    MIG = "mig"  # a MIG slice: hardware isolation
    POOLED = "pooled"  # a pooled share: soft isolation
    SHARED = "shared"  # several of the user's tasks on one GPU, no isolation between them


class CostBasis(StrEnum):
    """What the ranked cost covers: the whole run of one-off jobs, or a month of recurring use."""

    JOB = "job"
    MONTH = "month"


class IdleWay(StrEnum):
    """How an instance spends the time between its runs, priced the cheapest way its platform
    allows (advisor/engine/idle.py; docs/billing-rules.md, "Idle time between runs")."""

    STOPPED = "stopped"  # stopped: only storage billed while stopped, where it is
    IDLE_MODE = "idle_mode"  # stopped, then kept in the no-GPU mode past the release window
    KEPT_RUNNING = "kept_running"  # stopped, then kept running past the release window
    RELEASED = "released"  # stopped, and released between runs with its data
    PREPAID = "prepaid"  # the prepaid plan already pays for it


class StorageUnit(StrEnum):
    GB_HOUR = "gb_hour"
    GB_DAY = "gb_day"
    GB_MONTH = "gb_month"
    TB_MONTH = "tb_month"

    @property
    def gb(self) -> int:
        """GB per unit; storage is sold in decimal units (TB = 1000 GB)."""
        return 1000 if self is StorageUnit.TB_MONTH else 1

    @property
    def hours(self) -> int:
        return {"gb_hour": 1, "gb_day": 24}.get(self.value, HOURS_PER_MONTH)


# ----------------------------------------------------------------------------------- shared rules


def stale_before(now: datetime, stale_after_days: int) -> datetime:
    """Prices last seen before this moment are stale."""
    return now - timedelta(days=stale_after_days)


def is_stale(observed_at: datetime, now: datetime, stale_after_days: int) -> bool:
    """The one staleness rule: a price not seen for more than `stale_after_days` days."""
    return observed_at < stale_before(now, stale_after_days)


def busy_hours(slots: Iterable[tuple[When, float]], *, cap: bool = True) -> float:
    """Busy hours of one instance running tasks (when, hours): tasks that may run at any time
    overlap (the longest counts), day and night tasks add up when that is more; capped at the
    billing month unless `cap` is False (a one-off run over several months)."""
    base = day = night = 0.0
    for when, hours in slots:
        shift = When(when).shift
        if shift == "day":
            day = max(day, hours)
        elif shift == "night":
            night = max(night, hours)
        else:
            base = max(base, hours)
    total = max(base, day + night)
    return min(float(HOURS_PER_MONTH), total) if cap else total


def pareto_front(
    items: Sequence[T], cost: Callable[[T], float], time: Callable[[T], float]
) -> list[T]:
    """The items no other is both cheaper (or as cheap) and faster than: sorted by cost, an item
    joins when it is faster than every cheaper one. Of exact duplicates the first is kept."""
    front: list[T] = []
    best = float("inf")
    for item in sorted(items, key=lambda i: (cost(i), time(i))):
        if not front or time(item) < best:
            front.append(item)
            best = time(item)
    return front


def price_per_gpu_hour(amount: Decimal, unit: BillingUnit | str, gpu_count: int) -> Decimal:
    """A price spread over its unit's hours and the offering's GPUs (a month is 720 h)."""
    hours = BillingUnit(unit).hours
    return amount * hours.denominator / (hours.numerator * max(gpu_count, 1))


__all__ = [
    "FIELD_GROUPS",
    "HOURS_PER_MONTH",
    "METERED_UNITS",
    "PREPAID_UNITS",
    "TRAINING_KINDS",
    "BillingUnit",
    "Currency",
    "IdleWay",
    "Interconnect",
    "Isolation",
    "MultiTask",
    "Network",
    "Objective",
    "PlacementMode",
    "SharingMode",
    "StorageUnit",
    "TaskKind",
    "When",
    "busy_hours",
    "is_stale",
    "kinds_of_group",
    "pareto_front",
    "price_per_gpu_hour",
    "stale_before",
]
