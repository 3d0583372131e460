"""What a feed run or an import job says went wrong, kept as a code with parameters and put into
words (English or Chinese) only when shown. Row problems come from the importer as it words them.
"""

from __future__ import annotations

from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

MESSAGES: dict[str, Promise] = {
    "scheme": _("Only http and https addresses can be fetched."),
    "too_large": _("The feed is larger than %(limit)s bytes (FEED_MAX_BYTES)."),
    "cut_short": _("The download was cut short: %(received)s of %(expected)s bytes."),
    "cut_short_unknown": _("The download was cut short after %(received)s bytes."),
    "http": _("HTTP %(status)s %(reason)s"),
    "timeout": _("No answer within %(seconds)s s (FEED_TIMEOUT_S)."),
    "unreachable": _("Cannot reach the feed: %(reason)s"),
    "connection": _("The connection failed: %(error)s"),
    "gzip": _("The gzip body cannot be read."),
    "bad_url": _("The address is not a valid http or https URL with a host."),
    "address": _(
        "%(host)s is at %(address)s, which is not on the public internet, so it is not fetched; "
        "an operator can allow an internal mirror with FEED_ALLOWED_HOSTS."
    ),
    "no_such_host": _("The host %(host)s cannot be found."),
    "redirects": _("More than %(count)s redirects."),
    "tls": _("The secure connection failed: %(error)s"),
    "time_limit": _(
        "The run took longer than its time limit (FEED_TASK_TIME_LIMIT_S) and was stopped; "
        "nothing was written."
    ),
    "gzip_cut": _("The gzip body was cut short."),
    "empty": _("The feed is empty."),
    "not_utf8": _("The feed is not UTF-8 text."),
    "no_line_break": _(
        "The file does not end with a line break: it looks cut short, so nothing was imported."
    ),
    "rows": _("%(count)s bad row(s), nothing was written; the first: %(first)s"),
    "conflict": _("The catalogue changed while importing; nothing was written."),
    "abandoned": _(
        "The run stopped without finishing (was the worker stopped?); nothing was written."
    ),
    "internal": _("Unexpected error: %(error)s"),
    "expired": _(
        "The preview was not confirmed within an hour, so nothing was written; upload the file "
        "again."
    ),
}


def render(code: str, params: dict[str, Any] | None = None) -> str:
    """The message for `code` in the active language; an unknown code is shown as it is."""
    template = MESSAGES.get(code)
    if template is None:
        return code
    try:
        return str(template) % (params or {})
    except (KeyError, TypeError, ValueError):
        return str(template)
