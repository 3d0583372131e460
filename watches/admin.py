"""Watches in the admin: who watches what, where it is sent, when it was last checked and told."""

from __future__ import annotations

from django.contrib import admin
from django.db import models
from django.utils.translation import gettext_lazy as _

from .models import Watch


@admin.register(Watch)
class WatchAdmin(admin.ModelAdmin[Watch]):
    list_display = ("id", "kind", "subject", "owner", "confirmed_at", "notified_at", "last_error")
    list_filter = ("kind",)
    search_fields = ("email", "user__username", "scenario__key", "offering__name")
    raw_id_fields = ("scenario", "offering", "user")
    list_select_related = ("scenario", "offering__platform", "user")
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}
    readonly_fields = (
        "secret",
        "baseline",
        "checked_at",
        "checked_version",
        "notified_at",
        "held_at",
        "last_error",
        "created_at",
    )

    @admin.display(description=_("what it watches"))
    def subject(self, obj: Watch) -> str:
        return obj.subject_label

    @admin.display(description=_("owner"))
    def owner(self, obj: Watch) -> str:
        return obj.owner_label
