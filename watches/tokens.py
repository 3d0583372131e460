"""Signed tokens in the links a watch's emails carry (django.core.signing: HMAC-SHA256 with
SECRET_KEY, a salt per purpose so that one link never passes for another):

- confirm: makes an email address's watch send (WATCH_CONFIRM_DAYS to use it);
- unsubscribe: removes one watch, without signing in (no expiry: it is in every email);
- list: the watches of one email address, to see and remove them (no expiry).
"""

from __future__ import annotations

from django.conf import settings
from django.core import signing

CONFIRM = "watches.confirm"
UNSUBSCRIBE = "watches.unsubscribe"
LIST = "watches.list"


def confirm_token(watch_id: int) -> str:
    return signing.dumps(watch_id, salt=CONFIRM)


def confirm_id(token: str) -> int | None:
    """The watch a confirmation token names, or None (forged, or older than its days)."""
    max_age = settings.WATCH_CONFIRM_DAYS * 86400
    try:
        return int(signing.loads(token, salt=CONFIRM, max_age=max_age))
    except (signing.BadSignature, TypeError, ValueError):
        return None


def unsubscribe_token(watch_id: int) -> str:
    return signing.dumps(watch_id, salt=UNSUBSCRIBE)


def unsubscribe_id(token: str) -> int | None:
    try:
        return int(signing.loads(token, salt=UNSUBSCRIBE))
    except (signing.BadSignature, TypeError, ValueError):
        return None


def list_token(email: str) -> str:
    return signing.dumps(email.lower(), salt=LIST)


def list_email(token: str) -> str | None:
    try:
        value = signing.loads(token, salt=LIST)
    except signing.BadSignature:
        return None
    return value if isinstance(value, str) else None
