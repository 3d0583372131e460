"""The advisor's form: any model of the catalogue by name (a <select> grouped by family that
works without JavaScript), a pasted config.json, and a count typed by hand replacing either."""

from __future__ import annotations

import json
import re

from django.http import QueryDict
from django.utils import translation

from advisor.engine.estimate import estimate
from advisor.engine.hardware import load_accelerators
from advisor.engine.model_catalogue import MODELS
from advisor.engine.scenario import parse_scenario
from advisor.forms import ScenarioForm, scenario_query
from tests.advisor.engine.test_hf_config import LLAMA_3_1_8B, QWEN3_30B_A3B

URL = "/advisor/"


def form(**fields: str) -> ScenarioForm:
    data = QueryDict(mutable=True)
    data.update({"tasks": "1", "t0-kind": "inference", **{f"t0-{k}": v for k, v in fields.items()}})
    bound = ScenarioForm(data, platforms=[])
    bound.is_valid()
    return bound


def test_the_model_list_offers_every_pickable_model_grouped_by_family(client, db):
    """At least 110 models, in <optgroup>s: a plain <select> that works without JavaScript."""
    html = client.get(URL).content.decode()
    select = re.search(r'<select name="t0-model".*?</select>', html, flags=re.S)
    assert select is not None
    values = re.findall(r'<option value="([^"]+)"', select[0])
    assert len(values) >= 110 and set(values) == {m.id for m in MODELS.pickable}
    groups = re.findall(r'<optgroup label="([^"]+)"', select[0])
    assert {"Qwen3", "Llama 3", "DeepSeek-V3 / R1", "Whisper"} <= set(groups)
    assert "selected>Llama 3.1 8B</option>" in select[0]
    # The search box is hidden until static/js/model-search.js shows it.
    assert re.search(r"<input[^>]*data-model-search[^>]*hidden", html)
    assert "js/model-search.js" in html


def test_a_model_by_name_a_pasted_config_and_a_count_typed_by_hand() -> None:
    """Picked from the list, or its config.json pasted (the chosen model is replaced), the task
    is the same architecture: one estimate. A count typed by hand replaces both."""
    picked = form(model="qwen3-30b-a3b").scenario()
    pasted = form(model="llama-3.1-8b", config=json.dumps(QWEN3_30B_A3B))
    assert not pasted.has_errors
    task = pasted.scenario()["tasks"][0]
    assert task["config"] == QWEN3_30B_A3B and "model" not in task
    accelerators = load_accelerators()
    assert estimate(parse_scenario(picked), accelerators) == estimate(
        parse_scenario(pasted.scenario()), accelerators
    )
    typed = form(model="llama-3.1-8b", config=json.dumps(LLAMA_3_1_8B), params_b="13")
    assert typed.scenario()["tasks"][0]["params"] == 13e9
    assert {"model", "config"}.isdisjoint(typed.scenario()["tasks"][0])


def test_a_pasted_config_survives_the_link_back_to_the_form() -> None:
    scenario = form(config=json.dumps(LLAMA_3_1_8B)).scenario()
    query = scenario_query(scenario)
    assert query["t0-model"] == ""
    assert json.loads(query["t0-config"]) == LLAMA_3_1_8B
    again = ScenarioForm(query, platforms=[])
    assert again.is_valid() and again.scenario()["tasks"][0]["config"] == LLAMA_3_1_8B


def test_a_config_that_is_not_json_is_said_so_in_both_languages() -> None:
    assert form(config="{hidden_size: 4096").tasks[0].errors["config"] == [
        "This is not JSON: paste the whole config.json, from { to }."
    ]
    with translation.override("zh-hans"):
        [error] = form(config="[1, 2]").tasks[0].errors["config"]
    assert error == "config.json 是一个 JSON 对象，从 { 开始到 } 结束。"


def test_a_config_the_engine_cannot_read_is_shown_on_the_config_field(client, db):
    response = client.get(
        URL, {"tasks": "1", "t0-kind": "inference", "t0-config": '{"hidden_size": 4096}'}
    )
    errors = response.context["form"].tasks[0].errors
    assert "num_hidden_layers" in errors["config"][0]
