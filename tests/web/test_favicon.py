"""A favicon on every page: named by the base template, and /favicon.ico (which browsers ask for
on pages that name none, such as the admin's) is no 404."""

from __future__ import annotations


def test_favicon_ico_redirects_to_the_icon_which_is_served(client, db):
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    assert response["Location"] == "/static/favicon.svg"
    icon = client.get(response["Location"])
    assert icon.status_code == 200
    assert b"<svg" in b"".join(icon.streaming_content)


def test_the_pages_name_their_icon(client, db):
    html = client.get("/").content.decode()
    assert '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">' in html
