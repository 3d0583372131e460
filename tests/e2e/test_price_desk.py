"""The staff's price desk in a real browser, in English and in Chinese: a platform's stale prices
first, "still this price", and a pasted price list checked, refused on a bad row, then applied.

On the seed catalogue: its prices carry their sources' dates, so some are older than
PRICE_STALE_AFTER_DAYS (90) on any day the tests run after mid-2026; the test picks the platform
with the most stale prices whose sources have a page to check.
"""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import Permission, User
from django.db.models import Count
from django.utils import timezone

from platforms.models import CurrentPrice, Offering, Platform, PriceObservation

from .conftest import DESKTOP, LANGUAGES

PASSWORD = "a-long-test-password"
WORDS = {
    "en": {
        "still": "Still this price",
        "confirmed": "price confirmed",
        "check": "Check",
        "apply": "Apply the checked list",
        "line": "Line 3: ",
        "applied": "price list was applied",
        "desk": "Price desk",
    },
    "zh": {
        "still": "仍是此价",
        "confirmed": "已确认 1 个价格",
        "check": "检查",
        "apply": "写入已检查的价格表",
        "line": "第 3 行：",
        "applied": "价格表已写入",
        "desk": "价格核对台",
    },
}


@pytest.fixture(params=list(LANGUAGES))
def desk(request, browser, live_server, seeded):
    """A signed-in page of staff who may add prices (not a superuser), in one language."""
    user = User.objects.create_user("checker", password=PASSWORD, is_staff=True)
    user.user_permissions.set(
        Permission.objects.filter(
            content_type__app_label="platforms",
            codename__in=["view_platform", "view_offering", "add_priceobservation"],
        )
    )
    context = browser.new_context(
        viewport=DESKTOP,
        base_url=live_server.url,
        locale=LANGUAGES[request.param],
        service_workers="block",
    )
    context.set_default_timeout(15_000)
    page = context.new_page()
    page.goto("/admin/login/?next=/admin/")
    page.fill("#id_username", "checker")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url("**/admin/")
    page.words = WORDS[request.param]  # type: ignore[attr-defined]
    page.user = user  # type: ignore[attr-defined]
    yield page
    context.close()


def stale_platform() -> Platform:
    """The seed platform with the most stale current prices that have a page to check."""
    stale = (
        PriceObservation.objects.current()
        .stale()
        .exclude(source__url="")
        .values("offering__platform")
        .annotate(n=Count("pk"))
        .order_by("-n", "offering__platform")
    )
    first = stale.first()
    assert first is not None, "the seed has no stale price with a page to check"
    return Platform.objects.get(pk=first["offering__platform"])


def test_the_desk_lists_stale_prices_first_and_still_this_price_confirms_one(desk):
    platform = stale_platform()
    # From the admin's home page, as staff find it.
    desk.get_by_role("link", name=desk.words["desk"], exact=True).first.click()
    desk.goto(f"/admin/platforms/platform/desk/?platform={platform.pk}")
    rows = desk.locator("#desk-prices tbody tr.desk-row")
    flags = [rows.nth(i).get_attribute("data-stale") for i in range(rows.count())]
    assert flags[0] == "true"
    assert flags == sorted(flags, key=lambda f: f != "true"), "a fresh price before a stale one"
    listed = CurrentPrice.objects.filter(offering__platform=platform, offering__is_active=True)
    assert rows.count() == listed.count()

    first = rows.first
    link = first.locator("a.check-page")
    observation = PriceObservation.objects.select_related("source").get(
        pk=first.get_attribute("data-observation")
    )
    assert link.get_attribute("href") == observation.source.url
    assert link.get_attribute("target") == "_blank"

    before = timezone.now()
    first.get_by_role("button", name=desk.words["still"], exact=True).click()
    desk.locator(".messagelist .success").wait_for()
    assert desk.words["confirmed"] in desk.locator(".messagelist .success").inner_text()

    history = list(
        PriceObservation.objects.filter(
            offering=observation.offering, unit=observation.unit, tier=observation.tier
        ).order_by("observed_at")
    )
    new = history[-1]
    assert observation in history[:-1]  # the old one kept in the history
    assert new.created_by == desk.user
    assert before <= new.observed_at <= timezone.now()
    assert (new.amount, new.source_id) == (observation.amount, observation.source_id)
    # Confirmed now, it is listed last, confirmed by this user.
    last = rows.last
    assert last.get_attribute("data-observation") == str(new.pk)
    assert last.get_attribute("data-stale") == "false"
    assert last.locator("[data-how]").get_attribute("data-how") == "staff"
    assert "checker" in last.locator("[data-how]").inner_text()


GOOD = "desk-4090,RTX 4090 from the desk,RTX 4090,1,hour,1.77,CNY"
HEADER = "offering_key,name,accelerator,gpu_count,billing_unit,amount,currency"


def test_a_pasted_price_list_is_checked_refused_on_a_bad_row_then_applied(desk):
    platform = Platform.objects.get(slug="autodl")
    desk.goto(f"/admin/platforms/platform/{platform.pk}/change/")
    desk.locator("#price-desk-link").click()
    desk.wait_for_url(re.compile(rf".*/desk/\?platform={platform.pk}$"))
    desk.locator("#paste-link").click()
    assert desk.locator("#id_platform").input_value() == str(platform.pk)
    desk.fill("#id_source_url", "https://www.autodl.com/home")

    # Line 3 has a price that is not a number: refused with its line, nothing written.
    desk.fill("#id_table", f"{HEADER}\n{GOOD}\ndesk-4090-2,RTX 4090 x2,RTX 4090,2,hour,abc,CNY\n")
    desk.get_by_role("button", name=desk.words["check"], exact=True).click()
    errors = desk.locator("#paste-errors li")
    errors.first.wait_for()
    assert errors.count() == 1
    assert errors.first.get_attribute("data-line") == "3"
    assert errors.first.inner_text().startswith(desk.words["line"])
    assert desk.locator("#paste-apply").count() == 0
    assert not Offering.objects.filter(external_id__startswith="desk-4090").exists()

    # Fixed: checked (a preview, nothing written), then applied.
    desk.fill("#id_table", f"{HEADER}\n{GOOD}\n")
    desk.get_by_role("button", name=desk.words["check"], exact=True).click()
    desk.locator("#paste-preview").wait_for()
    assert not Offering.objects.filter(external_id="desk-4090").exists()
    desk.get_by_role("button", name=desk.words["apply"], exact=True).click()
    desk.locator(".messagelist .success").wait_for()
    assert desk.words["applied"] in desk.locator(".messagelist .success").inner_text()
    offering = Offering.objects.get(platform=platform, external_id="desk-4090")
    (price,) = offering.current_prices
    assert (str(price.amount), price.created_by) == ("1.770000", desk.user)
    # The new price leads nothing: it is the freshest on the platform's desk.
    rows = desk.locator("#desk-prices tbody tr.desk-row")
    assert rows.last.get_attribute("data-observation") == str(price.pk)
