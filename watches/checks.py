"""What a watch compares, and the check beat and price writes run (watches/tasks.py).

A saved scenario's state is its #1 as the advisor ranks it now (advisor.services.advise_scenario,
the page's own answer): which offerings (the legs' platform, offering and instance count: the
key), their names in the watch's language, the ranked cost (`Plan.cost`, cents) and its currency
and basis (the whole job, or a month). An offering's state is its current prices, per billing unit
and price tier (CurrentPrice, the rows its platform's page shows).

A watch is told (watches/notify.py) when its #1's key changes (another offering, or none fits
any more), when the #1's cost moves by more than its `threshold_pct` per cent of what it was last
told, or when one of its offering's current prices changes, appears or goes; at most once in
WATCH_MIN_INTERVAL_S (a day). A change that comes sooner is held and told once the day is over
(the check then compares with what was last told, so the watcher hears the net change). Only
confirmed watches are checked (an email address's watch left unconfirmed past WATCH_CONFIRM_DAYS
is deleted by the check); each only when the catalogue's version moved since it was last
checked, when WATCH_RECHECK_S passed (prices turn stale with time alone), or when it holds a change.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from django.conf import settings
from django.db.models import Q
from django.utils import timezone, translation

from advisor.engine.errors import AdvisorError
from advisor.models import SavedScenario
from advisor.services import advise_scenario
from platforms.models import CurrentPrice, Offering
from platforms.services import catalogue_version

from .models import Watch, WatchKind

logger = logging.getLogger(__name__)

CENT = Decimal("0.01")

FIRST_CHANGED = "first_changed"
COST_MOVED = "cost_moved"
PRICE_CHANGED = "price_changed"

State = dict[str, Any]


def scenario_state(saved: SavedScenario) -> State | None:
    """The saved scenario's #1 now, in the active language; None when the scenario is no longer
    valid (the advisor refuses it: nothing to compare)."""
    try:
        report = advise_scenario(saved.scenario)
    except AdvisorError:
        return None
    plan = report.answer
    if plan is None:
        return {"key": "", "name": "", "cost": None, "currency": "", "basis": ""}
    return {
        "key": "+".join(f"{leg.platform}/{leg.offering_id}x{leg.instances}" for leg in plan.legs),
        "name": " + ".join(
            f"{leg.instances} × {leg.offering_name} ({leg.platform_name})"
            if leg.instances > 1
            else f"{leg.offering_name} ({leg.platform_name})"
            for leg in plan.legs
        ),
        "cost": str(plan.cost.quantize(CENT)),
        "currency": plan.currency,
        "basis": str(plan.basis),
    }


def offering_state(offering: Offering) -> State:
    """The offering's current prices, "unit/tier" -> "amount currency", and its name."""
    rows = CurrentPrice.objects.filter(offering=offering).order_by("unit", "tier")
    return {
        "name": f"{offering.name_text} · {offering.platform}",
        "prices": {f"{r.unit}/{r.tier}": f"{r.amount.normalize():f} {r.currency}" for r in rows},
    }


def state_of(watch: Watch, kept: dict[tuple[Any, ...], State | None] | None = None) -> State | None:
    """What `watch` watches, now, in its language; `kept` shares one answer between the watches
    of the same subject and language within a check."""
    kept = {} if kept is None else kept
    key = (watch.kind, watch.scenario_id or watch.offering_id, watch.language)
    if key not in kept:
        with translation.override(watch.language):
            if watch.kind == WatchKind.SCENARIO and watch.scenario is not None:
                kept[key] = scenario_state(watch.scenario)
            elif watch.offering is not None:
                kept[key] = offering_state(watch.offering)
            else:
                kept[key] = None
    return kept[key]


@dataclass(frozen=True)
class Change:
    """What moved since the watcher was last told: the reasons (FIRST_CHANGED, COST_MOVED,
    PRICE_CHANGED), the two states and, for a scenario, the cost's move in per cent."""

    reasons: tuple[str, ...]
    before: State
    after: State
    cost_change_pct: Decimal | None = None


def _amount(value: Any) -> Decimal | None:
    try:
        return None if value is None else Decimal(str(value))
    except InvalidOperation:
        return None


def cost_change_pct(before: State, after: State) -> Decimal | None:
    """The #1's cost move in per cent of what it was (one decimal); None where either has no
    cost, the currencies or bases differ, or it was zero."""
    old, new = _amount(before.get("cost")), _amount(after.get("cost"))
    if old is None or new is None or old == 0:
        return None
    if (before.get("currency"), before.get("basis")) != (after.get("currency"), after.get("basis")):
        return None
    return ((new - old) / old * 100).quantize(Decimal("0.1"))


def change(watch: Watch, before: State, after: State) -> Change | None:
    """The change worth telling `watch`'s owner, or None."""
    if watch.kind == WatchKind.OFFERING:
        if before.get("prices") != after.get("prices"):
            return Change((PRICE_CHANGED,), before, after)
        return None
    reasons: list[str] = []
    if before.get("key") != after.get("key"):
        reasons.append(FIRST_CHANGED)
    pct = cost_change_pct(before, after)
    threshold = watch.threshold_pct
    if pct is not None and threshold is not None and abs(pct) > threshold:
        reasons.append(COST_MOVED)
    return Change(tuple(reasons), before, after, pct) if reasons else None


def due(now: datetime, version: str | None) -> Q:
    """The confirmed watches a check looks at (see the module's docstring)."""
    recheck = now - timedelta(seconds=settings.WATCH_RECHECK_S)
    open_again = now - timedelta(seconds=settings.WATCH_MIN_INTERVAL_S)
    return (
        ~Q(checked_version=version or "")
        | Q(checked_at__isnull=True)
        | Q(checked_at__lt=recheck)
        | Q(held_at__isnull=False, notified_at__lte=open_again)
    )


def _claim(watch: Watch, now: datetime) -> bool:
    """Take the day's one message of `watch` (a conditional update: two checks running at once
    cannot both send); False when one was sent less than WATCH_MIN_INTERVAL_S ago."""
    open_again = now - timedelta(seconds=settings.WATCH_MIN_INTERVAL_S)
    taken = (
        Watch.objects.filter(pk=watch.pk)
        .filter(Q(notified_at__isnull=True) | Q(notified_at__lte=open_again))
        .update(notified_at=now)
    )
    return taken == 1


# What delivering a change gives: whether anything reached the watcher, and what failed.
Sender = Callable[[Watch, Change, datetime], tuple[bool, str]]


def watches_check(*, send: Sender, now: datetime | None = None) -> int:
    """Check the due watches; returns how many were told. `send` delivers (notify.send)."""
    now = now or timezone.now()
    # An email address's watch never confirmed in its days is gone, with its address.
    expired = now - timedelta(days=settings.WATCH_CONFIRM_DAYS)
    Watch.objects.filter(confirmed_at__isnull=True, created_at__lt=expired).delete()
    version = catalogue_version()
    kept: dict[tuple[Any, ...], State | None] = {}
    told = 0
    watches = (
        Watch.objects.confirmed()
        .filter(due(now, version))
        .select_related("scenario", "offering__platform", "user")
        .order_by("pk")
    )
    for watch in watches:
        try:
            after = state_of(watch, kept)
        except Exception:  # one scenario the advisor trips on must not stop the others' check
            logger.exception("watch %s: its answer could not be read", watch.pk)
            after = None
        fields: dict[str, Any] = {"checked_at": now, "checked_version": version or ""}
        if after is not None and not watch.baseline:
            fields["baseline"] = after
        elif after is not None:
            found = change(watch, watch.baseline, after)
            if found is None:
                fields["held_at"] = None
            elif not _claim(watch, now):
                fields["held_at"] = watch.held_at or now
            else:
                delivered, error = send(watch, found, now)
                fields["last_error"] = error[:300]
                if delivered:
                    fields.update(baseline=after, held_at=None)
                    told += 1
                else:  # nothing reached the watcher: the next check tries again
                    fields["notified_at"] = watch.notified_at
        Watch.objects.filter(pk=watch.pk).update(**fields)
    return told
