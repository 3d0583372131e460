"""Several cards of one host on the seed catalogue: a job that spans 8 GPUs on the Chinese
platforms is rented as 8 cards of one AutoDL host by the hour, not sold an 8-GPU machine's month.

AutoDL's rule: "选择物理主机,然后在该物理主机上创建有N块GPU卡的实例" (autodl.com/docs/env/),
each card at its price; the seed states its hosts hold up to 8 cards (HostSize, with its source).
Before this, the cheapest answer for this job was 智星云's RTX 4090 48G × 8 by the month (¥12,000
for a job of about a day)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from advisor.engine.messages import Code
from advisor.services import advise_scenario, load_catalogue, parse
from platforms.models import HostSize
from tests.conftest import NOW

CHINESE = [
    "zhixingyun",
    "hengyuanyun",
    "matpool",
    "virtaicloud",
    "autodl",
    "gongji",
    "compshare",
    "suanjiayun",
    "openbayes",
]


def job(gpus: int) -> dict[str, object]:
    return {
        "tasks": [
            {
                "name": "full fine-tune",
                "kind": "full_finetune",
                "model": "qwen2.5-7b",
                "sharding": "zero3",
                "gpus": gpus,
                "tokens": 5e8,
                "activation_checkpointing": "full",
                "seq_len": 2048,
            }
        ],
        "constraints": {"currency": "CNY", "platforms": CHINESE},
        "objective": "cost",
    }


@pytest.mark.django_db
def test_the_seed_states_autodls_host_size_with_its_source(seed) -> None:
    size = HostSize.objects.get(platform__slug="autodl", accelerator=None)
    assert size.max_cards == 8 and size.interconnect == "pcie"
    assert size.source.url and size.notes and size.notes_zh


@pytest.mark.django_db
def test_an_eight_gpu_job_rents_eight_cards_of_one_host_by_the_hour(seed) -> None:
    report = advise_scenario(job(8), now=NOW)
    assert report.advice is not None
    first = report.advice.recommendations[0]
    assert (first.platform, first.instances, first.gpus_per_instance) == ("autodl", 1, 8)
    assert first.plan.unit in ("hour", "second", "minute")
    assert Code.REASON_CARDS_ON_ONE_HOST in [r.code for r in first.reasons]
    # The cost is 8 cards × the card's hourly price × the job's hours (per-second metering,
    # AutoDL's billing rule), nothing else: no storage asked for.
    catalogue = load_catalogue(parse(job(8)), now=NOW)
    (listed,) = [o for o in catalogue.offerings if o.id == first.offering_id and o.gpu_count == 1]
    hourly = next(p.amount for p in listed.prices if p.unit == "hour")
    assert first.time_hours is not None
    expected = 8 * hourly * Decimal(str(first.time_hours))
    assert abs(first.plan.cost - expected) <= Decimal("0.05")
    # Far below any 8-GPU machine's month on these platforms.
    assert first.cost < Decimal("1000")


@pytest.mark.django_db
def test_a_scenario_without_a_spanning_task_reads_the_catalogue_as_listed(seed) -> None:
    single = job(1)
    whole = load_catalogue(parse(single), now=NOW)
    assert all(o.host_cards == 0 for o in whole.offerings)
    spanning = load_catalogue(parse(job(8)), now=NOW)
    added = [o for o in spanning.offerings if o.host_cards]
    # The platforms whose host size the seed states (AutoDL, 优云智算).
    stated = set(HostSize.objects.values_list("platform__slug", flat=True))
    assert added and {o.platform for o in added} == stated == {"autodl", "compshare"}
    assert len(spanning.offerings) == len(whole.offerings) + len(added)


@pytest.mark.django_db
def test_the_catalogue_with_hosts_is_kept_per_card_counts_until_a_write(seed) -> None:
    """The N-card hosts are added to the catalogue once per catalogue version and card counts
    (HOST_SNAPSHOTS), not in every request: asked again, nothing is built; another count set
    builds its own; a price written builds afresh."""
    from advisor.services import HOST_SNAPSHOTS
    from platforms.services import catalogue_changed

    def anywhere(gpus: int) -> dict[str, object]:
        return {**job(gpus), "constraints": {"currency": "CNY"}}

    first = load_catalogue(parse(anywhere(8)), now=NOW)
    built = HOST_SNAPSHOTS.builds
    assert load_catalogue(parse(anywhere(8)), now=NOW) is first
    assert HOST_SNAPSHOTS.builds == built
    four = load_catalogue(parse(anywhere(4)), now=NOW)
    assert HOST_SNAPSHOTS.builds == built + 1
    assert {o.gpu_count for o in four.offerings if o.host_cards} == {4}
    catalogue_changed()
    assert load_catalogue(parse(anywhere(8)), now=NOW) is not first
    assert HOST_SNAPSHOTS.builds == built + 2


@pytest.mark.django_db
def test_the_answer_names_the_platforms_rented_one_card_per_instance(seed, client) -> None:
    """Unknown host size is one card, stated: with a task over 8 GPUs the answer names the
    platforms whose offerings are all single cards and that state no host size (恒源云 among
    them), never AutoDL (its host size is stated) nor 矩池云 (it lists an 8-card machine), in
    the API in both languages; a scenario without such a task names none."""
    report = advise_scenario(job(8), now=NOW)
    assert report.advice is not None
    slugs = {slug for slug, _name in report.advice.one_card_platforms}
    assert "hengyuanyun" in slugs and not {"autodl", "matpool"} & slugs
    note = report.advice.one_card_message
    assert note is not None and note.code is Code.PLATFORMS_ONE_CARD
    body = client.post("/api/v1/advise/", job(8), content_type="application/json").json()
    assert body["one_card"]["code"] == "platforms_one_card"
    assert "恒源云" in body["one_card"]["message"]
    single = advise_scenario({**job(1), "tasks": [{**job(1)["tasks"][0], "sharding": "none"}]})
    assert single.advice is None or single.advice.one_card_platforms == ()
    zh = client.post(
        "/api/v1/advise/", job(8), content_type="application/json", HTTP_ACCEPT_LANGUAGE="zh-hans"
    ).json()
    assert "每实例一张卡" in zh["one_card"]["message"]
