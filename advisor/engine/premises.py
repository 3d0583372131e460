"""The seed article's claims, checked: the arithmetic of "2026多任务GPU平台怎么选" (智星云) against
the engine's own figures and the catalogue's prices.

A preset of the article (advisor/presets.json) names the claims it makes (`checks`, names in
CHECKS). Each check computes from the engine's memory plan, capacities, time model and prices as
they stand, never from numbers typed in here: only the article's quoted figures are (below, each
with the article's words). A check says whether the claim holds, does not hold, or cannot be told
on this catalogue (`holds` None), with its arithmetic line by line. The claim and every line are
`Message`s (codes PREMISE_*, messages.py): the Django edge renders them in the reader's language,
as it renders the verdict on the article's pick (verdict.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from decimal import Decimal
from types import MappingProxyType

from advisor.engine.advise import advise
from advisor.engine.billing import PREPAID_UNITS, cents
from advisor.engine.capacity import usable_bytes
from advisor.engine.errors import AdvisorError, NoFit
from advisor.engine.estimate import Estimate
from advisor.engine.messages import Code, Message, Money, Param, Quantity, Unit, msg
from advisor.engine.plans import SAVING_THRESHOLD, PlanSearch
from advisor.engine.presets import MODEL_PRESETS, PRESET_INFO
from advisor.engine.ranking import Advice, Recommendation
from advisor.engine.timing import training_time
from advisor.engine.types import (
    GB,
    AcceleratorSpec,
    ExchangeRateSpec,
    GiB,
    OfferingSpec,
    Scenario,
    StoragePriceSpec,
)
from advisor.engine.verdict import Verdict
from advisor.engine.vocab import HOURS_PER_MONTH, Interconnect, Isolation, PlacementMode

# The article's figures, as it quotes them.
# "所需显存≈模型参数量×20 bytes（全参微调）" and "70B模型约需140GB显存".
ARTICLE_BYTES_PER_PARAM = 20
ARTICLE_70B_CLAIM_GB = 140
# The medical case: "A100 80G八卡裸金属（月费28,000元）… 实际8天完成，总成本约11,200元".
ARTICLE_CASE_MONTHLY = 28_000
ARTICLE_CASE_DAYS = 8
ARTICLE_CASE_TOTAL = 11_200
# 组合一: "A100 80G八卡整机原生NVLink互联，多卡效率比PCIe方案高20%-30%".
ARTICLE_NVLINK_GAIN = (0.20, 0.30)
# 组合二: "智星云4090 48G八卡裸金属月费12,000元，单卡折合1,500元".
ARTICLE_RENDER_MONTHLY = 12_000
ARTICLE_RENDER_CARDS = 8
ARTICLE_RENDER_PER_CARD = 1_500
# Tip 4: "智星云包月保底+趋动云按需补充 … 综合成本能压低15%-20%".
ARTICLE_MIXED_SAVING = (Decimal("0.15"), Decimal("0.20"))
# Q1: "MIG … 能将一张A100物理切分成最多7个独立实例".
ARTICLE_MIG_INSTANCES = 7
# Q3: "如果同时需要5个任务并行，就得开5张卡".
ARTICLE_PARALLEL_TASKS = 5

# The billing month in days (vocab.HOURS_PER_MONTH): the article prorates its case by it.
DAYS_PER_MONTH = HOURS_PER_MONTH // 24
# The platforms whose physical exclusivity Q4 compares (the article names them).
ZHIXINGYUN = "zhixingyun"
EXCLUSIVITY_PLATFORMS = (ZHIXINGYUN, "hengyuanyun", "matpool", "virtaicloud")


@dataclass(frozen=True)
class Check:
    """One claim of the article, checked: whether it holds (None: cannot be told here) and the
    arithmetic, one message a line."""

    id: str
    claim: Message
    holds: bool | None
    lines: tuple[Message, ...]

    @property
    def ok(self) -> bool:
        return self.holds is True

    @property
    def verdict(self) -> str:
        """holds | does_not_hold | cannot_tell"""
        if self.holds is None:
            return "cannot_tell"
        return "holds" if self.holds else "does_not_hold"


@dataclass(frozen=True)
class PlatformClaim:
    """What the catalogue says of one platform's physical exclusivity, and whose word it is
    ("智星云 about itself (vendor claim)"), as the edge words its sources."""

    name: str
    physically_exclusive: bool | None
    said_by: str


@dataclass(frozen=True)
class Premises:
    """What the checks read: the scenario's answer and the catalogue it was priced on."""

    scenario: Scenario
    estimate: Estimate
    accelerators: Mapping[str, AcceleratorSpec]
    offerings: Sequence[OfferingSpec]
    platforms: Mapping[str, str]  # slug -> name
    now: datetime
    rates: Sequence[ExchangeRateSpec] = ()
    storage_prices: Sequence[StoragePriceSpec] = ()
    stale_after_days: int = 30  # advise's default; the service passes its setting
    advice: Advice | None = None
    plans: PlanSearch | None = None
    verdict: Verdict | None = None
    # EXCLUSIVITY_PLATFORMS as the catalogue states them, in its order (Q4).
    exclusivity: tuple[PlatformClaim, ...] = ()


def _count(value: float | Decimal, places: int = 0) -> Quantity:
    """A plain number shown with `places` decimals."""
    return Quantity(float(value), Unit.COUNT, places)


def _gib(n: float) -> Quantity:
    """Bytes as a number of GiB with two decimals (the template says "GiB")."""
    return _count(n / GiB, 2)


def _cny(amount: Decimal, currency: str) -> Money:
    return Money(cents(amount), currency)


def _percent(share: float | Decimal) -> Quantity:
    return Quantity(float(share), Unit.FRACTION, 1)


def _check(name: str, claim: Message, holds: bool | None, lines: Sequence[Message]) -> Check:
    return Check(name, claim, holds, tuple(lines))


# --------------------------------------------------------------------- checks on the memory plan


def _rule_of_thumb(p: Premises) -> Check | None:
    task = p.scenario.tasks[0]
    arch = MODEL_PRESETS.get(task.model or "")
    if arch is None or task.model is None:
        return None
    params = arch.params
    twenty = params * ARTICLE_BYTES_PER_PARAM
    return _check(
        "rule_of_thumb",
        msg(Code.PREMISE_CLAIM_RULE_OF_THUMB, gb=ARTICLE_70B_CLAIM_GB),
        False,
        [
            msg(Code.PREMISE_MODEL_PARAMS, model=PRESET_INFO[task.model].name, params=params),
            msg(
                Code.PREMISE_TWENTY_BYTES,
                params=params,
                gb=_count(twenty / GB),
                tb=_count(twenty / 1e12, 2),
                claim=ARTICLE_70B_CLAIM_GB,
            ),
            msg(
                Code.PREMISE_WEIGHTS_ONLY,
                claim=ARTICLE_70B_CLAIM_GB,
                params=params,
                w=_count(params * 2 / GB),
            ),
        ],
    )


def _fit_on(p: Premises) -> Check | None:
    task = p.estimate.tasks[0]
    fit, on = task.fit, task.on
    if fit is None or on is None:
        return None
    per_gpu = task.per_gpu.total
    lines = [
        msg(
            Code.PREMISE_SHARDED,
            gpus=task.gpus,
            need=_gib(per_gpu),
            all=_gib(per_gpu * task.gpus),
        ),
        msg(
            Code.PREMISE_USABLE,
            gpu=on.name,
            usable=_gib(fit.usable_bytes),
            verdict=msg(Code.PREMISE_FITS if fit.fits else Code.PREMISE_DOES_NOT_FIT),
        ),
    ]
    if fit.suggestions:
        lines.append(msg(Code.PREMISE_SEE_MEMORY_PLAN))
    return _check("fit_on", msg(Code.PREMISE_CLAIM_FIT_ON), fit.fits, lines)


def _case_cost(p: Premises) -> Check:
    prorated = ARTICLE_CASE_MONTHLY * ARTICLE_CASE_DAYS / DAYS_PER_MONTH
    return _check(
        "case_cost",
        msg(Code.PREMISE_CLAIM_CASE_COST, monthly=ARTICLE_CASE_MONTHLY, total=ARTICLE_CASE_TOTAL),
        False,
        [
            msg(
                Code.PREMISE_PRORATED,
                monthly=ARTICLE_CASE_MONTHLY,
                days=ARTICLE_CASE_DAYS,
                month_days=DAYS_PER_MONTH,
                prorated=round(prorated),
            ),
            msg(
                Code.PREMISE_DAYS_WORTH,
                total=ARTICLE_CASE_TOTAL,
                days=_count(ARTICLE_CASE_TOTAL * DAYS_PER_MONTH / ARTICLE_CASE_MONTHLY, 1),
            ),
        ],
    )


def _one_card(p: Premises) -> Check:
    tasks = p.estimate.tasks
    together = sum(t.per_gpu.total for t in tasks)
    terms: Param = ""
    for i, t in enumerate(tasks):
        term = msg(Code.PREMISE_TASK_GIB, gib=_gib(t.per_gpu.total), task=t.name)
        terms = term if i == 0 else msg(Code.PREMISE_PLUS, a=terms, b=term)
    lines = [msg(Code.PREMISE_SUM_GIB, terms=terms, total=_gib(together))]
    verdicts = []
    for capacity in (24, 48):
        usable = usable_bytes(capacity)
        fits = together <= usable
        verdicts.append(fits)
        lines.append(
            msg(
                Code.PREMISE_CARD_BOTH,
                cap=capacity,
                usable=_gib(usable),
                verdict=msg(Code.PREMISE_FIT if fits else Code.PREMISE_DO_NOT_FIT),
            )
        )
    return _check("one_card", msg(Code.PREMISE_CLAIM_ONE_CARD), verdicts == [False, True], lines)


# --------------------------------------------------------------------- checks on the catalogue


def _reprice(p: Premises, scenario: Scenario) -> Advice | None:
    """The same catalogue's answer to a variant of the scenario (None: nothing fits)."""
    try:
        return advise(
            replace(scenario, preset=None),
            p.offerings,
            p.accelerators,
            now=p.now,
            rates=p.rates,
            storage_prices=p.storage_prices,
            stale_after_days=p.stale_after_days,
            limit=1,
        )
    except NoFit:
        return None


def _on_platform(p: Premises, slug: str) -> Recommendation | None:
    """The scenario's best recommendation on one platform alone."""
    c = p.scenario.constraints
    advice = _reprice(p, replace(p.scenario, constraints=replace(c, platforms=(slug,))))
    return advice.recommendations[0] if advice is not None else None


def _rec(rec: Recommendation) -> Message:
    return msg(Code.PREMISE_REC_ON, offering=rec.offering_name, platform=rec.platform_name)


def _platform_name(p: Premises, slug: str) -> str:
    return p.platforms.get(slug, slug)


def _mixed_saving(p: Premises) -> Check | None:
    """Tip 4: the article's mixed plan (or, where it cannot be priced, the catalogue's best plan
    across two platforms) against the best single-platform plan."""
    plans = p.plans
    if plans is None or plans.single is None:
        return None
    ccy = p.scenario.constraints.currency
    low, high = ARTICLE_MIXED_SAVING
    single = plans.single
    lines = [msg(Code.PREMISE_BEST_SINGLE, plan=single.label(), cost=_cny(single.cost, ccy))]
    verdict = p.verdict
    holds: bool | None = None
    article = verdict.pick if verdict is not None else None
    part = verdict.priced_part if verdict is not None else None
    if article is None and part is not None:
        lines.append(msg(Code.PREMISE_PART_ALONE, part=part.label(), cost=_cny(part.cost, ccy)))
        if part.cost >= single.cost * (1 - low):
            # Whatever the unpriced leg costs, the plan saves less than the claim's 15 %.
            holds = False
            lines.append(
                msg(
                    Code.PREMISE_CANNOT_SAVE,
                    limit=_cny(single.cost * (1 - low), ccy),
                    low=_percent(low),
                )
            )
    if article is not None:
        saving = (single.cost - article.cost) / single.cost if single.cost else Decimal(0)
        lines.append(
            msg(
                Code.PREMISE_ARTICLE_PLAN,
                plan=article.label(),
                cost=_cny(article.cost, ccy),
                share=_percent(saving),
            )
        )
        holds = saving >= low
    elif verdict is not None and part is None:
        lines.append(verdict.message)
    best = plans.best_cross
    if best is not None and plans.saving_fraction is not None:
        lines.append(
            msg(
                Code.PREMISE_CHEAPEST_CROSS,
                plan=best.label(),
                cost=_cny(best.cost, ccy),
                share=_percent(plans.saving_fraction),
            )
        )
        if holds is None:
            holds = Decimal(str(plans.saving_fraction)) >= low
            lines.append(msg(Code.PREMISE_JUDGED_ON_CROSS))
    lines.append(
        msg(
            Code.PREMISE_SPLIT_THRESHOLD,
            low=_percent(low),
            high=_percent(high),
            limit=_percent(SAVING_THRESHOLD),
        )
    )
    claim = msg(Code.PREMISE_CLAIM_MIXED_SAVING, low=round(low * 100), high=round(high * 100))
    return _check("mixed_saving", claim, holds, lines)


def _mig_instances(p: Premises) -> Check | None:
    """Q1: how many MIG instances an A100 splits into, from the accelerator table."""
    lines = []
    counts = []
    for slug in ("a100-40gb", "a100-80gb"):
        accel = p.accelerators.get(slug)
        if accel is None or not accel.mig_profiles:
            continue
        smallest = min(accel.mig_profiles, key=lambda m: (m.memory_slices, m.compute_slices))
        most = max(m.max_count for m in accel.mig_profiles)
        counts.append(most)
        lines.append(
            msg(
                Code.PREMISE_MIG_MOST,
                gpu=accel.name,
                n=most,
                count=smallest.max_count,
                profile=smallest.name,
            )
        )
    if not counts:
        return None
    return _check(
        "mig_instances",
        msg(Code.PREMISE_CLAIM_MIG_INSTANCES),
        all(n == ARTICLE_MIG_INSTANCES for n in counts),
        lines,
    )


def _mig_for_production(p: Premises) -> Check | None:
    """Q1: the production task with hard isolation goes on a MIG slice (or a whole GPU) of the
    cheapest offering; what soft isolation for it would save."""
    advice = p.advice
    if advice is None or not advice.recommendations:
        return None
    ccy = advice.currency
    first = advice.recommendations[0]
    hard = [t.name for t in p.scenario.tasks if t.isolation == Isolation.HARD]
    modes = {a.task: PlacementMode(a.mode) for a in first.placement.assignments}
    on_mig = bool(hard) and all(modes.get(name) is PlacementMode.MIG for name in hard)
    lines = [
        msg(
            Code.PREMISE_CHEAPEST_RUNS,
            rec=_rec(first),
            cost=_cny(first.cost, ccy),
            task=tuple(hard),
            mode=tuple(modes[n] for n in hard if n in modes),
        )
    ]
    soft = replace(
        p.scenario, tasks=tuple(replace(t, isolation=Isolation.SOFT) for t in p.scenario.tasks)
    )
    shared = _reprice(p, soft)
    if shared is not None and shared.recommendations:
        other = shared.recommendations[0]
        lines.append(
            msg(
                Code.PREMISE_SOFT_CHEAPEST,
                rec=_rec(other),
                cost=_cny(other.cost, ccy),
                extra=_cny(first.cost - other.cost, ccy),
            )
        )
    return _check("mig_for_production", msg(Code.PREMISE_CLAIM_MIG_FOR_PRODUCTION), on_mig, lines)


def _five_cards(p: Premises) -> Check | None:
    """Q3: on 矩池云 (one task per instance) five parallel tasks take five cards."""
    rec = _on_platform(p, "matpool")
    name = _platform_name(p, "matpool")
    claim = msg(Code.PREMISE_CLAIM_FIVE_CARDS)
    if rec is None:
        return _check("five_cards", claim, None, [msg(Code.PREMISE_NOTHING_ON, platform=name)])
    gpus = rec.instances * rec.gpus_per_instance
    line = msg(
        Code.PREMISE_CHEAPEST_ON,
        platform=name,
        n=rec.instances,
        offering=rec.offering_name,
        cost=_cny(rec.cost, p.scenario.constraints.currency),
    )
    return _check("five_cards", claim, gpus == ARTICLE_PARALLEL_TASKS, [line])


def _mig_break_even(p: Premises) -> Check | None:
    """Q3: the article's pick, one card of 智星云 cut into MIG slices, against per-second cards on
    矩池云, and the busy hours a month at which they cost the same."""
    mig = p.verdict.pick if p.verdict is not None else None
    cards = _on_platform(p, "matpool")
    if mig is None or cards is None:
        return None
    ccy = p.scenario.constraints.currency
    leg = mig.legs[0]
    modes = {PlacementMode(a.mode) for a in leg.placement.assignments}
    busy = max(t.hours_per_month or float(HOURS_PER_MONTH) for t in p.scenario.tasks)
    lines = [
        msg(
            Code.PREMISE_PICK_LEG,
            platform=leg.platform_name,
            offering=leg.offering_name,
            n=leg.gpus,
            modes=tuple(sorted(modes)),
            cost=_cny(mig.cost, ccy),
        ),
        msg(
            Code.PREMISE_CARDS,
            platform=cards.platform_name,
            n=cards.instances,
            offering=cards.offering_name,
            cost=_cny(cards.cost, ccy),
        ),
    ]
    metered = cards.plan.unit not in PREPAID_UNITS
    flat = leg.plan.unit in PREPAID_UNITS
    if metered and flat and busy > 0:
        per_hour = cards.plan.converted / Decimal(repr(busy))
        if per_hour > 0:
            break_even = leg.plan.converted / per_hour
            lines.append(
                msg(
                    Code.PREMISE_BREAK_EVEN,
                    n=cards.instances,
                    rate=_cny(per_hour, ccy),
                    flat=_cny(leg.plan.converted, ccy),
                    hours=math.ceil(break_even),
                    busy=_count(busy),
                )
            )
    return _check(
        "mig_break_even", msg(Code.PREMISE_CLAIM_MIG_BREAK_EVEN), mig.cost < cards.cost, lines
    )


def _exclusive_contract(p: Premises) -> Check:
    """Q4: who says which platform is physically exclusive (the "who about whom" of the facts)."""
    lines = [
        msg(
            Code.PREMISE_EXCLUSIVE,
            platform=claim.name,
            value=msg(Code.PREMISE_UNKNOWN)
            if claim.physically_exclusive is None
            else claim.physically_exclusive,
            who=claim.said_by,
        )
        for claim in p.exclusivity
    ]
    lines.append(msg(Code.PREMISE_VENDOR_ONLY))
    return _check("exclusive_contract", msg(Code.PREMISE_CLAIM_EXCLUSIVE_CONTRACT), None, lines)


def _pooled_shares(p: Premises) -> Check:
    """Q4: pooled offerings share one physical card: the catalogue's sharing modes."""
    pooled = [o for o in p.offerings if o.platform == "virtaicloud"]
    shared = [o for o in pooled if o.sharing == "pooled"]
    lines = [
        msg(
            Code.PREMISE_POOLED_COUNT,
            platform=_platform_name(p, "virtaicloud"),
            pooled=len(shared),
            all=len(pooled),
        )
    ]
    advice = p.advice
    if advice is not None and advice.recommendations:
        c = p.scenario.constraints
        free = _reprice(p, replace(p.scenario, constraints=replace(c, physically_exclusive=False)))
        first = advice.recommendations[0]
        if free is not None and free.recommendations:
            other = free.recommendations[0]
            lines.append(
                msg(
                    Code.PREMISE_EXCLUSIVE_VS_FREE,
                    rec=_rec(first),
                    cost=_cny(first.cost, advice.currency),
                    other=_rec(other),
                    other_cost=_cny(other.cost, advice.currency),
                )
            )
    return _check(
        "pooled_shares",
        msg(Code.PREMISE_CLAIM_POOLED_SHARES),
        bool(pooled) and len(shared) == len(pooled),
        lines,
    )


def _nvlink_gain(p: Premises) -> Check | None:
    """组合一: the 8-GPU fine-tune's time on 8× A100 80GB with NVLink against the same over PCIe,
    from the time model (gradient all-reduce at each interconnect's bandwidth)."""
    accel = p.accelerators.get("a100-80gb")
    task = next((t for t in p.scenario.tasks if t.tokens and t.gpus > 1), None)
    if accel is None or task is None:
        return None
    try:
        nvlink = training_time(task, accel, task.gpus, Interconnect.NVLINK)
        pcie = training_time(task, accel, task.gpus, Interconnect.PCIE)
    except AdvisorError:
        return None
    gain = pcie.hours / nvlink.hours - 1
    low, high = ARTICLE_NVLINK_GAIN
    lines = [
        msg(
            Code.PREMISE_NVLINK_HOURS,
            task=task.name,
            n=task.gpus,
            gpu=accel.name,
            nvlink=_count(nvlink.hours, 1),
            e1=_percent(nvlink.scaling_efficiency),
            pcie=_count(pcie.hours, 1),
            e2=_percent(pcie.scaling_efficiency),
        ),
        msg(
            Code.PREMISE_NVLINK_FASTER, gain=_percent(gain), low=_percent(low), high=_percent(high)
        ),
    ]
    claim = msg(Code.PREMISE_CLAIM_NVLINK_GAIN, low=round(low * 100), high=round(high * 100))
    return _check("nvlink_gain", claim, low <= gain <= high, lines)


def _per_card(p: Premises) -> Check | None:
    """组合二: 12,000 a month for eight cards is 1,500 a card; and how many this workload uses."""
    per_card = ARTICLE_RENDER_MONTHLY / ARTICLE_RENDER_CARDS
    lines = [
        msg(
            Code.PREMISE_PER_CARD,
            monthly=ARTICLE_RENDER_MONTHLY,
            cards=ARTICLE_RENDER_CARDS,
            per_card=_count(per_card),
            hour=_count(per_card / HOURS_PER_MONTH, 2),
            month=HOURS_PER_MONTH,
        )
    ]
    pick = p.verdict.pick if p.verdict is not None else None
    if pick is not None:
        leg = pick.legs[0]
        used = len(
            {(a.instance, g) for a in leg.placement.assignments if a.machines == 1 for g in a.gpus}
        ) + sum(a.gpu_count for a in leg.placement.assignments if a.machines > 1)
        lines.append(
            msg(
                Code.PREMISE_CARDS_USED,
                used=used,
                cards=leg.gpus,
                each=_count(pick.cost / max(used, 1), 2),
            )
        )
    return _check(
        "per_card",
        msg(Code.PREMISE_CLAIM_PER_CARD),
        per_card == ARTICLE_RENDER_PER_CARD,
        lines,
    )


CHECKS: Mapping[str, Callable[[Premises], Check | None]] = MappingProxyType(
    {
        "nvlink_gain": _nvlink_gain,
        "per_card": _per_card,
        "rule_of_thumb": _rule_of_thumb,
        "fit_on": _fit_on,
        "case_cost": _case_cost,
        "one_card": _one_card,
        "mixed_saving": _mixed_saving,
        "mig_instances": _mig_instances,
        "mig_for_production": _mig_for_production,
        "five_cards": _five_cards,
        "mig_break_even": _mig_break_even,
        "exclusive_contract": _exclusive_contract,
        "pooled_shares": _pooled_shares,
    }
)


def premise_checks(names: Sequence[str], premises: Premises) -> tuple[Check, ...]:
    """The claims `names` (a preset's `checks`) checked on `premises`, in that order; a check
    that has nothing to say of this answer (its task or figure is not there) is left out."""
    out = []
    for name in names:
        check = CHECKS[name](premises)
        if check is not None:
            out.append(check)
    return tuple(out)
