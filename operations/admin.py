"""Operations in the admin: read-only, with their progress; the list refreshes itself while any runs."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest, HttpResponse

from config.columns import PlainFields, readable_fields
from operations.models import Operation, OperationState


@admin.register(Operation)
class OperationAdmin(PlainFields, admin.ModelAdmin):
    list_display = ["pk", "label", "state", "progress", "requested_by", "created", "finished_at"]
    list_filter = ["state", "kind"]
    search_fields = ["label", "log"]
    # Its parameters and result as tables, its figures rounded (PlainFields).
    fields = readonly_fields = tuple(readable_fields(Operation))
    change_list_template = "operations/operation_change_list.html"
    change_form_template = "operations/operation_change_form.html"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="progress")
    def progress(self, operation: Operation) -> str:
        return f"{operation.done} of {operation.total}"

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        running = Operation.objects.filter(state__in=OperationState.open()).exists()
        return super().changelist_view(request, {**(extra_context or {}), "refresh": running})

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        running = Operation.objects.filter(pk=object_id, state__in=OperationState.open()).exists()
        return super().change_view(
            request, object_id, form_url, {**(extra_context or {}), "refresh": running}
        )
