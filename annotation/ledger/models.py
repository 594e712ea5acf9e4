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

from collections.abc import Mapping
from decimal import Decimal
from enum import StrEnum

from django.db import models

# The vocabularies a market reads and answers in are the market interface's; the ledger stores them.
from annotation.market_interface.money import IssueKind, RowKind, RowState, cents  # noqa: F401


def labelled(kinds: type[StrEnum], labels: Mapping[str, str] | None = None) -> list[tuple[str, str]]:
    """Field choices for one of the market interface's vocabularies, labelled as Django labels its own."""
    labels = labels or {}
    return [(kind.value, labels.get(kind, kind.name.replace("_", " ").title())) for kind in kinds]


class LedgerEntry(models.Model):
    """One intended market call and what became of it."""

    kind = models.CharField(max_length=16, choices=labelled(RowKind))
    market = models.CharField(max_length=32)
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
        max_length=16, choices=labelled(RowState), default=RowState.REQUESTED, db_index=True
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
        return f"{self.market} {self.kind}{money} [{self.state}]"


ISSUE_LABELS: dict[str, str] = {
    IssueKind.STATE: "assignment state differs",
    IssueKind.APPROVAL: "approval or rejection differs",
    IssueKind.BONUS: "bonus payments differ",
    IssueKind.HIT: "HIT differs",
    IssueKind.OPEN_ENTRY: "ledger row still open",
    IssueKind.UNKNOWN: "work the market does not know",
    IssueKind.UNOWNED: "at the market, owned by no job of ours",
}


class ReconciliationIssue(models.Model):
    """One disagreement between our records and the market, found by a reconciliation run."""

    job = models.ForeignKey(
        "annotation.Job", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    market = models.CharField(max_length=32)
    kind = models.CharField(max_length=16, choices=labelled(IssueKind, ISSUE_LABELS))
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
        return f"{self.market} {self.kind} {self.ref}: ours {self.ours!r}, theirs {self.theirs!r}"
