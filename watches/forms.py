"""The form that makes a watch: where to send (an email address, a webhook URL, or both) and, for
a saved scenario, how far its #1's cost may move before it is told."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from feeds.fetch import FetchError

from . import webhook
from .models import WatchKind


def refusal_text(exc: FetchError) -> str:
    """Why a webhook URL is refused, for the person who typed it (the feeds' own texts speak to
    the operator)."""
    if exc.code == "address":
        return (
            _(
                "%(host)s is at %(address)s, which is not on the public internet: webhooks go to "
                "public addresses only."
            )
            % exc.params
        )
    if exc.code == "scheme":
        return str(_("A webhook URL starts with http:// or https://."))
    return str(exc)


class WatchForm(forms.Form):
    email = forms.EmailField(
        label=_("Email address"),
        required=False,
        help_text=_("We send a link to confirm it; nothing else is sent until you follow it."),
    )
    send_email = forms.BooleanField(label=_("Send an email"), required=False, initial=True)
    webhook_url = forms.URLField(
        label=_("Webhook URL (optional)"),
        required=False,
        max_length=500,
        assume_scheme="https",
        help_text=_(
            "We POST a JSON body to it, signed with HMAC-SHA256 in the X-Advisor-Signature "
            "header; the secret is on your list of watches."
        ),
    )
    threshold_pct = forms.DecimalField(
        label=_("Tell me when the #1's cost moves by more than (%)"),
        required=False,
        min_value=Decimal("0.1"),
        max_value=Decimal("1000"),
        decimal_places=1,
        initial=Decimal("10"),
    )

    def __init__(self, *args: Any, kind: str, user: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.kind, self.user = kind, user
        if user.is_authenticated:
            del self.fields["email"]
            if not user.email:
                self.fields["send_email"].disabled = True
                self.fields["send_email"].initial = False
                self.fields["send_email"].help_text = _(
                    "Your account has no email address: use a webhook."
                )
        else:
            self.fields["email"].required = True
        if kind != WatchKind.SCENARIO:
            del self.fields["threshold_pct"]
        else:
            self.fields["threshold_pct"].required = True

    def clean_webhook_url(self) -> str:
        url: str = self.cleaned_data.get("webhook_url") or ""
        if url:
            try:
                webhook.check_url(url)
            except FetchError as exc:
                raise forms.ValidationError(refusal_text(exc)) from None
        return url

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        anonymous = not self.user.is_authenticated
        by_email = bool(data.get("send_email")) and (anonymous or bool(self.user.email))
        if not by_email and not data.get("webhook_url") and not self.errors:
            raise forms.ValidationError(
                _("Choose how to be told: an email, a webhook URL, or both.")
            )
        data["send_email"] = by_email
        return data
