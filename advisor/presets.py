"""Advisor presets: the scenarios of the vendor article "2026多任务GPU平台怎么选" (智星云).

Each preset is scenario JSON (README.md contract), the article's claim about it, the article's
own pick (the offering, or in tip 4 the plan of two, that it recommends) and the claims it makes
that the product checks (`checks`, names in CHECKS). A scenario that names its preset
(`"preset": "<id>"`) is answered with the checks and the verdict on the pick, through the page,
the API (`/api/v1/advise/`, `/api/v1/presets/`) and the CLI alike (advisor/services.py).

Every check is computed from the engine's own memory plan, capacities and the catalogue's
prices as they stand, never from numbers typed in here: only the article's quoted figures are.
A check says whether the claim holds, does not hold, or cannot be told on this catalogue.

Stale prices are in the catalogue the presets see, as in every scenario that does not ask for
`fresh_only`: the article's platforms quote prices from May 2026, each shown with its age.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.template.defaultfilters import floatformat
from django.utils.functional import Promise
from django.utils.translation import gettext, gettext_noop
from django.utils.translation import gettext_lazy as _

from advisor import messages
from advisor.engine.advise import advise
from advisor.engine.billing import PREPAID_UNITS
from advisor.engine.capacity import usable_bytes
from advisor.engine.errors import AdvisorError, NoFit
from advisor.engine.plans import SAVING_THRESHOLD
from advisor.engine.presets import MODEL_PRESETS, PRESET_INFO
from advisor.engine.ranking import Advice, Recommendation
from advisor.engine.timing import training_time
from advisor.engine.types import GB, GiB, Scenario
from advisor.engine.verdict import PickLeg
from advisor.engine.vocab import Interconnect, Isolation, PlacementMode

if TYPE_CHECKING:
    from advisor.services import AdviceReport

# The vendor article's rule of thumb, "所需显存≈模型参数量×20 bytes（全参微调）", and its example
# "70B模型约需140GB显存".
ARTICLE_BYTES_PER_PARAM = 20
ARTICLE_70B_CLAIM_GB = 140
# The article's medical case: "A100 80G八卡裸金属（月费28,000元）… 实际8天完成，总成本约11,200元".
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


@dataclass(frozen=True)
class Pick:
    """What the article recommends for a scenario: one offering, or a plan of legs."""

    label: Promise
    legs: tuple[PickLeg, ...]


@dataclass(frozen=True)
class Check:
    """One claim of the article, checked: whether it holds (None: cannot be told here) and the
    arithmetic, line by line, in the active language."""

    id: str
    claim: str
    holds: bool | None
    lines: tuple[str, ...]

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
class Preset:
    slug: str
    title: Promise
    summary: Promise
    scenario: dict[str, Any]
    article: Promise | None = None  # the article's claim, paraphrased
    checks: tuple[str, ...] = field(default_factory=tuple)  # names in CHECKS
    pick: Pick | None = None  # the article's own pick for this scenario
    quote: str = ""  # the article's words the preset is built on (Chinese, as published)

    def translated_scenario(self) -> dict[str, Any]:
        """`scenario` with its task names in the active language, for the preset's link.

        The names are marked with `gettext_noop`, so `scenario` itself stays the English contract
        JSON (tests, API examples) and only the page's links carry translated names.
        """
        return {
            **self.scenario,
            "tasks": [{**task, "name": gettext(task["name"])} for task in self.scenario["tasks"]],
        }

    def named_scenario(self) -> dict[str, Any]:
        """`scenario` naming its preset: posted to advise, it is answered with the checks and the
        verdict on the article's pick."""
        return {**self.scenario, "preset": self.slug}


_ZXY = "zhixingyun"
_CNY = {"currency": "CNY"}
# The article's pick for Q1 and Q3 alike.
_ZXY_MIG = Pick(_("智星云's A100 with MIG slices"), (PickLeg(_ZXY, ("a100-40gb", "a100-80gb")),))

_ARTICLE_QA = (
    Preset(
        slug="mixed-platforms",
        title=_("Tip 4: a monthly base on one platform, bursts on another"),
        summary=_(
            "Daily training on a monthly card, light inference and quick experiments in bursts "
            "on pooled slices elsewhere: the article's mixed plan against every single platform."
        ),
        article=_(
            "Recommends 智星云's monthly A100 40G (1,710 CNY a card) for daily training and "
            "趋动云's pooled instances for light inference and quick experiments, and says the "
            "mix cuts the total cost by 15–20 %."
        ),
        quote="智星云包月保底+趋动云按需补充 … 综合成本能压低15%-20%",
        scenario={
            "tasks": [
                {
                    "name": gettext_noop("daily training"),
                    "kind": "lora",
                    "model": "qwen2.5-7b",
                    "precision": "bf16",
                    "activation_checkpointing": "full",
                    "seq_len": 4096,
                    "when": "always",
                    "hours_per_month": 600.0,
                },
                {
                    "name": gettext_noop("light inference"),
                    "kind": "inference",
                    "model": "qwen2.5-7b",
                    "precision": "int4",
                    "context_len": 4096,
                    "concurrent_sequences": 4,
                    "when": "burst",
                    "hours_per_month": 120.0,
                    "isolation": "soft",
                },
                {
                    "name": gettext_noop("quick experiments"),
                    "kind": "qlora",
                    "model": "qwen2.5-7b",
                    "precision": "bf16",
                    "activation_checkpointing": "full",
                    "seq_len": 1024,
                    "when": "burst",
                    "hours_per_month": 60.0,
                    "isolation": "soft",
                },
            ],
            "constraints": dict(_CNY),
            "objective": "cost",
        },
        checks=("mixed_saving",),
        pick=Pick(
            _("智星云's monthly A100 40G for the training, 趋动云's pooled instances for the rest"),
            (
                PickLeg(_ZXY, ("a100-40gb",), 1, units=("month",), tasks=("daily training",)),
                PickLeg(
                    "virtaicloud",
                    sharing="pooled",
                    tasks=("light inference", "quick experiments"),
                ),
            ),
        ),
    ),
    Preset(
        slug="q1-mig-vs-pooled",
        title=_("Q1: MIG slices or pooled sharing?"),
        summary=_(
            "A production inference service that needs hard isolation next to two development "
            "tasks that can share: what MIG costs against pooled sharing."
        ),
        article=_(
            "Says MIG splits an A100 into up to 7 isolated instances, while container sharing "
            "(趋动云's sGPU) only limits memory and compute in software; production inference "
            "that needs deterministic latency should use MIG, development can share."
        ),
        quote="需要确定性延迟的生产推理建议走MIG，开发测试场景容器共享足够",
        scenario={
            "tasks": [
                {
                    "name": gettext_noop("production inference"),
                    "kind": "fixed",
                    "vram_gib": 18.0,
                    "when": "always",
                    "isolation": "hard",
                },
                {
                    "name": gettext_noop("dev test A"),
                    "kind": "fixed",
                    "vram_gib": 8.0,
                    "when": "always",
                    "isolation": "soft",
                },
                {
                    "name": gettext_noop("dev test B"),
                    "kind": "fixed",
                    "vram_gib": 8.0,
                    "when": "always",
                    "isolation": "soft",
                },
            ],
            "constraints": dict(_CNY),
            "objective": "cost",
        },
        checks=("mig_instances", "mig_for_production"),
        pick=_ZXY_MIG,
    ),
    Preset(
        slug="q3-per-second-billing",
        title=_("Q3: per-second billing with five parallel tasks"),
        summary=_(
            "Five small tasks at once, 160 busy hours a month: five per-second cards on an "
            "instance-level platform, or one card cut into MIG slices?"
        ),
        article=_(
            "Says 矩池云 bills by the second but runs one task per card, so five parallel tasks "
            "need five cards, while 智星云's MIG cuts one card into several instances at a lower "
            "unit cost."
        ),
        quote="如果同时需要5个任务并行，就得开5张卡 … 智星云的MIG方案 … 单位算力成本更低",
        scenario={
            "tasks": [
                {
                    "name": name,
                    "kind": "fixed",
                    "vram_gib": 4.0,
                    "when": "always",
                    "hours_per_month": 160.0,
                }
                for name in (
                    gettext_noop("parallel task 1"),
                    gettext_noop("parallel task 2"),
                    gettext_noop("parallel task 3"),
                    gettext_noop("parallel task 4"),
                    gettext_noop("parallel task 5"),
                )
            ],
            "constraints": dict(_CNY),
            "objective": "cost",
        },
        checks=("five_cards", "mig_break_even"),
        pick=_ZXY_MIG,
    ),
    Preset(
        slug="q4-data-security",
        title=_("Q4: sensitive data on physically exclusive GPUs"),
        summary=_(
            "A fine-tune on patient records and an extraction service that must not share a "
            "physical GPU with other tenants."
        ),
        article=_(
            "Says to prefer platforms with physically exclusive GPUs: 智星云's contract writes "
            "in physical exclusivity, while pooled platforms such as 趋动云 share one card among "
            "tenants."
        ),
        quote="智星云合同写入“物理GPU独享” … 共享池化型平台（如趋动云）… "
        "物理层面多租户共用同一张卡",
        scenario={
            "tasks": [
                {
                    "name": gettext_noop("fine-tune on patient records"),
                    "kind": "lora",
                    "model": "qwen2.5-7b",
                    "precision": "bf16",
                    "activation_checkpointing": "full",
                    "seq_len": 4096,
                    "tokens": 2e8,
                },
                {
                    "name": gettext_noop("records extraction service"),
                    "kind": "inference",
                    "model": "qwen2.5-7b",
                    "precision": "bf16",
                    "context_len": 8192,
                    "concurrent_sequences": 8,
                    "when": "day",
                    "hours_per_month": 300.0,
                },
            ],
            "constraints": {**_CNY, "physically_exclusive": True},
            "objective": "cost",
        },
        checks=("exclusive_contract", "pooled_shares"),
        pick=Pick(_("a physically exclusive GPU on 智星云"), (PickLeg(_ZXY),)),
    ),
)


PRESETS: dict[str, Preset] = {
    p.slug: p
    for p in (
        Preset(
            slug="training-inference",
            title=_("Training + inference mixed"),
            summary=_(
                "An LLM inference service by day, a full fine-tune with FSDP over 8 GPUs by "
                "night, sharing one machine and one bill."
            ),
            article=_(
                "Recommends an 8× A100 80G NVLink machine: FSDP training at night, MIG slices "
                "for inference by day."
            ),
            checks=("nvlink_gain",),
            pick=Pick(
                _("智星云's 8× A100 80G bare-metal machine (NVLink)"),
                (PickLeg(_ZXY, ("a100-80gb",), 8),),
            ),
            scenario={
                "tasks": [
                    {
                        "name": gettext_noop("daytime inference"),
                        "kind": "inference",
                        "model": "llama-3.1-8b",
                        "precision": "bf16",
                        "context_len": 8192,
                        "concurrent_sequences": 16,
                        "when": "day",
                        "hours_per_month": 360.0,
                    },
                    {
                        "name": gettext_noop("night fine-tune"),
                        "kind": "full_finetune",
                        "model": "llama-3.1-8b",
                        "precision": "bf16",
                        "sharding": "zero3",
                        "activation_checkpointing": "full",
                        "seq_len": 4096,
                        "tokens": 1e9,
                        "gpus": 8,
                        "when": "night",
                        "hours_per_month": 360.0,
                    },
                ],
                "constraints": dict(_CNY),
                "objective": "balanced",
            },
        ),
        Preset(
            slug="rendering-simulation",
            title=_("Rendering + simulation"),
            summary=_(
                "Video rendering and a CFD simulation: large fixed VRAM, long running, "
                "both most of the month."
            ),
            article=_(
                "Suggests the 4090 48G × 8 bare-metal machine at 12,000 CNY a month "
                "(1,500 per card)."
            ),
            checks=("per_card",),
            pick=Pick(
                _("智星云's 8× RTX 4090 48G bare-metal machine"),
                (PickLeg(_ZXY, ("rtx-4090-48gb",), 8),),
            ),
            scenario={
                "tasks": [
                    {
                        "name": gettext_noop("rendering"),
                        "kind": "fixed",
                        "vram_gib": 40.0,
                        "when": "always",
                        "hours_per_month": 600.0,
                    },
                    {
                        "name": gettext_noop("CFD simulation"),
                        "kind": "fixed",
                        "vram_gib": 30.0,
                        "when": "always",
                        "hours_per_month": 600.0,
                    },
                ],
                "constraints": dict(_CNY),
                "objective": "cost",
            },
        ),
        Preset(
            slug="dev-experiments",
            title=_("Development + short experiments"),
            summary=_(
                "A notebook, a QLoRA experiment and a quantised test server: small, "
                "concurrent, started and stopped in bursts; soft isolation is fine."
            ),
            article=_("Suggests hourly cloud hosts or pooled GPU slices for many small tasks."),
            pick=Pick(
                _("智星云's hourly RTX 4090 cloud host"),
                (PickLeg(_ZXY, ("rtx-4090-24gb",), 1, units=("hour",)),),
            ),
            scenario={
                "tasks": [
                    {
                        "name": gettext_noop("notebook"),
                        "kind": "fixed",
                        "vram_gib": 6.0,
                        "when": "burst",
                        "hours_per_month": 120.0,
                        "isolation": "soft",
                    },
                    {
                        "name": gettext_noop("QLoRA experiment"),
                        "kind": "qlora",
                        "model": "qwen2.5-7b",
                        "precision": "bf16",
                        "activation_checkpointing": "full",
                        "seq_len": 1024,
                        "when": "burst",
                        "hours_per_month": 80.0,
                        "isolation": "soft",
                    },
                    {
                        "name": gettext_noop("inference test"),
                        "kind": "inference",
                        "model": "mistral-7b",
                        "precision": "int4",
                        "concurrent_sequences": 4,
                        "when": "burst",
                        "hours_per_month": 80.0,
                        "isolation": "soft",
                    },
                ],
                "constraints": dict(_CNY),
                "objective": "cost",
            },
        ),
        Preset(
            slug="medical-70b",
            title=_("The 70B medical fine-tune case"),
            summary=_(
                "Full fine-tune of Llama 3.1 70B with FSDP (ZeRO-3) and mixed precision on "
                "8× A100 80G, as in the article's case study."
            ),
            article=_(
                "Says params × 20 bytes, so a 70B model needs about 140 GB, and that the "
                "team fine-tuned it on one 8× A100 80G machine in 8 days for about 11,200 CNY."
            ),
            pick=Pick(
                _("智星云's 8× A100 80G bare-metal machine (NVLink)"),
                (PickLeg(_ZXY, ("a100-80gb",), 8),),
            ),
            scenario={
                "tasks": [
                    {
                        "name": gettext_noop("medical 70B full fine-tune"),
                        "kind": "full_finetune",
                        "model": "llama-3.1-70b",
                        "precision": "bf16",
                        "sharding": "zero3",
                        "activation_checkpointing": "full",
                        "seq_len": 4096,
                        "tokens": 1e9,
                        "gpus": 8,
                        "on": {"accelerator": "a100-80gb"},
                    }
                ],
                "constraints": dict(_CNY),
                "objective": "time",
            },
            checks=("rule_of_thumb", "fit_on", "case_cost"),
        ),
        Preset(
            slug="4090-lora-sdxl",
            title=_("The 4090 LoRA + SDXL question"),
            summary=_(
                "A 7B LoRA fine-tune and an SDXL inference service at the same time: "
                "one 24 GB card or a 48 GB one?"
            ),
            article=_(
                "Says 24 GB is probably not enough for both, and the 48 GB 4090 has room "
                "for training and inference together."
            ),
            scenario={
                "tasks": [
                    {
                        "name": "7B LoRA",
                        "kind": "lora",
                        "model": "llama-2-7b",
                        "precision": "bf16",
                        "activation_checkpointing": "full",
                        "seq_len": 2048,
                        "isolation": "soft",
                    },
                    {
                        "name": gettext_noop("SDXL inference"),
                        "kind": "inference",
                        "model": "sdxl",
                        "precision": "fp16",
                        "isolation": "soft",
                    },
                ],
                "constraints": dict(_CNY),
                "objective": "cost",
            },
            checks=("one_card",),
            pick=Pick(_("a 48 GB RTX 4090 card"), (PickLeg("", ("rtx-4090-48gb",), 1),)),
        ),
        *_ARTICLE_QA,
    )
}


def _gib(n: float) -> str:
    return _num(n / GiB, 2)


def _num(n: float | Decimal, places: int = 0) -> str:
    """`n` rounded half up as the memory plan's table shows it (floatformat), grouped; not
    number_format alone, which cuts the digits off (15.436 GiB would read 15.43 here and 15.44
    in the table)."""
    return str(floatformat(n, f"{places}g"))


def _cny(amount: Decimal, currency: str) -> str:
    return gettext("%(amount)s %(currency)s") % {"amount": _num(amount, 2), "currency": currency}


def _percent(share: float | Decimal) -> str:
    return gettext("%(n)s%%") % {"n": _num(float(share) * 100, 1)}


def _check(name: str, claim: str, holds: bool | None, lines: Sequence[str]) -> Check:
    return Check(name, claim, holds, tuple(lines))


def _rule_of_thumb(report: AdviceReport) -> Check | None:
    task = report.scenario.tasks[0]
    arch = MODEL_PRESETS.get(task.model or "")
    if arch is None or task.model is None:
        return None
    params = arch.params
    twenty = params * ARTICLE_BYTES_PER_PARAM
    return _check(
        "rule_of_thumb",
        gettext("“Params × 20 bytes: a 70B model needs about %(gb)s GB.”")
        % {"gb": ARTICLE_70B_CLAIM_GB},
        False,
        [
            gettext("%(model)s has %(params)s parameters.")
            % {"model": PRESET_INFO[task.model].name, "params": _num(params)},
            gettext("%(params)s × 20 B = %(gb)s GB (%(tb)s TB), not %(claim)s GB.")
            % {
                "params": _num(params),
                "gb": _num(twenty / GB),
                "tb": _num(twenty / 1e12, 2),
                "claim": ARTICLE_70B_CLAIM_GB,
            },
            gettext(
                "%(claim)s GB is only the weights in BF16 (%(params)s × 2 B = %(w)s GB); "
                "gradients, AdamW states and the FP32 master copy add 14 B more per parameter."
            )
            % {
                "claim": ARTICLE_70B_CLAIM_GB,
                "params": _num(params),
                "w": _num(params * 2 / GB),
            },
        ],
    )


def _fit_on(report: AdviceReport) -> Check | None:
    task = report.estimate.tasks[0]
    fit, on = task.fit, task.on
    if fit is None or on is None:
        return None
    per_gpu = task.per_gpu.total
    lines = [
        gettext(
            "Sharded over %(gpus)s GPUs, each GPU needs %(need)s GiB; "
            "all %(gpus)s hold %(all)s GiB."
        )
        % {"gpus": task.gpus, "need": _gib(per_gpu), "all": _gib(per_gpu * task.gpus)},
        gettext("A %(gpu)s has %(usable)s GiB usable, so it %(verdict)s.")
        % {
            "gpu": on.name,
            "usable": _gib(fit.usable_bytes),
            "verdict": gettext("fits") if fit.fits else gettext("does not fit"),
        },
    ]
    if fit.suggestions:
        lines.append(gettext("The memory plan below lists what would fit."))
    return _check(
        "fit_on",
        gettext("“A 70B full fine-tune runs on one 8× A100 80G machine.”"),
        fit.fits,
        lines,
    )


def _case_cost(report: AdviceReport) -> Check:
    prorated = ARTICLE_CASE_MONTHLY * ARTICLE_CASE_DAYS / 30
    return _check(
        "case_cost",
        gettext("“8 days on a %(monthly)s CNY/month machine cost about %(total)s CNY.”")
        % {"monthly": _num(ARTICLE_CASE_MONTHLY), "total": _num(ARTICLE_CASE_TOTAL)},
        False,
        [
            gettext("%(monthly)s × %(days)s / 30 days = %(prorated)s CNY if billed by the day;")
            % {
                "monthly": _num(ARTICLE_CASE_MONTHLY),
                "days": ARTICLE_CASE_DAYS,
                "prorated": _num(round(prorated)),
            },
            gettext("%(total)s CNY is %(days)s days' worth; a monthly plan is bought whole.")
            % {
                "total": _num(ARTICLE_CASE_TOTAL),
                "days": _num(ARTICLE_CASE_TOTAL * 30 / ARTICLE_CASE_MONTHLY, 1),
            },
        ],
    )


def _one_card(report: AdviceReport) -> Check:
    tasks = report.estimate.tasks
    together = sum(t.per_gpu.total for t in tasks)
    lines = [
        " + ".join(f"{_gib(t.per_gpu.total)} GiB ({t.name})" for t in tasks)
        + f" = {_gib(together)} GiB"
    ]
    verdicts = []
    for capacity in (24, 48):
        usable = usable_bytes(capacity)
        fits = together <= usable
        verdicts.append(fits)
        lines.append(
            gettext("%(cap)s GB card: %(usable)s GiB usable, so both at once %(verdict)s.")
            % {
                "cap": capacity,
                "usable": _gib(usable),
                "verdict": gettext("fit") if fits else gettext("do not fit"),
            }
        )
    return _check(
        "one_card",
        gettext("“24 GB is probably not enough for both; 48 GB has room.”"),
        verdicts == [False, True],
        lines,
    )


# --------------------------------------------------------------------- checks on the catalogue


def _reprice(report: AdviceReport, scenario: Scenario) -> Advice | None:
    """The same catalogue's answer to a variant of the scenario (None: nothing fits)."""
    catalogue = report.catalogue
    try:
        return advise(
            replace(scenario, preset=None),
            catalogue.offerings,
            catalogue.accelerators,
            now=report.now,
            rates=catalogue.rates,
            storage_prices=catalogue.storage,
            stale_after_days=settings.PRICE_STALE_AFTER_DAYS,
            limit=1,
        )
    except NoFit:
        return None


def _on_platform(report: AdviceReport, slug: str) -> Recommendation | None:
    """The scenario's best recommendation on one platform alone."""
    c = report.scenario.constraints
    scenario = replace(report.scenario, constraints=replace(c, platforms=(slug,)))
    advice = _reprice(report, scenario)
    return advice.recommendations[0] if advice is not None else None


def _rec_text(rec: Recommendation) -> str:
    return gettext("%(offering)s on %(platform)s") % {
        "offering": rec.offering_name,
        "platform": rec.platform_name,
    }


def _platform_name(report: AdviceReport, slug: str) -> str:
    return report.catalogue.platforms.get(slug, slug)


def _mixed_saving(report: AdviceReport) -> Check | None:
    """Tip 4: the article's mixed plan (or, where it cannot be priced, the catalogue's best plan
    across two platforms) against the best single-platform plan."""
    plans = report.plans
    if plans is None or plans.single is None:
        return None
    ccy = report.scenario.constraints.currency
    low, high = ARTICLE_MIXED_SAVING
    single = plans.single
    lines = [
        gettext("Best single-platform plan: %(plan)s, %(cost)s.")
        % {"plan": messages.render(single.label()), "cost": _cny(single.cost, ccy)}
    ]
    verdict = report.verdict
    holds: bool | None = None
    article = verdict.pick if verdict is not None else None
    part = verdict.priced_part if verdict is not None else None
    if article is None and part is not None:
        lines.append(
            gettext("Of the article's plan, %(part)s alone costs %(cost)s; the rest has no price.")
            % {"part": messages.render(part.label()), "cost": _cny(part.cost, ccy)}
        )
        if part.cost >= single.cost * (1 - low):
            # Whatever the unpriced leg costs, the plan saves less than the claim's 15 %.
            holds = False
            lines.append(
                gettext(
                    "That is already more than %(limit)s of the single-platform plan: the plan "
                    "cannot save %(low)s, whatever the rest costs."
                )
                % {"limit": _cny(single.cost * (1 - low), ccy), "low": _percent(low)}
            )
    if article is not None:
        saving = (single.cost - article.cost) / single.cost if single.cost else Decimal(0)
        lines.append(
            gettext("The article's plan, %(plan)s: %(cost)s, %(share)s less.")
            % {
                "plan": messages.render(article.label()),
                "cost": _cny(article.cost, ccy),
                "share": _percent(saving),
            }
        )
        holds = saving >= low
    elif verdict is not None and part is None:
        lines.append(messages.render(verdict.message))
    best = plans.best_cross
    if best is not None and plans.saving_fraction is not None:
        lines.append(
            gettext(
                "The cheapest plan across two platforms in the catalogue, %(plan)s: %(cost)s, "
                "%(share)s less than the single-platform plan."
            )
            % {
                "plan": messages.render(best.label()),
                "cost": _cny(best.cost, ccy),
                "share": _percent(plans.saving_fraction),
            }
        )
        if holds is None:
            holds = Decimal(str(plans.saving_fraction)) >= low
            lines.append(
                gettext("The claim is judged on that plan, the nearest the catalogue prices.")
            )
    lines.append(
        gettext(
            "The article claims %(low)s to %(high)s less; the advisor proposes a split only "
            "above %(limit)s."
        )
        % {
            "low": _percent(low),
            "high": _percent(high),
            "limit": _percent(SAVING_THRESHOLD),
        }
    )
    return _check(
        "mixed_saving",
        gettext("“The mixed plan cuts the total cost by 15–20 %.”"),
        holds,
        lines,
    )


def _mig_instances(report: AdviceReport) -> Check | None:
    """Q1: how many MIG instances an A100 splits into, from the accelerator table."""
    lines = []
    counts = []
    for slug in ("a100-40gb", "a100-80gb"):
        accel = report.catalogue.accelerators.get(slug)
        if accel is None or not accel.mig_profiles:
            continue
        smallest = min(accel.mig_profiles, key=lambda p: (p.memory_slices, p.compute_slices))
        most = max(p.max_count for p in accel.mig_profiles)
        counts.append(most)
        lines.append(
            gettext("%(gpu)s: at most %(n)s instances (%(count)s× %(profile)s).")
            % {"gpu": accel.name, "n": most, "count": smallest.max_count, "profile": smallest.name}
        )
    if not counts:
        return None
    return _check(
        "mig_instances",
        gettext("“MIG splits one A100 into at most 7 isolated instances.”"),
        all(n == ARTICLE_MIG_INSTANCES for n in counts),
        lines,
    )


def _mig_for_production(report: AdviceReport) -> Check | None:
    """Q1: the production task with hard isolation goes on a MIG slice (or a whole GPU) of the
    cheapest offering; what soft isolation for it would save."""
    advice = report.advice
    if advice is None or not advice.recommendations:
        return None
    ccy = advice.currency
    first = advice.recommendations[0]
    hard = [t.name for t in report.scenario.tasks if t.isolation == Isolation.HARD]
    modes = {a.task: PlacementMode(a.mode) for a in first.placement.assignments}
    on_mig = bool(hard) and all(modes.get(name) is PlacementMode.MIG for name in hard)
    lines = [
        gettext("As given, the cheapest is %(rec)s at %(cost)s; %(task)s runs %(mode)s.")
        % {
            "rec": _rec_text(first),
            "cost": _cny(first.cost, ccy),
            "task": ", ".join(hard),
            "mode": ", ".join(str(messages.enum_label(modes[n])) for n in hard if n in modes),
        }
    ]
    soft = replace(
        report.scenario,
        tasks=tuple(replace(t, isolation=Isolation.SOFT) for t in report.scenario.tasks),
    )
    shared = _reprice(report, soft)
    if shared is not None and shared.recommendations:
        other = shared.recommendations[0]
        extra = first.cost - other.cost
        lines.append(
            gettext(
                "With every task on soft isolation (pooled sharing allowed), the cheapest is "
                "%(rec)s at %(cost)s: hard isolation costs %(extra)s more."
            )
            % {"rec": _rec_text(other), "cost": _cny(other.cost, ccy), "extra": _cny(extra, ccy)}
        )
    return _check(
        "mig_for_production",
        gettext("“Production inference that needs deterministic latency should use MIG.”"),
        on_mig,
        lines,
    )


def _five_cards(report: AdviceReport) -> Check | None:
    """Q3: on 矩池云 (one task per instance) five parallel tasks take five cards."""
    rec = _on_platform(report, "matpool")
    name = _platform_name(report, "matpool")
    claim = gettext("“On 矩池云, five parallel tasks need five cards.”")
    if rec is None:
        return _check(
            "five_cards",
            claim,
            None,
            [gettext("Nothing on %(platform)s runs these tasks.") % {"platform": name}],
        )
    gpus = rec.instances * rec.gpus_per_instance
    ccy = report.scenario.constraints.currency
    lines = [
        gettext("Cheapest on %(platform)s: %(n)s× %(offering)s, %(cost)s.")
        % {
            "platform": name,
            "n": rec.instances,
            "offering": rec.offering_name,
            "cost": _cny(rec.cost, ccy),
        },
    ]
    return _check("five_cards", claim, gpus == ARTICLE_PARALLEL_TASKS, lines)


def _mig_break_even(report: AdviceReport) -> Check | None:
    """Q3: the article's pick, one card of 智星云 cut into MIG slices, against per-second cards on
    矩池云, and the busy hours a month at which they cost the same."""
    verdict = report.verdict
    mig = verdict.pick if verdict is not None else None
    cards = _on_platform(report, "matpool")
    if mig is None or cards is None:
        return None
    ccy = report.scenario.constraints.currency
    leg = mig.legs[0]
    modes = {PlacementMode(a.mode) for a in leg.placement.assignments}
    busy = max(t.hours_per_month or 720.0 for t in report.scenario.tasks)
    lines = [
        gettext("%(platform)s: %(offering)s, %(n)s card(s), tasks on %(modes)s, %(cost)s.")
        % {
            "platform": leg.platform_name,
            "offering": leg.offering_name,
            "n": leg.gpus,
            "modes": ", ".join(str(messages.enum_label(m)) for m in sorted(modes)),
            "cost": _cny(mig.cost, ccy),
        },
        gettext("%(platform)s: %(n)s× %(offering)s, %(cost)s.")
        % {
            "platform": cards.platform_name,
            "n": cards.instances,
            "offering": cards.offering_name,
            "cost": _cny(cards.cost, ccy),
        },
    ]
    metered = cards.plan.unit not in PREPAID_UNITS
    flat = leg.plan.unit in PREPAID_UNITS
    if metered and flat and busy > 0:
        per_hour = cards.plan.converted / Decimal(repr(busy))
        if per_hour > 0:
            break_even = leg.plan.converted / per_hour
            lines.append(
                gettext(
                    "The %(n)s cards cost %(rate)s per busy hour together; the prepaid %(flat)s "
                    "pays off above %(hours)s busy hours a month (this scenario: %(busy)s)."
                )
                % {
                    "n": cards.instances,
                    "rate": _cny(per_hour, ccy),
                    "flat": _cny(leg.plan.converted, ccy),
                    "hours": _num(math.ceil(break_even)),
                    "busy": _num(busy),
                }
            )
    return _check(
        "mig_break_even",
        gettext("“One card cut into MIG instances costs less per unit of compute.”"),
        mig.cost < cards.cost,
        lines,
    )


def _exclusive_contract(report: AdviceReport) -> Check:
    """Q4: who says which platform is physically exclusive (the "who about whom" of the facts)."""
    from platforms.models import Platform

    lines = []
    rows = Platform.objects.filter(slug__in=(_ZXY, "hengyuanyun", "matpool", "virtaicloud"))
    for platform in rows.select_related("source", "source__speaker").order_by("pk"):
        value = platform.physically_exclusive
        said = platform.source.who_about_whom(platform)
        lines.append(
            gettext("%(platform)s: physically exclusive %(value)s (%(who)s).")
            % {
                "platform": str(platform),
                "value": gettext("unknown")
                if value is None
                else (gettext("yes") if value else gettext("no")),
                "who": said,
            }
        )
    lines.append(
        gettext(
            "智星云's exclusivity is its own statement about itself; no other source in the "
            "catalogue confirms it."
        )
    )
    return _check(
        "exclusive_contract",
        gettext("“智星云's contract guarantees physically exclusive GPUs.”"),
        None,
        lines,
    )


def _pooled_shares(report: AdviceReport) -> Check:
    """Q4: pooled offerings share one physical card: the catalogue's sharing modes."""
    pooled = [o for o in report.catalogue.offerings if o.platform == "virtaicloud"]
    shared = [o for o in pooled if o.sharing == "pooled"]
    name = _platform_name(report, "virtaicloud")
    lines = [
        gettext("%(platform)s: %(pooled)s of %(all)s offerings are pooled slices of a shared card.")
        % {"platform": name, "pooled": len(shared), "all": len(pooled)}
    ]
    advice = report.advice
    if advice is not None and advice.recommendations:
        c = report.scenario.constraints
        free = _reprice(
            report, replace(report.scenario, constraints=replace(c, physically_exclusive=False))
        )
        first = advice.recommendations[0]
        if free is not None and free.recommendations:
            other = free.recommendations[0]
            lines.append(
                gettext(
                    "Physically exclusive, the cheapest is %(rec)s at %(cost)s; without that "
                    "constraint, %(other)s at %(other_cost)s."
                )
                % {
                    "rec": _rec_text(first),
                    "cost": _cny(first.cost, advice.currency),
                    "other": _rec_text(other),
                    "other_cost": _cny(other.cost, advice.currency),
                }
            )
    return _check(
        "pooled_shares",
        gettext("“Pooled platforms such as 趋动云 share one physical card among tenants.”"),
        bool(pooled) and len(shared) == len(pooled),
        lines,
    )


def _nvlink_gain(report: AdviceReport) -> Check | None:
    """组合一: the 8-GPU fine-tune's time on 8× A100 80GB with NVLink against the same over PCIe,
    from the time model (gradient all-reduce at each interconnect's bandwidth)."""
    accel = report.catalogue.accelerators.get("a100-80gb")
    task = next((t for t in report.scenario.tasks if t.tokens and t.gpus > 1), None)
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
        gettext(
            "%(task)s on %(n)s× %(gpu)s: %(nvlink)s h with NVLink (scaling %(e1)s), %(pcie)s h "
            "over PCIe (scaling %(e2)s)."
        )
        % {
            "task": task.name,
            "n": task.gpus,
            "gpu": accel.name,
            "nvlink": _num(nvlink.hours, 1),
            "e1": _percent(nvlink.scaling_efficiency),
            "pcie": _num(pcie.hours, 1),
            "e2": _percent(pcie.scaling_efficiency),
        },
        gettext("NVLink is %(gain)s faster for this job; the article says %(low)s to %(high)s.")
        % {"gain": _percent(gain), "low": _percent(low), "high": _percent(high)},
    ]
    return _check(
        "nvlink_gain",
        gettext("“Eight A100s on NVLink are 20–30 % more efficient than over PCIe.”"),
        low <= gain <= high,
        lines,
    )


def _per_card(report: AdviceReport) -> Check | None:
    """组合二: 12,000 a month for eight cards is 1,500 a card; and how many this workload uses."""
    per_card = ARTICLE_RENDER_MONTHLY / ARTICLE_RENDER_CARDS
    lines = [
        gettext(
            "%(monthly)s ÷ %(cards)s cards = %(per_card)s CNY per card and month (%(hour)s per "
            "card-hour at 720 h)."
        )
        % {
            "monthly": _num(ARTICLE_RENDER_MONTHLY),
            "cards": ARTICLE_RENDER_CARDS,
            "per_card": _num(per_card),
            "hour": _num(per_card / 720, 2),
        }
    ]
    pick = report.verdict.pick if report.verdict is not None else None
    if pick is not None:
        leg = pick.legs[0]
        used = len(
            {(a.instance, g) for a in leg.placement.assignments if a.machines == 1 for g in a.gpus}
        ) + sum(a.gpu_count for a in leg.placement.assignments if a.machines > 1)
        lines.append(
            gettext(
                "This workload uses %(used)s of its %(cards)s cards: %(each)s CNY a month for "
                "each card it uses."
            )
            % {"used": used, "cards": leg.gpus, "each": _num(pick.cost / max(used, 1), 2)}
        )
    return _check(
        "per_card",
        gettext("“12,000 CNY a month for eight cards: 1,500 per card.”"),
        per_card == ARTICLE_RENDER_PER_CARD,
        lines,
    )


CHECKS: dict[str, Callable[[AdviceReport], Check | None]] = {
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


def premise_checks(report: AdviceReport) -> tuple[Check, ...]:
    """The article's claims for the report's preset, each with the arithmetic."""
    preset = PRESETS.get(report.scenario.preset or "")
    if preset is None:
        return ()
    out = []
    for name in preset.checks:
        check = CHECKS[name](report)
        if check is not None:
            out.append(check)
    return tuple(out)
