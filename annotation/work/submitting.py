"""A worker's submission: every answer of an assignment saved in one transaction, once."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from annotation.models import Assignment, AssignmentState, Item, Response, ResponseOrigin, Worker
from annotation.quality import services as quality
from annotation.task_types import get_task_type
from annotation.task_types.base import Answer
from annotation.work import rows
from annotation.work.assignments import AnswerError, AssignmentStateError, items_of
from annotation.work.settling import settle_job


def submit_assignment(
    assignment_id: int,
    answers: Mapping[int, Answer],
    items: Sequence[Item] | None = None,
    *,
    read: Assignment | None = None,
) -> Assignment:
    """Save every answer of an assignment in one transaction; a second submit changes nothing.

    `items`: the assignment's items when the caller has read them (a HIT's items never change).
    `read`: the assignment as the caller read it in this request, job joined: its row is then locked
    and what can change since (state, confirmed) read again, not the whole row with its joins."""
    with transaction.atomic():
        assignment = _locked(assignment_id, read)
        if assignment.state in AssignmentState.done():
            return assignment
        if assignment.state != AssignmentState.ACCEPTED:
            raise AssignmentStateError(
                f"this assignment was {assignment.state}; its work can no longer be saved"
            )
        if items is None:
            items = items_of(assignment)
        for item in items:
            item.job = assignment.job
        if {item.pk for item in items} != set(answers):
            raise AnswerError("a submission must answer exactly the items of its HIT")
        _store_responses(assignment, items, answers)
        now = timezone.now()
        assignment.state, assignment.submitted_at = AssignmentState.SUBMITTED, now
        assignment.work_seconds = (now - assignment.accepted_at).total_seconds()
        # Not save(): the ORM's CPU on every submitted page, for three columns.
        rows.update(assignment, ["state", "submitted_at", "work_seconds"])
    if assignment.confirmed:  # work the market has yet to confirm counts as done only when it does
        settle_job(assignment.job_id)
    if quality.policy_of(assignment.job).live:
        quality.check_after_submit(assignment)
    return assignment


def _locked(assignment_id: int, read: Assignment | None) -> Assignment:
    """The assignment's row locked for this transaction: read whole, or `read` brought up to date."""
    if read is None or read.pk != assignment_id:
        return Assignment.objects.select_for_update().select_related("job", "worker").get(pk=assignment_id)
    (locked,) = rows.select(Assignment, {"id": assignment_id}, lock=True)
    read.state, read.confirmed = locked.state, locked.confirmed
    return read


def _store_responses(assignment: Assignment, items: Sequence[Item], answers: Mapping[int, Answer]) -> None:
    definition = get_task_type(assignment.job.task_type)
    chosen = [answers[item.pk] for item in items]
    correct = [
        bool(definition.is_correct(item, answer)) if item.is_gold else None
        for item, answer in zip(items, chosen, strict=True)
    ]
    if connection.vendor == "postgresql":
        _insert_responses(assignment, items, chosen, correct)
    else:
        now = timezone.now()
        Response.objects.bulk_create(
            Response(
                job_id=assignment.job_id,
                item_id=item.pk,
                worker_id=assignment.worker_id,
                assignment_id=assignment.pk,
                label=answer.label,
                value=answer.value,
                is_gold=item.is_gold,
                correct=right,
                simulated=assignment.simulated,
                created=now,
            )
            for item, answer, right in zip(items, chosen, correct, strict=True)
        )
    gold = [right for item, right in zip(items, correct, strict=True) if item.is_gold]
    if gold:
        Worker.objects.filter(pk=assignment.worker_id).update(
            gold_answered=F("gold_answered") + len(gold),
            gold_correct=F("gold_correct") + sum(1 for right in gold if right),
        )


def _insert_responses(
    assignment: Assignment, items: Sequence[Item], chosen: Sequence[Answer], correct: Sequence[bool | None]
) -> None:
    """A response row per item in one INSERT … SELECT over arrays, in the items' order: no model object
    per row (fifty of them, each field prepared one by one, were a third of a submit's CPU). A JSON
    `value` is stored as the model's field stores it; None as SQL NULL."""
    values = [None if answer.value is None else json.dumps(answer.value) for answer in chosen]
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {Response._meta.db_table} (job_id, item_id, worker_id, assignment_id, label, "
            "value, is_gold, correct, simulated, created, origin) "
            "SELECT %s, item_id, %s, %s, label, value::jsonb, is_gold, correct, %s, %s, %s "
            "FROM unnest(%s::bigint[], %s::text[], %s::text[], %s::boolean[], %s::boolean[]) "
            "WITH ORDINALITY AS answered(item_id, label, value, is_gold, correct, n) ORDER BY n",
            [
                # The row's own columns, in the INSERT's order …
                assignment.job_id,
                assignment.worker_id,
                assignment.pk,
                assignment.simulated,
                timezone.now(),
                ResponseOrigin.CROWD,
                # … then the arrays unnest() reads a row per item from, in the items' order.
                [item.pk for item in items],
                [answer.label for answer in chosen],
                values,
                [item.is_gold for item in items],
                list(correct),
            ],
        )
