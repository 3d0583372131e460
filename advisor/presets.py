"""Advisor presets: the scenarios of the vendor article "2026多任务GPU平台怎么选" (智星云).

Each preset is scenario JSON (README.md contract) plus the article's claim about it. Where the
claim is wrong, `premise_checks` says so with the arithmetic, computed from the engine's own memory
plan and capacities, never from numbers typed in here: only the article's quoted figures are.

Stale prices are in the catalogue the presets see, as in every scenario that does not ask for
`fresh_only`: the article's platforms quote prices from May 2026, each shown with its age.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.template.defaultfilters import floatformat
from django.utils.functional import Promise
from django.utils.translation import gettext, gettext_noop
from django.utils.translation import gettext_lazy as _

from advisor.engine.capacity import usable_bytes
from advisor.engine.estimate import Estimate
from advisor.engine.presets import MODEL_PRESETS, PRESET_INFO
from advisor.engine.types import GB, GiB

# The vendor article's rule of thumb, "所需显存≈模型参数量×20 bytes（全参微调）", and its example
# "70B模型约需140GB显存".
ARTICLE_BYTES_PER_PARAM = 20
ARTICLE_70B_CLAIM_GB = 140
# The article's medical case: "A100 80G八卡裸金属（月费28,000元）… 实际8天完成，总成本约11,200元".
ARTICLE_CASE_MONTHLY = 28_000
ARTICLE_CASE_DAYS = 8
ARTICLE_CASE_TOTAL = 11_200


@dataclass(frozen=True)
class Preset:
    slug: str
    title: Promise
    summary: Promise
    scenario: dict[str, Any]
    article: Promise | None = None  # the article's claim, paraphrased
    checks: tuple[str, ...] = field(default_factory=tuple)  # names in CHECKS

    def translated_scenario(self) -> dict[str, Any]:
        """`scenario` with its task names in the active language, for the preset's link.

        The names are marked with `gettext_noop`, so `scenario` itself stays the English contract
        JSON (tests, API examples) and only the page's links carry translated names.
        """
        return {
            **self.scenario,
            "tasks": [{**task, "name": gettext(task["name"])} for task in self.scenario["tasks"]],
        }


_CNY = {"currency": "CNY"}

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
        ),
    )
}


def _gib(n: float) -> str:
    return _num(n / GiB, 2)


def _num(n: float, places: int = 0) -> str:
    """`n` rounded half up as the memory plan's table shows it (floatformat), grouped; not
    number_format alone, which cuts the digits off (15.436 GiB would read 15.43 here and 15.44
    in the table)."""
    return str(floatformat(n, f"{places}g"))


def _rule_of_thumb(scenario: dict[str, Any], estimate: Estimate) -> dict[str, Any] | None:
    task = scenario["tasks"][0]
    arch = MODEL_PRESETS.get(task.get("model", ""))
    if arch is None:
        return None
    params = arch.params
    twenty = params * ARTICLE_BYTES_PER_PARAM
    return {
        "ok": False,
        "claim": gettext("“Params × 20 bytes: a 70B model needs about %(gb)s GB.”")
        % {"gb": ARTICLE_70B_CLAIM_GB},
        "lines": [
            gettext("%(model)s has %(params)s parameters.")
            % {"model": PRESET_INFO[task["model"]].name, "params": _num(params)},
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
    }


def _fit_on(scenario: dict[str, Any], estimate: Estimate) -> dict[str, Any] | None:
    task = estimate.tasks[0]
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
    return {
        "ok": fit.fits,
        "claim": gettext("“A 70B full fine-tune runs on one 8× A100 80G machine.”"),
        "lines": lines,
    }


def _case_cost(scenario: dict[str, Any], estimate: Estimate) -> dict[str, Any]:
    prorated = ARTICLE_CASE_MONTHLY * ARTICLE_CASE_DAYS / 30
    return {
        "ok": False,
        "claim": gettext("“8 days on a %(monthly)s CNY/month machine cost about %(total)s CNY.”")
        % {"monthly": _num(ARTICLE_CASE_MONTHLY), "total": _num(ARTICLE_CASE_TOTAL)},
        "lines": [
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
    }


def _one_card(scenario: dict[str, Any], estimate: Estimate) -> dict[str, Any]:
    tasks = estimate.tasks
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
    return {
        "ok": verdicts == [False, True],
        "claim": gettext("“24 GB is probably not enough for both; 48 GB has room.”"),
        "lines": lines,
    }


CHECKS = {
    "rule_of_thumb": _rule_of_thumb,
    "fit_on": _fit_on,
    "case_cost": _case_cost,
    "one_card": _one_card,
}


def premise_checks(
    slug: str, scenario: dict[str, Any], estimate: Estimate | None
) -> list[dict[str, Any]]:
    """The article's claims for preset `slug`, each with the arithmetic from `estimate`."""
    preset = PRESETS.get(slug)
    if preset is None or estimate is None:
        return []
    out: list[dict[str, Any]] = []
    for name in preset.checks:
        check = CHECKS[name](scenario, estimate)
        if check is not None:
            out.append(check)
    return out
