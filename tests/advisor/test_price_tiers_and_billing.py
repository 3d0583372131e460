"""The advisor's catalogue side of issue 12: the renter's price tier, the platforms' billing rules
as engine inputs, and the platforms nothing could be priced on, named instead of dropped."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

import pytest

from advisor.engine.advise import advise
from advisor.engine.errors import InvalidWorkload, NoFit
from advisor.engine.messages import Code
from advisor.engine.scenario import parse_scenario
from advisor.services import accelerator_specs, advise_scenario, offering_specs
from tests.advisor.engine.test_ranking import ACCELERATORS, fixed, offer, price, scenario
from tests.conftest import NOW

STALE = datetime(2026, 5, 26)
LATER = datetime(2026, 10, 2)


# --- the engine: platforms without a current price -----------------------------------------------


def test_the_advice_names_the_platforms_it_could_not_price() -> None:
    offerings = [
        offer("4090", "rtx-4090-24gb", price("hour", "1.98"), platform="autodl"),
        offer("slice", "rtx-3090-24gb", platform="virtaicloud"),  # no sourced price
    ]
    advice = advise(
        scenario(fixed("api", 5)),
        offerings,
        ACCELERATORS,
        now=LATER,
        platforms={"autodl": "AutoDL", "virtaicloud": "趋动云", "aws": "AWS"},
    )
    # AWS has no offering at all, 趋动云 only unpriced ones: both named, sorted by name.
    assert advice.unpriced_platforms == (("aws", "AWS"), ("virtaicloud", "趋动云"))
    note = advice.unpriced_message
    assert note is not None and note.code is Code.PLATFORMS_NOT_PRICED
    assert note.params == {"count": 2, "platforms": ("AWS", "趋动云")}
    assert note.english() == (
        "No current price for 2 platform(s), so they are not ranked: AWS, 趋动云"
    )


def test_only_the_chosen_platforms_and_with_fresh_only_only_fresh_prices_count() -> None:
    offerings = [
        offer("new", "rtx-4090-24gb", price("hour", "1.98"), platform="autodl"),
        offer("old", "rtx-4090-24gb", price("hour", "1.32", at=STALE), platform="hengyuanyun"),
    ]
    names = {"autodl": "AutoDL", "hengyuanyun": "恒源云", "aws": "AWS"}
    chosen = scenario(fixed("api", 5), platforms=("autodl", "hengyuanyun"))
    assert (
        advise(chosen, offerings, ACCELERATORS, now=LATER, platforms=names).unpriced_platforms == ()
    )
    fresh = scenario(fixed("api", 5), platforms=("autodl", "hengyuanyun"), fresh_only=True)
    advice = advise(fresh, offerings, ACCELERATORS, now=LATER, platforms=names, stale_after_days=90)
    assert advice.unpriced_platforms == (("hengyuanyun", "恒源云"),)


def test_no_fit_carries_the_platforms_it_could_not_price() -> None:
    offerings = [offer("slice", "rtx-3090-24gb", platform="virtaicloud")]
    with pytest.raises(NoFit) as caught:
        advise(scenario(fixed("api", 5)), offerings, ACCELERATORS, now=LATER)
    assert caught.value.unpriced_platforms == (("virtaicloud", "VIRTAICLOUD"),)


def test_price_tier_is_a_scenario_constraint_with_list_as_default() -> None:
    base = {"tasks": [{"name": "api", "kind": "fixed", "vram_gib": 5}]}
    assert parse_scenario(base).constraints.price_tier == "list"
    member = parse_scenario({**base, "constraints": {"price_tier": "Member"}})
    assert member.constraints.price_tier == "member"
    with pytest.raises(InvalidWorkload) as caught:
        parse_scenario({**base, "constraints": {"price_tier": "vip"}})
    assert caught.value.field == "constraints.price_tier"


# --- the loader: tiers and billing rules from the seed catalogue ---------------------------------


def specs_by_key(**kw):
    from platforms.models import Offering

    keys = dict(Offering.objects.values_list("pk", "external_id"))
    return {keys[s.id]: s for s in offering_specs(accelerator_specs(), now=NOW, **kw)}


def test_the_loader_quotes_the_renters_tier_where_stated_else_the_list_price(seed):
    """AutoDL, 2026-10-04 (libtv 03): RTX 4090 list 1.98 and member 1.88; its 4090D month plan
    (AutoDL market report, 2026-09-30) has no member price, so a member pays its list price."""
    listed, member = specs_by_key(), specs_by_key(tier="member")
    hourly = {p.unit: (p.amount, p.tier) for p in listed["adl-4090"].prices}
    assert hourly["hour"] == (Decimal("1.98"), "list")
    assert {p.unit: (p.amount, p.tier) for p in member["adl-4090"].prices}["hour"] == (
        Decimal("1.88"),
        "member",
    )
    assert [(p.amount, p.tier) for p in member["adl-4090d"].prices] == [(Decimal("946"), "list")]


def test_billing_rules_reach_the_prices_and_the_offering(seed):
    """Lambda bills per minute (api-evangelist plans, 2026-09-20): its hourly prices are metered
    in 60 s steps. AutoDL meters per second with a 0.01 CNY minimum (docs.gpuhub.com billing) and
    has a no-GPU mode at ¥0.10/h (libtv 03); its month plan is bought whole."""
    specs = specs_by_key()
    (lambda_hourly,) = specs["gpu_1x_h100_sxm5"].prices
    assert (lambda_hourly.granularity_seconds, lambda_hourly.min_charge) == (60, Decimal("0"))
    autodl = {p.unit: p for p in specs["adl-4090"].prices}
    assert (autodl["hour"].granularity_seconds, autodl["hour"].min_charge) == (1, Decimal("0.01"))
    assert (autodl["month"].granularity_seconds, autodl["month"].min_charge) == (None, Decimal("0"))
    rules = specs["adl-4090"].billing_rules
    assert rules is not None
    assert (rules.idle_mode_price, rules.idle_mode_unit, rules.idle_mode_currency) == (
        Decimal("0.1"),
        "hour",
        "CNY",
    )
    assert (rules.storage_billed_while_stopped, rules.release_after_stopped_days) == (True, 15)
    assert specs["vc-b1-large"].billing_rules.credit_name == "算力点"
    assert specs["ob-4090"].billing_rules is None  # OpenBayes: no rules recorded


def test_the_seeded_advice_names_the_unpriced_platforms(seed, frozen):
    report = advise_scenario({"tasks": [{"name": "api", "kind": "fixed", "vram_gib": 20}]}, now=NOW)
    slugs = {slug for slug, _name in report.unpriced_platforms}
    assert "virtaicloud" in slugs


def test_the_api_takes_the_price_tier_and_lists_the_unpriced_platforms(seed, frozen):
    from rest_framework.test import APIClient

    scenario = {
        "tasks": [
            {
                "name": "lora",
                "kind": "lora",
                "model": "qwen2.5-7b",
                "activation_checkpointing": "full",
                "tokens": 5e7,
            }
        ],
        "constraints": {"platforms": ["autodl", "virtaicloud"], "price_tier": "member"},
        "objective": "cost",
    }
    response = APIClient().post("/api/v1/advise/", scenario, format="json")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["unpriced_platforms"] == [{"slug": "virtaicloud", "name": "趋动云 (VirtAI Cloud)"}]
    assert body["unpriced"]["code"] == "platforms_not_priced"
    prices = {r["offering"]: r["plan"]["price"] for r in body["recommendations"]}
    assert prices["RTX 4090 24GB"] == "1.880000"  # the member price, with its stored digits
