"""What a price is, on the seed catalogue at tests.conftest.NOW (vocab.PriceBasis).

Twelve seeded offerings are a market's figure, not an offer one can book at that price: Vast.ai's
"lowest listed offer" and "marketplace median" (libtv 03 and silybench-data, from
console.vast.ai/api/v0/bundles/), Nebius's "(from)" prices (api-evangelist/nebius plans, run
20261007, "effective October 1, 2026") and 优云智算's "(from)" and "lowest single-card price"
(libtv 03, ProductDirectorAI). 恒源云's RTX 4090 at ¥1.32 is 智星云's statement of its price
(the seed article, 2026-05-26: a competitor's claim). Each row's document is named in
fixtures/prices-2026/README.md.

Before the price said what it was, the Vast.ai 4090 floor at $0.121 was #1 in three presets and
the Nebius B200 "from" price #1 for a 70B QLoRA.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db.models import F

from advisor.engine.messages import Code
from advisor.engine.types import OfferingSpec
from advisor.presets import PRESETS
from advisor.services import AdviceReport, advise_scenario
from platforms.models import CurrentPrice
from tests.conftest import NOW

pytestmark = pytest.mark.usefixtures("seed", "frozen")

# The seed's prices that are not bookable offers, by (platform, offering key): its `basis`
# column (fixtures/prices-2026) and the claim's row in fixtures/catalogue.json.
NOT_OFFERS = {
    ("compshare", "cs-3090"): "floor",
    ("compshare", "cs-4090"): "floor",
    ("vastai", "vast-4090-lowest"): "floor",
    ("vastai", "vast-4090-median"): "statistic",
    ("vastai", "vast-a100-sxm4-80g-lowest"): "floor",
    ("vastai", "vast-h100-sxm-median"): "statistic",
    ("nebius", "nb-l40s-intel"): "floor",
    ("nebius", "nb-l40s-amd"): "floor",
    ("nebius", "nb-h100-preemptible"): "floor",
    ("nebius", "nb-h200-preemptible"): "floor",
    ("nebius", "nb-b200-preemptible"): "floor",
    ("nebius", "nb-l40s-intel-preemptible"): "floor",
    ("hengyuanyun", "hyy-4090"): "claim",
}


def ranked_offerings(report: AdviceReport) -> list[OfferingSpec]:
    """Every offering an answer ranks: each recommendation's, and each leg's of a plan."""
    assert report.advice is not None
    by_id = {o.id: o for o in report.catalogue.offerings}
    ids = []
    for rec in report.advice.recommendations:
        ids.append(rec.offering_id)
        ids.extend(leg.offering_id for leg in rec.legs)
    return [by_id[i] for i in dict.fromkeys(ids)]


def with_constraint(scenario: dict[str, Any], **constraints: Any) -> dict[str, Any]:
    return {**scenario, "constraints": {**scenario.get("constraints", {}), **constraints}}


def test_the_seed_says_what_each_current_price_is():
    """12 market figures (10 floors, 2 medians) and one competitor's claim; every other current
    price is a bookable offer."""
    found = {
        (row.offering.platform.slug, row.offering.external_id): row.basis
        for row in CurrentPrice.objects.exclude(basis="offer").select_related("offering__platform")
    }
    assert found == NOT_OFFERS
    # The stored pointer repeats its observation's basis.
    assert not CurrentPrice.objects.exclude(basis=F("observation__basis")).exists()


@pytest.mark.parametrize("slug", list(PRESETS))
def test_no_market_floor_or_statistic_is_ranked_by_default_in_any_preset(slug):
    """Not as a recommendation, not as a leg of a plan (those that fit are counted as left out
    for it: test_the_market_figures_rank_only_when_the_scenario_includes_them_and_say_so)."""
    report = advise_scenario(PRESETS[slug].named_scenario(), now=NOW)
    if report.advice is None:
        assert report.no_fit is not None
        return
    ranked = ranked_offerings(report)
    assert ranked
    assert not [o.name for o in ranked if o.market_figure]


def test_the_market_figures_rank_only_when_the_scenario_includes_them_and_say_so():
    """With include_market_statistics, a floor may rank again, each with its warning; without,
    the same scenario ranks none. Before, Vast.ai's 4090 floor at $0.121 was #1 in three presets:
    some preset's answer must show a market figure again."""
    shown = 0
    for preset in PRESETS.values():
        scenario = with_constraint(preset.named_scenario(), include_market_statistics=True)
        report = advise_scenario(scenario, now=NOW)
        if report.advice is None:
            continue
        assert Code.REJECT_MARKET_FIGURE not in report.advice.rejected
        before = advise_scenario(preset.named_scenario(), now=NOW).advice
        assert before is not None
        ranked_before = {r.offering_id for r in before.recommendations}
        for rec in report.advice.recommendations:
            offering = next(o for o in report.catalogue.offerings if o.id == rec.offering_id)
            if offering.market_figure:
                shown += 1
                assert Code.WARN_MARKET_FIGURE in {w.code for w in rec.warnings}
                assert rec.offering_id not in ranked_before
                assert before.rejected.get(Code.REJECT_MARKET_FIGURE, 0) > 0
    assert shown > 0


def test_the_competitors_claim_ranks_with_its_badge():
    """恒源云's ¥1.32 (the seed article's figure for it) is ranked, saying whose statement it is."""
    scenario = {
        "tasks": [{"name": "chat", "kind": "inference", "model": "llama-3.1-8b", "when": "day"}],
        "constraints": {"platforms": ["hengyuanyun"]},
    }
    report = advise_scenario(scenario, now=NOW)
    assert report.advice is not None
    first = report.advice.recommendations[0]
    assert first.platform == "hengyuanyun"
    codes = {w.code for w in first.warnings}
    assert {Code.WARN_CLAIMED_PRICE, Code.WARN_COMPETITOR_CLAIM} <= codes


@pytest.mark.parametrize(
    ("language", "floor", "median"),
    [("en", "market floor", "market statistic"), ("zh-hans", "市场底价", "市场统计值")],
)
def test_the_explorer_and_the_platform_page_show_them_badged(client, language, floor, median):
    """Shown, not hidden: Vast.ai's floors and medians in the explorer and on its page, each with
    its badge, in both languages."""
    explorer = client.get(
        "/offerings/", {"platform": "vastai"}, HTTP_ACCEPT_LANGUAGE=language
    ).content.decode()
    page = client.get("/platforms/vastai/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    for html in (explorer, page):
        assert 'data-basis="floor"' in html and 'data-basis="statistic"' in html
        assert floor in html and median in html


def test_the_price_chart_draws_a_market_statistic_as_a_named_dashed_line(client):
    """Vast.ai's H100 SXM median has a history (2026-10-07 and 2026-10-19, silybench-data): its
    series on the platform's chart is dashed and named a market statistic."""
    figure = client.get("/platforms/vastai/").context["history_figure"]
    assert figure is not None
    lines = {trace["name"]: trace["line"] for trace in figure["data"]}
    median = [name for name in lines if "median of verified rentable offers" in name]
    assert median and all(lines[name].get("dash") == "dash" for name in median)
    assert all("market statistic" in name for name in median)
