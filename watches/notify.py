"""Telling a watcher: the email (Django's email framework: EMAIL_BACKEND, the console under
`make run`, SMTP as README.md's "Watches" says) and the webhook (watches/webhook.py), both in the
watch's language, both with the signed unsubscribe link; and the confirmation an email address's
watch waits for, the only message such a watch sends before it is confirmed.

Links are absolute on SITE_URL (no request is at hand in a worker). Emails carry List-Unsubscribe
and List-Unsubscribe-Post (RFC 8058): a mail client's one-click unsubscribe POSTs to the link.
"""

from __future__ import annotations

import json
import logging
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.core.mail import EmailMessage
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _

from advisor.engine import vocab
from wording import messages

from . import tokens, webhook
from .checks import COST_MOVED, FIRST_CHANGED, PRICE_CHANGED, Change
from .models import Watch, WatchKind

logger = logging.getLogger(__name__)


def absolute(path: str) -> str:
    return settings.SITE_URL.rstrip("/") + path


def unsubscribe_url(watch: Watch) -> str:
    return absolute(reverse("watches:unsubscribe", args=[tokens.unsubscribe_token(watch.pk)]))


def list_url(watch: Watch) -> str:
    """The watcher's list of watches: a user's page, or the signed page of an email address."""
    if watch.user_id is not None:
        return absolute(reverse("watches:index"))
    return absolute(reverse("watches:by_email", args=[tokens.list_token(watch.email)]))


def cost_text(state: dict[str, Any]) -> str:
    """A #1's cost as the advisor page writes a total, with its currency and basis."""
    if state.get("cost") is None:
        return ""
    basis = state.get("basis") or vocab.CostBasis.MONTH
    return _("%(amount)s %(currency)s %(basis)s") % {
        "amount": messages.total(Decimal(str(state["cost"]))),
        "currency": state.get("currency", ""),
        "basis": messages.enum_label(vocab.CostBasis(basis)),
    }


def price_label(key: str) -> str:
    """ "hour/list" as the site says it: the billing unit, and the tier where not the list price."""
    unit, _sep, tier = key.partition("/")
    try:
        text = messages.enum_label(vocab.BillingUnit(unit))
        if tier and tier != vocab.PriceTier.LIST:
            text = f"{text} ({messages.enum_label(vocab.PriceTier(tier))})"
    except ValueError:
        return key
    return text


def reason_texts(found: Change) -> list[str]:
    texts = {
        FIRST_CHANGED: _("the #1 changed"),
        COST_MOVED: _("the #1's cost moved by more than your threshold"),
        PRICE_CHANGED: _("a current price changed"),
    }
    return [texts[reason] for reason in found.reasons]


def payload(watch: Watch, found: Change, now: datetime) -> bytes:
    """The webhook's body (README.md, "Watches"): JSON, UTF-8, keys sorted."""
    body = {
        "event": "watch.changed",
        "watch": watch.pk,
        "kind": watch.kind,
        "subject": watch.scenario.key if watch.scenario is not None else watch.offering_id,
        "reasons": list(found.reasons),
        "before": found.before,
        "after": found.after,
        "cost_change_pct": None if found.cost_change_pct is None else str(found.cost_change_pct),
        "url": absolute(watch.subject_url()),
        "unsubscribe_url": unsubscribe_url(watch),
        "sent_at": now.isoformat(),
    }
    return json.dumps(body, ensure_ascii=False, sort_keys=True).encode()


def _email(watch: Watch, found: Change) -> EmailMessage:
    name = found.after.get("name") or found.before.get("name") or ""
    if watch.kind == WatchKind.SCENARIO:
        subject = _("The answer to your watched scenario changed")
    else:
        subject = _("A price of %(offering)s changed") % {"offering": name}
    prices = sorted(set(found.before.get("prices", {})) | set(found.after.get("prices", {})))
    context = {
        "watch": watch,
        "found": found,
        "reasons": reason_texts(found),
        "before_cost": cost_text(found.before),
        "after_cost": cost_text(found.after),
        "prices": [
            (
                price_label(key),
                found.before.get("prices", {}).get(key),
                found.after.get("prices", {}).get(key),
            )
            for key in prices
        ],
        "url": absolute(watch.subject_url()),
        "unsubscribe_url": unsubscribe_url(watch),
        "list_url": list_url(watch),
    }
    body = render_to_string("watches/email/changed.txt", context)
    link = context["unsubscribe_url"]
    return EmailMessage(
        subject,
        body,
        to=[watch.address],
        headers={
            "List-Unsubscribe": f"<{link}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        },
    )


def send(watch: Watch, found: Change, now: datetime) -> tuple[bool, str]:
    """Email and/or webhook; (whether one reached the watcher, what failed, "" when nothing)."""
    errors: list[str] = []
    delivered = False
    with translation.override(watch.language):
        if watch.send_email and watch.address:
            try:
                _email(watch, found).send()
                delivered = True
            except Exception as exc:  # SMTP errors are many; the check goes on to the next
                logger.warning("watch %s: email failed: %s", watch.pk, type(exc).__name__)
                errors.append(_("email: %(error)s") % {"error": type(exc).__name__})
        if watch.webhook_url:
            try:
                webhook.deliver(
                    watch.webhook_url,
                    payload(watch, found, now),
                    secret=watch.secret,
                    watch_id=watch.pk,
                )
                delivered = True
            except webhook.WebhookError as exc:
                logger.warning("watch %s: webhook failed: %s", watch.pk, exc)
                errors.append(_("webhook: %(error)s") % {"error": exc})
    return delivered, "; ".join(errors)


def send_confirmation(watch: Watch, confirm_url: str) -> None:
    """The one message an email address's watch sends before it is confirmed."""
    with translation.override(watch.language):
        body = render_to_string(
            "watches/email/confirm.txt",
            {
                "watch": watch,
                "confirm_url": confirm_url,
                "days": settings.WATCH_CONFIRM_DAYS,
                "url": absolute(watch.subject_url()),
            },
        )
        EmailMessage(_("Confirm your watch"), body, to=[watch.email]).send()
