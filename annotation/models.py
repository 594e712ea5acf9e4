"""Crowd work: jobs over items, bundled into HITs, done by workers as assignments, answered as responses.

Two rules live in the database so they hold under concurrent requests:
- a worker never gets the same item twice in a job: `WorkerItem` is unique on (item, worker), and a
  row is written for every item of an assignment when it is handed out;
- the writer of a paraphrase never verifies it: the author's `WorkerItem` row is written when the
  verification job is created (reason "authored"), so the same constraint keeps the item from them.

Responses are stored one row per (item, worker) with the job denormalised, so the long-format
(item, worker, label) rows that aggregation reads come out of one query (`services.long_format`).
"""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.db import models
from django.db.models import Q

from corpus.models import Claim, Evidence, Perspective, PerspectiveCluster


class JobState(models.TextChoices):
    DRAFT = "draft"
    PUBLISHED = "published"
    COLLECTING = "collecting"
    PAUSED = "paused"
    COMPLETE = "complete"
    CANCELLED = "cancelled"

    @classmethod
    def open(cls) -> list[str]:
        """States in which workers are handed work."""
        return [cls.PUBLISHED, cls.COLLECTING]

    @classmethod
    def finished(cls) -> list[str]:
        return [cls.COMPLETE, cls.CANCELLED]


class AssignmentState(models.TextChoices):
    ACCEPTED = "accepted"
    SUBMITTED = "submitted"
    APPROVED = "approved"
    REJECTED = "rejected"
    RETURNED = "returned"
    EXPIRED = "expired"

    @classmethod
    def done(cls) -> list[str]:
        """Work that counts toward a HIT's assignments."""
        return [cls.SUBMITTED, cls.APPROVED, cls.REJECTED]

    @classmethod
    def payable(cls) -> list[str]:
        return [cls.SUBMITTED, cls.APPROVED]

    @classmethod
    def holding(cls) -> list[str]:
        """States that hold a slot of the HIT."""
        return [cls.ACCEPTED, cls.SUBMITTED, cls.APPROVED]


class WorkerItemReason(models.TextChoices):
    ASSIGNED = "assigned"
    AUTHORED = "authored"
    # A gold item added to one assignment by the job's adaptive gold schedule (in no HIT of its own).
    GOLD = "gold"


def task_type_name(slug: str) -> str:
    """A task type's name as a person reads it ("Evidence verification"), not its slug."""
    from annotation.task_types import get_task_type  # task types import these models
    from annotation.task_types.base import TaskTypeError

    try:
        return get_task_type(slug).name
    except TaskTypeError:  # a task type no longer installed: its slug in words
        return slug.replace("_", " ")


class Job(models.Model):
    """One run of a task type over a set of items, with its own parameters, budget and market."""

    name = models.CharField(max_length=200, blank=True)
    task_type = models.CharField(max_length=64, db_index=True)
    market = models.CharField(max_length=32, default="inhouse")
    state = models.CharField(max_length=16, choices=JobState.choices, default=JobState.DRAFT, db_index=True)
    # The task type's defaults merged with the researcher's overrides, frozen at creation.
    params = models.JSONField(default=dict, blank=True)
    filters = models.JSONField(default=dict, blank=True, help_text="How the items were chosen.")
    workers_per_item = models.PositiveSmallIntegerField(default=3)
    reward = models.DecimalField(max_digits=8, decimal_places=2, default=Decimal("0.00"))
    budget = models.DecimalField(max_digits=10, decimal_places=2, null=True, blank=True)
    # The one currency of the job's money, fixed at creation: every ledger row of the job uses it.
    currency = models.CharField(max_length=3, blank=True)
    # The market's own status of the job's work, as the last sync read it, and why (a pause by Prolific).
    market_status = models.CharField(max_length=32, blank=True)
    market_note = models.CharField(max_length=300, blank=True)
    # The market's id of the job's own blocklist of workers stopped in it (MTurk: a qualification type,
    # Prolific: a participant group); empty where it keeps none (annotation.work.blocklists).
    market_blocklist = models.CharField(max_length=100, blank=True)
    teams = models.ManyToManyField(
        "accounts.Team",
        blank=True,
        related_name="jobs",
        help_text="In-house jobs: only these teams' members see it; no team: every annotator.",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)
    published_at = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created"]
        permissions = [("spend_money", "Can spend money: publish, extend, expire, approve, reject, bonus")]

    def __str__(self) -> str:
        return f"job {self.pk} {self.task_type_name} ({self.state})"

    @property
    def task_type_name(self) -> str:
        """The task type's name as a person reads it ("Evidence verification"), not its slug."""
        return task_type_name(self.task_type)

    def label_name(self, code: str) -> str:
        """A label code of this job by the name its task type gives it ("Not supported")."""
        from annotation.task_types import get_task_type
        from annotation.task_types.base import TaskTypeError

        try:
            return get_task_type(self.task_type).label_name(code)
        except TaskTypeError:
            return code.replace("_", " ").capitalize() if code else "No majority"


class Item(models.Model):
    """One thing a worker answers about, with what was shown to them frozen in `payload`."""

    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="items")
    key = models.CharField(max_length=200, help_text="The task type's stable name for the item.")
    group = models.CharField(max_length=200, help_text="Items of a group are bundled together.")
    claim = models.ForeignKey(Claim, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    perspective = models.ForeignKey(
        Perspective, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    cluster = models.ForeignKey(
        PerspectiveCluster, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    evidence = models.ForeignKey(Evidence, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    payload = models.JSONField(default=dict)
    is_gold = models.BooleanField(default=False)
    # The known answer: the gold answer for gold items; the label a simulated crowd answers from.
    known_answer = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["job", "id"]
        constraints = [models.UniqueConstraint(fields=["job", "key"], name="item_key_unique")]

    def __str__(self) -> str:
        return f"{self.key}{' (gold)' if self.is_gold else ''}"


class Hit(models.Model):
    """A bundle of items, done by `assignments_wanted` distinct workers: our unit of work on every market.

    The name is MTurk's, where each Hit is advertised as its own HIT (`external_id` is the HITId). At
    Prolific a whole job is advertised as one study: every Hit of the job carries that study's id as
    its `external_id`, and a worker's session (an Assignment) is handed one Hit of it by our pages.
    In-house and simulated Hits are never advertised; their `external_id` is only our own name for them.
    """

    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="hits")
    position = models.PositiveIntegerField()
    items: models.ManyToManyField[Item, HitItem] = models.ManyToManyField(
        Item, through="HitItem", related_name="hits"
    )
    assignments_wanted = models.PositiveSmallIntegerField()
    reward = models.DecimalField(max_digits=8, decimal_places=2)
    external_id = models.CharField(max_length=128, blank=True, db_index=True)
    published_at = models.DateTimeField(null=True, blank=True)
    expired = models.BooleanField(default=False)

    class Meta:
        ordering = ["job", "position"]
        verbose_name = "HIT"
        constraints = [models.UniqueConstraint(fields=["job", "position"], name="hit_position_unique")]

    def __str__(self) -> str:
        return f"HIT {self.position} of job {self.job_id}"

    def ordered_items(self) -> list[Item]:
        """The HIT's items in their places, each with its job (forms and task types read it). The
        worker pages read them with the job they already hold (`annotation.work.rows.hit_items`)."""
        return [hit_item.item for hit_item in self.hit_items.select_related("item", "item__job")]


class HitItem(models.Model):
    hit = models.ForeignKey(Hit, on_delete=models.CASCADE, related_name="hit_items")
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="hit_items")
    position = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["hit", "position"]
        constraints = [
            models.UniqueConstraint(fields=["hit", "item"], name="hititem_unique"),
            models.UniqueConstraint(fields=["hit", "position"], name="hititem_position_unique"),
        ]

    def __str__(self) -> str:
        return f"item {self.item_id} in HIT {self.hit_id}"


class Worker(models.Model):
    """A person (or a modelled one) on one market. `external_id` never leaves the operational DB."""

    market = models.CharField(max_length=32)
    external_id = models.CharField(max_length=128)
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="annotator"
    )
    simulated = models.BooleanField(default=False)
    # The simulated worker's model (accuracy, bias, spammer); empty for people.
    model = models.JSONField(default=dict, blank=True)
    blocked = models.BooleanField(default=False)
    blocked_reason = models.CharField(max_length=200, blank=True)
    gold_answered = models.PositiveIntegerField(default=0)
    gold_correct = models.PositiveIntegerField(default=0)
    # The keyed pseudonym (annotation.work.records.worker_pseudonym), stored so a worker named by it is
    # found through the index; set when the worker is saved first (None while no key is configured).
    pseudonym = models.CharField(max_length=32, null=True, blank=True, unique=True, editable=False)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["market", "external_id"]
        constraints = [models.UniqueConstraint(fields=["market", "external_id"], name="worker_unique")]

    def __str__(self) -> str:
        return f"{self.market} worker {self.pk}"

    @property
    def gold_accuracy(self) -> float | None:
        return self.gold_correct / self.gold_answered if self.gold_answered else None


class Qualification(models.Model):
    """A worker's result on a task type's qualification quiz."""

    worker = models.ForeignKey(Worker, on_delete=models.CASCADE, related_name="qualifications")
    task_type = models.CharField(max_length=64)
    passed = models.BooleanField()
    score = models.FloatField()
    attempts = models.PositiveSmallIntegerField(default=1)
    answers = models.JSONField(default=dict, blank=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["worker", "task_type"]
        constraints = [models.UniqueConstraint(fields=["worker", "task_type"], name="qualification_unique")]

    def __str__(self) -> str:
        return f"{self.worker} {task_type_name(self.task_type)}: {'passed' if self.passed else 'failed'}"


class Assignment(models.Model):
    """One worker doing one HIT. Times are the server's."""

    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="assignments")
    hit = models.ForeignKey(Hit, on_delete=models.CASCADE, related_name="assignments")
    worker = models.ForeignKey(Worker, on_delete=models.PROTECT, related_name="assignments")
    state = models.CharField(
        max_length=16, choices=AssignmentState.choices, default=AssignmentState.ACCEPTED, db_index=True
    )
    external_id = models.CharField(max_length=128, blank=True, db_index=True)
    simulated = models.BooleanField(default=False)
    accepted_at = models.DateTimeField()
    submitted_at = models.DateTimeField(null=True, blank=True)
    work_seconds = models.FloatField(null=True, blank=True)
    reviewed_at = models.DateTimeField(null=True, blank=True)
    feedback = models.CharField(max_length=500, blank=True)
    # Market work counts (HIT slots, completion, aggregation) only once the market has confirmed it
    # as this worker's on this HIT: `next_assignment` takes it unconfirmed for markets whose
    # capabilities say they confirm work; our own workers' (in-house, simulated) counts when taken.
    confirmed = models.BooleanField(default=True, db_index=True)

    class Meta:
        ordering = ["hit", "accepted_at"]
        constraints = [
            models.UniqueConstraint(fields=["hit", "worker"], name="assignment_unique"),
            # A market's assignment id names one assignment, bound to its worker on first sight.
            models.UniqueConstraint(
                fields=["job", "external_id"],
                condition=~Q(external_id=""),
                name="assignment_external_id_once",
            ),
            # "Start working" twice (a double click, 20 parallel POSTs) still opens one assignment.
            models.UniqueConstraint(
                fields=["job", "worker"],
                condition=Q(state=AssignmentState.ACCEPTED),
                name="assignment_one_open_per_worker",
            ),
        ]

    def __str__(self) -> str:
        return f"assignment {self.pk} ({self.state})"

    @classmethod
    def counted(cls) -> Q:
        """Work whose answers count: submitted or approved, and confirmed by its market."""
        return Q(state__in=AssignmentState.payable(), confirmed=True)


class WorkerItem(models.Model):
    """The database's guard for "a worker never gets the same item twice in a job"."""

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="worker_items")
    worker = models.ForeignKey(Worker, on_delete=models.CASCADE, related_name="worker_items")
    assignment = models.ForeignKey(
        Assignment, null=True, blank=True, on_delete=models.CASCADE, related_name="worker_items"
    )
    reason = models.CharField(max_length=16, choices=WorkerItemReason.choices)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["item", "worker"], name="workeritem_unique"),
            models.CheckConstraint(
                condition=Q(reason=WorkerItemReason.AUTHORED) | Q(assignment__isnull=False),
                name="workeritem_assigned_has_assignment",
            ),
        ]

    def __str__(self) -> str:
        return f"worker {self.worker_id} {self.reason} item {self.item_id}"


class ResponseOrigin(models.TextChoices):
    """Who gave an answer: the crowd (through a market), a machine annotator, or an expert."""

    CROWD = "crowd", "Crowd"
    MACHINE = "machine", "Machine"
    EXPERT = "expert", "Expert"


class Response(models.Model):
    """A worker's answer to one item: `label` for categorical answers, `value` for anything richer.
    A machine's answer has no assignment: it was never handed out, and is never paid."""

    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="responses")
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="responses")
    worker = models.ForeignKey(Worker, on_delete=models.PROTECT, related_name="responses")
    assignment = models.ForeignKey(
        Assignment, null=True, blank=True, on_delete=models.CASCADE, related_name="responses"
    )
    origin = models.CharField(max_length=16, choices=ResponseOrigin.choices, default=ResponseOrigin.CROWD)
    # No length cap: a multi-label answer is its labels joined (all 18 PERSPECTRUM topics: 228 characters).
    label = models.CharField(blank=True, db_index=True)
    value = models.JSONField(null=True, blank=True)
    is_gold = models.BooleanField(default=False)
    correct = models.BooleanField(null=True, blank=True, help_text="Against the gold answer.")
    simulated = models.BooleanField(default=False)
    created = models.DateTimeField()

    class Meta:
        ordering = ["item", "worker"]
        constraints = [
            models.UniqueConstraint(fields=["item", "worker"], name="response_unique"),
            # Only a machine answers without an assignment, and a machine never has one.
            models.CheckConstraint(
                condition=Q(origin="machine", assignment__isnull=True)
                | (~Q(origin="machine") & Q(assignment__isnull=False)),
                name="response_assignment_unless_machine",
            ),
        ]
        indexes = [models.Index(fields=["job", "item"], name="response_job_item")]

    def __str__(self) -> str:
        answer = self.job.label_name(self.label) if self.label else "an answer"
        return f"{self.worker} on {self.item}: {answer}"


class Authorship(models.Model):
    """Which worker wrote a paraphrase, so the writer never verifies it."""

    perspective = models.OneToOneField(Perspective, on_delete=models.CASCADE, related_name="authorship")
    worker = models.ForeignKey(Worker, on_delete=models.PROTECT, related_name="authored")
    response = models.ForeignKey(Response, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    def __str__(self) -> str:
        return f"p{self.perspective_id} written by {self.worker}"


# Rows kept in modules of their own, registered with this app: the live quality checks' and the
# researchers' MTurk templates.
from annotation.mturk_templates.models import MTurkBatch, MTurkTemplate  # noqa: E402, F401
from annotation.quality.models import QualityCheck, WorkerStop, WritingRecord  # noqa: E402, F401
