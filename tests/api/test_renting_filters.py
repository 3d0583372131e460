"""The renters' filters of the offering list (country, region, delivery form, vCPUs, RAM and
disk per GPU, who may rent), and unknown parameters refused as the advisor refuses them.

The catalogue (tests/api/conftest.py), listed offerings, with what these tests add:

    name          platform (market, forms)          region       vCPUs  RAM   disk  GPUs
    RTX 4090 VM   testcloud (cn, cloud_vm)          -            16     64    -     1
    4090 x8       testcloud                         -            64     -     -     8
    A100 pooled   testcloud (pooled_container)      -            -      -     -     1
    A100 x8       bigcloud (global, bare_metal)     us-east-1    -      -     2000  8

What must always hold: an offering that does not state what a filter reads is not listed by it
(an unknown is never a 0 or a yes).
"""

from __future__ import annotations

import pytest

from platforms.models import Offering, Platform

ALL = {"RTX 4090 VM", "4090 x8", "A100 pooled", "A100 x8"}


@pytest.fixture
def listed(catalogue):
    Offering.objects.filter(name="RTX 4090 VM").update(vcpus=16, ram_gib=64)
    Offering.objects.filter(name="4090 x8").update(vcpus=64)
    Offering.objects.filter(name="A100 x8").update(region="us-east-1", disk_gb=2000)
    # bigcloud rents in AWS's region names: its country comes from the region table only for
    # AWS itself, so here it has none (a global market states no country).
    Platform.objects.filter(slug="bigcloud").update(region="global")
    return catalogue


def names(client, **params) -> set[str]:
    response = client.get("/api/v1/offerings/", params)
    assert response.status_code == 200, response.json()
    return {offering["name"] for offering in response.json()["results"]}


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"country": "CN"}, {"RTX 4090 VM", "4090 x8", "A100 pooled"}),
        ({"country": "cn"}, {"RTX 4090 VM", "4090 x8", "A100 pooled"}),
        ({"country": "US"}, set()),  # bigcloud's market is global: no country stated
        ({"region": "us-east-1"}, {"A100 x8"}),
        ({"region": ["US-EAST-1", "eu-west-1"]}, {"A100 x8"}),
        ({"delivery_form": "bare_metal"}, {"A100 x8"}),
        ({"delivery_form": "cloud_vm"}, {"RTX 4090 VM", "4090 x8"}),
        ({"delivery_form": ["cloud_vm", "pooled_container"]}, ALL - {"A100 x8"}),
        # 16 vCPUs on one GPU is 16 per GPU; 64 on eight is 8; unstated is never listed.
        ({"min_vcpus_per_gpu": "8"}, {"RTX 4090 VM", "4090 x8"}),
        ({"min_vcpus_per_gpu": "8.01"}, {"RTX 4090 VM"}),
        ({"min_ram_gib_per_gpu": "64"}, {"RTX 4090 VM"}),
        ({"min_ram_gib_per_gpu": "65"}, set()),
        ({"min_disk_gb_per_gpu": "250"}, {"A100 x8"}),
        ({"min_disk_gb_per_gpu": "251"}, set()),
        ({"foreign_renter": "false"}, ALL),
        ({"foreign_renter": "true"}, set()),  # no source says for either platform
    ],
)
def test_each_renting_filter_narrows_the_list(anon_client, listed, params, expected):
    assert names(anon_client, **params) == expected


def test_a_platform_a_source_clears_is_listed_for_a_renter_from_abroad(anon_client, listed):
    Platform.objects.filter(slug="bigcloud").update(cn_identity_required=False, foreign_cards=True)
    Platform.objects.filter(slug="testcloud").update(cn_identity_required=True, foreign_cards=True)
    assert names(anon_client, foreign_renter="true") == {"A100 x8"}


def test_a_blank_delivery_form_is_the_platforms_only_one(anon_client, listed):
    Offering.objects.filter(name="RTX 4090 VM").update(delivery_form="")
    assert "RTX 4090 VM" in names(anon_client, delivery_form="cloud_vm")
    Platform.objects.filter(slug="testcloud").update(delivery_forms=["cloud_vm", "bare_metal"])
    assert "RTX 4090 VM" not in names(anon_client, delivery_form="cloud_vm")
    assert "RTX 4090 VM" not in names(anon_client, delivery_form="bare_metal")


@pytest.mark.parametrize(
    ("params", "field", "hint"),
    [
        # The seed article's tip 3 misspelt: it used to list every offering, unfiltered.
        ({"delivery": "bare_metal"}, "delivery", "delivery_form"),
        ({"vcpus_min": "8"}, "vcpus_min", None),
        ({"zzz": "1"}, "zzz", None),
        ({"countries": "CN"}, "countries", "country"),
    ],
)
def test_an_unknown_parameter_is_a_400_naming_it(anon_client, listed, params, field, hint):
    response = anon_client.get("/api/v1/offerings/", params)
    assert response.status_code == 400
    error = response.json()["error"]
    assert (error["status"], error["code"]) == (400, "invalid")
    assert list(error["fields"]) == [field]
    [message] = error["fields"][field]
    assert ("did you mean" in message) == (hint is not None)
    if hint:
        assert f"'{hint}'" in message


def test_an_unknown_parameter_is_refused_in_chinese_too(anon_client, listed):
    response = anon_client.get(
        "/api/v1/offerings/", {"delivery": "bare_metal"}, HTTP_ACCEPT_LANGUAGE="zh-hans"
    )
    assert response.status_code == 400
    [message] = response.json()["error"]["fields"]["delivery"]
    assert "未知参数" in message and "delivery_form" in message


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"country": "CHN"}, "country"),
        ({"delivery_form": "metal"}, "delivery_form"),
        ({"min_vcpus_per_gpu": "-1"}, "min_vcpus_per_gpu"),
        ({"min_ram_gib_per_gpu": "lots"}, "min_ram_gib_per_gpu"),
        ({"foreign_renter": "maybe"}, "foreign_renter"),
    ],
)
def test_a_bad_renting_filter_is_a_400_naming_it(anon_client, listed, params, field):
    response = anon_client.get("/api/v1/offerings/", params)
    assert response.status_code == 400
    [name] = response.json()["error"]["fields"]
    assert name.split("[")[0] == field


def test_paging_parameters_are_still_taken(anon_client, listed):
    first = anon_client.get("/api/v1/offerings/", {"page_size": 1, "delivery_form": "cloud_vm"})
    assert first.status_code == 200
    body = first.json()
    assert len(body["results"]) == 1 and body["next"]
    assert anon_client.get(body["next"]).status_code == 200
