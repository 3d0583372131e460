"""English and Simplified Chinese: every string translated, the pages in the reader's language."""

from __future__ import annotations

from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from django.conf import settings
from django.template import Context, Template
from django.urls import reverse
from django.utils import translation

from platforms import charts
from tests.conftest import NOW

PO_FILE = Path(settings.BASE_DIR) / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po"


def zh(client, url, **params):
    response = client.get(url, params, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert response.status_code == 200
    return response.content.decode()


def test_every_message_has_a_chinese_translation_and_none_is_fuzzy():
    with PO_FILE.open("rb") as po:
        catalog = read_po(po, locale="zh_Hans")
    untranslated = [m.id for m in catalog if m.id and not all(m.string or [""])]
    assert untranslated == []
    assert [m.id for m in catalog if m.id and m.fuzzy] == []
    assert len(catalog) > 400


def test_the_explorer_speaks_chinese_to_a_chinese_browser(client, catalogue):
    body = zh(client, reverse("platforms:offerings"))
    assert '<html lang="zh-hans">' in body
    assert "应用筛选" in body  # Apply filters
    assert "每卡显存下限 (GiB)" in body  # VRAM per GPU from (GiB)
    assert "独占整卡" in body  # the sharing mode's choice label
    assert "Apply filters" not in body


def test_an_invalid_filter_is_explained_in_chinese(client, catalogue):
    response = client.get(
        reverse("platforms:offerings"), {"price_max": "2"}, HTTP_ACCEPT_LANGUAGE="zh-hans"
    )
    assert response.status_code == 400
    assert "按价格筛选前请先选择计费单位。" in response.content.decode()


def test_the_language_cookie_chooses_chinese_for_the_platform_page_and_its_chart(
    client, platform, price_history
):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "zh-hans"
    response = client.get(reverse("platforms:detail", args=[platform.slug]))
    body = response.content.decode()
    assert "价格历史" in body  # Price history
    assert "实例规格与现价" in body  # Offerings and current prices
    assert "测试云" in body and "Test Cloud" in body  # the platform's names in both languages
    assert "实例级" in body  # the fact's Chinese value
    layout = response.context["history_figure"]["layout"]
    labels = [b["label"] for b in layout["xaxis"]["rangeselector"]["buttons"]]
    assert labels == ["1个月", "6个月", "1年", "全部"]
    assert "按小时" in response.context["history_figure"]["data"][0]["name"]


def test_the_comparison_page_and_the_navigation_are_translated(client, platform):
    body = zh(client, reverse("platforms:comparison"))
    assert "GPU 平台对比" in body
    assert "跳到正文" in body  # the skip link
    assert "实例规格" in body  # the nav link to the explorer


def test_the_language_switcher_posts_the_language_and_returns_to_the_page(client, db):
    body = client.get(reverse("platforms:offerings")).content.decode()
    assert f'action="{reverse("set_language")}"' in body
    assert 'name="language" value="zh-hans"' in body
    response = client.post(
        reverse("set_language"), {"language": "zh-hans", "next": "/offerings/?sort=price"}
    )
    assert response.status_code == 302
    assert response.url == "/offerings/?sort=price"
    assert client.cookies[settings.LANGUAGE_COOKIE_NAME].value == "zh-hans"
    assert "应用筛选" in client.get(response.url).content.decode()


@pytest.mark.parametrize(("language", "expected"), [("en", "28,000.00"), ("zh-hans", "28,000.00")])
def test_amounts_are_formatted_for_the_language(language, expected):
    """Both group thousands with commas: config/formats/zh_Hans overrides Django's zh_Hans formats,
    which set no grouping, because Chinese platforms print ¥28,000.00."""
    with translation.override(language):
        rendered = Template("{% load catalogue %}{{ value|amount }}").render(
            Context({"value": "28000"})
        )
    assert rendered == expected


def test_hover_labels_of_the_chart_are_translated(platform, price_history):
    with translation.override("zh-hans"):
        offerings = list(platform.offerings.all())
        series = charts.price_history(offerings, {o.pk: o.current_prices for o in offerings})
        figure = charts.price_history_figure(series, now=NOW)
    assert figure["data"][0]["text"][-1].endswith("· 仍为现价")
