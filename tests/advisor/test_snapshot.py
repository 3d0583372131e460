"""Engine inputs kept between requests (advisor.snapshot): reused while the catalogue's version
stands, rebuilt after any write of prices (service, admin, API), and never past the moment a
price turns stale."""

from __future__ import annotations

import gc
import weakref
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from django.contrib.auth.models import Permission, User
from django.urls import reverse
from django.utils import translation
from rest_framework.test import APIClient

from advisor import services as advisor_services
from advisor.snapshot import Snapshots, Window, settle, stale_window
from platforms import services
from tests.conftest import NOW, make_offering

SCENARIO = {"tasks": [{"name": "notebook", "kind": "fixed", "vram_gib": 4}]}


def price(offering, source, amount, days_ago=2, unit="hour"):
    return services.price_observation_create(
        offering=offering,
        unit=unit,
        amount=Decimal(amount),
        currency="CNY",
        source=source,
        observed_at=NOW - timedelta(days=days_ago),
    )


def best_price(now=NOW) -> Decimal | None:
    report = advisor_services.advise_scenario(SCENARIO, now=now)
    assert report.advice is not None
    return report.advice.recommendations[0].plan.price


# ------------------------------------------------------------------------------ the cache itself


def test_a_value_is_built_once_per_version_and_again_when_it_changes():
    version = ["a"]
    kept = Snapshots(version=lambda: version[0])
    built = []

    def build():
        built.append(version[0])
        return len(built), Window()

    assert [kept.get("k", NOW, build) for _ in range(3)] == [1, 1, 1]
    version[0] = "b"
    assert kept.get("k", NOW, build) == 2
    assert built == ["a", "b"]


def test_without_a_version_nothing_is_kept():
    kept = Snapshots(version=lambda: None)
    values = iter(range(10))
    assert [kept.get("k", NOW, lambda: (next(values), Window())) for _ in range(2)] == [0, 1]


def test_an_entry_is_rebuilt_outside_its_window_and_the_oldest_goes_first():
    kept = Snapshots(size=2, version=lambda: "v")
    calls = []
    day = Window(NOW - timedelta(days=1), NOW + timedelta(days=1))

    def build(tag):
        calls.append(tag)
        return tag, day

    kept.get("a", NOW, lambda: build("a"))
    kept.get("a", NOW + timedelta(hours=23), lambda: build("a"))
    assert calls == ["a"]
    kept.get("a", NOW + timedelta(days=2), lambda: build("a"))  # past its end
    kept.get("b", NOW, lambda: build("b"))
    kept.get("c", NOW, lambda: build("c"))  # evicts "a"
    kept.get("a", NOW, lambda: build("a"))
    assert calls == ["a", "a", "b", "c", "a"]


class _Cyclic:
    """An object only the collector frees once it is garbage: it refers to itself."""

    def __init__(self) -> None:
        self.me = self


def test_what_an_earlier_settle_froze_is_collected_by_the_next_once_it_is_garbage():
    """Each catalogue version settles (gc.freeze); an object frozen by one and garbage by the
    next (an older catalogue's, in a cycle) is freed then, not kept in the permanent generation."""
    kept = _Cyclic()
    gone = weakref.ref(kept)
    try:
        settle()
        assert gc.get_freeze_count() > 0
        del kept
        settle()
        assert gone() is None
    finally:
        gc.unfreeze()


def test_the_stale_window_ends_when_a_fresh_price_turns_stale_and_starts_after_the_last_stale():
    """A price last seen at L is stale when now > L + 90 days (vocab.is_stale)."""
    fresh = datetime(2026, 11, 1, tzinfo=UTC)
    stale = datetime(2026, 5, 1, tzinfo=UTC)
    window = stale_window([(fresh, False), (stale, True), (fresh + timedelta(days=3), False)], 90)
    assert window == Window(stale + timedelta(days=90), fresh + timedelta(days=90))
    assert window.holds(fresh + timedelta(days=90))  # not yet stale at the very edge
    assert not window.holds(fresh + timedelta(days=90, seconds=1))
    assert not window.holds(stale + timedelta(days=90))


# --------------------------------------------------------------------------- through the service


def test_the_next_advice_reuses_the_inputs_with_one_query(
    offering, source, django_assert_num_queries
):
    price(offering, source, "1.88")
    assert best_price() == Decimal("1.88")
    with django_assert_num_queries(1):  # the catalogue's version
        advisor_services.load_catalogue(advisor_services.parse(SCENARIO), now=NOW)


def test_the_version_is_the_rows_token_and_none_without_the_row(offering, source):
    """catalogue_version reads the row in SQL (platforms.services): the ORM's answer, each time."""
    from platforms.models import CatalogueVersion

    def stored() -> str | None:
        return CatalogueVersion.objects.filter(pk=1).values_list("token", flat=True).first()

    before = services.catalogue_version()
    assert before is not None and before == stored()
    price(offering, source, "1.88")
    assert services.catalogue_version() == stored() != before
    CatalogueVersion.objects.all().delete()
    assert services.catalogue_version() is None


def test_a_price_added_by_the_service_is_in_the_next_advice(offering, source):
    price(offering, source, "1.88")
    assert best_price() == Decimal("1.88")
    price(offering, source, "1.49", days_ago=1)
    assert best_price() == Decimal("1.49")


def test_a_price_edited_in_the_admin_is_in_the_next_advice(client, offering, source):
    observation = price(offering, source, "1.88")
    assert best_price() == Decimal("1.88")
    client.force_login(User.objects.create_superuser("root", password="pw"))
    when = observation.observed_at.astimezone(UTC)
    data = {
        "offering": offering.pk,
        "unit": "hour",
        "amount": "1.59",
        "currency": "CNY",
        "tier": "list",
        "basis": "offer",
        "observed_at_0": when.strftime("%Y-%m-%d"),
        "observed_at_1": when.strftime("%H:%M:%S"),
        "last_seen_at_0": when.strftime("%Y-%m-%d"),
        "last_seen_at_1": when.strftime("%H:%M:%S"),
        "source": source.pk,
    }
    change = reverse("admin:platforms_priceobservation_change", args=[observation.pk])
    with translation.override("en"):
        assert client.post(change, data).status_code == 302
    assert best_price() == Decimal("1.59")


def test_an_offering_edited_in_the_admin_is_in_the_next_advice(client, offering, source):
    from tests.platforms.test_admin import offering_form_data

    price(offering, source, "1.88")
    assert best_price() == Decimal("1.88")
    client.force_login(User.objects.create_superuser("root", password="pw"))
    change = reverse("admin:platforms_offering_change", args=[offering.pk])
    data = offering_form_data(offering)
    del data["is_active"]  # delisted
    assert client.post(change, data).status_code == 302
    report = advisor_services.advise_scenario(SCENARIO, now=NOW)
    assert report.advice is None and report.no_fit is not None


def test_a_price_added_through_the_api_is_in_the_next_advice(offering, source):
    price(offering, source, "1.88")
    assert best_price() == Decimal("1.88")
    keeper = User.objects.create_user("keeper", password="pw", is_staff=True)
    keeper.user_permissions.add(Permission.objects.get(codename="add_priceobservation"))
    api = APIClient()
    api.force_authenticate(keeper)
    when = (NOW - timedelta(hours=1)).isoformat()
    body = {"unit": "hour", "amount": "1.39", "currency": "CNY", "observed_at": when}
    response = api.post(f"/api/v1/offerings/{offering.pk}/prices/", body, format="json")
    assert response.status_code == 201, response.content
    assert best_price() == Decimal("1.39")


def test_an_advice_later_in_time_sees_a_price_turn_stale(settings, offering, source):
    settings.PRICE_STALE_AFTER_DAYS = 30
    price(offering, source, "1.88", days_ago=2)
    report = advisor_services.advise_scenario(SCENARIO, now=NOW)
    assert not report.advice.recommendations[0].stale
    later = NOW + timedelta(days=40)
    assert advisor_services.advise_scenario(SCENARIO, now=later).advice.recommendations[0].stale


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_names_come_in_the_language_of_the_request(platform, accelerator, source, language):
    offering = make_offering(platform, accelerator, source, name_zh="4090 云主机")
    price(offering, source, "1.88")
    with translation.override("en"):
        advisor_services.advise_scenario(SCENARIO, now=NOW)
    with translation.override(language):
        report = advisor_services.advise_scenario(SCENARIO, now=NOW)
    expected = "RTX 4090 VM" if language == "en" else "4090 云主机"
    assert report.advice.recommendations[0].offering_name == expected


class _Held:
    """An object a weak reference can watch."""


def test_what_the_placement_cache_lets_go_is_freed_after_the_response(client):
    """The site's placement cache defers freeing what it lets go (an older scenario's fits) until
    a response is closed (request_finished): after a request nothing waits."""
    import weakref

    cache = advisor_services.PLACEMENTS
    assert cache.deferred
    held = _Held()
    cache._let_go(held)
    watched = weakref.ref(held)
    del held
    assert cache.releasing >= 1 and watched() is not None
    response = client.get("/healthz")
    assert response.status_code == 200
    assert cache.releasing == 0
    assert watched() is None
