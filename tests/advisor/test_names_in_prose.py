"""Names, not slugs, in every sentence a person reads: each seed preset's answer (the seed
catalogue at tests.conftest.NOW), rendered in English and in Chinese, quotes no accelerator's or
platform's slug in its prose (reasons, warnings, the verdict on the article's pick and its
"because", the article's claims checked, the plans' notes). The article's 8×H200 against 8×A100
verdict once read "8× h200-141gb train faster than 8× a100-80gb"."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from rest_framework.test import APIClient

from advisor.presets import PRESETS
from platforms.models import Accelerator, Platform

pytestmark = pytest.mark.usefixtures("seed", "frozen")


def sentences(body: Any) -> Iterator[str]:
    """Every rendered message of an answer (api/advice.py writes each as {"code", "params",
    "message"}), nested ones included."""
    if isinstance(body, dict):
        if "code" in body and isinstance(body.get("message"), str):
            yield body["message"]
        for value in body.values():
            yield from sentences(value)
    elif isinstance(body, list):
        for value in body:
            yield from sentences(value)


def slug_pattern() -> re.Pattern[str]:
    """Any slug of the catalogue as a word of its own ("h200-141gb", "autodl"), not inside a
    longer token (a source's "lambda-labs", an instance type's name)."""
    slugs = [*Accelerator.objects.values_list("slug", flat=True)]
    slugs += Platform.objects.values_list("slug", flat=True)
    words = "|".join(re.escape(s) for s in sorted(slugs, key=len, reverse=True))
    return re.compile(rf"(?<![\w./-])(?:{words})(?![\w./-])")


@pytest.mark.parametrize("language", ["en", "zh-hans"])
@pytest.mark.parametrize("slug", list(PRESETS))
def test_no_slug_in_the_prose_of_a_preset_answer(slug, language):
    response = APIClient().post(
        "/api/v1/advise/",
        PRESETS[slug].named_scenario(),
        format="json",
        HTTP_ACCEPT_LANGUAGE=language,
    )
    assert response.status_code in (200, 422)
    found = slug_pattern()
    prose = list(sentences(response.json()))
    assert prose
    assert [s for s in prose if found.search(s)] == []
