"""Where the task page's records of writing meet the database: one row per free-text field of a
submitted answer, flagged or not, and a person's acceptance of a flagged one."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from django import forms
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from accounts import audit
from accounts.models import AuditEvent
from annotation.models import Assignment, Item, Job, Response
from annotation.quality.models import WritingRecord
from annotation.quality.writing import WritingSignals, WritingSignalsError, judge
from annotation.task_types.base import TaskType

# The prefix of the hidden field in which the page sends a text field's record (annotation/writing.html).
PREFIX = "writing-"
MAX_RECORD_CHARS = 2000
NO_RECORD = "the page sent no record of how it was written"


def free_text_names(
    task_type: TaskType, job: Job, names: Mapping[int, Mapping[str, str]], items: Sequence[Item]
) -> dict[int, list[str]]:
    """The form names of each item's free-text fields (a text box or a text area); none where the page
    runs under a policy of its own (an untrusted MTurk template runs no script, so records nothing)."""
    if task_type.content_security_policy(job) is not None:
        return {}
    found: dict[int, list[str]] = {}
    for item in items:
        fields = task_type.fields(item)
        texts = [
            names[item.pk][suffix]
            for suffix, field in fields.items()
            if isinstance(field.widget, forms.Textarea | forms.TextInput) and suffix in names[item.pk]
        ]
        if texts:
            found[item.pk] = texts
    return found


def record_writing(assignment: Assignment, texts: Mapping[int, list[str]], posted: Mapping[str, Any]) -> int:
    """Store how each free-text field of the assignment's answers was written; how many were flagged.
    A record that is missing or not the page's is kept as such and flagged: the answer then waits for
    a person, it is not lost."""
    if not texts:
        return 0  # no free text on the page: nothing read, nothing written
    responses = dict(Response.objects.filter(assignment=assignment).values_list("item_id", "pk"))
    rows = []
    for item_id, names in texts.items():
        for name in names:
            signals, reasons = _read(posted.get(PREFIX + name), str(posted.get(name, "")))
            rows.append(
                WritingRecord(
                    response_id=responses[item_id],
                    field=name,
                    signals=signals,
                    flagged=bool(reasons),
                    reasons=reasons,
                )
            )
    WritingRecord.objects.bulk_create(rows, ignore_conflicts=True)  # a second submit records nothing new
    return sum(1 for row in rows if row.flagged)


def _read(raw: Any, text: str) -> tuple[dict[str, int], list[str]]:
    if not raw or len(str(raw)) > MAX_RECORD_CHARS:
        return {}, [NO_RECORD] if text.strip() else []
    try:
        signals = WritingSignals.from_mapping(json.loads(str(raw)))
    except (ValueError, WritingSignalsError) as error:  # json's errors are ValueErrors
        return {}, [f"{NO_RECORD} ({error})"]
    return signals.as_dict(), judge(signals, text)


def held_responses() -> QuerySet[WritingRecord]:
    """Records that keep their answer out of the corpus: flagged and not accepted."""
    return WritingRecord.objects.filter(flagged=True, accepted_at__isnull=True)


def accept_writing(record_ids: Sequence[int], user: Any) -> int:
    """A person accepts flagged answers into the corpus (the caller checks `accept_writingrecord`)."""
    with transaction.atomic():
        chosen = held_responses().filter(pk__in=record_ids)
        accepted = sorted(chosen.values_list("pk", flat=True))
        chosen.update(accepted_at=timezone.now(), accepted_by=user)
        if accepted:
            audit.record(
                user, AuditEvent.Action.WRITING_ACCEPTED, f"{len(accepted)} answer field(s)", records=accepted
            )
    return len(accepted)
