"""The money ledger: one row for every call that creates work or moves money, written before the call.

A row's idempotency token is derived from what the call is about (annotation.ledger.tokens), so a
retry after a crash finds the same row and sends the same token. A row moves
requested → claimed → sent → confirmed | failed | unclear, each step a conditional UPDATE, so of any
number of concurrent deliveries exactly one claims the row and makes the call
(annotation.ledger.engine). Reconciliation (annotation.ledger.reconcile) compares rows with the market and
records every disagreement as a ReconciliationIssue.

Loaded by AnnotationConfig.import_models (annotation/apps.py) so Django sees the models; it imports
no model module itself.
"""

from __future__ import annotations

from decimal import Decimal

from django.db import models


def cents(amount: Decimal | int | str) -> int:
    """A money amount in whole cents, as the markets and reconciliation compare it."""
    return int((Decimal(amount) * 100).to_integral_value())


class LedgerKind(models.TextChoices):
    CREATE_HIT = "create_hit"
    EXTEND = "extend"  # more assignments on a HIT: more work, more money
    APPROVE = "approve"
    REJECT = "reject"
    BONUS = "bonus"
    PAY = "pay"  # Prolific's second bonus call: the one that moves the money, not idempotent


class LedgerState(models.TextChoices):
    REQUESTED = "requested"
    CLAIMED = "claimed"
    SENT = "sent"
    CONFIRMED = "confirmed"
    FAILED = "failed"
    UNCLEAR = "unclear"

    @classmethod
    def open(cls) -> list[str]:
        """Rows that still need a decision (the sweeper and the admin look at these)."""
        return [cls.REQUESTED, cls.CLAIMED, cls.SENT, cls.UNCLEAR]

    @classmethod
    def final(cls) -> list[str]:
        return [cls.CONFIRMED, cls.FAILED]


class LedgerEntry(models.Model):
    """One intended market call and what became of it."""

    kind = models.CharField(max_length=16, choices=LedgerKind.choices)
    provider = models.CharField(max_length=32)
    job = models.ForeignKey(
        "annotation.Job", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    hit = models.ForeignKey(
        "annotation.Hit", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    assignment = models.ForeignKey(
        "annotation.Assignment", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    # The market's id of what the call acts on (assignment, HIT, submission, bulk bonus payment).
    market_ref = models.CharField(max_length=128, blank=True, db_index=True)
    worker_ref = models.CharField(max_length=128, blank=True)
    # What the market returned (a new HIT's id, a bulk bonus payment's id).
    result_ref = models.CharField(max_length=128, blank=True)
    amount = models.DecimalField(max_digits=10, decimal_places=2, default=Decimal("0.00"))
    currency = models.CharField(max_length=3, default="USD")
    # The market sees `token`; `intent` names what the call is about, the same for every attempt.
    # A retry after a failure is a new attempt (a new row and token); the failed row stays as history.
    token = models.CharField(max_length=64, unique=True)
    intent = models.CharField(max_length=64, db_index=True)
    attempt = models.PositiveSmallIntegerField(default=1)
    # What was asked (amount, currency, refs, parameters), hashed: the same intent asked with other
    # values is refused (annotation.ledger.intents.IdempotencyConflictError), never merged.
    fingerprint = models.CharField(max_length=64, blank=True)
    state = models.CharField(
        max_length=16, choices=LedgerState.choices, default=LedgerState.REQUESTED, db_index=True
    )
    attempts = models.PositiveSmallIntegerField(default=0)
    # Everything else the call needs (feedback, reason, HIT spec, the bonus snapshot before paying).
    params = models.JSONField(default=dict, blank=True)
    response_excerpt = models.TextField(blank=True)
    error = models.CharField(max_length=500, blank=True)
    requested_at = models.DateTimeField(auto_now_add=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    updated = models.DateTimeField(auto_now=True, db_index=True)

    class Meta:
        ordering = ["-requested_at", "-id"]
        verbose_name_plural = "ledger entries"
        indexes = [models.Index(fields=["job", "kind"], name="ledger_job_kind")]
        constraints = [
            models.CheckConstraint(condition=models.Q(amount__gte=0), name="ledger_amount_not_negative"),
            models.UniqueConstraint(fields=["intent", "attempt"], name="ledger_one_row_per_attempt"),
        ]

    def __str__(self) -> str:
        money = f" {self.amount} {self.currency}" if self.amount else ""
        return f"{self.provider} {self.kind}{money} [{self.state}]"


class IssueKind(models.TextChoices):
    STATE = "state", "assignment state differs"
    APPROVAL = "approval", "approval or rejection differs"
    BONUS = "bonus", "bonus payments differ"
    HIT = "hit", "HIT differs"
    OPEN_ENTRY = "open_entry", "ledger row still open"
    UNKNOWN = "unknown", "work the market does not know"
    UNOWNED = "unowned", "at the market, owned by no job of ours"


class ReconciliationIssue(models.Model):
    """One disagreement between our records and the market, found by a reconciliation run."""

    job = models.ForeignKey(
        "annotation.Job", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    provider = models.CharField(max_length=32)
    kind = models.CharField(max_length=16, choices=IssueKind.choices)
    ref = models.CharField(max_length=128, help_text="The market's id of the thing that differs.")
    ours = models.CharField(max_length=300, blank=True)
    theirs = models.CharField(max_length=300, blank=True)
    entry = models.ForeignKey(
        LedgerEntry, null=True, blank=True, on_delete=models.SET_NULL, related_name="issues"
    )
    found_at = models.DateTimeField(auto_now_add=True)
    resolved = models.BooleanField(default=False)

    class Meta:
        ordering = ["resolved", "-found_at"]

    def __str__(self) -> str:
        return f"{self.provider} {self.kind} {self.ref}: ours {self.ours!r}, theirs {self.theirs!r}"
