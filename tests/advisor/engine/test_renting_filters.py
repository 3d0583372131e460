"""The renters' filters in the advisor's constraints (ranking.renting_miss; README "The
scenario"): country and region, delivery form, vCPUs, RAM and disk per GPU, and who may rent.

What must always hold: an offering that does not state what a filter reads is left out with a
reason of its own, counted ("vCPU count not stated: 2"), never read as zero or as a yes; an
offering that states it is kept or left out by the figure alone, per GPU (8 vCPUs on 2 GPUs are 4
per GPU); the pruned path (prune.OfferingIndex) counts exactly what the offering-by-offering
loop does.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

import pytest

from advisor.engine import ranking
from advisor.engine.advise import advise
from advisor.engine.errors import InvalidWorkload, NoFit
from advisor.engine.estimate import estimate
from advisor.engine.hardware import load_accelerators
from advisor.engine.messages import Code
from advisor.engine.prune import OfferingIndex
from advisor.engine.scenario import parse_constraints, parse_scenario, scenario_to_dict
from advisor.engine.suggest import what_would_fit
from advisor.engine.types import OfferingSpec, PriceSpec, RentalFacts, Scenario
from advisor.engine.vocab import DeliveryForm

ACCELERATORS = load_accelerators()
NOW = datetime(2026, 10, 2)
HOURLY = PriceSpec(
    unit="hour",  # type: ignore[arg-type]
    amount=Decimal("2"),
    currency="CNY",  # type: ignore[arg-type]
    observed_at=datetime(2026, 9, 30),
    source="test",
)
TASK = {"kind": "fixed", "vram_gib": 20, "name": "render"}


def offer(oid: str, gpus: int = 1, region: str = "", **facts: Any) -> OfferingSpec:
    return OfferingSpec(
        id=oid,
        platform=oid,
        platform_name=oid.upper(),
        name=oid,
        accelerator=ACCELERATORS["rtx-4090-24gb"],
        gpu_count=gpus,
        region=region,
        prices=(HOURLY,),
        rental=RentalFacts(**facts),
    )


def scenario(**constraints: Any) -> Scenario:
    return parse_scenario({"tasks": [TASK], "constraints": constraints, "objective": "cost"})


def kept_and_rejected(s: Scenario, offers: list[OfferingSpec]) -> tuple[list[str], dict[Code, int]]:
    """The ids kept and the rejections, the same through the pruned index (advise) as one
    offering at a time (ranking.evaluate_offering)."""
    ctx = ranking.Context(s, ACCELERATORS, NOW, (), (), 30)
    one_by_one = [c.offering.id for o in offers if (c := ranking.evaluate_offering(ctx, o))]
    pruned = advise(s, offers, ACCELERATORS, now=NOW, index=OfferingIndex(offers))
    assert sorted(map(str, one_by_one)) == sorted(
        str(r.offering_id) for r in pruned.recommendations
    )
    assert dict(ctx.rejected) == dict(pruned.rejected)
    return sorted(str(r.offering_id) for r in pruned.recommendations), dict(pruned.rejected)


def test_countries_keep_the_stated_country_and_count_the_unstated() -> None:
    offers = [
        offer("cn", country="CN"),
        offer("us", country="US", region="us-east-1"),
        offer("unknown-a"),
        offer("unknown-b"),
    ]
    kept, rejected = kept_and_rejected(scenario(countries=["cn"]), offers)
    assert kept == ["cn"]
    assert rejected == {Code.REJECT_NOT_IN_COUNTRIES: 1, Code.REJECT_COUNTRY_UNKNOWN: 2}


def test_regions_compare_the_platforms_codes_case_blind() -> None:
    offers = [offer("east", region="us-east-1"), offer("west", region="US-WEST-2"), offer("none")]
    kept, rejected = kept_and_rejected(scenario(regions=["US-East-1", "us-west-2"]), offers)
    assert kept == ["east", "west"]
    assert rejected == {Code.REJECT_REGION_UNKNOWN: 1}


def test_delivery_form_bare_metal_keeps_only_bare_metal() -> None:
    """The seed article's tip 3 ("多卡训练一律推荐裸金属"): a renter asking for bare metal gets
    only offerings stated as bare metal; one whose form is not stated is counted apart."""
    offers = [
        offer("bm", delivery_forms=(DeliveryForm.BARE_METAL,)),
        offer("vm", delivery_forms=(DeliveryForm.CLOUD_VM,)),
        offer("box", delivery_forms=(DeliveryForm.CLOUD_CONTAINER,)),
        offer("unstated"),
    ]
    kept, rejected = kept_and_rejected(scenario(delivery_forms=["bare_metal"]), offers)
    assert kept == ["bm"]
    assert rejected == {Code.REJECT_NOT_DELIVERY_FORM: 2, Code.REJECT_DELIVERY_FORM_UNKNOWN: 1}
    kept, _ = kept_and_rejected(scenario(delivery_forms=["bare_metal", "cloud_vm"]), offers)
    assert kept == ["bm", "vm"]


@pytest.mark.parametrize(
    ("constraint", "fact", "short", "unknown"),
    [
        ("min_vcpus_per_gpu", "vcpus", Code.REJECT_FEW_VCPUS, Code.REJECT_VCPUS_UNKNOWN),
        ("min_ram_gib_per_gpu", "ram_gib", Code.REJECT_LITTLE_RAM, Code.REJECT_RAM_UNKNOWN),
        ("min_disk_gb_per_gpu", "disk_gb", Code.REJECT_LITTLE_DISK, Code.REJECT_DISK_UNKNOWN),
    ],
)
def test_host_minimums_are_per_gpu_and_unstated_is_not_zero(
    constraint: str, fact: str, short: Code, unknown: Code
) -> None:
    """8 on one GPU is 8 per GPU; 8 on two is 4; 12 on three is 4 (a whole host's figure over
    its GPUs); an unstated figure is its own reason, each offering counted."""
    offers = [
        offer("one", **{fact: 8.0}),
        offer("two", gpus=2, **{fact: 8.0}),
        offer("three", gpus=3, **{fact: 12.0}),
        offer("unstated-a"),
        offer("unstated-b"),
    ]
    kept, rejected = kept_and_rejected(scenario(**{constraint: 4}), offers)
    assert kept == ["one", "three", "two"]
    assert rejected == {unknown: 2}
    kept, rejected = kept_and_rejected(scenario(**{constraint: 5}), offers)
    assert kept == ["one"]
    assert rejected == {short: 2, unknown: 2}


def test_a_renter_from_abroad_gets_no_platform_that_needs_a_chinese_identity() -> None:
    offers = [
        offer("open", cn_identity_required=False, foreign_cards=True),
        offer("cn-id", cn_identity_required=True, foreign_cards=True),
        offer("no-cards", cn_identity_required=False, foreign_cards=False),
        offer("cards-unknown", cn_identity_required=False),
        offer("unknown"),
    ]
    kept, rejected = kept_and_rejected(scenario(foreign_renter=True), offers)
    assert kept == ["open"]
    assert rejected == {
        Code.REJECT_CN_IDENTITY_REQUIRED: 1,
        Code.REJECT_NO_FOREIGN_CARDS: 1,
        Code.REJECT_RENTER_UNKNOWN: 2,
    }
    kept, rejected = kept_and_rejected(scenario(), offers)
    assert len(kept) == 5 and rejected == {}


def test_nothing_left_names_the_filter_and_suggests_dropping_it() -> None:
    s = scenario(min_vcpus_per_gpu=16, countries=["DE"])
    offers = [offer("a", country="DE"), offer("b", country="DE", vcpus=8.0)]
    with pytest.raises(NoFit) as caught:
        advise(s, offers, ACCELERATORS, now=NOW)
    assert dict(caught.value.rejected) == {
        Code.REJECT_VCPUS_UNKNOWN: 1,
        Code.REJECT_FEW_VCPUS: 1,
    }
    changes = what_would_fit(
        s,
        estimate(s, ACCELERATORS),
        caught.value.closest_miss,
        dict(caught.value.rejected),
        ACCELERATORS,
    )
    relaxed = [c for c in changes if c.change.code is Code.SUGGEST_ANY_HOST_SIZE]
    assert len(relaxed) == 1
    assert relaxed[0].scenario.constraints.min_vcpus_per_gpu is None
    assert relaxed[0].scenario.constraints.countries == ("DE",)


def test_the_filters_round_trip_and_refuse_bad_values() -> None:
    s = scenario(
        countries=["cn", "US", "cn"],
        regions=["us-east-1"],
        delivery_forms=["bare_metal"],
        min_vcpus_per_gpu=8,
        min_ram_gib_per_gpu=32.5,
        min_disk_gb_per_gpu=100,
        foreign_renter=True,
    )
    assert s.constraints.countries == ("CN", "US")
    assert parse_scenario(scenario_to_dict(s)) == s
    bad: list[tuple[dict[str, Any], str, Code]] = [
        ({"countries": "CN"}, "constraints.countries", Code.MUST_BE_COUNTRY_LIST),
        ({"countries": ["China"]}, "constraints.countries[0]", Code.MUST_BE_COUNTRY_LIST),
        ({"countries": ["C1"]}, "constraints.countries[0]", Code.MUST_BE_COUNTRY_LIST),
        ({"regions": [""]}, "constraints.regions[0]", Code.MUST_BE_REGION_LIST),
        (
            {"delivery_forms": "bare_metal"},
            "constraints.delivery_forms",
            Code.MUST_BE_DELIVERY_FORM_LIST,
        ),
        ({"delivery_forms": ["metal"]}, "constraints.delivery_forms[0]", Code.MUST_BE_ONE_OF),
        ({"min_vcpus_per_gpu": -1}, "constraints.min_vcpus_per_gpu", Code.OUT_OF_RANGE),
        ({"min_ram_gib_per_gpu": "32"}, "constraints.min_ram_gib_per_gpu", Code.MUST_BE_NUMBER),
        ({"foreign_renter": "yes"}, "constraints.foreign_renter", Code.MUST_BE_BOOLEAN),
        (
            {"delivery_form": ["bare_metal"]},
            "constraints.delivery_form",
            Code.UNKNOWN_FIELD_DID_YOU_MEAN,
        ),
    ]
    for given, field, code in bad:
        with pytest.raises(InvalidWorkload) as caught:
            parse_constraints(given)
        assert (caught.value.field, caught.value.code) == (field, code), given
