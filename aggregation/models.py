"""What aggregating a job leaves behind: the run record, each item's outcome, each worker's quality,
and the experts' adjudications.

The corpus (``corpus.models.PerspectiveCluster`` and its links) holds the *result*; these rows hold
the *evidence for it*: which rule and threshold decided, the agreement figures, who overruled the
crowd and when. Worker blocks use annotation's own ``Worker.blocked`` (a soft block at the market).
"""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.contrib.postgres.indexes import BrinIndex
from django.db import models
from django.db.models import Q

from annotation.models import Item, Job, Worker
from corpus.models import PerspectiveCluster


class RunTrigger(models.TextChoices):
    COMPLETION = "completion"
    MANUAL = "manual"
    COMMAND = "command"


class RunState(models.TextChoices):
    DONE = "done"
    FAILED = "failed"


class ContestReason(models.TextChoices):
    """Why an item is in the adjudication queue."""

    LOW_AGREEMENT = "low_agreement"
    NO_MAJORITY = "no_majority"
    GOLD = "gold"
    MODEL = "model"
    LOW_POSTERIOR = "low_posterior"

    @classmethod
    def describe(cls, reasons: list[str]) -> str:
        return ", ".join(cls(reason).label for reason in reasons)


class WorkerFlagReason(models.TextChoices):
    LOW_AGREEMENT = "low_agreement"
    LOW_RELIABILITY = "low_reliability"
    LOW_GOLD_ACCURACY = "low_gold_accuracy"


class LabelCounts(models.Field):  # type: ignore[type-arg]
    """Responses per label: an ``integer[]`` on PostgreSQL, whose binary COPY is fixed-width (a first
    run writes a million of them straight into the table: aggregation/storing.py), and JSON text
    elsewhere (SQLite, whose column migration 0011 leaves as it was).

    To migrations it is what it is on PostgreSQL, django.contrib.postgres's ArrayField of integers: it
    deconstructs as one, so they name no project code. It is not a subclass of it, whose import loads
    the PostgreSQL driver: on SQLite every process would load it at start for this one column. Of the
    array it needs only the column type, the cast of a value and the list that psycopg adapts."""

    empty_strings_allowed = False
    ARRAY = "integer[]"

    def __init__(self, **kwargs: Any) -> None:
        # A clone (a migration's state of the model) passes back what deconstruct names.
        kwargs.pop("base_field", None)
        kwargs.pop("size", None)
        super().__init__(**kwargs)

    def deconstruct(self) -> Any:
        name, _, args, kwargs = super().deconstruct()
        kwargs.update(base_field=models.IntegerField(), size=None)
        return name, "django.contrib.postgres.fields.ArrayField", args, kwargs

    def db_type(self, connection: Any) -> str:
        return self.ARRAY if connection.vendor == "postgresql" else "text"

    def get_placeholder(self, value: Any, compiler: Any, connection: Any) -> str:
        return f"%s::{self.ARRAY}" if connection.vendor == "postgresql" else "%s"

    def get_db_prep_value(self, value: Any, connection: Any, prepared: bool = False) -> Any:
        if value is None:
            return None
        counts = [int(count) for count in value]
        return counts if connection.vendor == "postgresql" else json.dumps(counts)

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> Any:
        return self.to_python(value)

    def to_python(self, value: Any) -> Any:
        return json.loads(value) if isinstance(value, str) else value

    def value_to_string(self, obj: models.Model) -> str:
        return json.dumps(self.value_from_object(obj))


# What a run counted and measured, as its API rows and a release's provenance report it.
RUN_FIGURES = (
    "items",
    "responses",
    "workers",
    "kept",
    "rejected",
    "no_majority",
    "adjudicated",
    "mean_rho",
    "fleiss_kappa",
    "krippendorff_alpha",
    "flagged_workers",
)


class AggregationRun(models.Model):
    """One aggregation of a job: the rule, thresholds, label model, figures and library versions."""

    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="aggregation_runs")
    trigger = models.CharField(max_length=16, choices=RunTrigger.choices, default=RunTrigger.MANUAL)
    state = models.CharField(max_length=16, choices=RunState.choices, default=RunState.DONE)
    error = models.TextField(blank=True)
    task_type = models.CharField(max_length=64)
    rule = models.CharField(max_length=200, blank=True, help_text="The rule as recorded on each result.")
    # Everything a re-run needs to decide the same way: rule as data, label model, flag thresholds.
    policy = models.JSONField(default=dict, blank=True)
    label_model = models.CharField(max_length=32, blank=True)
    items = models.PositiveIntegerField(default=0)
    responses = models.PositiveIntegerField(default=0)
    workers = models.PositiveIntegerField(default=0)
    kept = models.PositiveIntegerField(default=0)
    rejected = models.PositiveIntegerField(default=0)
    no_majority = models.PositiveIntegerField(default=0)
    adjudicated = models.PositiveIntegerField(default=0, help_text="Items left as the experts set them.")
    mean_rho = models.FloatField(null=True, blank=True)
    fleiss_kappa = models.FloatField(null=True, blank=True)
    krippendorff_alpha = models.FloatField(null=True, blank=True)
    flagged_workers = models.PositiveIntegerField(default=0)
    changed_items = models.PositiveIntegerField(
        default=0, help_text="Items whose written label or status this run changed from the last run's."
    )
    # What the write-back did to rows others wrote last: {"rewrote": {writer: n}, "kept": {writer: n}}.
    corpus_writes = models.JSONField(default=dict, blank=True)
    versions = models.JSONField(default=dict, blank=True)
    started_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created", "-pk"]

    def __str__(self) -> str:
        return f"aggregation {self.pk} of job {self.job_id} ({self.state})"


class ItemOutcome(models.Model):
    """An item's latest aggregate: counts, labels, ρ, the label model's view, and whether it is contested."""

    # None of the outcome's keys is checked by the database: checking a first run's million rows one
    # by one (each check locks its item row) cost more than half of its write. They hold because of
    # how outcomes are written (aggregation/storing.py): a run writes only items it finds in the item
    # table (a first run: among the job's items it read), of its own job, under its job's lock, and
    # names only itself, a row created in the same transaction (no one else can delete what no one
    # else can see). Deleting an item, a job or a run
    # still deletes its outcomes, and their adjudications with them: the ORM's cascade, as for every
    # key here (Django declares none in the database); a job's deletion also takes the outcomes a run
    # committed while it waited for the job's lock, and an item deleted on its own waits for that lock,
    # then takes the outcome a run committed meanwhile (aggregation.receivers).
    # The item is the outcome's key (migration 0012): an id of its own drew a sequence number and kept
    # a second index entry for each of a first run's million rows.
    item = models.OneToOneField(
        Item, on_delete=models.CASCADE, related_name="outcome", db_constraint=False, primary_key=True
    )
    # The item's job, for the queries by job (indexed by page ranges: see Meta).
    job = models.ForeignKey(
        Job, on_delete=models.CASCADE, related_name="item_outcomes", db_constraint=False, db_index=False
    )
    # Not indexed: no query finds outcomes by run but a run's deletion (rare: with its job, or in the
    # admin), which scans the table once; a million index entries cost every first run. Restricted: a
    # run that last wrote an outcome cannot be deleted on its own, since the outcome and the experts'
    # adjudications on it are not the run's to take (deleting the job still takes them all).
    run = models.ForeignKey(
        AggregationRun,
        on_delete=models.RESTRICT,
        related_name="outcomes",
        db_index=False,
        db_constraint=False,
    )
    counts = LabelCounts(default=list, help_text="Responses per label, in the task's label order.")
    # Labels have no length cap: a multi-label outcome is its kept labels joined.
    label = models.CharField(blank=True, help_text="Majority over the rule's label set.")
    fine_label = models.CharField(blank=True, help_text="Majority over the answer labels.")
    agreement = models.FloatField(null=True, blank=True, help_text="ρ")
    status = models.CharField(max_length=16, blank=True)
    model_label = models.CharField(blank=True)
    model_confidence = models.FloatField(null=True, blank=True)
    reference_label = models.CharField(blank=True, help_text="The gold or crawled answer.")
    contested = models.BooleanField(default=False)
    reasons = models.JSONField(default=list, blank=True)
    # Drawn for the random-sample accuracy check (crowd vs expert), whether contested or not.
    sampled = models.BooleanField(default=False)

    class Meta:
        ordering = ["job", "item"]
        # The adjudication queue's (and the admin's filters'): the contested or sampled outcomes of a
        # job, a few of its rows. Indexing every row's flag cost each write a million entries. (The
        # pages are full: half-filled ones, migration 0007 undone by 0013, cost a first run more than
        # they saved a rewrite.)
        indexes = [
            models.Index(
                fields=["job"], condition=Q(contested=True) | Q(sampled=True), name="itemoutcome_waiting"
            ),
            # A job's outcomes are written together (one INSERT of a first run's rows, rewritten in
            # place after), so on PostgreSQL the job's rows are found by a block-range index of a few
            # pages: a B-tree entry per row cost a first run of a million outcomes more of the server's
            # CPU than the rows themselves. Its new ranges are summarized as they fill (migration 0009).
            # SQLite makes it a plain index.
            BrinIndex(fields=["job"], name="itemoutcome_job"),
        ]

    def __str__(self) -> str:
        return f"{self.item.key}: {self.job.label_name(self.label)}"


class WorkerQuality(models.Model):
    """A worker's quality in one job, as of its latest aggregation."""

    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="worker_qualities")
    worker = models.ForeignKey(Worker, on_delete=models.CASCADE, related_name="qualities")
    run = models.ForeignKey(AggregationRun, on_delete=models.CASCADE, related_name="worker_qualities")
    responses = models.PositiveIntegerField(default=0)
    agreement = models.FloatField(null=True, blank=True, help_text="Agreement with the others' majority.")
    reliability = models.FloatField(null=True, blank=True, help_text="The label model's estimate.")
    # The label model's P(answer | true label), as {"labels": [...], "matrix": [[row per true label]]}.
    confusion = models.JSONField(default=dict, blank=True)
    gold_answered = models.PositiveIntegerField(default=0)
    gold_correct = models.PositiveIntegerField(default=0)
    flags = models.JSONField(default=list, blank=True)
    flagged = models.BooleanField(default=False, db_index=True)

    class Meta:
        ordering = ["job", "worker"]
        verbose_name_plural = "worker quality"
        constraints = [models.UniqueConstraint(fields=["job", "worker"], name="workerquality_unique")]

    def __str__(self) -> str:
        return f"{self.worker} in job {self.job_id}"

    @property
    def gold_accuracy(self) -> float | None:
        return self.gold_correct / self.gold_answered if self.gold_answered else None

    def confusion_rows(self) -> list[tuple[str, list[float]]]:
        """(true label, P(each given label)) rows of the confusion matrix, for display."""
        labels, matrix = self.confusion.get("labels", []), self.confusion.get("matrix", [])
        return list(zip(labels, matrix, strict=False))


class Adjudication(models.Model):
    """An expert's final label for an item, with the crowd's label it replaced: never edited, only added."""

    outcome = models.ForeignKey(ItemOutcome, on_delete=models.CASCADE, related_name="adjudications")
    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="adjudications")
    cluster = models.ForeignKey(
        PerspectiveCluster, null=True, blank=True, on_delete=models.SET_NULL, related_name="adjudications"
    )
    crowd_label = models.CharField(blank=True, help_text="The crowd's label on the rule's set.")
    old_label = models.CharField(blank=True, help_text="The label before this decision.")
    new_label = models.CharField(help_text="The expert's label, in the answer labels.")
    decided_label = models.CharField(blank=True, help_text="The expert's label on the rule's set.")
    old_status = models.CharField(max_length=16, blank=True)
    new_status = models.CharField(max_length=16)
    sampled = models.BooleanField(default=False, help_text="Part of the random accuracy sample.")
    note = models.TextField(blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="adjudications"
    )
    decided_at = models.DateTimeField()

    class Meta:
        ordering = ["-decided_at", "-pk"]

    def __str__(self) -> str:
        old = self.job.label_name(self.old_label) if self.old_label else "-"
        return f"{self.outcome.item.key}: {old} → {self.job.label_name(self.new_label)}"

    @property
    def crowd_agrees(self) -> bool:
        return self.crowd_label == self.decided_label
