"""Saved scenarios in the admin: read-only (a short link's scenario never changes), deletable."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from .models import SavedScenario


@admin.register(SavedScenario)
class SavedScenarioAdmin(admin.ModelAdmin[SavedScenario]):
    list_display = ["key", "preset", "created_at"]
    search_fields = ["key", "digest"]
    date_hierarchy = "created_at"
    readonly_fields = ["key", "digest", "scenario", "preset", "created_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: SavedScenario | None = None) -> bool:
        return False
