"""The model catalogue (fixtures/models.json with the presets): what can be picked by name, what is
left out and why, and that each model's figures agree with what its sources publish."""

from __future__ import annotations

import json

import pytest

from advisor.engine.errors import InvalidWorkload
from advisor.engine.estimate import estimate
from advisor.engine.hardware import load_accelerators
from advisor.engine.messages import Code
from advisor.engine.model_catalogue import DEFAULT_PATH, MODELS, catalogue_from_dict
from advisor.engine.presets import MODEL_PRESETS
from advisor.engine.scenario import parse_scenario, parse_task, scenario_to_dict

DATA = json.loads(DEFAULT_PATH.read_text(encoding="utf-8"))
ENTRIES = {entry["id"]: entry for entry in DATA["models"]}


def test_at_least_110_models_can_be_picked_by_name() -> None:
    """Every model of the data whose sources give a parameter count or a shape to count: 105 of
    its 122 entries (13 of them are presets) and the 5 presets it lacks."""
    assert len(MODELS.pickable) >= 110
    for model in MODELS.pickable:
        parsed = parse_task({"kind": "inference", "model": model.id}, 0)
        assert parsed.model == model.id and parsed.arch == model.arch


@pytest.mark.parametrize("kind", ["inference", "lora"])
def test_every_pickable_model_gets_an_estimate_and_writes_back_as_itself(kind: str) -> None:
    """Its architecture suffices: a memory plan for serving and for a LoRA, and the scenario
    written back as JSON reads as the same scenario."""
    accelerators = load_accelerators()
    for model in MODELS.pickable:
        scenario = parse_scenario({"tasks": [{"kind": kind, "model": model.name}]})
        assert parse_scenario(scenario_to_dict(scenario)) == scenario
        [task] = estimate(scenario, accelerators).tasks
        assert task.per_gpu.weights > 0 and task.per_gpu.total > task.per_gpu.weights, model.id


def test_every_entry_of_the_data_is_pickable_or_left_out_with_a_reason() -> None:
    left_out = {m.id for m in MODELS.models.values() if m.arch is None}
    for entry in DATA["models"]:
        model = MODELS.find(entry["id"])
        assert model is not None, entry["id"]
        if model.arch is None:
            assert model.excluded is not None
            has_count = entry["params_total"] or entry["params_computed"]
            assert not has_count, f"{entry['id']} has a published count yet is left out"
    # 11 without a count or a full shape, 5 whose layers the counter does not read, Aya 23.
    assert len(left_out) == 17


def test_every_preset_keeps_its_id_and_its_architecture() -> None:
    """Existing scenarios, saved links and tests name the presets by these ids."""
    for key, arch in MODEL_PRESETS.items():
        assert MODELS.resolve(key, "model") == (key, arch)


@pytest.mark.parametrize(
    ("name", "model"),
    [
        ("Qwen/Qwen3-30B-A3B", "qwen3-30b-a3b"),
        ("qwen3 30b-a3b", "qwen3-30b-a3b"),
        ("mistral-7b-v0.1", "mistral-7b"),
        ("mistralai/Mistral-7B-v0.1", "mistral-7b"),
        ("Llama 3.1 8B", "llama-3.1-8b"),
        ("DEEPSEEK-V3", "deepseek-v3"),
        ("sd-3.5-large", "sd3.5-large"),
    ],
)
def test_a_model_is_found_by_its_id_name_or_hugging_face_repository(name: str, model: str) -> None:
    found = MODELS.find(name)
    assert found is not None and found.id == model


def test_every_model_keeps_its_source() -> None:
    for model in MODELS.models.values():
        assert model.source.strip() and model.name.strip() and model.group.strip()


def test_counted_totals_agree_with_the_published_ones() -> None:
    """Where the data publishes a total (model cards' rounded sizes) beside the shape the
    counter reads, the two agree within 2 %: Qwen3-30B-A3B 30.53B against "30B"; DeepSeek-V2-Lite
    15.71B against "16B"; Llama 3.1 70B 70.55B against "70B"; GLM-4.5 352.8B against 355B."""
    checked = 0
    for model in MODELS.models.values():
        entry = ENTRIES.get(model.id)
        if model.basis != "counted" or entry is None or not entry["params_total"]:
            continue
        assert model.arch is not None
        assert model.arch.params == pytest.approx(entry["params_total"], rel=0.02), model.id
        checked += 1
    assert checked >= 15


def test_counted_dense_models_agree_with_the_datas_own_computed_counts() -> None:
    """The data's params_computed (the same formula without biases or q/k norms) within 0.01 %."""
    for model in MODELS.models.values():
        entry = ENTRIES.get(model.id)
        if model.basis == "counted" and entry and entry["params_computed"]:
            assert model.arch is not None
            assert model.arch.params == pytest.approx(entry["params_computed"], rel=1e-4)


def test_a_model_left_out_says_why_and_what_to_do() -> None:
    with pytest.raises(InvalidWorkload) as caught:
        parse_task({"kind": "inference", "model": "bge-m3"}, 0)
    assert caught.value.code is Code.MODEL_NOT_ESTIMABLE
    assert "config.json" in caught.value.message
    assert caught.value.field == "tasks[0].model"


def test_an_unknown_model_suggests_close_ones() -> None:
    with pytest.raises(InvalidWorkload) as caught:
        parse_task({"kind": "inference", "model": "qwen3-31b"}, 0)
    assert caught.value.code is Code.UNKNOWN_MODEL_DID_YOU_MEAN
    assert "qwen3-32b" in caught.value.detail.params["suggestions"]  # type: ignore[operator]


def test_a_model_and_params_in_one_task_are_still_refused() -> None:
    with pytest.raises(InvalidWorkload) as caught:
        parse_task({"kind": "lora", "model": "llama-3.1-8b", "params": 13e9}, 0)
    assert caught.value.code is Code.MODEL_AND_PARAMS


def test_an_entry_without_a_count_or_a_shape_is_left_out() -> None:
    data = {
        "families": {"x": {"name": "X", "model_type": "llama"}},
        "presets": DATA["presets"],
        "models": [
            *DATA["models"],
            {
                "id": "x-1b",
                "name": "X 1B",
                "family": "x",
                "kind": "llm-dense",
                "hf_repo": "x/x-1b",
                "source": "somewhere",
                "grade": "S",
                "params_total": None,
                "params_computed": None,
                "layers": 12,
                "hidden_size": None,
            },
        ],
    }
    data["families"].update(DATA["families"])
    catalogue = catalogue_from_dict(data)
    model = catalogue.find("x/x-1b")
    assert model is not None and model.arch is None and model.excluded is Code.EXCLUDED_NO_COUNT
