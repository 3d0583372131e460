"""The public pages show what the database holds."""

from __future__ import annotations

from decimal import Decimal

from django.urls import reverse

from platforms.models import Platform, PlatformFact, StoragePrice
from tests.conftest import NOW


def test_the_comparison_page_renders_the_facts_from_the_database(client, platform):
    body = client.get(reverse("platforms:comparison")).content.decode()
    assert "Instance level" in body
    assert "测试云" in body


def test_changing_a_fact_changes_the_comparison_page(client, platform):
    PlatformFact.objects.filter(platform=platform, attribute="multi_task").update(
        value="MIG slices of A100"
    )
    body = client.get(reverse("platforms:comparison")).content.decode()
    assert "MIG slices of A100" in body
    assert "Instance level" not in body


def test_the_comparison_page_compares_a_chosen_subset(client, platform, source):
    other = Platform.objects.create(slug="other", name="另一个云", name_en="Other", source=source)
    PlatformFact.objects.create(
        platform=other, attribute="multi_task", value="Pooled slices", source=source
    )
    body = client.get(reverse("platforms:comparison"), {"platforms": ["other"]}).content.decode()
    assert "Pooled slices" in body
    assert "Instance level" not in body


def test_each_claim_links_to_its_source_and_vendor_claims_are_marked(
    client, platform, vendor_source
):
    PlatformFact.objects.create(
        platform=platform, attribute="stability", value="±1.5 %", source=vendor_source
    )
    body = client.get(reverse("platforms:comparison")).content.decode()
    assert f'href="#source-{vendor_source.pk}"' in body
    assert f'id="source-{vendor_source.pk}"' in body
    assert "vendor claim" in body


def test_the_comparison_page_shows_chinese_values_in_chinese(client, platform):
    body = client.get(reverse("platforms:comparison"), HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert "实例级" in body.content.decode()


def test_the_platform_page_shows_current_prices_and_not_superseded_ones(
    client, platform, price_history
):
    body = client.get(reverse("platforms:detail", args=[platform.slug])).content.decode()
    assert "1.88 CNY" in body
    assert "2.19 CNY" not in body


def test_the_platform_page_shows_storage_prices_and_policies(client, platform, source):
    StoragePrice.objects.create(
        platform=platform,
        kind="data_disk",
        unit="gb_hour",
        amount=Decimal("0.0004"),
        currency="CNY",
        free_gb=100,
        billed_when_stopped=False,
        observed_at=NOW,
        source=source,
    )
    body = client.get(reverse("platforms:detail", args=[platform.slug])).content.decode()
    assert "0.0004 CNY" in body
    assert "100 GB free" in body
    assert "not billed while stopped" in body
    assert "Instance level" in body


def test_an_unknown_platform_is_a_404(client, db):
    assert client.get(reverse("platforms:detail", args=["nope"])).status_code == 404
