"""Admin for the money ledger and reconciliation: see every intended call, act on open rows.

Rows are never edited by hand: the actions below queue the same tasks the sweeper queues (no market
call inside the web request), so a row still goes requested → claimed → sent → confirmed | failed |
unclear through conditional updates.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from accounts.permissions import NamedPermissions
from annotation.ledger import engine, intents
from annotation.ledger.decisions import DecisionError, decide_unclear
from annotation.ledger.models import LedgerEntry, ReconciliationIssue, RowState
from annotation.models import Job
from annotation.staff.markets import start
from operations.queueing import registered_task


@admin.register(LedgerEntry)
class LedgerEntryAdmin(NamedPermissions, admin.ModelAdmin):
    list_display = [
        "id",
        "market",
        "kind",
        "attempt",
        "state",
        "amount",
        "currency",
        "market_ref",
        "job",
        "requested_at",
    ]
    list_filter = ["market", "kind", "state"]
    search_fields = ["token", "intent", "market_ref", "result_ref", "worker_ref"]
    date_hierarchy = "requested_at"
    actions = [
        "run_requested",
        "retry_failed",
        "resolve_unclear",
        "decide_moved",
        "decide_not_moved",
        "sweep_stale",
    ]

    def get_readonly_fields(self, request: HttpRequest, obj: LedgerEntry | None = None) -> list[str]:
        return [field.name for field in LedgerEntry._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: LedgerEntry | None = None) -> bool:
        return False

    @admin.action(
        description="Make the market call of the selected requested rows (in the background)",
        permissions=["spend_money"],
    )
    def run_requested(self, request: HttpRequest, queryset: QuerySet[LedgerEntry]) -> None:
        queued = _queue(queryset, RowState.REQUESTED, engine.EXECUTE_TASK)
        self.message_user(request, f"{queued} requested rows queued for their market call")

    @admin.action(
        description="Retry the selected failed rows as new attempts (in the background)",
        permissions=["spend_money"],
    )
    def retry_failed(self, request: HttpRequest, queryset: QuerySet[LedgerEntry]) -> None:
        retried = []
        for entry in queryset.filter(state=RowState.FAILED):
            try:
                attempt = intents.retry(entry.pk)
            except intents.RetryError as error:
                self.message_user(request, str(error), messages.WARNING)
                continue
            registered_task(engine.EXECUTE_TASK).delay_on_commit(attempt.pk)  # type: ignore[attr-defined]
            retried.append(attempt)
        self.message_user(request, f"{len(retried)} failed rows queued again as new attempts")

    @admin.action(
        description="Resolve the selected unclear rows by reading the market (in the background)",
        permissions=["spend_money"],
    )
    def resolve_unclear(self, request: HttpRequest, queryset: QuerySet[LedgerEntry]) -> None:
        queued = _queue(queryset, RowState.UNCLEAR, engine.RESOLVE_TASK)
        self.message_user(request, f"{queued} unclear rows queued to be resolved by reading the market")

    @admin.action(
        description="Decide the selected unclear rows: the money moved (after reading their evidence)",
        permissions=["spend_money"],
    )
    def decide_moved(self, request: HttpRequest, queryset: QuerySet[LedgerEntry]) -> None:
        self._decide(request, queryset, moved=True)

    @admin.action(
        description="Decide the selected unclear rows: the money did not move (after reading their evidence)",
        permissions=["spend_money"],
    )
    def decide_not_moved(self, request: HttpRequest, queryset: QuerySet[LedgerEntry]) -> None:
        self._decide(request, queryset, moved=False)

    def _decide(self, request: HttpRequest, queryset: QuerySet[LedgerEntry], *, moved: bool) -> None:
        done = 0
        for entry in queryset.filter(state=RowState.UNCLEAR):
            # The evidence the person had in front of them: the row's own record of the call.
            evidence = f"row {entry.pk}: {entry.response_excerpt or entry.error or 'no reply recorded'}"
            try:
                decide_unclear(entry.pk, moved=moved, user=request.user, evidence=evidence)
            except DecisionError as error:
                self.message_user(request, str(error), messages.ERROR)
                continue
            done += 1
        self.message_user(request, f"{done} unclear rows decided by {request.user}")

    @admin.action(description="Sweep stale rows (all, not only the selected)", permissions=["spend_money"])
    def sweep_stale(self, request: HttpRequest, queryset: QuerySet[LedgerEntry]) -> None:
        report = engine.sweep_stale()
        self.message_user(request, f"requeued {len(report.requeued)}, unclear {len(report.unclear)}")


def _queue(queryset: QuerySet[LedgerEntry], state: str, task_name: str) -> int:
    """Queue the task named `task_name` for each chosen row in `state`, once the request's transaction
    commits."""
    pks = list(queryset.filter(state=state).values_list("pk", flat=True))
    task = registered_task(task_name)
    for pk in pks:
        task.delay_on_commit(pk)  # type: ignore[attr-defined]
    return len(pks)


@admin.register(ReconciliationIssue)
class ReconciliationIssueAdmin(admin.ModelAdmin):
    list_display = ["found_at", "market", "job", "kind", "ref", "ours", "theirs", "resolved"]
    list_filter = ["resolved", "market", "kind"]
    search_fields = ["ref"]
    actions = ["mark_resolved"]

    def get_readonly_fields(self, request: HttpRequest, obj: ReconciliationIssue | None = None) -> list[str]:
        return [f.name for f in ReconciliationIssue._meta.fields if f.name != "resolved"]

    @admin.action(description="Mark the selected issues resolved", permissions=["change"])
    def mark_resolved(self, request: HttpRequest, queryset: QuerySet[ReconciliationIssue]) -> None:
        self.message_user(request, f"{queryset.update(resolved=True)} issues marked resolved")


# Actions for the Job admin (annotation/admin.py may add them to its `actions`).


@admin.action(
    description="Show the worst-case market cost of the selected jobs (read in the background)",
    permissions=["view"],
)
def show_market_cost(modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Job]) -> None:
    # The fee and the balance are read from the market: by the worker, never inside this request.
    job_ids = list(queryset.values_list("pk", flat=True))
    params = {"job_ids": job_ids}
    start(modeladmin, request, "annotation.show_market_costs", "Market cost", params, len(job_ids))


@admin.action(
    description="Reconcile the selected jobs with their market (in the background)",
    permissions=["change"],
)
def reconcile_jobs(modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Job]) -> None:
    job_ids = list(queryset.values_list("pk", flat=True))
    start(modeladmin, request, "annotation.reconcile_jobs", "Reconcile", {"job_ids": job_ids}, len(job_ids))
