"""Saved scenarios: a scenario kept under a short id, so a result can be shared as /s/<key>/.

A scenario is stored once, addressed by the SHA-256 of its canonical JSON (keys sorted, no
spaces): the same scenario always gets the same link, whoever saves it. Anyone with the link can
view it; a logged-in user who saves one keeps it in their list (ScenarioBookmark).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models.functions import Length
from django.db.models.lookups import Exact, GreaterThanOrEqual
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

# A short id is the start of the hash in base 32 (a-z, 2-7). 10 characters are 50 bits: among n
# saved scenarios two share a 10-character start with probability about n²/2⁵¹ (4 in 10,000
# for a million); a clash gives the newer one a longer key (advisor.sharing.saved_scenario_get).
KEY_LENGTH = 10


class SavedScenario(models.Model):
    """A scenario (the JSON contract of README.md) and the preset it came from, if any."""

    key = models.CharField(_("short id"), max_length=52, unique=True)
    digest = models.CharField(
        _("content hash"), max_length=64, unique=True, help_text=_("SHA-256 of the canonical JSON")
    )
    scenario = models.JSONField(_("scenario"))
    preset = models.CharField(_("preset"), max_length=64, blank=True)
    created_at = models.DateTimeField(_("saved at"), default=timezone.now)
    users = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        through="ScenarioBookmark",
        related_name="saved_scenarios",
        blank=True,
        verbose_name=_("saved by"),
    )

    class Meta:
        verbose_name = _("saved scenario")
        constraints = [
            models.CheckConstraint(
                condition=GreaterThanOrEqual(Length("key"), KEY_LENGTH),
                name="saved_scenario_key_length",
                violation_error_message=_("A short id has at least 10 characters."),
            ),
            models.CheckConstraint(
                condition=Exact(Length("digest"), 64),
                name="saved_scenario_digest_sha256",
                violation_error_message=_("The content hash is a SHA-256 in hexadecimal."),
            ),
        ]

    def __str__(self) -> str:
        return self.key

    def get_absolute_url(self) -> str:
        return reverse("scenarios:show", args=[self.key])

    @property
    def task_names(self) -> list[str]:
        tasks: list[dict[str, Any]] = self.scenario.get("tasks", [])
        return [str(t.get("name") or t.get("model") or t.get("kind", "")) for t in tasks]


class ScenarioBookmark(models.Model):
    """A saved scenario in a logged-in user's list."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="scenario_bookmarks"
    )
    scenario = models.ForeignKey(SavedScenario, on_delete=models.CASCADE, related_name="bookmarks")
    saved_at = models.DateTimeField(_("saved at"), default=timezone.now)

    class Meta:
        verbose_name = _("saved scenario of a user")
        constraints = [
            models.UniqueConstraint(
                fields=["user", "scenario"],
                name="scenario_bookmark_once",
                violation_error_message=_("This scenario is already in the list."),
            )
        ]
        indexes = [
            # "My scenarios": a user's bookmarks, newest first.
            models.Index(fields=["user", "-saved_at"], name="bookmark_user_newest"),
        ]

    def __str__(self) -> str:
        return f"{self.user} · {self.scenario}"
