"""A categorical aggregation's outcome as columns, one entry per item, and the decisions the corpus
is told: labels, counts and reasons stay codes in numpy until the server has them, so a million
items never become a million Python objects."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from django.db.models import Q

from aggregation.label_models import Aggregate
from aggregation.policy import contest_reason_masks
from aggregation.rules import AgreementRule, RuleOutcome
from annotation.models import Item, Job
from annotation.task_types.base import TaskType
from annotation.task_types.decisions import Decision
from annotation.task_types.rules import CategoricalRule

# A label model's posterior summed over the responses in another order (the server returns them in
# no set order) differs in the last bits: not a change worth rewriting a row for.
POSTERIOR_TOLERANCE = 1e-9


@dataclass(frozen=True)
class OutcomeColumns:
    """One entry per item, in ``items`` order (ascending ids). Labels are codes: ``labels``,
    ``model_labels`` and ``reference`` of the rule's label set, ``fine_labels`` of the answers'; −1 is
    no majority (no reference, for ``reference``). ``reasons`` is a mask of policy.REASONS."""

    rule: AgreementRule
    items: npt.NDArray[np.int64]
    counts: npt.NDArray[np.int64]
    labels: npt.NDArray[np.intp]
    fine_labels: npt.NDArray[np.intp]
    model_labels: npt.NDArray[np.intp]
    reference: npt.NDArray[np.intp]
    agreement: npt.NDArray[np.float64]
    confidence: npt.NDArray[np.float64]
    kept: npt.NDArray[np.bool_]
    reasons: npt.NDArray[np.int16]

    def __len__(self) -> int:
        return len(self.items)


def outcome_columns(
    outcome: RuleOutcome,
    fitted: Aggregate,
    reference: npt.NDArray[np.intp],
    min_posterior: float | None,
    decided_on: npt.NDArray[np.float64] | None = None,
) -> OutcomeColumns:
    """The columns to write; ``reference``: of the outcome's items, as ``reference_codes`` finds them.
    ``min_posterior``: the model decides, and items whose ``decided_on`` (the posteriors the decision
    reads, calibrated where people's answers allow: aggregation.posterior_decisions; the raw ones by
    default) is below it are contested (None: the rule decides). The raw posterior is written."""
    rule, confidence = outcome.rule, fitted.probabilities.max(axis=1)
    items = np.asarray(outcome.items, dtype=np.int64)
    read = confidence if decided_on is None else decided_on
    unsure = None if min_posterior is None else read < min_posterior
    reasons = contest_reason_masks(rule, outcome.agreement, outcome.labels, fitted.labels, reference, unsure)
    return OutcomeColumns(
        rule,
        items,
        outcome.counts,
        outcome.labels,
        outcome.fine_labels,
        fitted.labels,
        reference,
        outcome.agreement,
        confidence,
        outcome.kept,
        reasons,
    )


def reference_codes(
    job: Job,
    items: npt.NDArray[np.integer[Any]],
    task_type: TaskType,
    declared: CategoricalRule,
    rule: AgreementRule,
) -> npt.NDArray[np.intp]:
    """The gold answer on the rule's label set per item: a gold item's known answer, else the task
    type's reference answer (stance: the side the debate site put the point on); −1 when none."""
    job_items = Item.objects.filter(job=job)
    answers = dict(task_type.reference_answers(job_items))
    gold = job_items.filter(is_gold=True).values_list("pk", "known_answer")
    answers.update({pk: known for pk, known in gold if isinstance(known, str)})
    codes = np.full(len(items), -1, dtype=np.intp)
    for pk, answer in answers.items():
        position = int(np.searchsorted(items, pk))
        if position < len(items) and items[position] == pk:
            codes[position] = _reference_code(answer, declared, rule)
    return codes


def _reference_code(answer: str, declared: CategoricalRule, rule: AgreementRule) -> int:
    answer = declared.spell(answer)
    if rule.collapse is not None and answer in rule.collapse.mapping:
        answer = rule.collapse.mapping[answer]
    return rule.label_set.code(answer) if answer in rule.label_set.labels else -1


def decisions_to_write_back(columns: OutcomeColumns, job: Job, adjudicated: set[int]) -> list[Decision]:
    """A decision for each item that links a corpus row, is not gold and no expert adjudicated: an item
    linking nothing has nothing to write back (a million such items make no Python objects)."""
    rule = columns.rule
    linked = (
        Item.objects.filter(job=job, is_gold=False)
        .filter(
            Q(cluster__isnull=False)
            | Q(perspective__isnull=False)
            | Q(evidence__isnull=False)
            | Q(claim__isnull=False)
        )
        .values_list("pk", "cluster_id", "perspective_id", "evidence_id", "claim_id")
        .order_by("pk")
    )
    decisions = []
    for pk, cluster, perspective, evidence, claim in linked:
        position = int(np.searchsorted(columns.items, pk))
        if pk in adjudicated or position == len(columns) or columns.items[position] != pk:
            continue
        agreement = float(columns.agreement[position])
        decisions.append(
            Decision(
                item_id=pk,
                label=rule.label_set.name_of(int(columns.labels[position])),
                fine_label=rule.answer_set.name_of(int(columns.fine_labels[position])),
                counts=columns.counts[position].tolist(),
                agreement=None if np.isnan(agreement) else agreement,
                kept=bool(columns.kept[position]),
                cluster_id=cluster,
                perspective_id=perspective,
                evidence_id=evidence,
                claim_id=claim,
            )
        )
    return decisions
