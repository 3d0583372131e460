"""Golden scenarios: advice a renter can act on, the same through the service, the API, the page
and the CLI, on the seed catalogue (tests.conftest.NOW) and the real SkyPilot AWS sample.

Each test is one of the defects the advisor had, with its figures:
1. a one-off job is costed for its run, not a month;
2. zero busy hours are refused, not priced at zero;
3. a lone task gets a whole GPU, not the smallest MIG slice;
4. NVSwitch machines import as NVLink (so 8-GPU training scales and `require_nvlink` finds them);
5. stale prices are shown (with their age) unless `fresh_only`;
6. storage is counted for every recommendation (assumed at the median where unknown);
7. (the break-even chart: tests/advisor/web/test_advisor_charts.py);
8. spot capacity is kept from always-on services, a job longer than its window says so, ties
   are called, and the same offer in several regions is one recommendation.
"""

from __future__ import annotations

import json
import math
import statistics
from decimal import Decimal
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.http import QueryDict
from rest_framework.test import APIClient

from advisor.engine import timing
from advisor.engine.errors import InvalidWorkload
from advisor.engine.messages import Code
from advisor.engine.scenario import parse_scenario
from advisor.forms import scenario_query
from advisor.presets import PRESETS
from advisor.services import accelerator_specs, advise_scenario
from tests.conftest import NOW

# AutoDL's RTX 4090 list price, 2026-10-04 (libtv 03, from autodl.com's price list); 1.88 is the
# member price (95 % of list), which a scenario gets with price_tier "member".
AUTODL_4090_HOURLY = Decimal("1.98")
AUTODL_4090_MEMBER = Decimal("1.88")
AUTODL_4090D_MONTHLY = Decimal("946")
AUTODL_DISK_PER_GB_DAY = Decimal("0.0066")  # AutoDL paid data disk, 2026-08 (seed catalogue)


def service(scenario: dict[str, Any]):
    return advise_scenario(scenario, now=NOW)


def api(scenario: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    response = APIClient().post("/api/v1/advise/", scenario, format="json")
    return response.status_code, response.json()


def page(client, scenario: dict[str, Any]):
    return client.get("/advisor/", QueryDict(scenario_query(scenario).urlencode()))


def cli(scenario: dict[str, Any]) -> dict[str, Any]:
    out = StringIO()
    call_command("advise", "-", stdin=StringIO(json.dumps(scenario)), stdout=out)
    return json.loads(out.getvalue())


def ranking_everywhere(client, scenario: dict[str, Any]) -> list[Any]:
    """The ranked offering ids, asserted equal in the service, the API, the page and the CLI."""
    report = service(scenario)
    assert report.advice is not None, report.no_fit
    ids = [r.offering_id for r in report.advice.recommendations]
    status, body = api(scenario)
    assert status == 200, body
    assert [r["offering_id"] for r in body["recommendations"]] == ids
    response = page(client, scenario)
    assert response.status_code == 200
    assert [row["rec"].offering_id for row in response.context["rows"]] == ids
    assert [r["offering_id"] for r in cli(scenario)["recommendations"]] == ids
    return ids


def lora(**extra: Any) -> dict[str, Any]:
    """Qwen2.5-7B LoRA, full recomputation so that it fits a 24 GB card (docs/memory-model.md)."""
    return {
        "name": "lora",
        "kind": "lora",
        "model": "qwen2.5-7b",
        "activation_checkpointing": "full",
        **extra,
    }


# 1 ------------------------------------------------------------------------------------------


def test_a_one_off_job_is_costed_for_its_run_and_the_hourly_4090_beats_the_monthly_4090d(
    client, seed, frozen
):
    """A LoRA job of 5e7 tokens on AutoDL takes about 10 h on an RTX 4090: ¥1.98/h (the list
    price) × its hours (per-second metering, AutoDL's billing docs), about ¥19, where the 4090D's
    only plan is a ¥946 month. The month plan is costed for what it is (one month) and ranks
    last."""
    scenario = {
        "tasks": [lora(tokens=5e7)],
        "constraints": {"platforms": ["autodl"]},
        "objective": "cost",
    }
    ids = ranking_everywhere(client, scenario)
    advice = service(scenario).advice
    assert advice.cost_basis == "job"
    recs = {r.offering_name: r for r in advice.recommendations}
    hourly = recs["RTX 4090 24GB"]
    assert hourly.plan.unit == "hour" and hourly.cost_basis == "job"
    assert 8 < hourly.time_hours < 12
    assert float(hourly.cost) == pytest.approx(
        float(AUTODL_4090_HOURLY) * hourly.time_hours, abs=0.01
    )
    assert 15 < hourly.cost < 23
    monthly = recs["RTX 4090D 24GB"]
    assert (monthly.plan.unit, monthly.cost) == ("month", AUTODL_4090D_MONTHLY)
    assert ids[-1] == monthly.offering_id
    assert all(r.plan.unit == "hour" for r in advice.recommendations[:-1])
    _, body = api(scenario)
    assert body["cost_basis"] == "job"
    top = body["recommendations"][0]
    assert top["cost"] == top["job_cost"] and top["cost_basis"] == "job"


def test_a_recurring_job_is_costed_per_month_with_its_runs(client, seed, frozen):
    """The same job 30 times a month: 30 × ~10 h = ~300 busy hours, still below the 4090's
    break-even with its month plan (¥1052 / ¥1.98 = 531 h), so the hour plan wins at ~¥590."""
    scenario = {
        "tasks": [lora(tokens=5e7, jobs_per_month=30)],
        "constraints": {"platforms": ["autodl"]},
        "objective": "cost",
    }
    ranking_everywhere(client, scenario)
    advice = service(scenario).advice
    assert advice.cost_basis == "month"
    rec = next(r for r in advice.recommendations if r.offering_name == "RTX 4090 24GB")
    assert rec.plan.unit == "hour"
    assert float(rec.monthly_cost) == pytest.approx(30 * 1.98 * rec.time_hours, abs=0.05)


def test_a_member_is_quoted_the_member_price_where_one_is_stated(client, seed, frozen):
    """AutoDL members pay 95 % of list (libtv 03, 2026-10-04; AutoDL search report, 2026-08-06):
    ¥1.88 an hour for the RTX 4090 instead of ¥1.98. An offering with no member price (the
    4090D's month plan) keeps its list price."""
    scenario = {
        "tasks": [lora(tokens=5e7)],
        "constraints": {"platforms": ["autodl"], "price_tier": "member"},
        "objective": "cost",
    }
    ranking_everywhere(client, scenario)
    advice = service(scenario).advice
    recs = {r.offering_name: r for r in advice.recommendations}
    hourly = recs["RTX 4090 24GB"]
    assert hourly.plan.price == AUTODL_4090_MEMBER
    assert float(hourly.cost) == pytest.approx(
        float(AUTODL_4090_MEMBER) * hourly.time_hours, abs=0.01
    )
    assert recs["RTX 4090D 24GB"].cost == AUTODL_4090D_MONTHLY
    listed = service({**scenario, "constraints": {"platforms": ["autodl"]}}).advice
    list_hourly = next(r for r in listed.recommendations if r.offering_name == "RTX 4090 24GB")
    assert list_hourly.plan.price == AUTODL_4090_HOURLY


# 2 ------------------------------------------------------------------------------------------


def test_zero_busy_hours_are_refused_naming_the_field(client, seed, frozen):
    """¥12,000 a month is not free at 0 h: the scenario is refused, not ranked at ¥0.00."""
    scenario = {"tasks": [{"kind": "fixed", "vram_gib": 20, "hours_per_month": 0}]}
    with pytest.raises(InvalidWorkload) as raised:
        service(scenario)
    assert raised.value.field == "tasks[0].hours_per_month"
    status, body = api(scenario)
    assert status == 400 and list(body["error"]["fields"]) == ["tasks[0].hours_per_month"]
    query = QueryDict(mutable=True)
    query.update({"t0-kind": "fixed", "t0-vram_gib": "20", "t0-hours_per_month": "0"})
    response = client.get("/advisor/", query)
    assert response.context["outcome"] is None or not response.context.get("rows")
    assert "t0-hours_per_month" in response.content.decode()


# 3 ------------------------------------------------------------------------------------------


def test_a_lone_task_gets_a_whole_a100_not_the_smallest_mig_slice(client, seed, frozen):
    """智星云's 8× A100 80G machine (MIG platform): one 7B LoRA runs on one whole A100 at the
    whole card's speed, with no MIG words; the 1× A100 40G offering runs it on its whole card
    too, a little slower: its 1,555 GB/s against 2,039 make the memory-bound share of a step
    larger (docs/time-model.md, "Utilisation")."""
    scenario = {
        "tasks": [lora(tokens=5e8)],
        "constraints": {"platforms": ["zhixingyun"]},
        "objective": "time",
    }
    ranking_everywhere(client, scenario)
    advice = service(scenario).advice
    recs = {r.offering_name: r for r in advice.recommendations}
    a100x8 = recs["A100 80G × 8 bare metal (NVLink)"]
    [assignment] = a100x8.placement.assignments
    assert (assignment.mode, assignment.mig_profile) == ("whole", None)
    assert a100x8.isolation == ("whole",)
    assert Code.WARN_MIG_NO_P2P not in {w.code for w in a100x8.warnings}
    task = parse_scenario(scenario).tasks[0]
    whole = timing.training_time(task, accelerator_specs()["a100-80gb"], 1, "nvlink")
    assert a100x8.time_hours == pytest.approx(whole.hours)
    forty = timing.training_time(task, accelerator_specs()["a100-40gb"], 1, "nvlink")
    assert recs["A100 40G monthly (per card)"].time_hours == pytest.approx(forty.hours)
    assert whole.hours < forty.hours < 1.15 * whole.hours
    assert advice.recommendations[0].offering_name.startswith("A100")


def test_tasks_share_a_card_only_when_the_instance_has_no_free_gpu(client, seed, frozen):
    """Three tasks on the 8× A100 machine take three whole GPUs; on the 1-GPU A100 40G offering
    of the same MIG platform they share its card as MIG slices, each slower by its compute
    share (7 slices / the slice's) of the A100 40G's whole-card time (its own utilisation:
    1,555 GB/s against the 80G's 2,039). The LoRA uses Liger kernels: with the Hugging Face loss its
    152k-entry vocabulary keeps 4.6 GiB of logits and it no longer fits a 20 GB slice
    (docs/memory-model.md, "The loss")."""
    scenario = {
        "tasks": [
            lora(tokens=5e8, framework="liger"),
            {"name": "b", "kind": "fixed", "vram_gib": 8},
            {"name": "c", "kind": "fixed", "vram_gib": 8},
        ],
        "constraints": {"platforms": ["zhixingyun"]},
        "objective": "time",
    }
    ranking_everywhere(client, scenario)
    recs = {r.offering_name: r for r in service(scenario).advice.recommendations}
    big = recs["A100 80G × 8 bare metal (NVLink)"]
    assert [a.mode for a in big.placement.assignments] == ["whole"] * 3
    assert len({a.gpus for a in big.placement.assignments}) == 3
    small = recs["A100 40G monthly (per card)"]
    assert {a.mode for a in small.placement.assignments} == {"mig"}
    slice_ = small.placement.assignments[0].mig_profile
    compute = int(slice_.split("g.")[0])
    task = parse_scenario(scenario).tasks[0]
    whole_40g = timing.training_time(task, accelerator_specs()["a100-40gb"], 1, "nvlink")
    assert small.time_hours == pytest.approx(whole_40g.hours * 7 / compute)
    assert Code.WARN_MIG_NO_P2P in {w.code for w in small.warnings}


# 4 ------------------------------------------------------------------------------------------


@pytest.fixture
def aws(seed):
    from platforms.models import Platform
    from tests.importers.conftest import run, sample

    platform = Platform.objects.get(slug="aws")  # seeded, so that its catalog imports as is
    run(sample("skypilot-v8-aws-vms.csv"), "skypilot", platform, day=NOW.date())
    return platform


def test_nvswitch_machines_from_the_aws_sample_scale_and_pass_require_nvlink(client, aws, frozen):
    """p4d/p4de/p5/p5en/p6-b200 are NVSwitch machines (AWS instance pages): an 8-GPU FSDP
    fine-tune on them scales at >= 90 % (NVLink all-reduce, docs/time-model.md), not 5 %, and
    `require_nvlink` keeps them."""
    scenario = {
        "tasks": [
            {
                "name": "fsdp",
                "kind": "full_finetune",
                "model": "llama-3.1-8b",
                "tokens": 1e9,
                "gpus": 8,
                "sharding": "zero3",
                "activation_checkpointing": "full",
            }
        ],
        "constraints": {"platforms": ["aws"], "require_nvlink": True, "currency": "USD"},
        "objective": "time",
    }
    ranking_everywhere(client, scenario)
    advice = service(scenario).advice
    # Only the one-GPU sizes (p3.2xlarge's V100, p5.4xlarge's H100), which state no NVLink, are
    # left out by require_nvlink.
    from platforms.models import Offering

    single = Offering.objects.filter(platform=aws, gpu_count=1).count()
    assert advice.rejected[Code.REJECT_NO_NVLINK] == single
    families = {r.offering_name.split(".")[0] for r in advice.recommendations}
    assert "p6-b200" in families
    for rec in advice.recommendations:
        [efficiency] = [
            m.params["efficiency"].value
            for m in rec.reasons
            if m.code == Code.REASON_TRAINING_TIME_SCALING
        ]
        assert efficiency >= 0.9, (rec.offering_name, efficiency)


def test_the_same_offer_in_several_regions_is_one_recommendation(client, aws, frozen):
    """SkyPilot lists p6-b200.48xlarge on demand at one price in three US regions: one row that
    names them, not three."""
    scenario = {
        "tasks": [{"name": "render", "kind": "fixed", "vram_gib": 150}],
        "constraints": {"platforms": ["aws"], "currency": "USD"},
        "objective": "cost",
    }
    ranking_everywhere(client, scenario)
    advice = service(scenario).advice
    on_demand = [
        r
        for r in advice.recommendations
        if r.offering_name.startswith("p6-b200") and "spot" not in r.offering_name
    ]
    assert len(on_demand) == 1
    assert on_demand[0].regions == ("us-east-1", "us-east-2", "us-west-2")
    assert Code.REASON_REGIONS in {m.code for m in on_demand[0].reasons}
    names = [
        (r.offering_name.replace(r.regions[0], "") if r.regions else r.offering_name, r.cost)
        for r in advice.recommendations
    ]
    assert len(names) == len(set(names))


# 5 ------------------------------------------------------------------------------------------


def test_stale_prices_are_shown_with_their_age_unless_fresh_only(client, seed, frozen):
    """The article's training + inference preset, with the seed's May 2026 prices (older than
    the 90-day rule on 2026-11-20): answered by default, each stale price flagged with its age;
    `fresh_only` leaves them out. The 2026-10/11 prices of other platforms still answer it;
    restricted to 智星云 and 恒源云, whose only prices are the article's, nothing fits (a 422
    naming the reason and the two platforms it could not price)."""
    scenario = PRESETS["training-inference"].scenario
    assert "include_stale" not in scenario["constraints"]
    ids = ranking_everywhere(client, scenario)
    assert ids
    for rec in service(scenario).advice.recommendations:
        stale = [w for w in rec.warnings if w.code == Code.WARN_STALE_PRICE]
        assert rec.stale == bool(stale)
        if stale:
            assert stale[0].params["age"].value == rec.price_age_days > 90
    # How fresh the answer is: the oldest price it uses, in the service, the API and the page.
    advice = service(scenario).advice
    oldest = max(r.price_age_days for r in advice.recommendations)
    assert advice.oldest_price_age_days == oldest
    status, body = api(scenario)
    assert body["oldest_price_age_days"] == oldest
    shown = page(client, scenario).content.decode()
    assert f"{oldest} days ago" in shown and "data-oldest-price" in shown
    fresh = {**scenario, "constraints": {**scenario["constraints"], "fresh_only": True}}
    fresh_advice = service(fresh).advice
    assert fresh_advice is not None
    assert not any(rec.stale for rec in fresh_advice.recommendations)
    only_old = {
        **scenario,
        "constraints": {**fresh["constraints"], "platforms": ["zhixingyun", "hengyuanyun"]},
    }
    assert service(only_old).advice is None
    status, body = api(only_old)
    assert status == 422
    assert "reject_no_current_price" in json.dumps(body)
    assert {p["slug"] for p in body["error"]["unpriced_platforms"]} == {"zhixingyun", "hengyuanyun"}
    assert body["error"]["unpriced"]["code"] == "platforms_not_priced"


def test_at_equal_cost_a_fresh_price_ranks_before_a_stale_one(client, seed, frozen):
    """AutoDL's RTX 3090 at its member price (¥1.32/h, seen 2026-10-04; list ¥1.39) and 恒源云's
    RTX 4090 (¥1.32/h, seen 2026-05-26, stale): the same monthly cost for a 20 GiB service, so
    the fresh one is #1 and the two are called tied, the stale price being what tells them
    apart."""
    scenario = {
        "tasks": [{"name": "api", "kind": "fixed", "vram_gib": 20, "hours_per_month": 200}],
        "constraints": {"platforms": ["autodl", "hengyuanyun"], "price_tier": "member"},
        "objective": "cost",
    }
    ranking_everywhere(client, scenario)
    first, second = service(scenario).advice.recommendations[:2]
    assert (first.platform, first.stale) == ("autodl", False)
    assert (second.platform, second.stale) == ("hengyuanyun", True)
    assert first.cost == second.cost == Decimal("264")
    assert second.vs_first is not None and second.vs_first.tied
    [tie] = [m for m in second.reasons if m.code == Code.REASON_TIED_WITH_FIRST]
    assert Code.DIFF_STALE_PRICE in {d.code for d in tie.params["differences"]}


# 6 ------------------------------------------------------------------------------------------


def test_every_recommendation_carries_storage_assumed_at_the_median_where_unknown(
    client, seed, frozen
):
    """500 GB kept: AutoDL's data disk is 500 × ¥0.0066/GB·day × 30 = ¥99 a month; 矩池云 has no
    storage price, so the median of the platforms that have one is assumed and flagged, never
    zero, and the two are compared like with like."""
    from platforms.models import StoragePrice

    scenario = {
        "tasks": [{"name": "api", "kind": "fixed", "vram_gib": 20}],
        "constraints": {"platforms": ["autodl", "matpool"], "storage_gb": 500},
        "objective": "cost",
    }
    ranking_everywhere(client, scenario)
    advice = service(scenario).advice
    assert all(r.storage_cost is not None and r.storage_cost > 0 for r in advice.recommendations)
    autodl = next(r for r in advice.recommendations if r.platform == "autodl")
    assert not autodl.storage_assumed
    assert autodl.storage_cost == 500 * AUTODL_DISK_PER_GB_DAY * 30
    matpool = next(r for r in advice.recommendations if r.platform == "matpool")
    assert matpool.storage_assumed
    assert Code.WARN_STORAGE_ASSUMED in {w.code for w in matpool.warnings}
    priced = sorted(set(StoragePrice.objects.values_list("platform__slug", flat=True)))
    known = [
        min(r.storage_cost for r in recs)
        for platform in priced
        if (recs := _storage_alone(platform))
    ]
    assert matpool.storage_cost == statistics.median(known)
    assert matpool.cost == matpool.plan.converted + matpool.storage_cost


def _storage_alone(platform: str) -> list[Any]:
    """The storage each recommendation on `platform` carries for the same 500 GB always on."""
    scenario = {
        "tasks": [{"name": "api", "kind": "fixed", "vram_gib": 20}],
        "constraints": {"platforms": [platform], "storage_gb": 500},
    }
    advice = service(scenario).advice
    return [] if advice is None else [r for r in advice.recommendations if not r.storage_assumed]


# 8 ------------------------------------------------------------------------------------------


def test_spot_capacity_is_not_proposed_for_an_always_on_service_unless_allowed(
    client, seed, frozen
):
    """共绩's pre-emptible RTX 4090 (¥1.19/h) is the cheapest 4090, but an always-on API on it
    can be stopped at any time: left out (and counted) unless `allow_interruptible`; a job may
    use it, with the warning."""
    service_scenario = {
        "tasks": [{"name": "api", "kind": "fixed", "vram_gib": 20}],
        "constraints": {"platforms": ["gongji"]},
        "objective": "cost",
    }
    ranking_everywhere(client, service_scenario)
    advice = service(service_scenario).advice
    assert not any("pre-emptible" in r.offering_name for r in advice.recommendations)
    # Its pre-emptible RTX 4090 and H800 (libtv 03/04, 2026-10-04).
    assert advice.rejected[Code.REJECT_INTERRUPTIBLE_SERVICE] == 2
    allowed = {
        **service_scenario,
        "constraints": {"platforms": ["gongji"], "allow_interruptible": True},
    }
    ranking_everywhere(client, allowed)
    first = service(allowed).advice.recommendations[0]
    assert "pre-emptible" in first.offering_name
    assert Code.WARN_INTERRUPTIBLE in {w.code for w in first.warnings}
    job = {
        "tasks": [lora(tokens=5e7)],
        "constraints": {"platforms": ["gongji"]},
        "objective": "cost",
    }
    first = service(job).advice.recommendations[0]
    assert "pre-emptible" in first.offering_name
    assert Code.WARN_INTERRUPTIBLE in {w.code for w in first.warnings}


def test_a_job_longer_than_its_window_says_how_many_months_it_spans(client, seed, frozen):
    """A LoRA of 3e9 tokens inside a 300 h a month window: where it needs more than 300 h the
    recommendation warns, spans ceil(hours / 300) months, and a monthly plan is bought for each
    of them; by the hour it pays its hours, each daily run metered on its own: rounded up to the
    platform's step, so at most a step a run more: a second on AutoDL (its per-second
    metering), an hour on 智星云 ("按小时计费", the seed article)."""
    scenario = {
        "tasks": [lora(tokens=3e9, hours_per_month=300)],
        "constraints": {"platforms": ["zhixingyun", "autodl"]},
        "objective": "cost",
    }
    ranking_everywhere(client, scenario)
    advice = service(scenario).advice
    assert advice.cost_basis == "job"
    long_ones = [r for r in advice.recommendations if r.time_hours > 300]
    assert long_ones
    for rec in long_ones:
        months = math.ceil(rec.time_hours / 300)
        assert rec.months == months
        if rec.legs:
            continue  # a plan of shares: each leg says the months its share spans
        [spans] = [
            w.params["message"]
            for w in rec.warnings
            if w.code == Code.WARN_TASK and w.params["message"].code == Code.WARN_JOB_SPANS_MONTHS
        ]
        assert spans.params["months"] == months
        if rec.plan.unit == "month":
            assert rec.plan.cost == months * rec.plan.price
        if rec.plan.unit == "hour":
            price, runs = float(rec.plan.price), rec.idle.runs
            assert runs == math.ceil(rec.time_hours * 720 / 300 / 24 - 1e-9)  # one run a day
            paid = float(rec.plan.cost)
            step = {"autodl": 1, "zhixingyun": 3600}[rec.platform]
            most = price * (rec.time_hours + runs * step / 3600)
            assert price * rec.time_hours - 0.005 <= paid <= most


def test_the_seed_articles_presets_rank_alike_in_the_page_the_api_and_the_cli(client, seed, frozen):
    for slug, preset in PRESETS.items():
        report = service(preset.scenario)
        if report.advice is None:
            status, _ = api(preset.scenario)
            assert status == 422, slug
            continue
        ranking_everywhere(client, preset.scenario)
