"""The staff's price desk (platforms/desk.py): current prices by platform, stale first, "still this
price", a pasted price list checked then applied (never half), and the platform page saying when
and how each price was last confirmed.

Staleness is the settings' PRICE_STALE_AFTER_DAYS (90 days by default) through the engine's one
rule (advisor.engine.vocab.is_stale); the fixtures date prices against the real clock so that a
price 200 days old is stale and one a day old is not, whatever day the tests run.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.auth.models import Permission, User
from django.urls import reverse
from django.utils import timezone

from feeds.models import Feed
from feeds.selectors import FEED, IMPORT, STAFF, price_confirmations
from platforms import services
from platforms.models import (
    AcceleratorAlias,
    CatalogueVersion,
    CurrentPrice,
    Offering,
    PriceObservation,
    normalise_alias,
)
from tests.conftest import make_offering

DESK = "admin:platforms_price_desk"
PASTE = "admin:platforms_price_paste"


@pytest.fixture
def desk_user(db) -> User:
    """Staff who may add prices (the permission the offering's "Add a price" asks)."""
    user = User.objects.create_user("checker", password="pw", is_staff=True)
    user.user_permissions.set(
        Permission.objects.filter(
            content_type__app_label="platforms",
            codename__in=["view_platform", "view_offering", "add_priceobservation"],
        )
    )
    return user


@pytest.fixture
def prices(platform, accelerator, source):
    """Three hourly prices of one platform: last seen 200, 100 and 1 day(s) ago (the first two
    stale at 90 days), entered in that order of offerings so the desk's order is its own."""
    now = timezone.now()
    made = {}
    for name, days, amount in [("fresh", 1, "1.50"), ("old", 200, "2.00"), ("older", 100, "3.00")]:
        offering = make_offering(platform, accelerator, source, name=name)
        made[name] = services.price_observation_create(
            offering=offering,
            unit="hour",
            amount=Decimal(amount),
            currency="CNY",
            source=source,
            observed_at=now - timedelta(days=days),
        )
    return made


def desk_rows(response) -> list[dict]:
    return response.context["rows"]


def test_the_desk_lists_a_platforms_stale_prices_first(client, desk_user, prices, platform):
    client.force_login(desk_user)
    response = client.get(reverse(DESK), {"platform": platform.pk})
    assert response.status_code == 200
    rows = desk_rows(response)
    assert [row["price"].offering.name for row in rows] == ["old", "older", "fresh"]
    assert [row["stale"] for row in rows] == [True, True, False]
    assert [row["age"] for row in rows] == [200, 100, 1]
    body = response.content.decode()
    # The page to check: the source's URL, in a new tab.
    assert 'href="https://example.com/prices" target="_blank"' in body


def test_the_platform_filter_leaves_out_other_platforms(client, desk_user, prices, platform):
    from platforms.models import Platform

    other = Platform.objects.create(slug="elsewhere", name="别处", source=platform.source)
    client.force_login(desk_user)
    response = client.get(reverse(DESK), {"platform": other.pk})
    assert desk_rows(response) == []
    assert len(desk_rows(client.get(reverse(DESK)))) == 3


def test_an_offering_no_longer_listed_is_not_on_the_desk(client, desk_user, prices, platform):
    Offering.objects.filter(pk=prices["old"].offering_id).update(is_active=False)
    client.force_login(desk_user)
    rows = desk_rows(client.get(reverse(DESK), {"platform": platform.pk}))
    assert [row["price"].offering.name for row in rows] == ["older", "fresh"]


def test_still_this_price_records_a_new_observation_now_by_that_user(
    client, desk_user, prices, platform
):
    old = prices["old"]
    current = CurrentPrice.objects.get(observation=old)
    version = CatalogueVersion.objects.get().number
    client.force_login(desk_user)
    before = timezone.now()
    response = client.post(reverse(DESK), {"still": current.pk, "query": f"platform={platform.pk}"})
    assert response.status_code == 302
    assert response["Location"].endswith(f"?platform={platform.pk}")

    history = list(old.offering.prices.order_by("observed_at"))
    assert len(history) == 2 and history[0] == old  # the old one kept in the history
    new = history[1]
    assert before <= new.observed_at <= timezone.now()
    assert new.created_by == desk_user
    assert (new.amount, new.currency, new.unit, new.tier, new.source) == (
        old.amount,
        old.currency,
        old.unit,
        old.tier,
        old.source,
    )
    current.refresh_from_db()
    assert current.observation == new
    assert CatalogueVersion.objects.get().number > version
    assert not new.is_stale()


def test_still_this_price_keeps_what_the_price_is(client, desk_user, prices, platform):
    """A market floor confirmed is still a floor, never turned into a bookable offer."""
    old = prices["old"]
    PriceObservation.objects.filter(pk=old.pk).update(basis="floor")
    CurrentPrice.objects.filter(observation=old).update(basis="floor")
    current = CurrentPrice.objects.get(observation=old)
    client.force_login(desk_user)
    client.post(reverse(DESK), {"still": current.pk, "query": f"platform={platform.pk}"})
    new = old.offering.prices.latest("observed_at")
    assert new != old and new.basis == "floor"
    # The desk now lists it last, confirmed by the staff user.
    rows = desk_rows(client.get(reverse(DESK), {"platform": platform.pk}))
    assert rows[-1]["price"] == new
    assert (rows[-1]["confirmation"].how, rows[-1]["confirmation"].by) == (STAFF, "checker")


def test_still_this_price_on_the_ticked_rows(client, desk_user, prices):
    ticked = [CurrentPrice.objects.get(observation=prices[n]).pk for n in ("old", "older")]
    client.force_login(desk_user)
    client.post(reverse(DESK), {"still_ticked": "1", "ids": ticked})
    assert PriceObservation.objects.filter(created_by=desk_user).count() == 2
    assert prices["fresh"].offering.prices.count() == 1


def test_staff_without_the_permission_to_add_prices_get_no_desk(client, db, prices):
    user = User.objects.create_user("looker", password="pw", is_staff=True)
    client.force_login(user)
    current = CurrentPrice.objects.get(observation=prices["old"])
    assert client.get(reverse(DESK)).status_code == 403
    assert client.post(reverse(DESK), {"still": current.pk}).status_code == 403
    assert client.get(reverse(PASTE)).status_code == 403
    assert PriceObservation.objects.count() == 3


def test_the_admin_index_and_the_platform_page_link_to_the_desk(client, desk_user, platform):
    client.force_login(desk_user)
    index = client.get(reverse("admin:index")).content.decode()
    assert reverse(DESK) in index
    change = client.get(reverse("admin:platforms_platform_change", args=[platform.pk]))
    assert f"{reverse(DESK)}?platform={platform.pk}" in change.content.decode()


# --- how a price was last confirmed ---------------------------------------------------------


def test_a_price_is_confirmed_by_staff_by_an_import_or_by_a_feed(db, prices, desk_user, source):
    fresh, old, older = prices["fresh"], prices["old"], prices["older"]
    PriceObservation.objects.filter(pk=fresh.pk).update(created_by=desk_user)
    Feed.objects.create(name="test-feed", url="https://example.com/other.csv", format="native")
    feed_source = services.import_source(
        label="native CSV",
        filename="test-feed",
        url="https://example.com/other.csv",
        day=timezone.localdate(),
    )
    PriceObservation.objects.filter(pk=older.pk).update(source=feed_source)
    found = price_confirmations(
        list(PriceObservation.objects.select_related("source", "created_by").order_by("pk"))
    )
    assert (found[fresh.pk].how, found[fresh.pk].by) == (STAFF, "checker")
    assert found[old.pk].how == IMPORT  # no user: the seed's or a command's import
    assert found[older.pk].how == FEED and found[older.pk].feed.name == "test-feed"
    assert found[old.pk].at == old.last_seen_at


def test_still_this_price_on_an_imported_price_is_staff_an_import_by_staff_is_an_import(
    db, client, desk_user, offering
):
    """Both are observations a user recorded from an import's source; an import never records the
    same price again (docs/native-csv.md), so the one that repeats the price before it is staff
    confirming it."""
    imported = services.import_source(
        label="native CSV", filename="prices.csv", url="", day=timezone.localdate()
    )
    now = timezone.now()
    first = services.price_observation_create(
        offering=offering,
        unit="hour",
        amount=Decimal("2.00"),
        currency="CNY",
        source=imported,
        observed_at=now - timedelta(days=100),
        created_by=desk_user,
    )
    (again,) = services.prices_still_current(observations=[first], by=desk_user)
    changed = services.price_observation_create(
        offering=offering,
        unit="day",
        amount=Decimal("40"),
        currency="CNY",
        source=imported,
        observed_at=now - timedelta(days=2),
        created_by=desk_user,
    )
    rows = PriceObservation.objects.select_related("source", "created_by")
    found = price_confirmations(list(rows.filter(pk__in=[first.pk, again.pk, changed.pk])))
    assert (found[first.pk].how, found[first.pk].by) == (IMPORT, "checker")
    assert (found[again.pk].how, found[again.pk].by) == (STAFF, "checker")
    assert (found[changed.pk].how, found[changed.pk].by) == (IMPORT, "checker")
    # An import that saw the confirmed price again later: confirmed by that import.
    services.price_observations_seen(observations=[again], seen_at=timezone.now())
    seen = price_confirmations([rows.get(pk=again.pk)])[again.pk]
    assert (seen.how, seen.by) == (IMPORT, "")


def test_the_platform_page_says_when_and_how_each_price_was_last_confirmed(
    client, desk_user, prices, platform
):
    current = CurrentPrice.objects.get(observation=prices["old"])
    client.force_login(desk_user)
    client.post(reverse(DESK), {"still": current.pk})
    client.logout()
    body = client.get(reverse("platforms:detail", args=[platform.slug])).content.decode()
    today = timezone.localdate().isoformat()
    assert f"confirmed {today} by staff" in body
    assert "checker" not in body  # who, in the admin only
    assert "by an import" in body


# --- a pasted price list --------------------------------------------------------------------

HEADER = "offering_key,name,accelerator,gpu_count,billing_unit,amount,currency\n"


@pytest.fixture
def alias(accelerator):
    return AcceleratorAlias.objects.create(
        accelerator=accelerator, alias="RTX 4090", normalised=normalise_alias("RTX 4090")
    )


def paste(client, platform, table, **extra):
    data = {
        "platform": platform.pk,
        "table": table,
        "observed_on": timezone.localdate().isoformat(),
        "source_url": "https://example.com/price-page",
        "check": "1",
    }
    data.update(extra)
    return client.post(reverse(PASTE), data)


def test_a_pasted_list_is_checked_then_applied(client, desk_user, platform, alias):
    table = HEADER + "t-4090,RTX 4090 x1,RTX 4090,1,hour,1.98,CNY\n"
    table += "t-4090,RTX 4090 x1,RTX 4090,1,day,45,CNY\n"
    client.force_login(desk_user)
    checked = paste(client, platform, table)
    assert checked.status_code == 200
    report = checked.context["report"]
    assert report.ok and not report.applied
    assert (report.created, report.prices_added) == (1, 2)
    assert checked.context["can_apply"]
    assert not Offering.objects.filter(external_id="t-4090").exists()  # nothing written yet

    digest = checked.context["form"]["checked"].value()
    applied = paste(client, platform, table, checked=digest, apply="1")
    assert applied.status_code == 302
    offering = Offering.objects.get(platform=platform, external_id="t-4090")
    prices = {p.unit: p for p in offering.current_prices}
    assert (prices["hour"].amount, prices["day"].amount) == (Decimal("1.98"), Decimal("45"))
    assert prices["hour"].created_by == desk_user
    assert prices["hour"].source.url == "https://example.com/price-page"


def test_a_list_changed_after_its_check_is_checked_again_not_applied(
    client, desk_user, platform, alias
):
    table = HEADER + "t-4090,RTX 4090 x1,RTX 4090,1,hour,1.98,CNY\n"
    client.force_login(desk_user)
    digest = paste(client, platform, table).context["form"]["checked"].value()
    changed = table.replace("1.98", "0.98")
    response = paste(client, platform, changed, checked=digest, apply="1")
    assert response.status_code == 200
    assert not Offering.objects.filter(external_id="t-4090").exists()


def test_a_bad_row_is_refused_with_its_line_and_reason_nothing_written(
    client, desk_user, platform, alias
):
    """Line 3 has no amount: refused by the import's own check; line 2 (good) is not written
    either, checked or applied."""
    table = HEADER + "t-4090,RTX 4090 x1,RTX 4090,1,hour,1.98,CNY\n"
    table += "t-4090-2,RTX 4090 x2,RTX 4090,2,hour,,CNY\n"
    client.force_login(desk_user)
    for extra in ({}, {"apply": "1"}):
        response = paste(client, platform, table, **extra)
        assert response.status_code == 200
        (problem,) = response.context["report"].errors
        assert problem.line == 3
        assert "amount" in problem.message
        body = response.content.decode()
        assert "Line 3: " in body
        assert not response.context["can_apply"]
    assert not Offering.objects.filter(platform=platform).exclude(name="RTX 4090 VM").exists()
    assert PriceObservation.objects.count() == 0


def test_a_row_for_another_platform_is_refused(client, desk_user, platform, alias):
    table = "platform," + HEADER + "autodl,t-4090,RTX 4090 x1,RTX 4090,1,hour,1.98,CNY\n"
    client.force_login(desk_user)
    response = paste(client, platform, table)
    (problem,) = response.context["report"].errors
    assert problem.line == 2 and "autodl" in problem.message
    assert not response.context["can_apply"]


def test_an_unknown_card_is_an_error_not_a_skipped_row(client, desk_user, platform, alias):
    table = HEADER + "t-x,Mystery x1,Mystery 9000,1,hour,1.98,CNY\n"
    client.force_login(desk_user)
    response = paste(client, platform, table)
    (problem,) = response.context["report"].errors
    assert problem.line == 2


def test_a_table_copied_from_a_spreadsheet_is_read(client, desk_user, platform, alias):
    table = HEADER.replace(",", "\t") + "t-4090\tRTX 4090 x1\tRTX 4090\t1\thour\t1.98\tCNY\n"
    client.force_login(desk_user)
    report = paste(client, platform, table).context["report"]
    assert report.ok and report.prices_added == 1


@pytest.mark.parametrize("n", [3, 30])
def test_the_desks_queries_do_not_grow_with_its_rows(
    client, desk_user, platform, accelerator, source, n, django_assert_num_queries
):
    """Session and user (2), their permissions (2), the platform chosen (1), the count and the
    page of prices with their observations, sources, recorders and offerings (2), the feeds
    that may have confirmed them (1), the platforms the filter lists (1): 9, for 3 rows or
    30."""
    now = timezone.now()
    for i in range(n):
        services.price_observation_create(
            offering=make_offering(platform, accelerator, source, name=f"o{i}"),
            unit="hour",
            amount=Decimal("1.00"),
            currency="CNY",
            source=source,
            observed_at=now - timedelta(days=i),
            created_by=desk_user if i % 2 else None,
        )
    client.force_login(desk_user)
    with django_assert_num_queries(9):
        response = client.get(reverse(DESK), {"platform": platform.pk})
    assert len(desk_rows(response)) == n
