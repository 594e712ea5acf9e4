"""What the live quality checks found: an estimate after each submit, and the workers they stopped."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from annotation.models import Assignment, Job, Response, Worker


class QualityCheck(models.Model):
    """A worker's accuracy estimate in a job right after one of their submits (one row per submit,
    so the dashboard can draw each worker's estimate over time)."""

    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="quality_checks")
    worker = models.ForeignKey(Worker, on_delete=models.CASCADE, related_name="quality_checks")
    assignment = models.OneToOneField(Assignment, on_delete=models.CASCADE, related_name="quality_check")
    accuracy = models.FloatField(help_text="Posterior mean over gold answers and agreement.")
    low = models.FloatField()
    high = models.FloatField()
    gold_answered = models.PositiveIntegerField(default=0)
    gold_correct = models.PositiveIntegerField(default=0)
    compared = models.PositiveIntegerField(default=0, help_text="Answers compared with a current decision.")
    agreed = models.PositiveIntegerField(default=0)
    created = models.DateTimeField()

    class Meta:
        app_label = "annotation"
        ordering = ["job", "worker", "created"]
        indexes = [models.Index(fields=["job", "worker", "created"], name="qualitycheck_job_worker")]

    def __str__(self) -> str:
        return f"{self.worker} in job {self.job_id}: {self.accuracy:.2f} [{self.low:.2f}, {self.high:.2f}]"


class WorkerStop(models.Model):
    """A worker who stopped getting work in a job because their estimate fell below its bar.

    Their work is never rejected by it (rejection is a person's decision); a person with
    `reverse_workerstop` may reverse the stop, and the worker then gets work again in the job, for
    good: a later check never stops a worker a person let back in."""

    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="worker_stops")
    worker = models.ForeignKey(Worker, on_delete=models.CASCADE, related_name="stops")
    quality_check = models.OneToOneField(QualityCheck, on_delete=models.PROTECT, related_name="stop")
    bar = models.FloatField(help_text="The job's quality bar when the worker was stopped.")
    # The items, the worker's answers, the gold answers and the decisions they were compared with.
    evidence = models.JSONField(default=list)
    created = models.DateTimeField()
    reversed_at = models.DateTimeField(null=True, blank=True)
    reversed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    reversal_note = models.CharField(max_length=500, blank=True)

    class Meta:
        app_label = "annotation"
        ordering = ["-created"]
        permissions = [("reverse_workerstop", "Can let a stopped worker work in the job again")]
        constraints = [models.UniqueConstraint(fields=["job", "worker"], name="workerstop_once_per_job")]

    def __str__(self) -> str:
        return f"{self.worker} stopped in job {self.job_id}{' (reversed)' if self.reversed_at else ''}"

    @property
    def in_force(self) -> bool:
        return self.reversed_at is None

    @property
    def market_state(self) -> str:
        """Where the stop stands at the job's market, in words staff read: its last call's state."""
        # From the calls as fetched: the stop list and the quality panel prefetch them for the page.
        call = max(self.market_calls.all(), key=lambda found: found.pk, default=None)
        if call is None:
            return "no market call: the job has no blocklist at its market; our pages refuse the worker"
        if call.state == BlocklistCallState.DONE:
            done = (
                "kept out of the job at its market"
                if call.action == BlocklistAction.ADD
                else "let back in there"
            )
            return f"{done} ({call.done_at:%Y-%m-%d %H:%M})"
        if call.state == BlocklistCallState.FAILED:
            again = "sent again every few minutes"
            return f"{call.get_action_display()}: failed {call.attempts} time(s), {again}: {call.error}"
        return f"{call.get_action_display()}: {call.get_state_display()}"


class BlocklistAction(models.TextChoices):
    MAKE = "make", "make the job's blocklist"
    ADD = "add", "put a stopped worker on it"
    REMOVE = "remove", "take the worker off it"


class BlocklistCallState(models.TextChoices):
    REQUESTED = "requested", "waiting to be sent"
    SENT = "sent", "sent, its answer not stored yet"
    DONE = "done", "done at the market"
    FAILED = "failed", "failed: sent again by the retry sweep"

    @classmethod
    def unfinished(cls) -> list[str]:
        return [cls.REQUESTED, cls.SENT, cls.FAILED]


class BlocklistCall(models.Model):
    """One call to a job's market about the job's own blocklist, recorded before it is made and sent
    once by a background operation (annotation.work.blocklists); one that failed is sent again by the
    retry sweep, and shown on its stop until it is done."""

    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="blocklist_calls")
    action = models.CharField(max_length=8, choices=BlocklistAction.choices)
    worker = models.ForeignKey(Worker, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    stop = models.ForeignKey(
        WorkerStop, null=True, blank=True, on_delete=models.CASCADE, related_name="market_calls"
    )
    state = models.CharField(
        max_length=10, choices=BlocklistCallState.choices, default=BlocklistCallState.REQUESTED, db_index=True
    )
    attempts = models.PositiveSmallIntegerField(default=0)
    error = models.CharField(max_length=500, blank=True)
    created = models.DateTimeField(default=timezone.now)
    sent_at = models.DateTimeField(null=True, blank=True)
    done_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        app_label = "annotation"
        ordering = ["pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["job"], condition=Q(action="make"), name="blocklistcall_one_make_per_job"
            )
        ]

    def __str__(self) -> str:
        return f"{self.get_action_display()} (job {self.job_id}): {self.get_state_display()}"


class WritingRecord(models.Model):
    """How one free-text field of a response was written, as the task page recorded it, and whether
    it was flagged. A flagged answer stays out of the corpus until a person accepts it."""

    response = models.ForeignKey(Response, on_delete=models.CASCADE, related_name="writing_records")
    field = models.CharField(max_length=200, help_text="The answer's field, as the form names it.")
    # The page's counts (annotation.quality.writing.WritingSignals); empty: the page sent none.
    signals = models.JSONField(default=dict, blank=True)
    flagged = models.BooleanField(default=False, db_index=True)
    reasons = models.JSONField(default=list, blank=True)
    accepted_at = models.DateTimeField(null=True, blank=True)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        app_label = "annotation"
        ordering = ["response", "field"]
        permissions = [("accept_writingrecord", "Can accept a flagged free-text answer into the corpus")]
        constraints = [models.UniqueConstraint(fields=["response", "field"], name="writingrecord_once")]

    def __str__(self) -> str:
        return f"{self.field} of response {self.response_id}{' (flagged)' if self.flagged else ''}"

    @property
    def held(self) -> bool:
        """Whether it keeps its answer out of the corpus: flagged, and no person has accepted it."""
        return self.flagged and self.accepted_at is None
