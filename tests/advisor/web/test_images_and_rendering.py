"""The advisor page and API for image models and fixed tasks: the task row's image and rendering
fields reach the scenario, the offerings a need leaves out are counted on the page with their
reason, a fixed task with frames gets a time, and the accelerator API carries the new figures."""

from __future__ import annotations

import re

from django.http import QueryDict

from advisor.forms import TaskForm, _task_defaults, scenario_query

URL = "/advisor/"


def row(**fields: str) -> TaskForm:
    data = _task_defaults("t0") | {f"t0-{k}": v for k, v in fields.items()}
    form = TaskForm(data, prefix="t0")
    assert form.is_valid(), form.errors
    return form


def test_image_fields_are_sent_for_a_diffusion_preset_only() -> None:
    flux = row(model="flux.1-dev", resolution="768", text_encoders="offload").to_task()
    assert (flux["resolution"], flux["text_encoders"]) == (768, "offload")
    llm = row(model="llama-3.1-8b", resolution="768", text_encoders="offload").to_task()
    assert "resolution" not in llm and "text_encoders" not in llm


def test_a_fixed_row_sends_its_frames_reference_and_needs() -> None:
    task = row(
        kind="fixed",
        vram_gib="20",
        frames="2400",
        seconds_per_frame="30",
        reference_accelerator=" rtx-4090-24gb ",
        scale_by="fp32",
        needs_rt_cores="on",
    ).to_task()
    assert task["frames"] == 2400 and task["seconds_per_frame"] == 30
    assert task["reference_accelerator"] == "rtx-4090-24gb"
    assert task["needs_rt_cores"] is True and "needs_nvenc" not in task
    assert "frames" not in row(kind="fixed", vram_gib="20").to_task()


RENDER = {
    "tasks": [
        {
            "name": "render",
            "kind": "fixed",
            "vram_gib": 20,
            "frames": 2400,
            "seconds_per_frame": 30,
            "reference_accelerator": "rtx-4090-24gb",
            "needs_rt_cores": True,
        }
    ],
    "constraints": {"currency": "CNY"},
    "objective": "cost",
}


def test_the_page_says_which_offerings_a_need_left_out_and_times_the_frames(
    client, seed, frozen
) -> None:
    """Rendering with RT cores: the seed's A100, H100, H800 and H20 offerings are left out, and
    the page says so with the reason; the recommendations are jobs with a time."""
    response = client.get(URL, QueryDict(scenario_query(RENDER).urlencode()))
    assert response.status_code == 200
    advice = response.context["outcome"].report.advice
    assert advice.rejected.get("reject_no_rt_cores", 0) > 0
    html = response.content.decode()
    left_out = re.search(r"<span data-rejected>(.*?)</span>", html, re.S)
    assert left_out is not None and "no RT cores: " in left_out[1]
    accelerators = {r.accelerator for r in advice.recommendations}
    assert not accelerators & {"a100-80gb", "h100-sxm-80gb", "h800-80gb", "h20-96gb"}
    assert all(r.time_hours is not None for r in advice.recommendations)


def test_the_accelerator_api_carries_the_fixed_task_figures_with_their_grades(client, seed) -> None:
    body = client.get("/api/v1/accelerators/l40s-48gb/").json()
    assert (body["fp64_tflops"], body["rt_cores"], body["nvenc"]) == (1.43, 142, 3)
    assert body["figure_confidence"]["rt_cores"] == "verified"


def test_estimate_api_gives_a_fixed_tasks_time_on_named_hardware(client, seed) -> None:
    task = {**RENDER["tasks"][0], "on": {"accelerator": "l40s-48gb"}}
    response = client.post("/api/v1/estimate/", {"tasks": [task]}, content_type="application/json")
    assert response.status_code == 200
    fixed = response.json()["tasks"][0]["fixed_time"]
    assert fixed["hours"] == round(20 * 82.6 / 91.6, 2)
    assert fixed["low_hours"] <= fixed["hours"] <= fixed["high_hours"]
