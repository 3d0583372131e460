"""The check's rules without the seed: what counts as a change (the #1's key, its cost past the
threshold, an offering's prices), the signature against RFC 4231's published HMAC-SHA256 vector,
the outbound-URL checks a webhook URL passes as a feed's does, and a delivery that fails."""

from __future__ import annotations

import json
from datetime import timedelta
from decimal import Decimal

import pytest
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from feeds.fetch import FetchError
from platforms import services
from tests.platforms.test_admin import offering_form_data, staff  # noqa: F401 (fixture)
from watches import checks, notify, webhook
from watches.models import Watch, WatchKind


def scenario_watch(threshold: str = "10") -> Watch:
    return Watch(kind=WatchKind.SCENARIO, threshold_pct=Decimal(threshold))


A = {"key": "a/1x1", "name": "A", "cost": "100.00", "currency": "CNY", "basis": "month"}


@pytest.mark.parametrize(
    ("after", "reasons", "pct"),
    [
        ({**A, "cost": "109.99"}, None, None),  # 10.0 % rounded: not more than 10
        ({**A, "cost": "110.00"}, None, None),  # exactly the threshold: not more
        ({**A, "cost": "110.06"}, ("cost_moved",), Decimal("10.1")),
        ({**A, "cost": "89.90"}, ("cost_moved",), Decimal("-10.1")),
        ({**A, "key": "b/2x1", "name": "B"}, ("first_changed",), Decimal("0.0")),
        ({**A, "key": "b/2x1", "cost": "50.00"}, ("first_changed", "cost_moved"), Decimal("-50.0")),
        # Nothing fits any more: the #1 changed, and no cost to compare.
        (
            {"key": "", "name": "", "cost": None, "currency": "", "basis": ""},
            ("first_changed",),
            None,
        ),
        # Another currency or basis: no percentage across them.
        ({**A, "cost": "20.00", "currency": "USD"}, None, None),
    ],
)
def test_a_scenario_s_change_is_its_1_or_its_cost_past_the_threshold(after, reasons, pct):
    found = checks.change(scenario_watch(), A, after)
    if reasons is None:
        assert found is None
    else:
        assert found is not None and found.reasons == reasons and found.cost_change_pct == pct


def test_an_offering_s_change_is_any_current_price_changing_appearing_or_going():
    watch = Watch(kind=WatchKind.OFFERING)
    before = {"name": "X", "prices": {"hour/list": "1.88 CNY"}}
    assert checks.change(watch, before, before) is None
    for prices in (
        {"hour/list": "1.7 CNY"},
        {"hour/list": "1.88 CNY", "month/list": "999 CNY"},
        {},
    ):
        found = checks.change(watch, before, {"name": "X", "prices": prices})
        assert found is not None and found.reasons == ("price_changed",)


def test_the_signature_is_hmac_sha256_of_the_body():
    """RFC 4231 (https://www.rfc-editor.org/rfc/rfc4231#section-4.3), test case 2: key "Jefe",
    data "what do ya want for nothing?"."""
    expected = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    assert webhook.signature("Jefe", b"what do ya want for nothing?") == f"sha256={expected}"
    assert webhook.verify("Jefe", b"what do ya want for nothing?", f"sha256={expected}")
    assert not webhook.verify("Jefe", b"what do ya want for nothing!", f"sha256={expected}")


@pytest.mark.parametrize(
    ("url", "code"),
    [
        ("http://127.0.0.1:9/hook", "address"),
        ("http://[::1]/hook", "address"),
        ("http://10.1.2.3/hook", "address"),
        ("http://169.254.169.254/latest/meta-data/", "address"),
        ("http://[::ffff:192.168.0.1]/", "address"),
        ("ftp://example.com/hook", "scheme"),
        ("http://user:pw@example.com/hook", "bad_url"),
    ],
)
def test_a_webhook_url_passes_the_feeds_outbound_checks(url, code):
    with pytest.raises(FetchError) as refused:
        webhook.check_url(url)
    assert refused.value.code == code


def test_a_feed_s_allowed_host_is_not_a_webhook_s(settings):
    settings.FEED_ALLOWED_HOSTS = ["127.0.0.1:9"]
    with pytest.raises(FetchError):
        webhook.check_url("http://127.0.0.1:9/hook")
    settings.WATCH_WEBHOOK_ALLOWED_HOSTS = ["127.0.0.1:9"]
    webhook.check_url("http://127.0.0.1:9/hook")


def test_a_stored_url_to_a_private_address_is_refused_when_sent():
    """Checked again at each delivery (a name may resolve elsewhere since it was checked)."""
    with pytest.raises(webhook.WebhookError):
        webhook.deliver("http://127.0.0.1:9/hook", b"{}", secret="s", watch_id=1)


@pytest.fixture
def offering_watch(db, offering, price_history, renter):
    watch = Watch(
        kind=WatchKind.OFFERING,
        offering=offering,
        user=renter,
        send_email=False,
        confirmed_at=timezone.now(),
    )
    watch.baseline = checks.state_of(watch) or {}
    watch.save()
    return watch


def test_an_offering_s_state_is_its_current_prices(offering_watch):
    assert offering_watch.baseline == {
        "name": "RTX 4090 VM · 测试云 (Test Cloud)",
        "prices": {"hour/list": "1.88 CNY"},
    }


def test_a_webhook_that_fails_is_tried_again_at_the_next_check(
    offering_watch, offering, source, hook_server
):
    Watch.objects.filter(pk=offering_watch.pk).update(webhook_url=hook_server.url)
    services.price_observation_create(
        offering=offering, unit="hour", amount=Decimal("1.5"), currency="CNY", source=source
    )
    hook_server.status = 500
    assert checks.watches_check(send=notify.send) == 0
    watch = Watch.objects.get()
    assert watch.notified_at is None and watch.last_error == "webhook: HTTP 500"
    assert watch.baseline["prices"] == {"hour/list": "1.88 CNY"}

    hook_server.status = 200
    # The catalogue did not move, but a watch whose message failed is not checked again until
    # WATCH_RECHECK_S: the next check a day on.
    assert checks.watches_check(send=notify.send) == 0
    later = timezone.now() + timedelta(days=1, seconds=1)
    assert checks.watches_check(send=notify.send, now=later) == 1
    body = json.loads(hook_server.received[-1].body)
    assert body["before"]["prices"] == {"hour/list": "1.88 CNY"}
    assert body["after"]["prices"] == {"hour/list": "1.5 CNY"}
    assert mail.outbox == []  # a webhook-only watch


def test_a_price_change_of_a_watched_offering_is_emailed_on_commit(
    offering_watch, offering, source, django_capture_on_commit_callbacks
):
    Watch.objects.filter(pk=offering_watch.pk).update(send_email=True)
    with django_capture_on_commit_callbacks(execute=True):
        services.price_observation_create(
            offering=offering, unit="hour", amount=Decimal("1.5"), currency="CNY", source=source
        )
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.subject == "A price of RTX 4090 VM · 测试云 (Test Cloud) changed"
    assert "\nhour: 1.88 CNY → 1.5 CNY\n" in message.body


def test_a_price_entered_in_the_admin_is_checked_once_it_commits(
    client,
    staff,  # noqa: F811 (the fixture imported above)
    offering_watch,
    offering,
    django_capture_on_commit_callbacks,
):
    Watch.objects.filter(pk=offering_watch.pk).update(send_email=True)
    client.force_login(staff)
    url = reverse("admin:platforms_offering_change", args=[offering.pk])
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, offering_form_data(offering, new_price_amount="1.70"))
    assert response.status_code == 302
    assert [m.subject for m in mail.outbox] == [
        "A price of RTX 4090 VM · 测试云 (Test Cloud) changed"
    ]
    assert "\nhour: 1.88 CNY → 1.7 CNY\n" in mail.outbox[0].body


def test_a_watch_left_unconfirmed_past_its_days_is_deleted_by_the_check(
    offering, price_history, settings
):
    made = timezone.now() - timedelta(days=settings.WATCH_CONFIRM_DAYS, seconds=1)
    Watch.objects.create(
        kind=WatchKind.OFFERING, offering=offering, email="late@example.com", created_at=made
    )
    waiting = Watch.objects.create(
        kind=WatchKind.OFFERING, offering=offering, email="soon@example.com"
    )
    assert checks.watches_check(send=notify.send) == 0
    assert list(Watch.objects.all()) == [waiting]


def test_a_watch_whose_answer_fails_does_not_stop_the_others(
    offering_watch, offering, source, monkeypatch, hook_server
):
    broken = Watch.objects.create(
        kind=WatchKind.OFFERING,
        offering=offering,
        email="first@example.com",
        confirmed_at=timezone.now(),
        baseline=offering_watch.baseline,
    )
    Watch.objects.filter(pk=offering_watch.pk).update(webhook_url=hook_server.url)
    services.price_observation_create(
        offering=offering, unit="hour", amount=Decimal("1.5"), currency="CNY", source=source
    )
    real = checks.state_of

    def state_of(watch, kept=None):
        if watch.pk == broken.pk:
            raise RuntimeError("boom")
        return real(watch, kept)

    monkeypatch.setattr(checks, "state_of", state_of)
    assert checks.watches_check(send=notify.send) == 1
    assert len(hook_server.received) == 1 and mail.outbox == []
