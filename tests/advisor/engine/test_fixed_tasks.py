"""Fixed tasks (rendering, simulation, video): the cards' FP64, RT-core and video-encoder
figures, the needs that leave offerings out (advisor/engine/needs.py), and a time from frames ×
seconds per frame on a reference card (timing.fixed_task_time, docs/time-model.md)."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

import pytest

from advisor.engine.advise import advise
from advisor.engine.errors import AdvisorError
from advisor.engine.estimate import estimate
from advisor.engine.hardware import load_accelerators
from advisor.engine.messages import Code
from advisor.engine.scenario import parse_scenario, scenario_to_dict
from advisor.engine.timing import fixed_task_time
from advisor.engine.types import OfferingSpec, PriceSpec, Task
from advisor.engine.vocab import CostBasis

ACCELERATORS = load_accelerators()
NOW = datetime(2026, 10, 2)


def offer(oid: str, slug: str, per_hour: str = "2.00", **kw: Any) -> OfferingSpec:
    price = PriceSpec(
        unit="hour", amount=Decimal(per_hour), currency="CNY", observed_at=datetime(2026, 9, 30)
    )
    return OfferingSpec(
        id=oid,
        platform="p",
        platform_name="P",
        name=oid,
        accelerator=ACCELERATORS[slug],
        prices=(price,),
        **kw,
    )


CATALOGUE = [
    offer("4090", "rtx-4090-24gb", "1.98"),
    offer("l40s", "l40s-48gb", "4.50"),
    offer("a100", "a100-80gb", "6.00"),
    offer("h100", "h100-sxm-80gb", "12.00"),
    offer("h800", "h800-80gb", "10.00"),
    offer("mtt", "mtt-s4000-48gb", "3.00"),
]


def render(**fields: Any) -> dict[str, Any]:
    return {
        "kind": "fixed",
        "name": "render",
        "vram_gib": 20,
        "frames": 2400,
        "seconds_per_frame": 30,
        "reference_accelerator": "rtx-4090-24gb",
        **fields,
    }


def run(*tasks: dict[str, Any], **constraints: Any) -> Any:
    scenario = parse_scenario({"tasks": list(tasks), "constraints": constraints})
    return advise(scenario, CATALOGUE, ACCELERATORS, now=NOW)


# ------------------------------------------------------------------------------- the figures


@pytest.mark.parametrize(
    ("slug", "fp64", "rt", "nvenc"),
    [
        ("h100-sxm-80gb", 34, 0, 0),
        ("h100-pcie-80gb", 26, 0, 0),
        ("l40s-48gb", 1.43, 142, 3),
        ("l40-48gb", 1.41, 142, 3),
    ],
)
def test_verified_figures_are_the_datasheets(slug: str, fp64: float, rt: int, nvenc: int) -> None:
    """H100: FP64 34 TFLOPS (SXM5) and 26 (PCIe), hpctech's copy of NVIDIA's H100 table; no RT
    cores and no NVENC on GH100. L40/L40S: 142 third-generation RT cores, 3 NVENC (NVIDIA's
    L40/L40S datasheet, mullet.se copy); L40S FP64 1,431 GFLOPS (itcreations), L40's the same
    1:64 of its FP32. Exact, as printed."""
    spec = ACCELERATORS[slug]
    assert (spec.fp64_tflops, spec.rt_cores, spec.nvenc) == (fp64, rt, nvenc)


def test_geforce_and_ada_fp64_is_one_64th_of_fp32() -> None:
    """GA10x, AD10x and GB20x run FP64 at 1/64 of FP32 (NVIDIA's Ampere GA102 and Ada Lovelace
    whitepapers), TU10x at 1/32: the table's derived rows follow, rounded to 0.01."""
    for slug, ratio in (
        ("rtx-3090-24gb", 64),
        ("rtx-4090-24gb", 64),
        ("rtx-5090-32gb", 64),
        ("a10-24gb", 64),
        ("rtx-2080ti-11gb", 32),
    ):
        spec = ACCELERATORS[slug]
        assert spec.fp32_tflops is not None
        assert spec.fp64_tflops == pytest.approx(spec.fp32_tflops / ratio, abs=0.005), slug


def test_data_centre_training_cards_have_neither_rt_cores_nor_encoders() -> None:
    """A100, H100, H800, H200, B200: compute chips without RT cores or NVENC (their datasheets
    list video decoders only); the H800 and H20 keep 1 TFLOPS of FP64 (export versions)."""
    for slug in ("a100-80gb", "h100-sxm-80gb", "h800-80gb", "h200-141gb", "b200-180gb"):
        spec = ACCELERATORS[slug]
        assert (spec.rt_cores, spec.nvenc) == (0, 0), slug
    assert ACCELERATORS["h800-80gb"].fp64_tflops == 1


# ------------------------------------------------------------------------------------ needs


def test_rendering_with_rt_cores_is_not_sent_to_a_card_without_them() -> None:
    """needs_rt_cores: the A100, H100 and H800 offerings are left out with reject_no_rt_cores;
    the MTT S4000 (MUSA) with reject_stack_optix: OptiX is NVIDIA's, and Blender's Cycles lists
    no MUSA backend (docs.blender.org, render/cycles/gpu_rendering.html), even with ports."""
    for constraints in ({}, {"allow_ports": True}):
        advice = run(render(needs_rt_cores=True), **constraints)
        ids = {r.offering_id for r in advice.recommendations}
        assert ids == {"4090", "l40s"}
        assert advice.rejected[Code.REJECT_NO_RT_CORES] == 3
        assert advice.rejected[Code.REJECT_STACK_OPTIX] == 1


def test_a_double_precision_simulation_is_not_sent_to_a_geforce_card() -> None:
    """min_fp64_tflops 5: the RTX 4090 (1.29), the L40S (1.43) and the H800 (1) are left out
    with reject_no_fp64; A100 (9.7) and H100 (34) run it."""
    cfd = render(name="cfd", min_fp64_tflops=5, scale_by="fp64", reference_accelerator="a100-80gb")
    advice = run(cfd)
    assert {r.offering_id for r in advice.recommendations} >= {"a100", "h100"}
    assert not {r.offering_id for r in advice.recommendations} & {"4090", "l40s", "h800"}
    assert advice.rejected[Code.REJECT_NO_FP64] == 3


def test_video_encoding_needs_an_nvenc() -> None:
    """The MTT S4000, whose encoders are not stated, runs the task's CUDA code only through a
    port (musify: MooreThreads/torch_musa README.md @8b583b3f): left out by default; with ports
    allowed it is kept, the port named and its encoders marked not checked."""
    advice = run(render(needs_nvenc=True))
    assert {r.offering_id for r in advice.recommendations} == {"4090", "l40s"}
    assert advice.rejected[Code.REJECT_NO_NVENC] == 3
    assert advice.rejected[Code.REJECT_STACK_PORT_ONLY] == 1
    ported = run(render(needs_nvenc=True), allow_ports=True)
    mtt = next(r for r in ported.recommendations if r.offering_id == "mtt")
    codes = {w.code for w in mtt.warnings}
    assert {Code.WARN_FIGURE_NOT_STATED, Code.WARN_STACK_PORT} <= codes
    port = next(w for w in mtt.warnings if w.code is Code.WARN_STACK_PORT)
    assert port.params["port"] == "musify" and port.params["stack"] == "MUSA"


def test_an_fp64_need_is_met_only_by_a_stated_figure() -> None:
    """min_fp64_tflops: the MTT S4000 states no FP64 rate, so it is left out with
    reject_fp64_not_stated, ports allowed or not ("not stated" is no pass); torch_musa may run
    double ops in float (MooreThreads/torch_musa torch_musa/README.md @8b583b3f)."""
    cfd = render(name="cfd", min_fp64_tflops=0.5, scale_by="fp32")
    with pytest.raises(AdvisorError) as caught:
        run(cfd, domestic_only=True)
    assert dict(caught.value.rejected)[Code.REJECT_FP64_NOT_STATED] == 1  # type: ignore[attr-defined]
    for constraints in ({}, {"allow_ports": True}):
        advice = run(cfd, **constraints)
        assert "mtt" not in {r.offering_id for r in advice.recommendations}
        assert advice.rejected[Code.REJECT_FP64_NOT_STATED] == 1
        for rec in advice.recommendations:
            spec = next(o.accelerator for o in CATALOGUE if o.id == rec.offering_id)
            assert spec.fp64_tflops is not None and spec.fp64_tflops >= 0.5


# ------------------------------------------------------------------------------------- time


def test_on_its_reference_card_the_time_is_frames_times_seconds() -> None:
    task = parse_scenario({"tasks": [render()]}).tasks[0]
    card = ACCELERATORS["rtx-4090-24gb"]
    est = fixed_task_time(task, card, card)
    assert est.hours == est.low_hours == est.high_hours == 2400 * 30 / 3600


def test_the_time_scales_by_the_stated_figure_and_its_range_by_the_other_roofline() -> None:
    """L40S against the RTX 4090 by FP32 TFLOPS: 91.6 / 82.6 faster. The other roofline,
    memory bandwidth (864 against 1,008 GB/s), bounds the slow end: a job bound by bandwidth runs
    0.857× as fast (Williams, Waterman and Patterson 2009: the speed-up lies between the ratio
    of peaks and the ratio of bandwidths)."""
    task = parse_scenario({"tasks": [render()]}).tasks[0]
    est = fixed_task_time(task, ACCELERATORS["l40s-48gb"], ACCELERATORS["rtx-4090-24gb"])
    work = 2400 * 30 / 3600
    assert est.speedup == pytest.approx(91.6 / 82.6)
    assert est.hours == pytest.approx(work / (91.6 / 82.6))
    assert est.low_hours == pytest.approx(est.hours)
    assert est.high_hours == pytest.approx(work / (864 / 1008))


def test_gpus_render_separate_frames() -> None:
    task = parse_scenario({"tasks": [render(gpus=4)]}).tasks[0]
    card = ACCELERATORS["rtx-4090-24gb"]
    assert fixed_task_time(task, card, card).hours == pytest.approx(2400 * 30 / 3600 / 4)


def test_a_cfd_run_on_a_geforce_card_takes_the_fp64_ratio_longer() -> None:
    """scale_by fp64 from an A100 (9.7 TFLOPS, 2,039 GB/s) to an RTX 4090 (1.29, 1,008): 7.5×
    as long when FP64-bound, 2× when bandwidth-bound: the range."""
    cfd = render(scale_by="fp64", reference_accelerator="a100-80gb", seconds_per_frame=2)
    task = parse_scenario({"tasks": [cfd]}).tasks[0]
    est = fixed_task_time(task, ACCELERATORS["rtx-4090-24gb"], ACCELERATORS["a100-80gb"])
    work = 2400 * 2 / 3600
    assert est.hours == pytest.approx(work * 9.7 / 1.29)
    assert est.low_hours == pytest.approx(work * 2039 / 1008)
    assert est.high_hours == pytest.approx(est.hours)


def test_a_fixed_task_with_frames_is_a_job_with_its_time_and_cost() -> None:
    """frames make a fixed task a job (usage.is_job): costed for its run, with its time range
    and the job cost that follows (20 hours on the 4090 at ¥1.98)."""
    advice = run(render())
    assert advice.cost_basis == CostBasis.JOB
    rec = next(r for r in advice.recommendations if r.offering_id == "4090")
    assert rec.time_hours == pytest.approx(20)
    assert rec.job_cost == Decimal("1.98") * 20
    assert rec.time_low_hours is not None and rec.time_high_hours is not None
    assert rec.time_low_hours <= rec.time_hours <= rec.time_high_hours


def test_the_deadline_applies_to_a_fixed_jobs_time() -> None:
    advice = run(render(), deadline_hours=19)
    assert "4090" not in {r.offering_id for r in advice.recommendations}
    assert advice.rejected[Code.REJECT_MISSES_DEADLINE] >= 1


def test_estimate_on_named_hardware_gives_the_fixed_time() -> None:
    scenario = parse_scenario({"tasks": [render(on={"accelerator": "l40s-48gb"})]})
    result = estimate(scenario, ACCELERATORS).tasks[0]
    assert result.fixed_time is not None
    assert result.fixed_time.hours == pytest.approx(20 * 82.6 / 91.6)


# ---------------------------------------------------------------------------- the scenario


def test_fixed_fields_round_trip_and_stay_off_other_tasks() -> None:
    scenario = parse_scenario(
        {"tasks": [render(needs_nvenc=True), {"kind": "lora", "model": "llama-3.1-8b"}]}
    )
    back = scenario_to_dict(scenario)
    assert "needs_nvenc" not in back["tasks"][1] and "scale_by" not in back["tasks"][1]
    assert parse_scenario(back) == scenario


@pytest.mark.parametrize(
    ("task", "field", "code"),
    [
        (render(seconds_per_frame=None), "seconds_per_frame", Code.FIXED_TIME_FIELDS),
        (
            {"kind": "lora", "model": "llama-3.1-8b", "needs_rt_cores": True},
            "needs_rt_cores",
            Code.ONLY_FOR_FIXED,
        ),
        (render(scale_by="fp16"), "scale_by", Code.MUST_BE_ONE_OF),
        (render(frames=0), "frames", Code.OUT_OF_RANGE),
        (render(min_fp64_tflops=-1), "min_fp64_tflops", Code.OUT_OF_RANGE),
        (
            {"kind": "fixed", "vram_gib": 8, "jobs_per_month": 2},
            "jobs_per_month",
            Code.JOBS_NEED_TOKENS,
        ),
    ],
)
def test_fixed_fields_are_validated_with_their_codes(
    task: dict[str, Any], field: str, code: Code
) -> None:
    with pytest.raises(AdvisorError) as caught:
        parse_scenario({"tasks": [task]})
    assert (caught.value.field, caught.value.code) == (f"tasks[0].{field}", code)


def test_an_unknown_reference_card_or_one_without_the_figure_is_an_input_error() -> None:
    for reference, code in (
        ("zzzz-0", Code.UNKNOWN_ACCELERATOR),
        ("ascend-910b-64gb", Code.FIXED_NO_FIGURE),  # no FP32 figure
    ):
        with pytest.raises(AdvisorError) as caught:
            run(render(reference_accelerator=reference))
        assert caught.value.field == "tasks[0].reference_accelerator"
        assert caught.value.code == code


def test_a_fixed_job_recurs_with_jobs_per_month() -> None:
    scenario = parse_scenario({"tasks": [render(jobs_per_month=4)]})
    assert scenario.tasks[0].jobs_per_month == 4
    advice = advise(scenario, CATALOGUE, ACCELERATORS, now=NOW)
    assert advice.cost_basis == CostBasis.MONTH
    rec = next(r for r in advice.recommendations if r.offering_id == "4090")
    assert rec.monthly_cost == Decimal("1.98") * 80


def test_a_task_without_frames_stays_a_service() -> None:
    advice = run({"kind": "fixed", "vram_gib": 20})
    assert advice.cost_basis == CostBasis.MONTH
    assert all(r.time_hours is None for r in advice.recommendations)


def test_task_defaults() -> None:
    task = Task(name="t", kind="fixed", vram_gib=1)
    assert (task.scale_by, task.needs_rt_cores, task.needs_nvenc) == ("fp32", False, False)
