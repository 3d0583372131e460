"""The only Django-aware layer of the advisor: loads the catalogue, builds engine inputs, calls the
engine. Views, the API and the `advise` command all come through here (one code path).

Engine inputs are built from the database once per process and catalogue version and kept
(advisor.snapshot): a call reads the catalogue's version (1 query) and reuses what was built at it.
Building them costs, whatever the size of the catalogue: accelerators (3: rows, aliases, MIG
profiles), platforms (with their billing rules and latest no-GPU-mode price), offerings, current
prices (the stored pointers) and their sources (4), exchange rates (1), storage prices (1).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any, cast
from urllib.parse import urlsplit

from django.conf import settings
from django.core.signals import request_finished
from django.db.models import F, OuterRef, Prefetch, Q, Subquery
from django.dispatch import receiver
from django.utils import timezone, translation

from advisor import presets
from advisor.engine import vocab
from advisor.engine.advise import advise
from advisor.engine.errors import AdvisorError, InvalidWorkload, NoFit
from advisor.engine.estimate import Estimate, estimate
from advisor.engine.hardware import accelerators_from_dicts
from advisor.engine.hosts import card_counts, variants_of
from advisor.engine.messages import Code, Message
from advisor.engine.placement import PlacementCache
from advisor.engine.plans import (
    Plan,
    PlanSearch,
    price_legs,
    ranked_plans,
    search_plans,
    single_plan,
)
from advisor.engine.premises import (
    EXCLUSIVITY_PLATFORMS,
    Check,
    PlatformClaim,
    Premises,
    premise_checks,
)
from advisor.engine.prune import OfferingIndex
from advisor.engine.ranking import Advice, Recommendation
from advisor.engine.ranking import closest_miss as ranking_closest_miss
from advisor.engine.scenario import parse_scenario, scenario_to_dict
from advisor.engine.suggest import what_would_fit
from advisor.engine.types import (
    AcceleratorSpec,
    BillingRulesSpec,
    ExchangeRateSpec,
    OfferingSpec,
    PriceSpec,
    RentalFacts,
    Scenario,
    StoragePriceSpec,
)
from advisor.engine.verdict import Verdict, judge, pick_pool
from advisor.snapshot import ALWAYS, Snapshots, Window, settle, stale_window
from platforms.models import (
    Accelerator,
    AcceleratorAlias,
    BillingRules,
    CurrentPrice,
    ExchangeRate,
    HostSize,
    IdleModePrice,
    MigProfile,
    Offering,
    Platform,
    Source,
    SourceKind,
    StoragePrice,
    in_page_language,
)
from platforms.renting import country_of

__all__ = [
    "AdviceReport",
    "AdvisorError",
    "Catalogue",
    "accelerator_specs",
    "advise_scenario",
    "estimate_scenario",
]


def _accelerator_row(acc: Accelerator) -> dict[str, Any]:
    profiles = list(acc.mig_profiles.all())
    return {
        "slug": acc.slug,
        "name": acc.name,
        "aliases": [a.alias for a in acc.aliases.all()],
        "vendor": acc.vendor,
        "architecture": acc.architecture,
        "vram_gib": acc.vram_gib,
        "memory_bandwidth_gbps": acc.memory_bandwidth_gbps,
        "bf16_tflops": acc.bf16_tflops,
        "fp16_tflops": acc.fp16_tflops,
        "stack": acc.stack,
        "compute_capability": acc.compute_capability or None,
        "precisions": acc.precisions,
        "fp32_tflops": acc.fp32_tflops,
        "fp64_tflops": acc.fp64_tflops,
        "rt_cores": acc.rt_cores,
        "nvenc": acc.nvenc,
        "nvlink": acc.nvlink,
        "nvlink_bandwidth_gbps": acc.nvlink_bandwidth_gbps,
        "pcie_gen": acc.pcie_gen,
        "tdp_w": acc.tdp_w,
        "domestic": acc.domestic,
        "confidence": acc.confidence,
        "mig": {
            "slots": acc.mig_slots,
            "max_compute": acc.mig_max_compute,
            "profiles": [
                {
                    "name": p.name,
                    "memory_gib": p.memory_gib,
                    "memory_slices": p.memory_slices,
                    "compute_slices": p.compute_slices,
                    "max_count": p.max_count,
                    "starts": p.starts,
                    "media_extensions": p.media_extensions,
                }
                for p in profiles
            ],
        }
        if profiles and acc.mig_slots
        else None,
    }


def accelerator_specs() -> dict[str, AcceleratorSpec]:
    """The accelerator table as the engine sees it, from the database (staff edits included)."""
    accelerators = Accelerator.objects.prefetch_related(
        Prefetch("aliases", queryset=AcceleratorAlias.objects.order_by("alias")),
        Prefetch("mig_profiles", queryset=MigProfile.objects.all()),
    )
    return accelerators_from_dicts(_accelerator_row(a) for a in accelerators)


def _price_spec(
    row: dict[str, Any],
    sources: Mapping[int, tuple[str, str]],
    stale_before: datetime,
    rules: BillingRulesSpec | None = None,
) -> PriceSpec:
    label, kind = sources[row["source_id"]]
    # The platform's metering step and minimum charge apply to its pay-as-you-go prices; prepaid
    # plans are bought in whole units (docs/billing-rules.md).
    # So does its start-up billing (advisor/engine/idle.py prices each run's start-up with it).
    granularity, min_charge, startup = None, Decimal("0"), None
    if rules is not None and vocab.BillingUnit(row["unit"]).metered:
        granularity = rules.metering_seconds
        if rules.min_charge is not None and rules.min_charge_currency == row["currency"]:
            min_charge = rules.min_charge
        startup = rules.startup_billed
    return PriceSpec(
        unit=row["unit"],
        amount=row["amount"],
        currency=row["currency"],
        observed_at=row["last_seen_at"],
        source=label,
        source_kind=kind,
        stale=row["last_seen_at"] < stale_before,
        granularity_seconds=granularity,
        min_charge=min_charge,
        tier=vocab.PriceTier(row["tier"]),
        startup_billed=startup,
        # What the price is, as its observation records it (never read from the offering's name).
        basis=vocab.PriceBasis(row["basis"]),
    )


def _tier_prices(rows: list[dict[str, Any]], tier: str) -> list[dict[str, Any]]:
    """Per billing unit, the renter's tier's price where the platform states one, else the list
    price: an AutoDL member is quoted 1.88, anyone else 1.98."""
    chosen: dict[str, dict[str, Any]] = {}
    for row in rows:
        kept = chosen.get(row["unit"])
        if kept is None or (row["tier"] == tier and kept["tier"] != tier):
            chosen[row["unit"]] = row
    return list(chosen.values())


def _billing_rules(platform: Platform) -> BillingRulesSpec | None:
    """The platform's rules (read with it) and its latest no-GPU-mode price (annotated on it)."""
    try:
        rules = platform.billing_rules
    except BillingRules.DoesNotExist:
        return None
    # idle_*: catalogue_platforms()' annotations on the platform query, not in the model's type.
    idle = getattr(platform, "idle_amount", None), getattr(platform, "idle_unit", None)
    currency = getattr(platform, "idle_currency", None)
    return BillingRulesSpec(
        metering_seconds=rules.metering_seconds,
        min_charge=rules.min_charge,
        min_charge_currency=rules.min_charge_currency,
        startup_billed=rules.startup_billed,
        idle_mode=rules.idle_mode,
        idle_mode_price=idle[0],
        idle_mode_unit=idle[1] or "",
        idle_mode_currency=currency or "",
        storage_billed_while_stopped=rules.storage_billed_while_stopped,
        release_after_stopped_days=rules.release_after_stopped_days,
        release_after_expiry_days=rules.release_after_expiry_days,
        system_disk_kept_on_delete=rules.system_disk_kept_on_delete,
        idle_shutdown_seconds=rules.idle_shutdown_seconds,
        credit_name=rules.credit_name,
    )


_OFFERING_COLUMNS = (
    "pk",
    "platform_id",
    "accelerator__slug",
    "source__kind",
    "source__speaker__name",
    "source__url",
    "name",
    "name_zh",
    "gpu_count",
    "pooled_vram_gib",
    "mig_profile",
    "sharing_mode",
    "interconnect",
    "network",
    "network_gbps",
    "interruptible",
    "region",
    # rental_facts
    "vcpus",
    "ram_gib",
    "disk_gb",
    "delivery_form",
)
_PRICE_COLUMNS = (
    "offering_id",
    "unit",
    "tier",
    "amount",
    "currency",
    "last_seen_at",
    "source_id",
    "basis",
)
# The same, read from the stored current prices (CurrentPrice) and the observations they point to.
_CURRENT_COLUMNS = (
    "offering_id",
    "unit",
    "tier",
    "amount",
    "currency",
    "observation__last_seen_at",
    "observation__source_id",
    "basis",
)


def catalogue_platforms() -> list[Platform]:
    """Every platform with its billing rules and latest no-GPU-mode price: one query."""
    idle = IdleModePrice.objects.filter(platform=OuterRef("pk")).order_by("-observed_at")
    return list(
        Platform.objects.select_related("source__speaker", "billing_rules").annotate(
            idle_amount=Subquery(idle.values("amount")[:1]),
            idle_unit=Subquery(idle.values("unit")[:1]),
            idle_currency=Subquery(idle.values("currency")[:1]),
        )
    )


def offering_specs(
    accelerators: Mapping[str, AcceleratorSpec],
    *,
    now: datetime,
    platforms: tuple[str, ...] = (),
    tier: str = vocab.PriceTier.LIST,
    catalogue: list[Platform] | None = None,
) -> list[OfferingSpec]:
    """Every listed offering with its current prices, as engine inputs.

    Plain rows, not model instances: a catalogue of 10,000 offerings is 10,000 specs, and building
    model instances for them (with platform, accelerator and source objects) cost over a second.
    Four queries: platforms (with billing rules; none when `catalogue` is given), offerings,
    current prices of the list and the renter's `tier` (the stored pointers, joined to the
    observations they point to), and the sources those prices cite.
    Per offering and billing unit the tier's price is used where there is one, else the list
    price.
    """
    offerings = Offering.objects.filter(is_active=True).order_by()
    if platforms:
        offerings = offerings.filter(platform__slug__in=platforms)
    platform_of = {p.pk: p for p in (catalogue if catalogue is not None else catalogue_platforms())}
    rules_of = {pk: _billing_rules(p) for pk, p in platform_of.items()}
    # In a fixed order (the engine keeps the first of equals): offerings by id, and each one's
    # prices in the order they were recorded.
    # The host size a per-card platform states for the card, else for all its cards (HostSize).
    host = HostSize.objects.filter(
        Q(accelerator=OuterRef("accelerator_id")) | Q(accelerator__isnull=True),
        platform=OuterRef("platform_id"),
    ).order_by(F("accelerator").asc(nulls_last=True))
    rows = list(
        offerings.order_by("pk")
        .annotate(
            host_max=Subquery(host.values("max_cards")[:1]),
            host_link=Subquery(host.values("interconnect")[:1]),
            host_source=Subquery(host.values("source__title")[:1]),
            host_source_zh=Subquery(host.values("source__title_zh")[:1]),
        )
        .values(*_OFFERING_COLUMNS, "host_max", "host_link", "host_source", "host_source_zh")
    )
    prices: dict[int, list[dict[str, Any]]] = defaultdict(list)
    current = CurrentPrice.objects.filter(
        offering__is_active=True, tier__in=(vocab.PriceTier.LIST, tier)
    )
    if platforms:
        current = current.filter(offering__platform__slug__in=platforms)
    for values in current.order_by("observation_id").values_list(*_CURRENT_COLUMNS):
        price = dict(zip(_PRICE_COLUMNS, values, strict=True))
        prices[price["offering_id"]].append(price)
    if tier != vocab.PriceTier.LIST:
        prices = defaultdict(list, {pk: _tier_prices(group, tier) for pk, group in prices.items()})
    cited = Source.objects.in_bulk({p["source_id"] for group in prices.values() for p in group})
    sources = {pk: (str(source), source.kind) for pk, source in cited.items()}
    urls = {pk: source.url for pk, source in cited.items() if source.url}
    stale_before = vocab.stale_before(now, settings.PRICE_STALE_AFTER_DAYS)
    return [
        _offering_spec(
            row,
            platform_of[row["platform_id"]],
            accelerators,
            prices,
            sources,
            stale_before,
            rules_of[row["platform_id"]],
            urls,
        )
        for row in rows
    ]


def _offering_spec(
    row: dict[str, Any],
    platform: Platform,
    accelerators: Mapping[str, AcceleratorSpec],
    prices: Mapping[int, list[dict[str, Any]]],
    sources: Mapping[int, tuple[str, str]],
    stale_before: datetime,
    rules: BillingRulesSpec | None = None,
    urls: Mapping[int, str] | None = None,
) -> OfferingSpec:
    accelerator = accelerators[row["accelerator__slug"]]
    cited = [(urls or {}).get(p["source_id"], "") for p in prices.get(row["pk"], ())]
    nvlink = row["interconnect"] == "nvlink"
    return OfferingSpec(
        id=row["pk"],
        platform=platform.slug,
        platform_name=str(platform),
        name=in_page_language(row["name"], row["name_zh"]),
        accelerator=accelerator,
        gpu_count=row["gpu_count"],
        sharing=row["sharing_mode"],
        pooled_vram_gib=float(row["pooled_vram_gib"]) if row["pooled_vram_gib"] else None,
        mig_profile=row["mig_profile"] or None,
        interconnect=row["interconnect"],
        interconnect_bandwidth_gbps=accelerator.nvlink_bandwidth_gbps if nvlink else None,
        # Blank: not stated; timing.default_network assumes one, and says so.
        network=vocab.Network(row["network"]) if row["network"] else None,
        network_gbps=float(row["network_gbps"]) if row["network_gbps"] else None,
        # The columns hold the vocab's values (their choices are derived from it).
        multi_task=cast(vocab.MultiTask, platform.multi_task),
        physically_exclusive=platform.physically_exclusive,
        interruptible=row["interruptible"],
        # The platform's stated spot interruption rate (None: the engine's default, said so).
        interruptions_per_day=platform.spot_interruptions_per_day,
        region=row["region"],
        retention_after_expiry=platform.retention_after_expiry,
        vendor_claim="vendor_claim" in (row["source__kind"], platform.source.kind),
        competitor_claim_by=_competitor_claim_by(row, platform),
        prices=tuple(
            _price_spec(p, sources, stale_before, rules) for p in prices.get(row["pk"], ())
        ),
        billing_rules=rules,
        max_per_host=row["host_max"],
        host_interconnect=vocab.Interconnect(row["host_link"] or vocab.Interconnect.PCIE),
        host_source=in_page_language(row["host_source"] or "", row["host_source_zh"] or ""),
        rental=rental_facts(row, platform),
        url=booking_url(platform.website, [*cited, row["source__url"] or ""]),
    )


def _host(url: str) -> str:
    """The host of an http(s) URL without a leading "www.", lower case ("" for anything else)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return ""
    return parts.hostname.lower().removeprefix("www.")


def booking_url(website: str, cited: Sequence[str]) -> str:
    """Where a renter books an offering: the first page its sources cite on its platform's own
    site (the price list its current price was read from, or the offering's page), else the
    platform's site; "" when the platform states none. A page elsewhere (a catalog on GitHub,
    a third party's survey) is a source, not a place to book."""
    site = _host(website)
    if not site:
        return ""
    for url in cited:
        host = _host(url)
        if host and (host == site or host.endswith("." + site)):
            return url
    return website


def rental_facts(row: dict[str, Any], platform: Platform) -> RentalFacts:
    """What the renters' filters read of an offering (ranking.renting_miss): its country
    (platforms.renting), its delivery form (else its platform's, where the platform has only
    one), the host's vCPUs, RAM and disk as stated (None: not stated, never 0), and who may rent
    from its platform (None: no source says)."""
    forms = [row["delivery_form"]] if row["delivery_form"] else list(platform.delivery_forms or [])
    known = [vocab.DeliveryForm(f) for f in forms if f in vocab.DeliveryForm._value2member_map_]
    return RentalFacts(
        country=country_of(platform.slug, platform.region, row["region"]),
        delivery_forms=tuple(known) if len(known) == 1 else (),
        vcpus=None if row["vcpus"] is None else float(row["vcpus"]),
        ram_gib=None if row["ram_gib"] is None else float(row["ram_gib"]),
        disk_gb=None if row["disk_gb"] is None else float(row["disk_gb"]),
        cn_identity_required=platform.cn_identity_required,
        foreign_cards=platform.foreign_cards,
    )


def _competitor_claim_by(row: dict[str, Any], platform: Platform) -> str:
    """Who described this offering or its platform, when a competitor did (else "")."""
    if row["source__kind"] == SourceKind.COMPETITOR_CLAIM:
        return str(row["source__speaker__name"] or "?")
    source = platform.source
    if source.kind == SourceKind.COMPETITOR_CLAIM:
        return source.speaker.name if source.speaker is not None else str(source)
    return ""


def exchange_rates() -> list[ExchangeRateSpec]:
    return [
        ExchangeRateSpec(
            base=r.base,
            quote=r.quote,
            rate=r.rate,
            as_of=datetime.combine(r.as_of, datetime.min.time(), tzinfo=UTC),
            source=str(r.source),
        )
        for r in ExchangeRate.objects.select_related("source").order_by("as_of")
    ]


def _billed_while_stopped(row: StoragePrice) -> bool:
    """Whether a storage price is billed while the instance is stopped: as the price says, else
    as its platform's billing rules say, else billed (the costlier assumption)."""
    if row.billed_when_stopped is not None:
        return row.billed_when_stopped
    try:
        rule = row.platform.billing_rules.storage_billed_while_stopped
    except BillingRules.DoesNotExist:
        rule = None
    return rule is not False


def storage_specs() -> list[StoragePriceSpec]:
    """The latest price of each (platform, kind) of storage."""
    rows = StoragePrice.objects.latest_per_kind().select_related(
        "platform", "platform__billing_rules", "source"
    )
    return [
        StoragePriceSpec(
            platform=row.platform.slug,
            unit=cast(vocab.StorageUnit, row.unit),
            amount=row.amount,
            currency=cast(vocab.Currency, row.currency),
            observed_at=row.observed_at,
            free_gb=float(row.free_gb),
            billed_while_stopped=_billed_while_stopped(row),
            name=row.get_kind_display(),
            source=str(row.source),
        )
        for row in rows.order_by("platform_id", "kind")
    ]


@dataclass(frozen=True)
class Catalogue:
    """The engine's inputs read from the database once per request: the page's charts reuse them."""

    accelerators: dict[str, AcceleratorSpec]
    offerings: list[OfferingSpec]
    rates: list[ExchangeRateSpec]
    storage: list[StoragePriceSpec]
    # Every platform, slug -> name, so the advice can name those it could not price.
    platforms: dict[str, str] = field(default_factory=dict)
    # `offerings` grouped by shape for the engine, kept with them (None: the engine groups them).
    index: OfferingIndex | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class CheckedSuggestion:
    """A "what would fit" change that the advisor answers: the scenario with it (contract JSON,
    ready to post again) and the recommendation it then leads with."""

    change: Message
    scenario: dict[str, Any]
    best: Recommendation


@dataclass(frozen=True)
class AdviceReport:
    """What the advisor says of a valid scenario: its memory plan, and either the ranked advice
    or why nothing fits (`no_fit`, with the changes that would fit), with the catalogue both
    were computed on; for a scenario of the seed article (`scenario.preset`), the article's
    claims checked and the verdict on its pick."""

    scenario: Scenario
    estimate: Estimate
    catalogue: Catalogue
    now: datetime
    advice: Advice | None = None
    no_fit: NoFit | None = None
    plans: PlanSearch | None = None
    suggestions: tuple[CheckedSuggestion, ...] = ()
    checks: tuple[Check, ...] = ()
    verdict: Verdict | None = None

    @property
    def preset(self) -> presets.Preset | None:
        return presets.PRESETS.get(self.scenario.preset or "")

    @property
    def answer(self) -> Plan | None:
        """What the advisor recommends, as a plan of legs: the first recommendation (the plans of
        several legs are ranked with the single offerings, plans.ranked_plans)."""
        if self.advice is None or not self.advice.recommendations:
            return None
        return single_plan(self.advice.recommendations[0], self.advice.currency)

    @property
    def unpriced_platforms(self) -> tuple[tuple[str, str], ...]:
        """The platforms in scope with no current price, as (slug, name): said, not dropped."""
        if self.advice is not None:
            return self.advice.unpriced_platforms
        return self.no_fit.unpriced_platforms if self.no_fit is not None else ()


# Placements depend only on the tasks and the offering's shape, never on prices or time: one
# bounded cache per process lets a scenario asked again (a page reload, a preset) skip them.
# What it lets go (an older scenario's fits, some thousand objects each) is freed once the
# response is sent (`_release_placements`), not inside the request of the scenario that
# displaces it.
PLACEMENTS = PlacementCache(deferred=True)


@receiver(request_finished)
def _release_placements(**kwargs: object) -> None:
    """Sent when the server closes a response, after its body is written (PEP 3333's close);
    outside requests (a worker, a command) the cache frees what waits past its own bound."""
    PLACEMENTS.release()


def parse(data: Any) -> Scenario:
    """Validate scenario JSON; raises InvalidWorkload naming the field."""
    return parse_scenario(data)


# The engine inputs built from the catalogue, kept per process and catalogue version.
SNAPSHOTS = Snapshots()
# The catalogue with N-card hosts of its per-card offerings (with_hosts), by the card counts a
# scenario spans: apart, so that scenarios of many counts never push the catalogue out.
HOST_SNAPSHOTS = Snapshots(size=4)
# From this many offerings a catalogue's kept inputs are taken out of the garbage collector's
# generations once built (snapshot.settle); below it a full collection over them is cheap, and
# the collection settle starts with is not worth paying at every build.
SETTLE_FROM = 1000


def kept_accelerators() -> dict[str, AcceleratorSpec]:
    """accelerator_specs(), kept at the catalogue's version (one query while it holds)."""
    return SNAPSHOTS.get(("accelerators",), timezone.now(), lambda: (accelerator_specs(), ALWAYS))


def estimate_scenario(data: Any) -> Estimate:
    """Memory (and, with `on`, fit, time and decode rate) per task."""
    return estimate(parse(data), kept_accelerators())


def build_catalogue(*, tier: str, now: datetime) -> tuple[Catalogue, Window]:
    """The whole catalogue's engine inputs in price tier `tier` as read at `now`, and the moments
    they hold for (each price as stale as at `now`)."""
    accelerators = accelerator_specs()
    platforms = catalogue_platforms()
    offerings = offering_specs(accelerators, now=now, tier=tier, catalogue=platforms)
    catalogue = Catalogue(
        accelerators=accelerators,
        offerings=offerings,
        rates=exchange_rates(),
        storage=storage_specs(),
        platforms={p.slug: str(p) for p in platforms},
        index=OfferingIndex(offerings).prepare(),
    )
    seen = ((price.observed_at, price.stale) for o in offerings for price in o.prices)
    if len(offerings) >= SETTLE_FROM:
        settle()
    return catalogue, stale_window(seen, settings.PRICE_STALE_AFTER_DAYS)


def load_catalogue(scenario: Scenario, *, now: datetime) -> Catalogue:
    """The engine inputs for `scenario` at `now`: the whole catalogue's in the scenario's price
    tier, kept at the catalogue's version (SNAPSHOTS; names are in the active language), narrowed
    to the scenario's platforms. Shared between requests: never changed in place."""
    tier = scenario.constraints.price_tier
    key = ("catalogue", translation.get_language(), tier, settings.PRICE_STALE_AFTER_DAYS)
    catalogue = SNAPSHOTS.get(key, now, lambda: build_catalogue(tier=tier, now=now))
    # A task spanning several GPUs may rent them on one host of a per-card platform (hosts.py):
    # the catalogue with those hosts, kept beside it for the same card counts.
    counts = card_counts(scenario.tasks)
    if counts:
        base = catalogue
        catalogue = HOST_SNAPSHOTS.get((counts, *key), now, lambda: with_hosts(base, counts))
    chosen = set(scenario.constraints.platforms)
    if not chosen:
        return catalogue
    offerings = [o for o in catalogue.offerings if o.platform in chosen]
    return replace(catalogue, offerings=offerings, index=None)


def with_hosts(catalogue: Catalogue, counts: tuple[int, ...]) -> tuple[Catalogue, Window]:
    """`catalogue` with the instances of `counts` cards of one host of its per-card offerings
    (hosts.variants_of), indexed, and the moments it holds for (as its prices are stale)."""
    offerings = [*catalogue.offerings, *variants_of(catalogue.offerings, counts)]
    seen = ((price.observed_at, price.stale) for o in offerings for price in o.prices)
    hosts = replace(catalogue, offerings=offerings, index=OfferingIndex(offerings).prepare())
    return hosts, stale_window(seen, settings.PRICE_STALE_AFTER_DAYS)


def _pricing(catalogue: Catalogue, now: datetime) -> dict[str, Any]:
    """The engine's keyword arguments for pricing on `catalogue`."""
    return {
        "now": now,
        "placements": PLACEMENTS,
        "rates": catalogue.rates,
        "storage_prices": catalogue.storage,
        "stale_after_days": settings.PRICE_STALE_AFTER_DAYS,
    }


def _advise(scenario: Scenario, catalogue: Catalogue, now: datetime) -> Advice:
    return advise(
        scenario,
        catalogue.offerings,
        catalogue.accelerators,
        platforms=catalogue.platforms,
        index=catalogue.index,
        **_pricing(catalogue, now),
    )


def _checked_preset(scenario: Scenario) -> presets.Preset | None:
    if scenario.preset is None:
        return None
    preset = presets.PRESETS.get(scenario.preset)
    if preset is None:
        raise InvalidWorkload(
            Code.UNKNOWN_PRESET, "preset", name=scenario.preset, presets=tuple(presets.PRESETS)
        )
    return preset


def advise_scenario(data: Any, *, now: datetime | None = None) -> AdviceReport:
    """The memory plan and ranked recommendations for a scenario, the plans across platforms,
    and for a preset of the seed article its claims checked and the verdict on its pick.

    Raises InvalidWorkload (a field the user can fix); nothing that fits is `report.no_fit`, so
    the page can still show the memory plan, with the changes that would fit
    (`report.suggestions`, each checked against the catalogue). The catalogue is read once
    (twice when a suggestion drops the platforms or price tier the first read was for).
    Translated texts (the checks) are in the active language.
    """
    scenario = parse(data)
    preset = _checked_preset(scenario)
    now = now or timezone.now()
    catalogue = load_catalogue(scenario, now=now)
    plan = estimate(scenario, catalogue.accelerators)
    report = AdviceReport(scenario, plan, catalogue, now)
    try:
        advice = _advise(scenario, catalogue, now)
    except NoFit as error:
        report = replace(report, no_fit=error, suggestions=_suggestions(report, error))
    else:
        # The cheapest single offering is on the Pareto front, so among the recommendations.
        cheapest = min(advice.recommendations, key=lambda r: r.cost, default=None)
        plans = search_plans(
            scenario,
            catalogue.offerings,
            catalogue.accelerators,
            cheapest=cheapest,
            index=catalogue.index,
            **_pricing(catalogue, now),
        )
        # The plans of several legs join the ranking: one list, read everywhere.
        advice = ranked_plans(advice, plans, scenario)
        report = replace(report, advice=advice, plans=plans)
    if preset is None:
        return report
    report = replace(report, verdict=_verdict(report, preset))
    return replace(report, checks=_checks(report, preset))


def _checks(report: AdviceReport, preset: presets.Preset) -> tuple[Check, ...]:
    """The article's claims for `preset`, checked on the report's answer and catalogue
    (advisor.engine.premises); the platforms' exclusivity is read (1 query) only for the
    check that compares it."""
    if not preset.checks:
        return ()
    catalogue = report.catalogue
    premises = Premises(
        scenario=report.scenario,
        estimate=report.estimate,
        accelerators=catalogue.accelerators,
        offerings=catalogue.offerings,
        platforms=catalogue.platforms,
        now=report.now,
        rates=catalogue.rates,
        storage_prices=catalogue.storage,
        stale_after_days=settings.PRICE_STALE_AFTER_DAYS,
        advice=report.advice,
        plans=report.plans,
        verdict=report.verdict,
        exclusivity=_exclusivity() if "exclusive_contract" in preset.checks else (),
    )
    return premise_checks(preset.checks, premises)


def _exclusivity() -> tuple[PlatformClaim, ...]:
    """premises.EXCLUSIVITY_PLATFORMS' physical exclusivity, each with whose word it is."""
    rows = Platform.objects.filter(slug__in=EXCLUSIVITY_PLATFORMS).select_related(
        "source", "source__speaker"
    )
    return tuple(
        PlatformClaim(
            str(platform),
            platform.physically_exclusive,
            platform.source.who_about_whom(platform) if platform.source else "",
        )
        for platform in rows.order_by("pk")
    )


def _suggestions(report: AdviceReport, error: NoFit) -> tuple[CheckedSuggestion, ...]:
    """The "what would fit" changes the catalogue answers with recommendations."""
    candidates = what_would_fit(
        report.scenario,
        report.estimate,
        error.closest_miss,
        dict(error.rejected),
        report.catalogue.accelerators,
    )
    out = []
    for candidate in candidates:
        scenario = candidate.scenario
        catalogue = report.catalogue
        c, was = scenario.constraints, report.scenario.constraints
        if (c.platforms, c.price_tier) != (was.platforms, was.price_tier):
            catalogue = load_catalogue(scenario, now=report.now)
        try:
            advice = _advise(scenario, catalogue, report.now)
        except NoFit:
            continue
        body = scenario_to_dict(scenario)
        out.append(CheckedSuggestion(candidate.change, body, advice.recommendations[0]))
    return tuple(out)


def _verdict(report: AdviceReport, preset: presets.Preset) -> Verdict | None:
    """The article's pick for `preset`, priced for the scenario and judged against the answer."""
    pick = preset.pick
    if pick is None:
        return None
    scenario, catalogue = report.scenario, report.catalogue
    offerings = catalogue.offerings
    if scenario.constraints.platforms:
        # The pick is judged even where the scenario leaves its platform out.
        offerings = load_catalogue(
            replace(scenario, constraints=replace(scenario.constraints, platforms=())),
            now=report.now,
        ).offerings
    legs = []
    unpriced = []
    for leg in pick.legs:
        indices = tuple(
            i
            for i in range(len(scenario.tasks))
            if not leg.tasks or _task_key(preset, i) in leg.tasks
        )
        if not indices:
            return None  # the scenario no longer has the tasks the article's plan names
        pool = pick_pool(leg, offerings)
        if pool and not any(off.prices for off in pool):
            unpriced.append(catalogue.platforms.get(leg.platform, leg.platform))
            continue
        legs.append((indices, pool))
    label = str(pick.label)
    answer = report.answer
    objective = scenario.objective
    pricing = _pricing(catalogue, report.now)
    priced, contexts = (
        price_legs(scenario, legs, catalogue.accelerators, **pricing) if legs else (None, ())
    )
    if unpriced:
        what = ", ".join(unpriced)
        return judge(label, None, answer, objective, unpriced=what, priced_part=priced)
    why_not = None
    if priced is None and contexts:
        closest = ranking_closest_miss(contexts[-1])
        why_not = closest.label if closest is not None else None
    return judge(label, priced, answer, objective, why_not=why_not)


def _task_key(preset: presets.Preset, index: int) -> str:
    """The preset's own (English) name of task `index`, which its pick's legs refer to."""
    tasks = preset.scenario["tasks"]
    return str(tasks[index]["name"]) if index < len(tasks) else ""


@dataclass(frozen=True)
class OfferingFit:
    """One offering against a scenario: its recommendation, or why it cannot run it."""

    offering_id: int | str
    recommendation: Recommendation | None
    reason: Message | None


def scenario_on_offerings(
    data: Any, ids: list[int], *, now: datetime | None = None
) -> tuple[Scenario, dict[int | str, OfferingFit]]:
    """Each of the offerings `ids` priced for a scenario on its own (the comparison page and API):
    fit, time, cost and placement as the advisor ranks them, or the reason it cannot run it (the
    closest miss, else the constraint that leaves it out). The scenario's platform choice is not
    applied: the offerings were picked by hand."""
    scenario = parse(data)
    scenario = replace(
        scenario, constraints=replace(scenario.constraints, platforms=()), preset=None
    )
    now = now or timezone.now()
    catalogue = load_catalogue(scenario, now=now)
    specs = {o.id: o for o in catalogue.offerings}
    out: dict[int | str, OfferingFit] = {}
    for pk in ids:
        spec = specs.get(pk)
        if spec is None:
            out[pk] = OfferingFit(pk, None, Message(Code.REJECT_NO_CURRENT_PRICE))
            continue
        try:
            advice = advise(
                scenario, [spec], catalogue.accelerators, limit=1, **_pricing(catalogue, now)
            )
        except NoFit as error:
            reason = error.closest_miss.label if error.closest_miss is not None else None
            if reason is None and error.rejected:
                reason = Message(error.rejected[0][0])
            out[pk] = OfferingFit(pk, None, reason or error.detail)
            continue
        out[pk] = OfferingFit(pk, advice.recommendations[0], None)
    return scenario, out
