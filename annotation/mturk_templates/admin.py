"""The admin pages of imported MTurk templates and their batches."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from accounts.permissions import NamedPermissions
from annotation.mturk_templates.models import MTurkBatch, MTurkTemplate


class MTurkBatchInline(admin.TabularInline):
    model = MTurkBatch
    fields = readonly_fields = ("source_name", "columns", "created")
    extra = 0
    can_delete = False


@admin.register(MTurkTemplate)
class MTurkTemplateAdmin(NamedPermissions, admin.ModelAdmin):
    """Imported MTurk templates. Only `trust_mturktemplate` may mark one trusted (its scripts then run
    on the platform's origin); everyone else sees `trusted` read-only."""

    list_display = ("name", "trusted", "created")
    list_filter = ("trusted",)
    search_fields = ("name",)
    inlines = [MTurkBatchInline]
    actions = ["mark_trusted", "mark_untrusted"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        fixed = ("created_by", "created")
        return fixed if self.has_trust_template_permission(request) else (*fixed, "trusted")

    @admin.action(description="Trust: show as written, scripts run", permissions=["trust_template"])
    def mark_trusted(self, request: HttpRequest, queryset: QuerySet[MTurkTemplate]) -> None:
        self.message_user(request, f"Trusted: {queryset.update(trusted=True)}")

    @admin.action(description="Stop trusting: sanitise again", permissions=["trust_template"])
    def mark_untrusted(self, request: HttpRequest, queryset: QuerySet[MTurkTemplate]) -> None:
        self.message_user(request, f"No longer trusted: {queryset.update(trusted=False)}")


@admin.register(MTurkBatch)
class MTurkBatchAdmin(admin.ModelAdmin):
    list_display = ("source_name", "template", "created")
    readonly_fields = ("template", "source_name", "columns", "created")
    exclude = ("rows",)
