"""The seed article's scenarios (advisor/presets.py) answered the same in the page, the API and the
CLI, on the seed catalogue at tests.conftest.NOW: the recommendations, the article's claims
checked, the verdict on its pick and the plans across platforms; the 70B case's "what would fit"
changes posted back; tip 4's arithmetic; the presets resource.

The seed article is "2026多任务GPU平台怎么选？多卡效率与实战配置拆解" (智星云, 2026-05-26), the
catalogue's prices the sourced rows of fixtures/prices-2026/ (each row's document in its README).
"""

from __future__ import annotations

import csv
import json
from decimal import Decimal
from io import StringIO
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.http import QueryDict
from rest_framework.test import APIClient

from advisor.engine.messages import Code
from advisor.engine.premises import ARTICLE_MIXED_SAVING
from advisor.forms import scenario_query
from advisor.presets import PRESETS
from advisor.services import advise_scenario
from platforms.models import Offering, PriceObservation
from tests.conftest import NOW
from wording import messages

pytestmark = pytest.mark.usefixtures("seed", "frozen")


def api(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    response = APIClient().post("/api/v1/advise/", body, format="json")
    return response.status_code, response.json()


def cli(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    out = StringIO()
    try:
        call_command("advise", "-", stdin=StringIO(json.dumps(body)), stdout=out)
    except CommandError as error:
        return error.returncode, json.loads(out.getvalue())
    return 0, json.loads(out.getvalue())


def checks_of(body: dict[str, Any]) -> list[tuple[str, str, str, list[str]]]:
    """Each check's id, verdict, claim and lines as the reader sees them; every claim and line
    carries its code."""
    out = []
    for c in body["checks"]:
        assert c["claim"]["code"].startswith("premise_claim_")
        assert all(line["code"] for line in c["lines"])
        lines = [line["message"] for line in c["lines"]]
        out.append((c["id"], c["verdict"], c["claim"]["message"], lines))
    return out


@pytest.mark.parametrize("slug", list(PRESETS))
def test_every_preset_gets_the_same_answer_from_the_page_the_api_and_the_cli(client, slug):
    """Recommendations, checks, verdict and the plans' note: one answer through every door. The
    page gets the preset from its link (the form's fields and the preset's id); the API and the
    CLI get the preset's scenario naming it, as /api/v1/presets/ lists it."""
    preset = PRESETS[slug]
    report = advise_scenario(preset.named_scenario(), now=NOW)
    status, body = api(preset.named_scenario())
    code, out = cli(preset.named_scenario())
    page = client.get(
        "/advisor/", QueryDict(scenario_query(preset.scenario, preset=slug).urlencode())
    )
    assert page.status_code == 200
    article = page.context["article"]
    page_checks = [(c["id"], c["verdict"], c["claim"], c["lines"]) for c in article["checks"]]
    assert page_checks or slug == "dev-experiments", "the article makes no figure of it"
    if report.no_fit is not None:
        assert (status, code) == (422, 2)
        assert checks_of(body["error"]) == checks_of(out["error"]) == page_checks
        verdicts = (body["error"]["verdict"], out["error"]["verdict"])
        assert page.context["rows"] == []
    else:
        assert (status, code) == (200, 0)
        ids = [r.offering_id for r in report.advice.recommendations]
        assert [r["offering_id"] for r in body["recommendations"]] == ids
        assert [r["offering_id"] for r in out["recommendations"]] == ids
        assert [row["rec"].offering_id for row in page.context["rows"]] == ids
        assert checks_of(body) == checks_of(out) == page_checks
        verdicts = (body["verdict"], out["verdict"])
        plans = page.context["plans"]
        if report.plans is None:
            assert body["plans"] is None and out["plans"] is None and plans is None
        else:
            assert body["plans"]["note"]["message"] == out["plans"]["note"]["message"]
            assert body["plans"]["note"]["message"] == plans["note"]
    api_verdict, cli_verdict = verdicts
    assert api_verdict is not None, "every preset names the article's pick"
    assert api_verdict["message"] == cli_verdict["message"]
    assert api_verdict["message"]["message"] == article["verdict"]
    assert api_verdict["pick_wins"] == article["pick_wins"]


def test_the_70b_cases_suggestions_posted_back_return_recommendations():
    """The article's medical case (Llama 3.1 70B, full fine-tune, ZeRO-3 on 8× A100 80GB) fits
    nowhere: 151 GiB per GPU against 79 usable. Each change the 422 offers is a whole scenario;
    posted back it is answered with recommendations, led by the offering the 422 named."""
    status, body = api(PRESETS["medical-70b"].named_scenario())
    assert status == 422
    error = body["error"]
    assert error["closest_miss"]["reason"] == "reject_does_not_fit"
    assert error["closest_miss"]["accelerator"] == "a100-80gb"
    suggestions = error["suggestions"]
    kinds = {s["scenario"]["tasks"][0]["kind"] for s in suggestions}
    assert {"lora", "qlora"} <= kinds
    assert any(s["change"]["code"] == "suggest_any_hardware" for s in suggestions)
    for suggestion in suggestions:
        again, answer = api(suggestion["scenario"])
        assert again == 200, (suggestion["change"]["message"], answer)
        assert answer["recommendations"][0]["offering_id"] == suggestion["best"]["offering_id"]


def test_each_suggestion_on_the_page_is_one_link_that_runs_it(client):
    response = client.get(
        "/advisor/",
        QueryDict(
            scenario_query(PRESETS["medical-70b"].scenario, preset="medical-70b").urlencode()
        ),
    )
    suggestions = response.context["no_fit_help"]["suggestions"]
    assert suggestions
    html = response.content.decode()
    for s in suggestions:
        assert f'href="?{s["query"].replace("&", "&amp;")}#results" data-suggestion' in html
        again = client.get("/advisor/", QueryDict(s["query"]))
        assert again.context["rows"], s["change"]


def current(key: str, unit: str) -> Decimal:
    price = PriceObservation.objects.filter(
        offering=Offering.objects.get(external_id=key), unit=unit, tier="list"
    ).latest("observed_at")
    return price.amount


def test_tip_4s_mixed_plan_is_priced_and_the_15_to_20_percent_claim_does_not_hold():
    """Tip 4 ("智星云包月保底+趋动云按需补充 … 综合成本能压低15%-20%") on the seed catalogue:

    * the best single-platform plan is AutoDL's, two legs: the daily training (600 h a month) on
      a Tesla V100 32GB at 1.98 an hour (autodl.com, 2026-10-04) = 1,188.00, run in FP16 (the
      V100 has no BF16: NVIDIA TransformerEngine support matrix) and warned so, and the two
      bursts on RTX 3060 12GB cards at 0.63 an hour, one each (120 h + 60 h) = 113.40: 1,301.40 a
      month. AutoDL's Moore Threads MTT S4000 (1.96 an hour) is no longer taken for this CUDA
      work: PyTorch runs on MUSA only through torch_musa (MooreThreads/torch_musa README.md
      @8b583b3f), a port the scenario does not allow;
    * the cheapest plan across two platforms keeps the V100 leg and puts both bursts on one
      矩池云 RTX 3090 24GB at 1.29 an hour (matpool.com's lowest listed price, 2026-08-09), busy
      120 hours (the two bursts overlap): 154.80, and 1,188.00 + 154.80 = 1,342.80, dearer than
      the single platform's plan, so no plan across platforms is proposed. Cheaper bursts are
      not bookable for this scenario: Azure's spot T4s ($0.05786 an hour) because the light
      inference is a user-facing service, kept off spot capacity (docs/advisor-rules.md,
      "Spot"), and Vast.ai's RTX 4090 at $0.121 because that is its lowest listed offer, a
      market floor (docs/advisor-rules.md, "What a price is");
    * the article's own plan cannot be priced (趋动云's slices have no price), but its 智星云
      leg alone, the A100 40G monthly (1,710, the article's figure), is more than 85 % of
      1,301.40 (1,106.19): whatever 趋动云 costs, it cannot save 15 %.
    Money compares to the cent: the prices are the catalogue's, the sums are exact Decimals."""
    report = advise_scenario(PRESETS["mixed-platforms"].named_scenario(), now=NOW)
    search = report.plans
    assert search is not None and search.single is not None and search.best_cross is not None
    v100 = current("adl-v100-32g-list", "hour") * 600
    rtx3060 = current("adl-3060-list", "hour") * (120 + 60)
    assert [leg.platform for leg in search.single.legs] == ["autodl", "autodl"]
    assert search.single.cost.quantize(Decimal("0.01")) == (v100 + rtx3060).quantize(
        Decimal("0.01")
    )
    assert search.single.cost.quantize(Decimal("0.01")) == Decimal("1301.40")
    legs = {leg.tasks: leg for leg in search.best_cross.legs}
    assert legs[("daily training",)].cost == v100
    bursts = legs[("light inference", "quick experiments")]
    assert (bursts.platform, bursts.instances, bursts.instance_hours) == ("matpool", 1, (120.0,))
    rtx3090 = current("mp-3090", "hour")
    assert rtx3090 == Decimal("1.29")
    assert bursts.cost.quantize(Decimal("0.01")) == (rtx3090 * 120).quantize(Decimal("0.01"))
    assert search.best_cross.cost.quantize(Decimal("0.01")) == Decimal("1342.80")
    assert search.plan is None and search.note.code is Code.PLAN_NONE_BEATS
    assert search.saving_fraction == pytest.approx(-41.40 / 1301.40, abs=1e-4)
    verdict = report.verdict
    assert verdict is not None and verdict.pick is None and verdict.pick_wins is False
    assert verdict.priced_part is not None and verdict.priced_part.cost == Decimal("1710")
    [check] = report.checks
    assert check.id == "mixed_saving" and check.holds is False
    low = ARTICLE_MIXED_SAVING[0]
    assert verdict.priced_part.cost >= search.single.cost * (1 - low)


def test_q3s_break_even_is_the_prepaid_card_over_the_per_second_cards_hourly_rate():
    """Q3: five 4 GiB tasks at once, 160 busy hours a month. 矩池云 runs one task per card: five
    RTX 3090s at 1.29 an hour (2026-08-09 listing) = 5 × 1.29 × 160 = 1,032.00; 智星云 cuts one
    A100 40G (1,710 a month, the article's figure) into five MIG slices. 1,710 ÷ (5 × 1.29) =
    265.1: above 266 busy hours the MIG card is cheaper, at 160 the five cards are."""
    report = advise_scenario(PRESETS["q3-per-second-billing"].named_scenario(), now=NOW)
    checks = {c.id: c for c in report.checks}
    assert checks["five_cards"].holds is True
    assert "5× RTX 3090 24GB, 1,032.00 CNY." in messages.render(checks["five_cards"].lines[0])
    mig = checks["mig_break_even"]
    assert mig.holds is False
    assert mig.lines[2].code is Code.PREMISE_BREAK_EVEN
    assert mig.lines[2].params["hours"] == 266
    assert "pays off above 266 busy hours a month (this scenario: 160)" in messages.render(
        mig.lines[2]
    )
    assert report.verdict is not None and report.verdict.pick is not None
    assert {a.mode for a in report.verdict.pick.legs[0].placement.assignments} == {"mig"}


def test_q4_says_whose_word_physical_exclusivity_rests_on():
    """Q4: only 智星云 is physically exclusive, and only by its own article; 恒源云 and 矩池云 are
    unknown (the article says nothing about them), 趋动云 shares cards (pooled). The answer is
    智星云's, and it says that it rests on 智星云's own claims. It is a plan of two legs on 智星云:
    the one-off fine-tune on a monthly A100 40G (1,710 a month, the article's figure) and the
    day service on its RTX 4090 VM by the hour (300 h × 1.50 = 450), 2,160 a month, 1,260 less
    than the article's pick of both tasks on exclusive A100s (2 × 1,710 = 3,420)."""
    report = advise_scenario(PRESETS["q4-data-security"].named_scenario(), now=NOW)
    assert report.advice is not None
    assert {r.platform for r in report.advice.recommendations} == {"zhixingyun"}
    assert report.advice.rejected[Code.REJECT_EXCLUSIVE_UNKNOWN] > 0
    assert report.advice.rejected[Code.REJECT_NOT_EXCLUSIVE] > 0
    first = report.advice.recommendations[0]
    assert Code.REASON_RESTS_ON_VENDOR_CLAIM in [m.code for m in first.reasons]
    checks = {c.id: c for c in report.checks}
    assert checks["exclusive_contract"].holds is None
    lines = messages.render_all(checks["exclusive_contract"].lines)
    assert any("智星云 about itself (vendor claim)" in line for line in lines)
    assert any("unknown (智星云 about a competitor (competitor claim))" in line for line in lines)
    assert checks["pooled_shares"].holds is True
    assert len(first.legs) == 2 and first.cost == Decimal("2160")
    assert report.verdict is not None and report.verdict.pick_wins is False
    assert report.verdict.saving == Decimal("1260")


def test_the_presets_resource_lists_every_preset_with_its_claim_and_verdict():
    client = APIClient()
    listed = client.get("/api/v1/presets/")
    assert listed.status_code == 200
    body = listed.json()
    assert [p["id"] for p in body] == list(PRESETS)
    assert {
        "mixed-platforms",
        "q1-mig-vs-pooled",
        "q3-per-second-billing",
        "q4-data-security",
        "4090-lora-sdxl",
    } <= {p["id"] for p in body}
    for item in body:
        assert item["claim"] and item["pick"] and item["verdict"]["message"]["message"]
        assert item["scenario"]["preset"] == item["id"]
        assert item["url"] == f"/api/v1/presets/{item['id']}/"
    detail = client.get("/api/v1/presets/medical-70b/").json()
    assert (
        detail["answer"]["status"] == 422 and detail["answer"]["no_fit"]["code"] == "no_fit_closest"
    )
    assert [c["id"] for c in detail["checks"]] == ["rule_of_thumb", "fit_on", "case_cost"]
    assert client.get("/api/v1/presets/no-such-preset/").status_code == 404


def test_an_unknown_preset_is_refused_naming_the_field():
    status, body = api({**PRESETS["q1-mig-vs-pooled"].scenario, "preset": "q9"})
    assert status == 400 and list(body["error"]["fields"]) == ["preset"]


def test_the_csv_has_one_row_per_leg(client):
    """The development preset's CSV is its ranked table leg by leg, as the JSON download of the
    same answer lists it: a single offering one row (plan single, leg 1), a plan of several legs
    one row per leg (plan "plan", legs 1, 2, …, the plan's rank on each), in rank order, and no
    row for a plan outside the ranking."""
    preset = PRESETS["dev-experiments"]
    query = QueryDict(scenario_query(preset.scenario, preset=preset.slug).urlencode(), mutable=True)
    query["format"] = "csv"
    text = client.get("/advisor/", query).content.decode("utf-8-sig")
    query["format"] = "json"
    answer = client.get("/advisor/", query).json()
    rows = list(csv.reader(StringIO(text)))
    header, data = rows[0], rows[1:]
    rank, plan, leg = header.index("rank"), header.index("plan"), header.index("leg")
    offering, tasks = header.index("offering"), header.index("tasks")
    expected = [
        (str(rec["rank"]), "plan" if len(rec["legs"]) > 1 else "single", str(n), part["offering"])
        for rec in answer["recommendations"]
        for n, part in enumerate(rec["legs"], start=1)
    ]
    assert [(r[rank], r[plan], r[leg], r[offering]) for r in data] == expected
    assert any(r[plan] == "plan" for r in data), "the preset's answer ranks a plan of legs"
    # Each plan's legs run every task of the scenario between them, once each.
    names = sorted(t["name"] for t in preset.scenario["tasks"])
    for number in {r[rank] for r in data if r[plan] == "plan"}:
        ran = [t for r in data if r[rank] == number for t in r[tasks].split("; ")]
        assert sorted(ran) == names


def test_the_apis_checks_carry_codes_and_chinese_messages():
    """Each check's claim and lines are messages: a stable code, its parameters (numbers stay
    numbers), and the sentence in the reader's language, rendered as the page renders them."""
    body = PRESETS["q3-per-second-billing"].named_scenario()
    response = APIClient().post(
        "/api/v1/advise/", body, format="json", HTTP_ACCEPT_LANGUAGE="zh-hans"
    )
    assert response.status_code == 200
    checks = {c["id"]: c for c in response.json()["checks"]}
    five = checks["five_cards"]
    assert five["claim"]["code"] == "premise_claim_five_cards"
    assert five["claim"]["message"] == "“在矩池云上，五个并行任务需要开五张卡。”"
    [line] = five["lines"]
    assert line["code"] == "premise_cheapest_on"
    assert line["params"]["n"] == 5
    assert line["params"]["cost"] == {"amount": "1032.00", "currency": "CNY"}
    assert line["message"].startswith("矩池云")
    mig = checks["mig_break_even"]["lines"][2]
    assert mig["code"] == "premise_break_even" and mig["params"]["hours"] == 266
