"""Watches in the admin: who watches what, where it is sent, when it was last checked and told."""

from __future__ import annotations

from django.contrib import admin

from .models import Watch


@admin.register(Watch)
class WatchAdmin(admin.ModelAdmin[Watch]):
    list_display = ("id", "kind", "subject_label", "owner_label", "confirmed_at", "notified_at")
    list_filter = ("kind",)
    search_fields = ("email", "user__username", "scenario__key", "offering__name")
    raw_id_fields = ("scenario", "offering", "user")
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
