"""Admin: workers, with their quiz results and gold accuracy, blocked and unblocked here and at their
market (a background operation, annotation.work.market_actions)."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from annotation.models import Job, Qualification, Worker
from annotation.staff import markets as market_admin
from config.columns import figure_column, table_field


class QualificationInline(admin.TabularInline):
    model = Qualification
    fields = readonly_fields = ("task_type_shown", "passed", "score_figure", "attempts", "updated")
    score_figure = figure_column("score", "score")

    @admin.display(description="task type")
    def task_type_shown(self, qualification: Qualification) -> str:
        return Job(task_type=qualification.task_type).task_type_name

    extra = 0


@admin.register(Worker)
class WorkerAdmin(admin.ModelAdmin):
    list_display = ["pk", "market", "external_id", "user", "simulated", "blocked", "gold", "created"]
    list_filter = ["market", "simulated", "blocked"]
    search_fields = ["external_id", "user__username"]
    readonly_fields = ["gold_answered", "gold_correct", "simulated", "model_table"]
    exclude = ["model"]  # shown as its table: a simulated worker's model is made, not edited
    model_table = table_field("model", "simulated answering model")
    inlines = [QualificationInline]
    actions = ["block", "unblock"]

    @admin.display(description="gold accuracy")
    def gold(self, worker: Worker) -> str:
        accuracy = worker.gold_accuracy
        return "–" if accuracy is None else f"{accuracy:.0%} of {worker.gold_answered}"

    @admin.action(description="Block the selected workers (here and at their market)", permissions=["change"])
    def block(self, request: HttpRequest, queryset: QuerySet[Worker]) -> None:
        worker_ids = list(queryset.values_list("pk", flat=True))
        params = {"worker_ids": worker_ids, "reason": f"blocked by {request.user}"}
        market_admin.start(
            self, request, "annotation.block_workers", "Block workers", params, len(worker_ids)
        )

    @admin.action(
        description="Unblock the selected workers (at their market, then here)", permissions=["change"]
    )
    def unblock(self, request: HttpRequest, queryset: QuerySet[Worker]) -> None:
        worker_ids = list(queryset.values_list("pk", flat=True))
        params, count = {"worker_ids": worker_ids}, len(worker_ids)
        market_admin.start(self, request, "annotation.unblock_workers", "Unblock workers", params, count)
