"""The offering list's keyset pages: following `next` walks every listed offering once, in the
asked order, whatever the page size; a cursor is only good for the list and ordering it came from.

The catalogue: tests/api/conftest.py's four listed offerings and one delisted, and on a third
platform 23 more with prices that tie per GPU-hour, some with only a monthly price, some with
none.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from platforms.models import Offering, Platform
from tests.api.conftest import add_price
from tests.conftest import make_offering

ORDERINGS = [
    "",
    "price",
    "-price",
    "price_per_gpu_hour",
    "-price_per_gpu_hour",
    "vram",
    "-vram",
    "total_vram",
    "-total_vram",
    "gpu_count",
    "-gpu_count",
]


@pytest.fixture
def many(catalogue, accelerator, a100, source):
    third = Platform.objects.create(slug="thirdcloud", name="第三云", source=source)
    for i in range(23):
        gpus = (1, 2, 4, 8)[i % 4]
        offering = make_offering(
            third, (accelerator, a100)[i % 2], source, name=f"o{i:02}", gpu_count=gpus
        )
        if i % 5 == 4:
            continue  # no price at all
        if i % 5 != 3:
            # 1.50 per GPU-hour for i = 0, 6, 12, ... (ties), else an amount of its own.
            per_gpu = Decimal("1.50") if i % 6 == 0 else Decimal(100 + 7 * i) / 100
            add_price(offering, source, "hour", str(per_gpu * gpus), i % 3)
        if i % 2:
            add_price(offering, source, "month", str(700 * gpus + i), 1)
    return catalogue


def walk(client, page_size: int, **params) -> list[dict]:
    rows, url, pages = [], "/api/v1/offerings/", 0
    query: dict | None = {**params, "page_size": page_size}
    while url:
        response = client.get(url, query)
        assert response.status_code == 200, response.json()
        body = response.json()
        assert len(body["results"]) <= page_size
        rows += body["results"]
        url, query, pages = body["next"], None, pages + 1
        assert pages <= 100, "the cursor goes round in circles"
    return rows


def sort_key(row: dict, ordering: str, defaults: dict[int, tuple]):
    """The documented order, from the fields each row shows: keys in the asked direction, ties
    by id, rows without a price in the unit after the others (by id)."""
    name = ordering.lstrip("-")
    value = {
        "": lambda: defaults[row["id"]],
        "price": lambda: row["price"] and Decimal(row["price"]["amount"]),
        "price_per_gpu_hour": lambda: row["price"] and Decimal(row["price"]["per_gpu_hour"]),
        "vram": lambda: Decimal(row["vram_per_gpu_gib"]),
        "total_vram": lambda: Decimal(row["total_vram_gib"]),
        "gpu_count": lambda: row["gpu_count"],
    }[name]()
    if value is None:
        return (1, (), row["id"])
    if ordering.startswith("-"):
        return (0, (-value,), row["id"])
    return (0, (value,), row["id"])


@pytest.mark.parametrize("unit", [None, "month"])
@pytest.mark.parametrize("ordering", ORDERINGS)
def test_the_cursor_walks_every_offering_once_in_order(anon_client, many, ordering, unit):
    params = {"ordering": ordering} if ordering else {}
    if unit:
        params["unit"] = unit
    listed = Offering.objects.filter(is_active=True)
    if unit:
        listed = listed.filter(current_price_rows__unit=unit)
    defaults = {
        o.pk: (o.platform_id, o.accelerator_id, o.gpu_count, o.name) for o in listed.distinct()
    }
    for page_size in (1, 2, 7, 200):
        rows = walk(anon_client, page_size, **params)
        ids = [row["id"] for row in rows]
        assert sorted(ids) == sorted(defaults)  # each listed offering once
        expected = sorted(rows, key=lambda row: sort_key(row, ordering, defaults))
        assert ids == [row["id"] for row in expected]
    assert len(ids) == (27 if unit is None else 11)


def test_the_ties_and_the_unpriced_are_in_the_walk(anon_client, many):
    rows = walk(anon_client, 3, ordering="price_per_gpu_hour")
    per_gpu = [row["price"] and row["price"]["per_gpu_hour"] for row in rows]
    assert per_gpu.count("1.5000") == 3  # o00, o06, o12: three ties
    assert per_gpu[-8:] == [None] * 8  # 3 monthly only, 5 with no price: last, by id
    assert per_gpu[-9] is not None


def test_filters_hold_on_every_page(anon_client, many):
    rows = walk(anon_client, 2, accelerator="a100-80gb", ordering="-price")
    assert rows and {row["accelerator"]["slug"] for row in rows} == {"a100-80gb"}
    a100s = Offering.objects.filter(is_active=True, accelerator__slug="a100-80gb")
    assert len(rows) == a100s.count()


@pytest.mark.parametrize(
    "cursor",
    ["abc", "!!!", "eyJvIjoiIn0", "eyJvIjoiIiwibiI6ZmFsc2UsInYiOltbInMiLDFdXSwiaSI6MX0"],
)
def test_a_cursor_that_is_not_one_is_a_400(anon_client, many, cursor):
    response = anon_client.get("/api/v1/offerings/", {"cursor": cursor})
    assert response.status_code == 400
    assert "cursor" in response.json()["error"]["fields"]


def test_a_cursor_is_for_its_own_ordering(anon_client, many):
    following = anon_client.get("/api/v1/offerings/", {"page_size": 2}).json()["next"]
    cursor = following.split("cursor=")[1].split("&")[0]
    response = anon_client.get("/api/v1/offerings/", {"cursor": cursor, "ordering": "price"})
    assert response.status_code == 400
    assert anon_client.get("/api/v1/offerings/", {"cursor": cursor}).status_code == 200


def test_page_numbers_are_refused_with_the_way_to_walk(anon_client, many):
    response = anon_client.get("/api/v1/offerings/", {"page": 2})
    assert response.status_code == 400
    assert "next" in str(response.json()["error"]["fields"]["page"])


def test_the_last_page_has_no_next(anon_client, many):
    body = anon_client.get("/api/v1/offerings/", {"page_size": 200}).json()
    assert (len(body["results"]), body["next"]) == (27, None)
