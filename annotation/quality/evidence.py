"""What a worker's live estimate is made of: each answer they gave in a job, and what it was compared
with (the gold answer, or the current decision on its item), read in a few queries however much
they answered.

The current decision on an item is the job's label model's, as its last aggregation stored it (asked
of the aggregation app through `annotation.signals.label_decisions`: annotation does not import it).
An item the model has not decided (no aggregation yet, or answered since) is compared with the
majority of the other workers' answers on it, which is what majority vote decides without the worker.
Both are on the task type's decided labels (stance: five answers collapsed to three).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any, cast

from django.db.models import QuerySet

from annotation.models import Job, Response, ResponseOrigin
from annotation.quality.estimates import Evidence, decision_on
from annotation.signals import label_decisions
from annotation.task_types import get_task_type
from annotation.task_types.base import TaskTypeError
from annotation.task_types.rules import CategoricalRule

OTHERS = "the others' majority"


def evidence_of(job: Job, worker_id: int) -> tuple[Evidence, list[dict[str, Any]]]:
    """The worker's evidence in the job, and its rows: each item, their answer, what it was compared
    with (the gold answer, or the current decision) and by whom that was decided."""
    answered = Response.objects.filter(job=job, worker_id=worker_id)
    mine = list(
        answered.order_by("pk").values_list(
            "item_id", "item__key", "label", "is_gold", "correct", "item__known_answer"
        )
    )
    # The items they answered outside gold, as a subquery: no list of ids that grows with their work
    # sent back to the database on each submit.
    asked = answered.filter(is_gold=False).values("item_id")
    as_decided = decided_label(job.task_type)
    others = _others_labels(asked, worker_id, as_decided)
    model, decided = _model_decisions(job, asked)
    counts = {"gold_answered": 0, "gold_correct": 0, "compared": 0, "agreed": 0}
    rows = []
    for item, key, label, is_gold, correct, known in mine:
        against = known if is_gold else decision_on(item, others, decided)
        if against is None:
            continue
        right = bool(correct) if is_gold else as_decided(label) == against
        counts["gold_answered" if is_gold else "compared"] += 1
        counts["gold_correct" if is_gold else "agreed"] += right
        by = "gold answer" if is_gold else (model if item in decided else OTHERS)
        rows.append(
            {"item": key, "answer": label, "gold": is_gold, "against": against, "right": right, "by": by}
        )
    return Evidence(**counts), rows


def _others_labels(
    asked: QuerySet[Response, Any], worker_id: int, as_decided: Callable[[str], str]
) -> dict[int, list[str]]:
    """The other workers' labels on the items asked. A machine's label is no other worker's: never
    counted as a person's, it cannot help to stop one."""
    others: dict[int, list[str]] = defaultdict(list)
    for item, label in (
        Response.objects.filter(item_id__in=asked)
        .exclude(worker_id=worker_id)
        .exclude(origin=ResponseOrigin.MACHINE)
        .values_list("item_id", "label")
    ):
        others[item].append(as_decided(label))
    return others


def _model_decisions(job: Job, asked: QuerySet[Response, Any]) -> tuple[str, dict[int, str]]:
    """The label model's name and its current decisions on the items asked, from whoever answers."""
    model, decided = "", dict[int, str]()
    for _, response in label_decisions.send(sender=Job, job=job, items=asked):
        answer = cast(dict[str, Any], response)
        if answer:
            model = f"the label model ({answer['model']})"
            decided.update(answer["labels"])
    return model, decided


def decided_label(task_type: str) -> Callable[[str], str]:
    """A stored answer's label as the task type's rule decides on it (spelled, then collapsed); the
    label itself for a task type with no categorical rule."""
    try:
        rule = get_task_type(task_type).aggregation
    except TaskTypeError:
        rule = None
    if not isinstance(rule, CategoricalRule):
        return str
    spell, collapse = rule.spell, (rule.collapse.mapping if rule.collapse is not None else {})

    def as_decided(label: str) -> str:
        spelled = spell(label)
        return collapse.get(spelled, spelled)

    return as_decided
