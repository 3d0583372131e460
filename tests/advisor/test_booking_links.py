"""From answer to action (issue: "each leg links to the offering's page on its platform where a
source gives the URL"): a recommendation, and each leg of a plan, carries where to book it: the
page its sources cite on the platform's own site, else the platform's site."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from advisor.presets import PRESETS
from advisor.services import advise_scenario, booking_url
from tests.conftest import NOW

TUNE = {"kind": "lora", "model": "llama-3.1-8b", "name": "tune", "tokens": 50_000_000}


def test_a_page_on_the_platforms_own_site_is_where_to_book_else_its_site():
    site = "https://www.compshare.cn"
    assert booking_url(site, ["https://www.compshare.cn/price-list"]) == (
        "https://www.compshare.cn/price-list"
    )
    # A subdomain of the site is the site; "www." is not part of the name.
    assert booking_url("https://vast.ai", ["https://console.vast.ai/api/v0/bundles/"]) == (
        "https://console.vast.ai/api/v0/bundles/"
    )
    # A catalog on GitHub, a survey, a page of a look-alike domain: sources, not places to book.
    elsewhere = [
        "https://github.com/skypilot-org/skypilot-catalog",
        "https://notcompshare.cn/x",
        "javascript:alert(1)",
        "",
    ]
    assert booking_url(site, elsewhere) == site
    assert booking_url("", ["https://www.compshare.cn/price-list"]) == ""


@pytest.mark.django_db
def test_each_recommendation_and_leg_links_to_where_it_is_booked(seed, frozen):
    compshare = advise_scenario(
        {"tasks": [TUNE], "constraints": {"platforms": ["compshare"]}}, now=NOW
    ).advice.recommendations
    # 优云智算's prices were read from its price list (compshare.cn/price-list).
    assert compshare and {r.offering_url for r in compshare} == {"https://compshare.cn/price-list"}
    # AWS's prices come from SkyPilot's catalog on GitHub: the link is AWS's own page.
    aws = advise_scenario(
        {"tasks": [TUNE], "constraints": {"platforms": ["aws"]}}, now=NOW
    ).advice.recommendations
    assert aws and {r.offering_url for r in aws} == {"https://aws.amazon.com/ec2/"}
    # Every leg of every plan says where it is booked.
    answer = advise_scenario(PRESETS["mixed-platforms"].named_scenario(), now=NOW).advice
    legs = [leg for r in answer.recommendations for leg in r.legs]
    assert legs and all(leg.offering_url.startswith("https://") for leg in legs)

    body = (
        APIClient()
        .post(
            "/api/v1/advise/",
            {"tasks": [TUNE], "constraints": {"platforms": ["compshare"]}},
            format="json",
        )
        .json()
    )
    assert body["recommendations"][0]["url"] == "https://compshare.cn/price-list"


@pytest.mark.django_db
def test_the_page_opens_each_answer_on_its_platform(client, seed, frozen):
    from advisor.forms import scenario_query

    scenario = {"tasks": [TUNE], "constraints": {"platforms": ["compshare"]}}
    html = client.get("/advisor/", scenario_query(scenario)).content.decode()
    assert 'href="https://compshare.cn/price-list"' in html and "data-book" in html
    assert 'rel="noopener noreferrer"' in html
    zh = client.get(
        "/advisor/", scenario_query(scenario), HTTP_ACCEPT_LANGUAGE="zh-hans"
    ).content.decode()
    assert "上打开</a>" in zh
