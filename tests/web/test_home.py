"""The home page: what the product does, a question that opens the advisor, today's cheapest
cards, the seed article's scenarios; the platform comparison on its own page."""

from __future__ import annotations

from decimal import Decimal

import pytest
import time_machine
from django.urls import reverse

from advisor.presets import PRESETS
from platforms.home import cheapest_cards
from tests.conftest import NOW


@pytest.fixture
def frozen():
    with time_machine.travel(NOW, tick=False):
        yield NOW


@pytest.fixture
def seed_catalogue(db):
    from platforms.seed import load_seed

    load_seed()


def test_the_home_says_what_it_does_and_asks_what_to_run(client, catalogue, frozen):
    body = client.get("/").content.decode()
    assert "ranks the offerings of 2 platforms by what the job costs" in body
    assert f'action="{reverse("advisor:index")}#results"' in body
    for name in ("tasks", "t0-model", "t0-kind", "t0-hours_per_month"):
        assert f'name="{name}"' in body
    for preset in PRESETS.values():
        assert f'data-preset="{preset.slug}"' in body


def test_what_to_run_opens_the_advisor_with_that_task(client, seed_catalogue):
    """The fields the home form sends, as a browser sends them, give the advisor's results for a
    task of that model, kind and hours."""
    query = {
        "tasks": "1",
        "t0-master_weights": "on",
        "t0-model": "qwen2.5-7b",
        "t0-kind": "inference",
        "t0-hours_per_month": "200",
    }
    response = client.get(reverse("advisor:index"), query)
    task = response.context["form"].scenario()["tasks"][0]
    assert (task["model"], task["kind"], task["hours_per_month"]) == (
        "qwen2.5-7b",
        "inference",
        200,
    )
    assert response.context["rows"]


def test_the_cheapest_whole_card_of_each_kind_today_with_its_age(catalogue, frozen):
    """A100: the 8× bare metal at 28,000 CNY a month is 28000 / 720 / 8 = 4.8611 CNY per
    GPU-hour, under the USD one's 1.50 × 7.0 = 10.50; the RTX 4090: the spot one at 1.19, not
    the pooled 12 GB share at 0.90 (a share of a card is not the card); no H100 is listed."""
    facts = {c.family: c for c in cheapest_cards(now=NOW)}
    assert set(facts) == {"RTX 4090", "A100"}
    assert facts["A100"].offering == catalogue["eight"]
    assert facts["A100"].per_gpu_hour == Decimal("4.8611")
    assert facts["RTX 4090"].offering == catalogue["spot"]
    assert facts["RTX 4090"].per_gpu_hour == Decimal("1.1900")
    assert facts["RTX 4090"].age_days == 1
    assert facts["A100"].currency == "CNY"


def test_the_home_shows_the_cheapest_cards(client, catalogue, frozen):
    body = client.get("/").content.decode()
    assert 'data-card="A100"' in body and "4.86 CNY per GPU-hour" in body
    assert "seen 2026-11-19, 1 day ago" in body


def test_the_platform_comparison_has_its_own_page_and_old_links_follow_it(client, catalogue):
    assert reverse("platforms:comparison") == "/platforms/"
    assert 'class="comparison transposed"' in client.get("/platforms/").content.decode()
    response = client.get("/", {"platforms": ["testcloud"]})
    assert response.status_code == 302
    assert response.url == "/platforms/?platforms=testcloud"
