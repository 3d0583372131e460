"""Who says what about whom: every fact of the seed catalogue cites a source whose kind matches
whose statement it is and about whom (README, "Who says what about whom").

The seed article ("2026多任务GPU平台怎么选？多卡效率与实战配置拆解", published by 智星云 on
2026-05-26) is two sources: its statements about 智星云 are 智星云's own (vendor claims); those
about 恒源云, 矩池云 and 趋动云 are a competitor's description of them (competitor claims). A
platform's documentation or price page is its own documentation.
"""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from platforms.models import (
    SPOKEN_BY_A_PLATFORM,
    BillingRules,
    Offering,
    Platform,
    PlatformFact,
    PriceObservation,
    Source,
    SourceKind,
    StoragePrice,
)

pytestmark = pytest.mark.usefixtures("seed")

ARTICLE = "2026多任务GPU平台怎么选？多卡效率与实战配置拆解"


@pytest.fixture
def seed(db):
    from platforms.seed import load_seed

    load_seed()


def cited() -> list[tuple[Source, Platform]]:
    """(source, the platform the fact is about) for every fact, platform, offering, price,
    storage price and billing rule of the catalogue."""
    pairs = [(p.source, p) for p in Platform.objects.select_related("source__speaker")]
    pairs += [
        (f.source, f.platform) for f in PlatformFact.objects.select_related("source", "platform")
    ]
    pairs += [(o.source, o.platform) for o in Offering.objects.select_related("source", "platform")]
    pairs += [
        (p.source, p.offering.platform)
        for p in PriceObservation.objects.select_related("source", "offering__platform")
    ]
    pairs += [
        (s.source, s.platform) for s in StoragePrice.objects.select_related("source", "platform")
    ]
    pairs += [
        (r.source, r.platform) for r in BillingRules.objects.select_related("source", "platform")
    ]
    return pairs


def test_every_fact_of_the_seed_has_the_kind_of_whose_statement_it_is_about_whom():
    pairs = cited()
    assert len(pairs) > 300  # platforms, facts, offerings, prices, storage, billing rules
    for source, subject in pairs:
        if source.kind in (SourceKind.VENDOR_CLAIM, SourceKind.DOCUMENTATION):
            assert source.speaker_id == subject.pk, (source.title, subject.slug)
        elif source.kind == SourceKind.COMPETITOR_CLAIM:
            assert source.speaker_id is not None and source.speaker_id != subject.pk, (
                source.title,
                subject.slug,
            )
        else:
            assert source.speaker_id is None, source.title


def test_the_articles_statements_about_its_competitors_are_competitor_claims():
    about = {}
    for source, subject in cited():
        if source.title.startswith(ARTICLE):
            about.setdefault(source.kind, set()).add(subject.slug)
    assert about == {
        SourceKind.VENDOR_CLAIM: {"zhixingyun"},
        SourceKind.COMPETITOR_CLAIM: {"hengyuanyun", "matpool", "virtaicloud"},
    }
    others = Source.objects.get(title__startswith=ARTICLE, kind=SourceKind.COMPETITOR_CLAIM)
    assert others.speaker is not None and others.speaker.slug == "zhixingyun"
    assert others.who_about_whom(Platform.objects.get(slug="matpool")) == (
        "智星云 about a competitor (competitor claim)"
    )


def test_price_pages_and_documentation_are_the_platforms_own_documentation():
    docs = Source.objects.filter(kind=SourceKind.DOCUMENTATION).select_related("speaker")
    assert {s.speaker.slug for s in docs} >= {"autodl", "hengyuanyun", "gongji", "zhixingyun"}


def test_only_a_platforms_own_statements_name_a_speaker():
    """The constraint source_speaker_only_for_platform_statements: a third party's statement has
    no speaker; the spoken kinds are vendor claim, competitor claim and documentation."""
    assert set(SPOKEN_BY_A_PLATFORM) == {
        SourceKind.VENDOR_CLAIM,
        SourceKind.COMPETITOR_CLAIM,
        SourceKind.DOCUMENTATION,
    }
    with pytest.raises(IntegrityError), transaction.atomic():
        Source.objects.create(
            title="A blog", kind=SourceKind.THIRD_PARTY, speaker=Platform.objects.first()
        )


def test_the_comparison_table_badges_competitor_claims_and_keeps_unknown_unknown(client):
    html = client.get("/platforms/").content.decode()
    assert "kind-competitor_claim" in html and "competitor claim" in html
    page = client.get("/platforms/matpool/").content.decode()
    # 矩池云's physical exclusivity: nobody says, so it is unknown, not "no".
    assert "Physically exclusive GPUs</dt><dd>unknown</dd>" in page
