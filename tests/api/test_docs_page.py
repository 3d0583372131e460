"""The API docs page (Swagger UI) names its language and has a heading, in both languages; the
script that keeps Swagger UI's links out of its buttons and the contrast fixes are loaded."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    ("language", "lang", "heading"),
    [("en", "en", "GPU Platform Advisor API"), ("zh-hans", "zh-hans", "GPU 平台顾问 API")],
)
def test_the_api_docs_page_has_a_language_and_a_heading(client, db, language, lang, heading):
    html = client.get("/api/docs/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert f'<html lang="{lang}">' in html
    assert f"<h1>{heading}</h1>" in html
    assert "/static/js/api-docs.js" in html and "/static/css/api-docs.css" in html
    assert 'id="swagger-ui"' in html
