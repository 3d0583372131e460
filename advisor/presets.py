"""Advisor presets: the scenarios of the vendor article "2026多任务GPU平台怎么选" (智星云), read
from the data file beside this module (presets.json).

Each preset is scenario JSON (README.md contract), the article's claim about it, its quote, the
article's own pick (the offering, or in tip 4 the plan of two, that it recommends) and the claims
it makes that the product checks (`checks`, names in advisor.engine.premises.CHECKS). A scenario
that names its preset (`"preset": "<id>"`) is answered with the checks and the verdict on the
pick, through the page, the API (`/api/v1/advise/`, `/api/v1/presets/`) and the CLI alike
(advisor/services.py).

The file's texts are English; each is translated when shown (gettext), so each needs its
Chinese in locale/zh_Hans/LC_MESSAGES/django.po, added by hand (makemessages does not read JSON):
tests/advisor/test_presets_data.py lists any that lacks one. Stale prices are in the catalogue
the presets see, as in every scenario that does not ask for `fresh_only`: the article's platforms
quote prices from May 2026, each shown with its age.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext, gettext_lazy

from advisor.engine.premises import CHECKS
from advisor.engine.verdict import PickLeg

PRESETS_FILE = Path(__file__).with_name("presets.json")


@dataclass(frozen=True)
class Pick:
    """What the article recommends for a scenario: one offering, or a plan of legs."""

    label: Promise
    legs: tuple[PickLeg, ...]


@dataclass(frozen=True)
class Preset:
    slug: str
    title: Promise
    summary: Promise
    scenario: dict[str, Any]
    article: Promise | None = None  # the article's claim, paraphrased
    checks: tuple[str, ...] = field(default_factory=tuple)  # names in premises.CHECKS
    pick: Pick | None = None  # the article's own pick for this scenario
    quote: str = ""  # the article's words the preset is built on (Chinese, as published)

    def translated_scenario(self) -> dict[str, Any]:
        """`scenario` with its task names in the active language, for the preset's link; the
        scenario itself stays the English contract JSON (tests, API examples)."""
        return {
            **self.scenario,
            "tasks": [{**task, "name": gettext(task["name"])} for task in self.scenario["tasks"]],
        }

    def named_scenario(self) -> dict[str, Any]:
        """`scenario` naming its preset: posted to advise, it is answered with the checks and the
        verdict on the article's pick."""
        return {**self.scenario, "preset": self.slug}


class PresetFileError(ValueError):
    """The presets file names something that does not exist (a check, a task)."""


def _pick(data: dict[str, Any]) -> Pick:
    legs = tuple(
        PickLeg(
            leg["platform"],
            tuple(leg.get("accelerators", ())),
            leg.get("gpu_count"),
            leg.get("sharing"),
            tuple(leg.get("units", ())),
            tuple(leg.get("tasks", ())),
        )
        for leg in data["legs"]
    )
    return Pick(gettext_lazy(data["label"]), legs)


def _preset(data: dict[str, Any]) -> Preset:
    slug = data["slug"]
    checks = tuple(data.get("checks", ()))
    unknown = [name for name in checks if name not in CHECKS]
    if unknown:
        raise PresetFileError(f"{slug}: no check named {', '.join(unknown)}")
    pick = None if data.get("pick") is None else _pick(data["pick"])
    names = {task["name"] for task in data["scenario"]["tasks"]}
    for leg in pick.legs if pick is not None else ():
        if not set(leg.tasks) <= names:
            raise PresetFileError(f"{slug}: the pick names tasks the scenario does not have")
    claim = data.get("claim")
    return Preset(
        slug=slug,
        title=gettext_lazy(data["title"]),
        summary=gettext_lazy(data["summary"]),
        scenario=data["scenario"],
        article=None if claim is None else gettext_lazy(claim),
        checks=checks,
        pick=pick,
        quote=data.get("quote", ""),
    )


def load(path: Path = PRESETS_FILE) -> dict[str, Preset]:
    """The presets of `path`, by slug, in the file's order."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return {preset.slug: preset for preset in map(_preset, data["presets"])}


def texts(path: Path = PRESETS_FILE) -> list[str]:
    """Every text of `path` that is shown translated: titles, summaries, claims, pick labels and
    task names."""
    out: list[str] = []
    for item in json.loads(path.read_text(encoding="utf-8"))["presets"]:
        out += [item["title"], item["summary"]]
        out += [item["claim"]] if "claim" in item else []
        out += [item["pick"]["label"]] if item.get("pick") else []
        out += [task["name"] for task in item["scenario"]["tasks"]]
    return out


PRESETS: dict[str, Preset] = load()
