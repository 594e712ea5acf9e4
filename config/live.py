"""Live counts on admin pages: what `templates/admin/live_counts.html` polls.

An admin's live view answers with the text of each cell to refresh, keyed by a CSS selector, and
whether anything shown is still active (the page stops polling when nothing is).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, JsonResponse
from django.urls import URLPattern, path

MAX_IDS = 100  # a change list shows at most 100 rows by default


class LiveRequestError(ValueError):
    """Ids that are not a short comma-separated list of positive whole numbers."""


def requested_ids(request: HttpRequest) -> list[int]:
    raw = request.GET.get("ids", "")
    parts = [part for part in raw.split(",") if part]
    if len(parts) > MAX_IDS or not all(p.isascii() and p.isdigit() and len(p) <= 18 for p in parts):
        raise LiveRequestError(f"ids: at most {MAX_IDS} positive whole numbers, comma-separated")
    return sorted({int(part) for part in parts})


def cell(pk: int, field: str) -> str:
    """The selector of an object's field: its change-list cell, or its read-only field on its own page."""
    return f'tr:has(input[name="_selected_action"][value="{pk}"]) td.field-{field}, .field-{field} .readonly'


class LiveCountsAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """A model admin with a `live/` URL (name `<app>_<model>_live`) that answers the cells of the
    objects the page shows (`?ids=`) as `live_cells` gives them; staff who may not view get 403."""

    def get_urls(self) -> list[URLPattern]:
        name = f"{self.opts.app_label}_{self.opts.model_name}_live"
        return [path("live/", self.admin_site.admin_view(self.live_view), name=name), *super().get_urls()]

    def live_view(self, request: HttpRequest) -> JsonResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        try:
            shown = list(self.get_queryset(request).filter(pk__in=requested_ids(request)))
        except LiveRequestError as error:
            return JsonResponse({"error": str(error)}, status=400)
        cells, active = self.live_cells(shown)
        return JsonResponse({"cells": dict(cells), "active": active})

    def live_cells(self, shown: list[Any]) -> tuple[Mapping[str, str], bool]:
        """The text of each cell to refresh, and whether anything shown is still active."""
        raise NotImplementedError
