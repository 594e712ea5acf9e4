"""Admin for the money ledger and reconciliation: see every intended call, act on open rows.

Rows are never edited by hand: the actions below run the same services as the tasks, so a row
still goes requested → claimed → sent → confirmed | failed | unclear through conditional updates.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from annotation import payments
from annotation.ledger import LedgerEntry, LedgerState, ReconciliationIssue
from annotation.models import Job
from annotation.providers.base import ProviderError
from annotation.providers.market_errors import MarketError
from annotation.reconciliation import reconcile_job
from annotation.services.jobs import estimate_cost


@admin.register(LedgerEntry)
class LedgerEntryAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "provider",
        "kind",
        "state",
        "amount",
        "currency",
        "market_ref",
        "job",
        "requested_at",
    ]
    list_filter = ["provider", "kind", "state"]
    search_fields = ["token", "market_ref", "result_ref", "worker_ref"]
    date_hierarchy = "requested_at"
    actions = ["run_requested", "resolve_unclear", "sweep_stale"]

    def get_readonly_fields(self, request: HttpRequest, obj: LedgerEntry | None = None) -> list[str]:
        return [field.name for field in LedgerEntry._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: LedgerEntry | None = None) -> bool:
        return False

    @admin.action(description="Make the market call of the selected requested rows")
    def run_requested(self, request: HttpRequest, queryset: QuerySet[LedgerEntry]) -> None:
        done = [
            payments.execute(pk).state
            for pk in queryset.filter(state=LedgerState.REQUESTED).values_list("pk", flat=True)
        ]
        self.message_user(
            request, f"{len(done)} rows run: {', '.join(sorted(set(done))) or 'none requested'}"
        )

    @admin.action(description="Resolve the selected unclear rows by reading the market")
    def resolve_unclear(self, request: HttpRequest, queryset: QuerySet[LedgerEntry]) -> None:
        pks = list(queryset.filter(state=LedgerState.UNCLEAR).values_list("pk", flat=True))
        states = [payments.resolve(pk).state for pk in pks]
        settled = sum(1 for state in states if state != LedgerState.UNCLEAR)
        self.message_user(request, f"{settled} of {len(pks)} unclear rows settled; the rest stay unclear")

    @admin.action(description="Sweep stale rows (all, not only the selected)")
    def sweep_stale(self, request: HttpRequest, queryset: QuerySet[LedgerEntry]) -> None:
        report = payments.sweep_stale()
        self.message_user(request, f"requeued {len(report.requeued)}, unclear {len(report.unclear)}")


@admin.register(ReconciliationIssue)
class ReconciliationIssueAdmin(admin.ModelAdmin):
    list_display = ["found_at", "provider", "job", "kind", "ref", "ours", "theirs", "resolved"]
    list_filter = ["resolved", "provider", "kind"]
    search_fields = ["ref"]
    actions = ["mark_resolved"]

    def get_readonly_fields(self, request: HttpRequest, obj: ReconciliationIssue | None = None) -> list[str]:
        return [f.name for f in ReconciliationIssue._meta.fields if f.name != "resolved"]

    @admin.action(description="Mark the selected issues resolved")
    def mark_resolved(self, request: HttpRequest, queryset: QuerySet[ReconciliationIssue]) -> None:
        self.message_user(request, f"{queryset.update(resolved=True)} issues marked resolved")


# Actions for the Job admin (annotation/admin.py may add them to its `actions`).


@admin.action(description="Show the worst-case market cost of the selected jobs")
def show_market_cost(modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Job]) -> None:
    for job in queryset:
        try:
            estimate = estimate_cost(job)
        except ProviderError as exc:
            modeladmin.message_user(request, f"{job}: {exc}", messages.WARNING)
            continue
        budget = f"budget {estimate.budget}" if estimate.budget is not None else "no budget set"
        balance = f"balance {estimate.balance}" if estimate.balance is not None else "no market balance"
        verdict = estimate.refusal or "within budget and balance"
        modeladmin.message_user(
            request,
            f"{job}: worst case {estimate.worst_case} (fee {estimate.fee_rate:%}, bonus cap "
            f"{estimate.bonus_cap}); {budget}; {balance}: {verdict}",
            messages.WARNING if estimate.refusal else messages.INFO,
        )


@admin.action(description="Reconcile the selected jobs with their market")
def reconcile_jobs(modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Job]) -> None:
    for job in queryset:
        try:
            issues = reconcile_job(job.pk)
        except MarketError as exc:
            modeladmin.message_user(request, f"{job}: market not reachable ({exc})", messages.WARNING)
            continue
        level = messages.WARNING if issues else messages.SUCCESS
        modeladmin.message_user(request, f"{job}: {len(issues)} mismatches flagged", level)
