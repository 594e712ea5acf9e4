"""Staff pages for the live quality checks: stopped workers with their evidence, and the reversal.

Reversing a stop needs `annotation.reverse_workerstop`; every reversal is in the audit trail."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from accounts.roles import ACCEPT_WRITING, REVERSE_STOP
from annotation.quality import services as quality
from annotation.quality.models import QualityCheck, WorkerStop, WritingRecord
from annotation.quality.writing_records import accept_writing


@admin.register(WorkerStop)
class WorkerStopAdmin(admin.ModelAdmin):
    list_display = [
        *("pk", "job", "annotator", "estimate", "bar", "created", "at_the_market"),
        *("reversed_at", "reversed_by"),
    ]
    list_filter = ["reversed_at", "job"]
    # Each row shows them all; left to itself, the list joins only the rows that cannot be null, and
    # read the person who reversed a stop once per reversed stop.
    list_select_related = ["job", "worker", "quality_check", "reversed_by"]
    fields = readonly_fields = (
        "job",
        "annotator",
        "estimate",
        "bar",
        "created",
        "evidence_table",
        "at_the_market",
        "reversed_at",
        "reversed_by",
        "reversal_note",
    )
    actions = ["reverse"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[WorkerStop]:
        return super().get_queryset(request).prefetch_related("market_calls")  # one query for the page

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # a stop is the checks' to write, with its evidence

    def has_reverse_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(REVERSE_STOP)

    @admin.display(description="annotator (pseudonym)")
    def annotator(self, stop: WorkerStop) -> str:
        return stop.worker.pseudonym or f"worker {stop.worker_id}"

    @admin.display(description="estimated accuracy [interval]")
    def estimate(self, stop: WorkerStop) -> str:
        check = stop.quality_check
        answers = check.compared + check.gold_answered
        return f"{check.accuracy:.0%} [{check.low:.0%}, {check.high:.0%}] over {answers} answers"

    @admin.display(description="at the market")
    def at_the_market(self, stop: WorkerStop) -> str:
        return stop.market_state

    @admin.display(description="evidence: each item, the answer, and what it was compared with")
    def evidence_table(self, stop: WorkerStop) -> SafeString:
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (
                    row["item"],
                    row["answer"],
                    row.get("by") or ("gold answer" if row["gold"] else "others' decision"),
                    row["against"],
                    "agrees" if row["right"] else "differs",
                )
                for row in stop.evidence
            ),
        )
        head = "<tr><th>item</th><th>answer</th><th>compared with</th><th>which is</th><th></th></tr>"
        return format_html("<table>{}{}</table>", SafeString(head), rows)

    @admin.action(description="Let the selected workers work in their job again", permissions=["reverse"])
    def reverse(self, request: HttpRequest, queryset: QuerySet[WorkerStop]) -> None:
        done = 0
        for stop in queryset.filter(reversed_at__isnull=True):
            quality.reverse_stop(stop.pk, request.user, f"reversed in the admin by {request.user}")
            done += 1
        self.message_user(
            request, f"{done} stop(s) reversed; those workers get work in their job again.", messages.SUCCESS
        )


@admin.register(QualityCheck)
class QualityCheckAdmin(admin.ModelAdmin):
    list_display = ["job", "worker", "accuracy", "low", "high", "gold_answered", "compared", "created"]
    list_filter = ["job"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(WritingRecord)
class WritingRecordAdmin(admin.ModelAdmin):
    """Free-text answers with how they were written; flagged ones wait here for a person."""

    list_display = ["pk", "job", "field", "flagged", "why", "accepted_at", "accepted_by"]
    list_filter = ["flagged", "accepted_at", "response__job"]
    fields = readonly_fields = (
        "job",
        "field",
        "answer",
        "signals",
        "flagged",
        "reasons",
        "accepted_at",
        "accepted_by",
    )
    actions = ["accept"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[WritingRecord]:
        return super().get_queryset(request).select_related("response__job", "accepted_by")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_accept_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(ACCEPT_WRITING)

    @admin.display(description="job")
    def job(self, record: WritingRecord) -> str:
        return str(record.response.job)

    @admin.display(description="answer")
    def answer(self, record: WritingRecord) -> str:
        return str(record.response.value or record.response.label)

    @admin.display(description="why flagged")
    def why(self, record: WritingRecord) -> str:
        return "; ".join(record.reasons)

    @admin.action(description="Accept the selected answers into the corpus", permissions=["accept"])
    def accept(self, request: HttpRequest, queryset: QuerySet[WritingRecord]) -> None:
        done = accept_writing(list(queryset.values_list("pk", flat=True)), request.user)
        self.message_user(request, f"{done} flagged answer field(s) accepted.", messages.SUCCESS)
