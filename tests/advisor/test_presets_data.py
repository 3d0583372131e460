"""The seed article's presets are data (advisor/presets.json): every preset's scenario is valid
contract JSON, every check it names exists in the engine, its pick names its own tasks, and
every text a reader sees has its Chinese in the catalogue (makemessages does not read JSON)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from django.conf import settings
from django.utils import translation

from advisor import presets
from advisor.engine.premises import CHECKS
from advisor.engine.scenario import parse_scenario

PO_FILE = Path(settings.BASE_DIR) / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po"


@pytest.mark.parametrize("slug", list(presets.PRESETS))
def test_each_presets_scenario_is_valid_and_names_known_checks(slug: str) -> None:
    preset = presets.PRESETS[slug]
    scenario = parse_scenario(preset.named_scenario())
    assert scenario.preset == slug
    assert set(preset.checks) <= set(CHECKS)
    names = {task.name for task in scenario.tasks}
    for leg in preset.pick.legs if preset.pick is not None else ():
        assert set(leg.tasks) <= names


def test_the_file_keeps_the_articles_order_and_source() -> None:
    data = json.loads(presets.PRESETS_FILE.read_text(encoding="utf-8"))
    assert [item["slug"] for item in data["presets"]] == list(presets.PRESETS)
    assert data["source"]["published_on"] == "2026-05-26"
    assert presets.PRESETS["medical-70b"].checks == ("rule_of_thumb", "fit_on", "case_cost")


def test_a_check_the_engine_does_not_have_is_refused_at_load(tmp_path: Path) -> None:
    data = json.loads(presets.PRESETS_FILE.read_text(encoding="utf-8"))
    data["presets"][0]["checks"] = ["nvlink_gain", "no_such_check"]
    path = tmp_path / "presets.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(presets.PresetFileError, match="no check named no_such_check"):
        presets.load(path)


def test_a_pick_of_tasks_the_scenario_lacks_is_refused_at_load(tmp_path: Path) -> None:
    data = json.loads(presets.PRESETS_FILE.read_text(encoding="utf-8"))
    mixed = next(item for item in data["presets"] if item["slug"] == "mixed-platforms")
    mixed["pick"]["legs"][0]["tasks"] = ["nightly training"]
    path = tmp_path / "presets.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(presets.PresetFileError, match="mixed-platforms"):
        presets.load(path)


def test_every_text_of_the_presets_has_its_chinese() -> None:
    with PO_FILE.open("rb") as po:
        catalog = read_po(po, locale="zh_Hans")
    texts = presets.texts()
    assert len(texts) > 40
    missing = []
    for text in texts:
        entry = catalog.get(text)
        if entry is None or not entry.string:
            missing.append(f"{text!r}: not in {PO_FILE.name}")
            continue
        with translation.override("zh-hans"):
            shown = translation.gettext(text)
        if shown != entry.string:
            missing.append(f"{text!r}: not compiled (manage.py compile_translations)")
    assert missing == []


def test_a_presets_texts_are_shown_in_the_active_language() -> None:
    preset = presets.PRESETS["medical-70b"]
    with translation.override("zh-hans"):
        assert str(preset.title) != "The 70B medical fine-tune case"
        name = preset.translated_scenario()["tasks"][0]["name"]
        assert name != preset.scenario["tasks"][0]["name"]
    with translation.override("en"):
        assert str(preset.title) == "The 70B medical fine-tune case"
