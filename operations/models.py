"""Background operations started from the admin: what was asked, by whom, and how far it has got.

Anything that spends money or starts a process (publish, approve, reject, bonus, extend,
reconcile, crawl) runs as an operation in a Celery worker, never inside the web request: a
gunicorn timeout must not be able to kill a half-finished publish. The admin shows the row live.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class OperationState(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"

    @classmethod
    def open(cls) -> list[str]:
        return [cls.QUEUED, cls.RUNNING]


class Operation(models.Model):
    kind = models.CharField(max_length=64, help_text="The registered operation (operations.registry).")
    label = models.CharField(max_length=200)
    params = models.JSONField(default=dict, blank=True)
    state = models.CharField(
        max_length=16, choices=OperationState.choices, default=OperationState.QUEUED, db_index=True
    )
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    # One line per object acted on: what happened to it, or why it failed.
    log = models.TextField(blank=True)
    # What each object came to, keyed by its id, for the operations whose outcome a page reads back
    # (the market's cost per job): read by key, never by parsing the log.
    results = models.JSONField(default=dict, blank=True)
    error = models.CharField(max_length=500, blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created", "-id"]

    def __str__(self) -> str:
        return f"{self.label} [{self.state} {self.done}/{self.total}]"
