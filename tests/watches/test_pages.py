"""The watches' pages: the links from an offering's row and a saved scenario's page, the form's
refusals (no channel, a webhook to a private address, too many confirmations for an address), the
throttle on making watches, CSRF, the lists (a user's, an email address's by its signed link)
and removal, and the pages in Chinese."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client
from django.utils import timezone

from watches import tokens
from watches.models import Watch, WatchKind


def test_an_offering_s_row_links_to_watching_it(client, offering, price_history):
    page = client.get(offering.platform.get_absolute_url())
    html = page.content.decode()
    assert f'id="offering-{offering.pk}"' in html
    assert f'href="/watches/new/?offering={offering.pk}"' in html


def test_a_saved_scenario_s_page_links_to_watching_it(client, dev_scenario):
    page = client.get(dev_scenario.saved.get_absolute_url())
    assert f'href="/watches/new/?scenario={dev_scenario.saved.key}"' in page.content.decode()
    form = client.get(f"/watches/new/?scenario={dev_scenario.saved.key}")
    assert form.status_code == 200
    assert b'name="threshold_pct"' in form.content and b'name="email"' in form.content


def test_a_watch_of_nothing_is_a_404(client, db):
    assert client.get("/watches/new/").status_code == 404
    assert client.get("/watches/new/?scenario=nosuchkey").status_code == 404
    assert client.get("/watches/new/?offering=999999").status_code == 404


def test_the_form_refuses_no_channel_and_a_private_webhook(client, renter, offering, price_history):
    client.force_login(renter)
    nothing = client.post("/watches/new/", {"offering": offering.pk})
    assert nothing.status_code == 200
    assert "Choose how to be told" in nothing.content.decode()
    private = client.post(
        "/watches/new/", {"offering": offering.pk, "webhook_url": "http://10.0.0.5/hook"}
    )
    assert (
        "10.0.0.5 is at 10.0.0.5, which is not on the public internet: webhooks go to public "
        "addresses only." in private.content.decode()
    )
    assert not Watch.objects.exists()


def test_a_signed_in_user_without_an_email_can_only_use_a_webhook(
    client, offering, price_history, hook_server
):
    user = User.objects.create_user("noemail", password="pw-noemail-1")
    client.force_login(user)
    refused = client.post("/watches/new/", {"offering": offering.pk, "send_email": "on"})
    assert refused.status_code == 200 and not Watch.objects.exists()
    made = client.post("/watches/new/", {"offering": offering.pk, "webhook_url": hook_server.url})
    assert made.status_code == 302
    watch = Watch.objects.get()
    assert (watch.send_email, watch.webhook_url) == (False, hook_server.url)


def test_an_address_gets_only_so_many_confirmations_a_day(
    client, offering, price_history, settings
):
    settings.WATCH_CONFIRMATIONS_PER_DAY = 2
    body = {"offering": offering.pk, "email": "victim@example.com", "send_email": "on"}
    assert client.post("/watches/new/", body).status_code == 200
    assert client.post("/watches/new/", body).status_code == 200
    third = client.post("/watches/new/", {**body, "email": "VICTIM@example.com"})
    assert third.status_code == 400 and b"data-refusal" in third.content
    assert len(mail.outbox) == 2 and Watch.objects.count() == 2


def test_making_watches_is_throttled_per_client(client, offering, price_history, settings):
    settings.WATCH_CREATE_RATE = "2/hour"
    body = {"offering": offering.pk, "email": "someone@example.com", "send_email": "on"}
    assert client.post("/watches/new/", body).status_code == 200
    assert client.post("/watches/new/", body).status_code == 200
    throttled = client.post("/watches/new/", body)
    assert throttled.status_code == 429 and throttled["Retry-After"]
    # Reading the form is not counted against the rate.
    assert client.get(f"/watches/new/?offering={offering.pk}").status_code == 200


def test_the_forms_need_their_csrf_token(renter, offering, price_history):
    client = Client(enforce_csrf_checks=True)
    client.force_login(renter)
    assert (
        client.post("/watches/new/", {"offering": offering.pk, "send_email": "on"}).status_code
        == 403
    )
    form = client.get(f"/watches/new/?offering={offering.pk}")
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form.content.decode())[1]
    made = client.post(
        "/watches/new/",
        {"offering": offering.pk, "send_email": "on", "csrfmiddlewaretoken": token},
    )
    assert made.status_code == 302
    watch = Watch.objects.get()
    assert client.post(f"/watches/{watch.pk}/remove/").status_code == 403
    assert Watch.objects.exists()


def make(offering, **fields) -> Watch:
    return Watch.objects.create(kind=WatchKind.OFFERING, offering=offering, **fields)


def test_a_user_lists_and_removes_their_own_watches_only(client, renter, offering, price_history):
    mine = make(
        offering, user=renter, confirmed_at=timezone.now(), webhook_url="https://example.com/h"
    )
    other = User.objects.create_user("other", email="other@example.com")
    theirs = make(offering, user=other, confirmed_at=timezone.now())
    assert "Sign in" in client.get("/watches/").content.decode()

    client.force_login(renter)
    page = client.get("/watches/").content.decode()
    assert f'data-watch="{mine.pk}"' in page and f'data-watch="{theirs.pk}"' not in page
    assert mine.secret in page  # the owner verifies signatures with it
    assert client.post(f"/watches/{theirs.pk}/remove/").status_code == 404
    assert client.post(f"/watches/{mine.pk}/remove/").status_code == 302
    assert list(Watch.objects.all()) == [theirs]


def test_an_email_address_s_watches_are_listed_and_removed_by_its_signed_link(
    client, offering, price_history
):
    watch = make(offering, email="someone@example.com", confirmed_at=timezone.now())
    other = make(offering, email="else@example.com", confirmed_at=timezone.now())
    token = tokens.list_token("someone@example.com")
    page = client.get(f"/watches/e/{token}/").content.decode()
    assert f'data-watch="{watch.pk}"' in page and f'data-watch="{other.pk}"' not in page
    assert client.get("/watches/e/forged/").status_code == 404
    assert client.post(f"/watches/{other.pk}/remove/", {"token": token}).status_code == 404
    assert client.post(f"/watches/{watch.pk}/remove/", {"token": "forged"}).status_code == 400
    removed = client.post(f"/watches/{watch.pk}/remove/", {"token": token})
    assert removed.status_code == 302 and list(Watch.objects.all()) == [other]


@pytest.mark.parametrize("path", ["/watches/", "/watches/new/?offering={pk}"])
def test_the_pages_speak_chinese(client, renter, offering, price_history, path):
    client.force_login(renter)
    page = client.get(path.format(pk=offering.pk), HTTP_ACCEPT_LANGUAGE="zh-hans")
    html = page.content.decode()
    assert page.status_code == 200
    assert ("我的关注" in html) or ("关注这个产品的价格" in html)


def test_an_email_watch_made_in_chinese_writes_in_chinese(client, offering, price_history):
    client.post(
        "/watches/new/",
        {"offering": offering.pk, "email": "zh@example.com", "send_email": "on"},
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )
    assert Watch.objects.get().language == "zh-hans"
    assert mail.outbox[0].subject == "确认您的关注"
    assert "请在 7 天内确认" in mail.outbox[0].body


def test_the_admin_lists_and_shows_watches(client, renter, offering, price_history):
    watch = make(offering, user=renter, confirmed_at=timezone.now(), last_error="webhook: HTTP 500")
    admin = User.objects.create_superuser("admin", "admin@example.com", "pw-admin-123")
    client.force_login(admin)
    listed = client.get("/admin/watches/watch/")
    assert listed.status_code == 200
    html = listed.content.decode()
    assert "RTX 4090 VM · 测试云 (Test Cloud)" in html and "webhook: HTTP 500" in html
    assert client.get(f"/admin/watches/watch/{watch.pk}/change/").status_code == 200
