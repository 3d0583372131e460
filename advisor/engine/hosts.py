"""Several cards of a per-card marketplace on one host.

AutoDL and its like list each card as a one-GPU offering, but rent N cards of one physical host as
one instance ("选择物理主机,然后在该物理主机上创建有N块GPU卡的实例", AutoDL's documentation,
autodl.com/docs/env/), billed N times the card's price. A task that spans several GPUs (data,
tensor or ZeRO parallel) needs them on one instance (placement.py), so without this such a task
could only be sold the platforms' fixed multi-GPU machines, by the month.

`host_variants` gives, for a scenario, the N-card instances a per-card offering can be rented
as: N in the GPU counts the scenario's tasks span, and the total of its tasks' GPUs, up to the
most cards the platform rents on one host (`OfferingSpec.max_per_host`, stated with its source
in the catalogue: platforms.models.HostSize; not stated: one card). Each is the offering with
`gpu_count` N, its cards linked as the platform states (`host_interconnect`, PCIe where it does
not say), and every price N times the card's (a minimum charge is per instance and stays as it
is). Placement, timing and billing then treat it like any machine of N cards.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from advisor.engine.messages import Code, Message, msg
from advisor.engine.types import OfferingSpec, PriceSpec, Task
from advisor.engine.vocab import Interconnect, SharingMode


def card_counts(tasks: Sequence[Task]) -> tuple[int, ...]:
    """The host sizes worth renting for `tasks`: each GPU count a task spans (above one), and all
    the tasks' GPUs together (so that they can share one host), in increasing order; () when no
    task spans several GPUs."""
    spans = {t.gpus for t in tasks if t.gpus > 1}
    if not spans:
        return ()
    spans.add(sum(max(t.gpus, 1) for t in tasks))
    return tuple(sorted(spans))


def per_card(off: OfferingSpec) -> bool:
    """A one-card offering of a platform that rents several cards of one host together."""
    return (
        off.gpu_count == 1
        and off.host_cards == 0
        and (off.max_per_host or 1) > 1
        and off.sharing == SharingMode.EXCLUSIVE
        and off.mig_profile is None
        and off.pooled_vram_gib is None
    )


def _scaled(price: PriceSpec, cards: int) -> PriceSpec:
    return replace(price, amount=price.amount * cards)


def host_variants(offerings: Sequence[OfferingSpec], tasks: Sequence[Task]) -> list[OfferingSpec]:
    """The N-card instances (module docstring) of the per-card offerings among `offerings` that
    the tasks can use; [] when no task spans several GPUs."""
    return variants_of(offerings, card_counts(tasks))


def variants_of(offerings: Sequence[OfferingSpec], counts: Sequence[int]) -> list[OfferingSpec]:
    """The instances of each of `counts` cards (increasing) of the per-card offerings among
    `offerings`, up to each platform's most cards on one host."""
    out: list[OfferingSpec] = []
    for off in offerings:
        if not per_card(off):
            continue
        nvlink = off.host_interconnect == Interconnect.NVLINK
        for n in counts:
            if n > (off.max_per_host or 1):
                break
            out.append(
                replace(
                    off,
                    gpu_count=n,
                    host_cards=n,
                    interconnect=off.host_interconnect,
                    interconnect_bandwidth_gbps=(
                        off.accelerator.nvlink_bandwidth_gbps if nvlink else None
                    ),
                    prices=tuple(_scaled(p, n) for p in off.prices),
                )
            )
    return out


def host_reason(off: OfferingSpec) -> Message | None:
    """What a recommendation of an N-card host says of it: the cards rented together on one
    host, each at the card's price, and who states that the platform rents them so."""
    if not off.host_cards:
        return None
    return msg(
        Code.REASON_CARDS_ON_ONE_HOST,
        cards=off.host_cards,
        most=off.max_per_host or off.host_cards,
        interconnect=off.host_interconnect,
        source=off.host_source,
    )


def one_card_platforms(
    offerings: Sequence[OfferingSpec], tasks: Sequence[Task]
) -> tuple[tuple[str, str], ...]:
    """The platforms, as (slug, name) by name, that a task spanning GPUs can rent only one card
    per instance of: every offering they list is a single card and none states how many one
    host rents together (HostSize). () when no task spans several GPUs."""
    if not card_counts(tasks):
        return ()
    single: dict[str, str] = {}
    other: set[str] = set()
    for off in offerings:
        if off.host_cards:
            continue
        if off.gpu_count == 1 and not off.max_per_host:
            single.setdefault(off.platform, off.platform_name)
        else:
            other.add(off.platform)
    found = [(slug, name) for slug, name in single.items() if slug not in other]
    return tuple(sorted(found, key=lambda item: (item[1], item[0])))


def one_card_message(platforms: Sequence[tuple[str, str]]) -> Message | None:
    """The note that names them (PLATFORMS_ONE_CARD), or None."""
    if not platforms:
        return None
    return msg(Code.PLATFORMS_ONE_CARD, platforms=tuple(name for _slug, name in platforms))
