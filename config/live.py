"""Live counts on admin pages: what `templates/admin/live_counts.html` polls.

An admin's live view answers with the text of each cell to refresh, keyed by a CSS selector, and
whether anything shown is still active (the page stops polling when nothing is).
"""

from __future__ import annotations

from collections.abc import Mapping

from django.http import HttpRequest, JsonResponse

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


def live_response(cells: Mapping[str, str], active: bool) -> JsonResponse:
    return JsonResponse({"cells": dict(cells), "active": active})


def refused(error: LiveRequestError) -> JsonResponse:
    return JsonResponse({"error": str(error)}, status=400)
