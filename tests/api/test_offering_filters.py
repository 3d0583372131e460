"""Filtering and ordering the offering list; bad parameters are a 400 naming the parameter.

The catalogue (tests/api/conftest.py), listed offerings only:

    name          GPUs  VRAM/GPU  total  hour (per GPU-hour)  month   other
    RTX 4090 VM   1     24        24     1.88  (1.88)          -
    4090 x8       8     24        192    14.00 (1.75)          8000    interruptible
    A100 pooled   1     20        20     3.10  (3.10)          -       pooled slice
    A100 x8       8     80        640    60.00 (7.50)          28000   NVLink, bigcloud
"""

from __future__ import annotations

import pytest

from tests.api.conftest import add_price
from tests.conftest import make_offering

ALL = {"RTX 4090 VM", "4090 x8", "A100 pooled", "A100 x8"}


def names(client, **params) -> list[str]:
    response = client.get("/api/v1/offerings/", params)
    assert response.status_code == 200, response.json()
    return [offering["name"] for offering in response.json()["results"]]


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"vram_min": "24"}, {"RTX 4090 VM", "4090 x8", "A100 x8"}),
        ({"vram_max": "24"}, {"RTX 4090 VM", "4090 x8", "A100 pooled"}),
        ({"vram_min": "20", "vram_max": "20"}, {"A100 pooled"}),
        ({"total_vram_min": "100"}, {"4090 x8", "A100 x8"}),
        ({"total_vram_max": "24"}, {"RTX 4090 VM", "A100 pooled"}),
        ({"price_min": "2", "price_max": "20"}, {"A100 pooled", "4090 x8"}),
        ({"price_max": "1.88"}, {"RTX 4090 VM"}),
        ({"unit": "month"}, {"4090 x8", "A100 x8"}),
        ({"unit": "month", "price_max": "10000"}, {"4090 x8"}),
        ({"accelerator": "a100-80gb"}, {"A100 pooled", "A100 x8"}),
        ({"accelerator": ["a100-80gb", "rtx-4090-24gb"]}, ALL),
        ({"platform": "bigcloud"}, {"A100 x8"}),
        ({"platform": ["bigcloud", "testcloud"]}, ALL),
        ({"platform": "nowhere"}, set()),
        ({"interconnect": "nvlink"}, {"A100 x8"}),
        ({"sharing_mode": "pooled"}, {"A100 pooled"}),
        ({"interruptible": "true"}, {"4090 x8"}),
        ({"interruptible": "false"}, {"RTX 4090 VM", "A100 pooled", "A100 x8"}),
        ({"currency": "CNY"}, ALL),
        ({"currency": "USD"}, set()),
        ({}, ALL),
    ],
)
def test_each_filter_narrows_the_list(anon_client, catalogue, params, expected):
    assert set(names(anon_client, **params)) == expected


@pytest.mark.parametrize(
    ("ordering", "expected"),
    [
        ("price", ["RTX 4090 VM", "A100 pooled", "4090 x8", "A100 x8"]),
        ("-price", ["A100 x8", "4090 x8", "A100 pooled", "RTX 4090 VM"]),
        ("price_per_gpu_hour", ["4090 x8", "RTX 4090 VM", "A100 pooled", "A100 x8"]),
        ("-price_per_gpu_hour", ["A100 x8", "A100 pooled", "RTX 4090 VM", "4090 x8"]),
        # Equal keys keep the order they were created in (the id breaks ties).
        ("vram", ["A100 pooled", "RTX 4090 VM", "4090 x8", "A100 x8"]),
        ("-vram", ["A100 x8", "RTX 4090 VM", "4090 x8", "A100 pooled"]),
        ("total_vram", ["A100 pooled", "RTX 4090 VM", "4090 x8", "A100 x8"]),
        ("-total_vram", ["A100 x8", "4090 x8", "RTX 4090 VM", "A100 pooled"]),
        ("gpu_count", ["RTX 4090 VM", "A100 pooled", "4090 x8", "A100 x8"]),
        ("-gpu_count", ["4090 x8", "A100 x8", "RTX 4090 VM", "A100 pooled"]),
    ],
)
def test_each_ordering_sorts_the_list(anon_client, catalogue, ordering, expected):
    assert names(anon_client, ordering=ordering) == expected


def test_price_ordering_uses_the_asked_billing_unit(anon_client, catalogue):
    # By the month, the 4090 x8 (8000) is cheaper than the A100 x8 (28000); per GPU-hour too.
    assert names(anon_client, unit="month", ordering="-price") == ["A100 x8", "4090 x8"]
    assert names(anon_client, unit="month", ordering="price_per_gpu_hour") == [
        "4090 x8",
        "A100 x8",
    ]


def test_offerings_without_a_price_in_the_unit_come_last_either_way(
    anon_client, catalogue, platform, accelerator, source
):
    monthly_only = make_offering(platform, accelerator, source, name="monthly only")
    add_price(monthly_only, source, "month", "500", 1)
    assert names(anon_client, ordering="price")[-1] == "monthly only"
    assert names(anon_client, ordering="-price")[-1] == "monthly only"


def test_the_currency_filter_matches_the_current_price_in_the_unit(
    anon_client, catalogue, platform, accelerator, source
):
    dollars = make_offering(platform, accelerator, source, name="priced in dollars")
    add_price(dollars, source, "hour", "0.40", 1, currency="USD")
    assert names(anon_client, currency="USD") == ["priced in dollars"]


def test_the_latest_price_is_the_one_filtered_on(anon_client, catalogue, source):
    # The 4090 VM cost 2.19 a month ago and 1.88 since yesterday.
    assert "RTX 4090 VM" not in names(anon_client, price_min="2")
    add_price(catalogue["4090"], source, "hour", "2.50", 0)
    assert "RTX 4090 VM" in names(anon_client, price_min="2")


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"vram_min": "abc"}, "vram_min"),
        ({"vram_max": "1e999"}, "vram_max"),
        ({"total_vram_min": "NaN"}, "total_vram_min"),
        ({"price_min": "-1"}, "price_min"),
        ({"price_max": "99999999999"}, "price_max"),
        ({"vram_min": "80", "vram_max": "24"}, "vram_max"),
        ({"unit": "fortnight"}, "unit"),
        ({"currency": "EUR"}, "currency"),
        ({"interruptible": "maybe"}, "interruptible"),
        ({"sharing_mode": "shared"}, "sharing_mode"),
        ({"accelerator": "not a slug"}, "accelerator[0]"),
        ({"ordering": "name"}, "ordering"),
        ({"ordering": "--price"}, "ordering"),
    ],
)
def test_a_bad_parameter_is_a_400_naming_it(anon_client, catalogue, params, field):
    response = anon_client.get("/api/v1/offerings/", params)
    assert response.status_code == 400
    error = response.json()["error"]
    assert (error["status"], error["code"]) == (400, "invalid")
    assert list(error["fields"]) == [field]
