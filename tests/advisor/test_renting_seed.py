"""The renters' filters through the seed catalogue (fixtures/catalogue.json, fixtures/prices-2026,
the SkyPilot extracts), in the offering list and the advisor alike.

- The seed article's tip 3 ("多卡训练一律推荐裸金属"): `delivery_form=bare_metal` lists only
  offerings stated as bare metal (智星云's and 共绩's eight-card machines), where it used to list
  every offering; the advisor asked for bare metal ranks only those.
- A renter from abroad paying by card gets no platform that needs a mainland Chinese identity;
  since no source read says any seeded platform takes a card issued abroad, the advisor says so
  ("no source says whether a renter from abroad can sign up and pay"), counted per offering.
- Countries come from the clouds' own region lists (AWS, Google Cloud, Azure) and the Chinese
  platforms' market; vCPU minimums leave out, and count, the offerings that state no vCPUs.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from rest_framework.test import APIClient

from advisor.engine.messages import Code
from advisor.services import advise_scenario
from platforms.models import Offering, Platform
from tests.conftest import NOW

# A job: spot offerings are not left out for it, so the renters' filters see every offering.
TUNE = {"kind": "lora", "model": "llama-3.1-8b", "name": "tune", "tokens": 50_000_000}


def listed(**params: Any) -> list[dict[str, Any]]:
    """Every offering the list answers for `params`, page after page."""
    client = APIClient()
    response = client.get("/api/v1/offerings/", {**params, "page_size": 200})
    assert response.status_code == 200, response.json()
    body = response.json()
    rows = list(body["results"])
    while body["next"]:
        body = client.get(body["next"]).json()
        rows += body["results"]
    return rows


@pytest.mark.django_db
def test_bare_metal_lists_and_ranks_only_bare_metal(seed, frozen):
    rows = listed(delivery_form="bare_metal")
    assert rows and {r["delivery_form"] for r in rows} == {"bare_metal"}
    assert len(rows) == Offering.objects.filter(is_active=True, delivery_form="bare_metal").count()
    assert {r["platform"]["slug"] for r in rows} == {"zhixingyun", "gongji"}
    # 智星云's A100 40G monthly offer states no delivery form (the article does not), and
    # 智星云 rents three: it is not listed as bare metal.
    assert "A100 40G monthly (per card)" not in {r["name"] for r in rows}
    total = len(listed())
    assert total == Offering.objects.filter(is_active=True).count() > len(rows)

    report = advise_scenario(
        {
            "tasks": [TUNE],
            "constraints": {"delivery_forms": ["bare_metal"]},
        },
        now=NOW,
    )
    assert report.advice is not None
    ids = {r.offering_id for r in report.advice.recommendations}
    forms = set(Offering.objects.filter(pk__in=ids).values_list("delivery_form", flat=True))
    assert forms == {"bare_metal"}
    # The offerings whose form no source states (CoreWeave's, Jarvislabs', 优云智算's: their
    # platforms' forms are not sourced either) are counted apart from those of another form.
    rejected = report.advice.rejected
    unstated = Offering.objects.filter(is_active=True, delivery_form="").count()
    assert 0 < rejected[Code.REJECT_DELIVERY_FORM_UNKNOWN] <= unstated
    assert 0 < rejected[Code.REJECT_NOT_DELIVERY_FORM] <= total - len(rows) - unstated


@pytest.mark.django_db
def test_a_renter_from_abroad_gets_no_platform_that_needs_a_chinese_identity(seed, frozen):
    autodl = Platform.objects.get(slug="autodl")
    # AutoDL's identity verification accepts overseas passports; whether a card issued abroad
    # pays is not verified (the source's notes).
    assert (autodl.cn_identity_required, autodl.foreign_cards) == (False, None)
    assert autodl.renting_source is not None
    needs_id = set(
        Platform.objects.filter(cn_identity_required=True).values_list("slug", flat=True)
    )
    assert not {r["platform"]["slug"] for r in listed(foreign_renter="true")} & needs_id
    assert listed(foreign_renter="true") == []

    report = advise_scenario(
        {"tasks": [TUNE], "constraints": {"currency": "USD", "foreign_renter": True}}, now=NOW
    )
    assert report.no_fit is not None
    rejected = dict(report.no_fit.rejected)
    assert Code.REJECT_CN_IDENTITY_REQUIRED not in rejected
    # Every offering but the 12 market figures (left out before the renter is asked about) is
    # left out because no source says whether a renter from abroad may sign up and pay.
    offerings = Offering.objects.filter(is_active=True).count()
    assert rejected == {Code.REJECT_RENTER_UNKNOWN: offerings - 12, Code.REJECT_MARKET_FIGURE: 12}


@pytest.mark.django_db
def test_countries_come_from_the_clouds_regions_and_the_chinese_market(seed, frozen):
    cn = listed(country="CN")
    chinese = set(Platform.objects.filter(region="cn").values_list("slug", flat=True))
    assert {r["platform"]["slug"] for r in cn} == chinese
    us_rows = listed(country="US")
    assert {r["country"] for r in us_rows} == {"US"}
    assert {r["country"] for r in cn} == {"CN"}
    us = Counter(r["platform"]["slug"] for r in us_rows)
    assert set(us) == {"aws", "gcp", "azure"}
    assert all(r["region"].startswith("us-") for r in listed(country="US", platform="aws"))
    # Frankfurt: AWS eu-central-1 and Google Cloud europe-west3 (the clouds' region lists).
    de = {r["region"] for r in listed(country="DE")}
    assert de <= {"eu-central-1", "europe-west3", "europe-west10", "germanywestcentral"}
    assert {"eu-central-1", "europe-west3"} <= de


@pytest.mark.django_db
def test_a_vcpu_minimum_counts_the_offerings_that_state_none(seed, frozen):
    unstated = Offering.objects.filter(is_active=True, vcpus__isnull=True).count()
    assert unstated > 0
    report = advise_scenario({"tasks": [TUNE], "constraints": {"min_vcpus_per_gpu": 8}}, now=NOW)
    assert report.advice is not None
    assert 0 < report.advice.rejected[Code.REJECT_VCPUS_UNKNOWN] <= unstated
    for rec in report.advice.recommendations:
        offering = Offering.objects.get(pk=rec.offering_id)
        assert offering.vcpus is not None
        assert offering.vcpus >= 8 * offering.gpu_count
    rows = listed(min_vcpus_per_gpu="8")
    assert rows and all(r["vcpus"] is not None and r["vcpus"] >= 8 * r["gpu_count"] for r in rows)


def _codes(rec) -> set[Code]:
    return {w.code for w in rec.warnings}


@pytest.mark.django_db
def test_a_renter_paying_in_usd_is_told_who_may_rent_a_chinese_platform(seed, frozen):
    """Before: a USD renter got AutoDL #1 with no word on Chinese real-name registration. Now a
    renter who pays in USD and has not asked for `foreign_renter` is told, on every offering of
    a platform in mainland China, what its sources say: AutoDL's identity check accepts
    overseas passports while no source says it takes a foreign card; of the others no source
    says anything. A renter paying in CNY, and an offering outside China, get neither."""
    scenario = {"tasks": [TUNE], "constraints": {"currency": "USD", "platforms": ["autodl"]}}
    [first, *_] = advise_scenario(scenario, now=NOW).advice.recommendations
    assert Code.WARN_RENTER_CARDS_UNVERIFIED in _codes(first)
    assert Code.WARN_RENTER_ABROAD_UNKNOWN not in _codes(first)

    scenario["constraints"]["platforms"] = ["matpool"]
    [first, *_] = advise_scenario(scenario, now=NOW).advice.recommendations
    assert Code.WARN_RENTER_ABROAD_UNKNOWN in _codes(first)

    scenario["constraints"]["platforms"] = ["aws"]
    recommendations = advise_scenario(scenario, now=NOW).advice.recommendations
    assert recommendations
    told = {Code.WARN_RENTER_ABROAD_UNKNOWN, Code.WARN_RENTER_CARDS_UNVERIFIED}
    assert all(not _codes(r) & told for r in recommendations)

    scenario["constraints"] = {"currency": "CNY", "platforms": ["autodl", "matpool"]}
    recommendations = advise_scenario(scenario, now=NOW).advice.recommendations
    assert all(not _codes(r) & told for r in recommendations)
