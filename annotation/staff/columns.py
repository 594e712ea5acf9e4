"""Task types as a person reads them in the admin: a list filter and a column by each task type's
name ("Evidence verification"), never its slug."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from annotation.task_types import task_type_choices


class TaskTypeFilter(admin.SimpleListFilter):
    title = "task type"
    parameter_name = "task_type"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return task_type_choices()

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return queryset.filter(task_type=self.value()) if self.value() else queryset


@admin.display(description="task type", ordering="task_type")
def task_type_name(obj: Any) -> str:
    """The row's task type by name; the row is a job or has one."""
    job = obj if hasattr(obj, "task_type_name") else obj.job
    return str(job.task_type_name)
