"""A watch: someone (a signed-in user, or an email address confirmed by a link) is told when a
saved scenario's #1 changes or its cost moves by more than `threshold_pct` per cent, or when an
offering's current prices change; by email, by a webhook signed with the watch's own secret, or
both, at most once a day (watches/checks.py).

`baseline` is what the watcher was last told (or saw when the watch was made): a scenario's #1 as
`{"key", "name", "cost", "currency", "basis"}`, an offering's prices as `{"name", "prices":
{"unit/tier": "amount currency"}}`. A check compares the answer of the moment with it.
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from advisor.models import SavedScenario
from platforms.models import Offering


def new_secret() -> str:
    """256 random bits in hexadecimal: the key of the watch's webhook signatures."""
    return secrets.token_hex(32)


class WatchKind(models.TextChoices):
    SCENARIO = "scenario", _("saved scenario")
    OFFERING = "offering", _("offering")


class WatchQuerySet(models.QuerySet["Watch"]):
    def confirmed(self) -> WatchQuerySet:
        """The watches that may send: a user's, or an email address's once confirmed."""
        return self.filter(confirmed_at__isnull=False)


class Watch(models.Model):
    kind = models.CharField(_("what it watches"), max_length=10, choices=WatchKind.choices)
    scenario = models.ForeignKey(
        SavedScenario,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="watches",
        verbose_name=_("saved scenario"),
    )
    offering = models.ForeignKey(
        Offering,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="watches",
        verbose_name=_("offering"),
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="watches",
        verbose_name=_("user"),
    )
    email = models.EmailField(_("email address"), blank=True)
    send_email = models.BooleanField(_("send an email"), default=True)
    webhook_url = models.URLField(_("webhook URL"), max_length=500, blank=True)
    secret = models.CharField(
        _("webhook secret"),
        max_length=64,
        default=new_secret,
        help_text=_("The key of the HMAC-SHA256 signature of each webhook's body."),
    )
    threshold_pct = models.DecimalField(
        _("cost change that is told (%)"),
        max_digits=6,
        decimal_places=1,
        null=True,
        blank=True,
        help_text=_("A saved scenario's watch: a move of its #1's cost by more than this."),
    )
    language = models.CharField(_("language"), max_length=10, default="en")
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    confirmed_at = models.DateTimeField(_("confirmed at"), null=True, blank=True)
    baseline = models.JSONField(_("last told"), default=dict, blank=True)
    checked_at = models.DateTimeField(_("checked at"), null=True, blank=True)
    checked_version = models.CharField(_("catalogue version checked"), max_length=64, blank=True)
    notified_at = models.DateTimeField(_("last sent at"), null=True, blank=True)
    held_at = models.DateTimeField(
        _("change held since"),
        null=True,
        blank=True,
        help_text=_("A change found within a day of the last message, told when the day is over."),
    )
    last_error = models.CharField(_("last delivery error"), max_length=300, blank=True)

    objects = WatchQuerySet.as_manager()

    class Meta:
        verbose_name = _("watch")
        verbose_name_plural = _("watches")
        constraints = [
            models.CheckConstraint(
                condition=(
                    Q(kind="scenario", scenario__isnull=False, offering__isnull=True)
                    | Q(kind="offering", offering__isnull=False, scenario__isnull=True)
                ),
                name="watch_one_subject",
                violation_error_message=_("A watch is on a saved scenario or on an offering."),
            ),
            models.CheckConstraint(
                condition=Q(user__isnull=False) | ~Q(email=""),
                name="watch_has_owner",
                violation_error_message=_("A watch belongs to a user or an email address."),
            ),
        ]
        indexes = [
            models.Index(fields=["user", "-created_at"], name="watch_user_newest"),
            models.Index(fields=["email", "-created_at"], name="watch_email_newest"),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.subject_label} · {self.owner_label}"

    @property
    def subject_label(self) -> str:
        if self.scenario_id is not None and self.scenario is not None:
            return f"/s/{self.scenario.key}/"
        if self.offering is not None:
            return f"{self.offering.name_text} · {self.offering.platform}"
        return ""

    @property
    def owner_label(self) -> str:
        return str(self.user) if self.user_id is not None else self.email

    @property
    def address(self) -> str:
        """Where its emails go: the address given, else its user's."""
        if self.email:
            return self.email
        return str(getattr(self.user, "email", "") or "") if self.user_id is not None else ""

    def subject_url(self) -> str:
        """The page of what is watched: the saved scenario's, or the offering's platform's."""
        if self.scenario is not None:
            return self.scenario.get_absolute_url() + "#results"
        if self.offering is not None:
            return f"{self.offering.platform.get_absolute_url()}#offering-{self.offering_id}"
        return "/"
