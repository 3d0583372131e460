"""advisor.messages reads each text's translation and each vocabulary label once per language:
what it writes is what Django's gettext and the labels give, in every language the site speaks,
whichever language asked first."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.conf import settings
from django.utils import translation

from advisor import messages
from advisor.engine import vocab
from advisor.engine.messages import TEMPLATES, Money
from platforms import choices

LANGUAGES = [code for code, _name in settings.LANGUAGES]


@pytest.mark.parametrize("first", LANGUAGES)
def test_every_template_reads_as_djangos_gettext_in_each_language(first: str) -> None:
    messages._TRANSLATED.clear()
    for language in [first, *(code for code in LANGUAGES if code != first)] * 2:
        with translation.override(language):
            for template in TEMPLATES.values():
                assert messages.gettext(template) == translation.gettext(template)


def test_the_templates_are_translated_in_chinese() -> None:
    """Not only read back: the Chinese catalogue answers (compile_translations has run)."""
    template = TEMPLATES[next(iter(TEMPLATES))]
    with translation.override("zh-hans"):
        assert messages.gettext(template) != template


@pytest.mark.parametrize("language", LANGUAGES)
def test_members_of_two_enums_with_one_value_keep_their_own_labels(language: str) -> None:
    """BillingUnit.DAY and When.DAY are equal strings; each reads as its own enum's label."""
    messages._LABELS.clear()
    pairs = [
        (vocab.BillingUnit.DAY, vocab.When.DAY),
        (vocab.BillingUnit.MONTH, vocab.CostBasis.MONTH),
        (vocab.MultiTask.MIG, vocab.PlacementMode.MIG),
        (vocab.PlacementMode.POOLED, vocab.SharingMode.POOLED),
    ]
    with translation.override(language):
        for a, b in pairs:
            for member in (a, b, a, b):
                expected = (
                    str(choices.UNIT_NOUNS[member])
                    if isinstance(member, vocab.BillingUnit)
                    else choices.label(member)
                )
                assert messages.enum_label(member) == expected
        # A price per day names the unit as BillingUnit's noun, after When.DAY was asked.
        per_day = messages.money(Money(Decimal("1.5"), "CNY", per="day"))
        assert str(choices.UNIT_NOUNS[vocab.BillingUnit.DAY]) in per_day
