"""The catalogue endpoints answer with the whole documented body, computed from the database."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.conftest import NOW, local

SOURCE = {
    "title": "Test price list",
    "url": "https://example.com/prices",
    "publisher": "",
    "kind": "manual",
    "speaker": None,
    "confidence": "secondary",
    "published_on": None,
    "retrieved_on": None,
}
SOURCE_BRIEF = {"title": "Test price list", "kind": "manual"}

pytestmark = pytest.mark.usefixtures("frozen")


def test_a_platform_shows_its_facts_with_sources_its_latest_storage_prices_and_offering_count(
    anon_client, catalogue
):
    response = anon_client.get("/api/v1/platforms/testcloud/")
    assert response.status_code == 200
    assert response.json() == {
        "url": "http://testserver/api/v1/platforms/testcloud/",
        "slug": "testcloud",
        "name": "测试云",
        "name_en": "Test Cloud",
        "website": "",
        "region": "cn",
        "delivery_forms": ["cloud_vm"],
        "scheduling": "",
        "multi_task": "instance",
        "interconnects": ["pcie"],
        "physically_exclusive": None,
        "retention_after_expiry": None,
        # Who may rent: no source says (null, not false).
        "cn_identity_required": None,
        "foreign_cards": None,
        "offering_count": 3,
        "source": SOURCE,
        "stability_claim": "",
        "domestic_accelerators": "",
        "data_retention": "",
        "idle_policy": "",
        "notes": "",
        "facts": [
            {
                "attribute": "multi_task",
                "label": "Multi-task granularity",
                "value": "Instance level",
                "value_zh": "实例级",
                "source": SOURCE,
            }
        ],
        # The 0.70 price of 40 days ago was replaced by 0.50 ten days ago.
        "storage_prices": [
            {
                "platform": "testcloud",
                "kind": "data_disk",
                "unit": "gb_month",
                "amount": "0.500000",
                "currency": "CNY",
                "free_gb": 50,
                "billed_when_stopped": True,
                "observed_at": local(NOW - timedelta(days=10)),
                "notes": "",
                "source": SOURCE_BRIEF,
            }
        ],
    }


def test_the_platform_list_counts_only_listed_offerings(anon_client, catalogue):
    body = anon_client.get("/api/v1/platforms/").json()
    assert body["count"] == 2
    counts = {p["slug"]: p["offering_count"] for p in body["results"]}
    # bigcloud also has "old A100", which is no longer listed.
    assert counts == {"bigcloud": 1, "testcloud": 3}
    assert "facts" not in body["results"][0]


def test_an_offering_shows_its_vram_its_price_in_the_asked_unit_and_every_current_price(
    anon_client, catalogue
):
    offering = catalogue["a100x8"]
    response = anon_client.get(f"/api/v1/offerings/{offering.pk}/", {"unit": "month"})
    assert response.status_code == 200
    current = {
        "currency": "CNY",
        "tier": "list",
        "basis": "offer",
        "observed_at": local(NOW - timedelta(days=5)),
        "last_seen_at": local(NOW - timedelta(days=5)),
        "age_days": 5,
        "stale": False,
        "source": SOURCE_BRIEF,
    }
    assert response.json() == {
        "id": offering.pk,
        "name": "A100 x8",
        "platform": {"slug": "bigcloud", "name": "大云", "name_en": "Big Cloud"},
        "accelerator": {"slug": "a100-80gb", "name": "A100 80GB", "vram_gib": "80.00"},
        "gpu_count": 8,
        "vram_per_gpu_gib": "80.00",
        "total_vram_gib": "640.00",
        "pooled_vram_gib": None,
        "mig_profile": "",
        "vcpus": None,
        "ram_gib": None,
        "disk_gb": None,
        "delivery_form": "bare_metal",
        "sharing_mode": "exclusive",
        "interconnect": "nvlink",
        "network": "",
        "network_gbps": None,
        "region": "",
        # No region: the platform's market, "cn" (platforms/renting.py).
        "country": "CN",
        "interruptible": False,
        # 28000 a month / (720 h × 8 GPUs) = 4.8611 per GPU-hour.
        "price": {
            "unit": "month",
            "amount": "28000.000000",
            "currency": "CNY",
            "per_gpu_hour": "4.8611",
        },
        "current_prices": [
            {"unit": "hour", "amount": "60.000000", **current},
            {"unit": "month", "amount": "28000.000000", **current},
        ],
        "source": SOURCE_BRIEF,
    }


def test_a_pooled_slice_counts_its_own_memory_and_an_old_price_is_stale(anon_client, catalogue):
    body = anon_client.get(f"/api/v1/offerings/{catalogue['pooled'].pk}/").json()
    assert (body["vram_per_gpu_gib"], body["total_vram_gib"]) == ("20.00", "20.00")
    [price] = body["current_prices"]
    assert (price["age_days"], price["stale"]) == (200, True)


def test_an_offering_without_a_price_in_the_asked_unit_has_no_listed_price(anon_client, catalogue):
    body = anon_client.get(f"/api/v1/offerings/{catalogue['4090'].pk}/", {"unit": "month"}).json()
    assert body["price"] is None
    assert [p["unit"] for p in body["current_prices"]] == ["hour"]


def test_a_delisted_offering_is_not_in_the_catalogue(anon_client, catalogue):
    response = anon_client.get(f"/api/v1/offerings/{catalogue['old'].pk}/")
    assert response.status_code == 404


def test_an_accelerator_shows_aliases_mig_profiles_and_the_grade_of_each_figure(
    anon_client, catalogue
):
    response = anon_client.get("/api/v1/accelerators/a100-80gb/")
    assert response.status_code == 200
    assert response.json() == {
        "url": "http://testserver/api/v1/accelerators/a100-80gb/",
        "slug": "a100-80gb",
        "name": "A100 80GB",
        "vendor": "NVIDIA",
        "architecture": "Ampere",
        "vram_gib": "80.00",
        "memory_bandwidth_gbps": 2039.0,
        "bf16_tflops": 312.0,
        "fp16_tflops": None,
        "fp32_tflops": None,
        "fp64_tflops": None,
        "rt_cores": None,
        "nvenc": None,
        # A row made by hand states no stack figures: CUDA by default, the rest unverified.
        "stack": "cuda",
        "compute_capability": "",
        "precisions": {},
        "stack_source": "",
        "stack_confidence": "unverified",
        "nvlink": True,
        "nvlink_bandwidth_gbps": 600.0,
        "pcie_gen": None,
        "tdp_w": None,
        "domestic": False,
        "confidence": "verified",
        # Only bf16_tflops has its own grade (fp16_tflops takes it); the others the accelerator's.
        "figure_confidence": {
            "vram_gib": "verified",
            "memory_bandwidth_gbps": "verified",
            "bf16_tflops": "secondary",
            "fp16_tflops": "secondary",  # no grade of its own: the BF16 rate's
            "fp32_tflops": "verified",
            "fp64_tflops": "verified",
            "rt_cores": "verified",
            "nvenc": "verified",
            "nvlink_bandwidth_gbps": "verified",
            "pcie_gen": "verified",
            "tdp_w": "verified",
        },
        "mig_slots": 8,
        "mig_max_compute": 7,
        "aliases": ["A100-80GB", "NVIDIA A100-SXM4-80GB"],
        "mig_profiles": [
            {
                "name": "1g.10gb",
                "memory_gib": "9.75",
                "memory_slices": 1,
                "compute_slices": 1,
                "max_count": 7,
                "starts": [0, 1, 2, 3, 4, 5, 6],
                "media_extensions": False,
            },
            {
                "name": "3g.40gb",
                "memory_gib": "39.50",
                "memory_slices": 4,
                "compute_slices": 3,
                "max_count": 2,
                "starts": [0, 4],
                "media_extensions": False,
            },
        ],
        "source_note": "",
        "source": SOURCE,
    }


def test_storage_prices_list_every_observation_newest_first(anon_client, catalogue):
    body = anon_client.get("/api/v1/storage-prices/").json()
    assert [(p["amount"], p["observed_at"]) for p in body["results"]] == [
        ("0.500000", local(NOW - timedelta(days=10))),
        ("0.700000", local(NOW - timedelta(days=40))),
    ]


def test_exchange_rates_are_listed_with_their_date_and_source(anon_client, catalogue):
    body = anon_client.get("/api/v1/exchange-rates/").json()
    assert body["results"] == [
        {
            "base": "USD",
            "quote": "CNY",
            "rate": "7.100000",
            "as_of": "2026-11-01",
            "source": SOURCE_BRIEF,
        }
    ]


def test_lists_are_paginated_and_the_page_size_can_be_asked_for(anon_client, catalogue):
    body = anon_client.get("/api/v1/platforms/", {"page_size": 1}).json()
    assert (body["count"], len(body["results"])) == (2, 1)
    assert body["next"].endswith("page=2&page_size=1")
    assert anon_client.get("/api/v1/platforms/", {"page": 9}).status_code == 404
    # The offering list is walked by cursor (tests/api/test_offering_pages.py).
    body = anon_client.get("/api/v1/offerings/", {"page_size": 3}).json()
    assert (set(body), len(body["results"])) == ({"next", "results"}, 3)
    assert "cursor=" in body["next"] and "page_size=3" in body["next"]
