"""A categorical aggregation's item outcomes, written set-wise, and the decisions the corpus is told.

The outcome of every item is a set of columns (:class:`OutcomeColumns`). On PostgreSQL they reach a
temporary table by binary COPY, and ``ItemOutcome`` from there in four statements: count what changed,
update the rows experts adjudicated (kept, with the crowd's new figures beside the expert's
decision), delete the others and insert … select the rest; the server spells the labels, counts and
reasons. A million items never become a million Python objects. Elsewhere (SQLite, whose jobs are
small) the same columns are written through the ORM. Either way an outcome an expert adjudicated is
never deleted, the random-sample marks stay, and an adjudicated item's corpus row is left as the
expert set it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from django.db import connection
from django.db.models import Q

from aggregation.copying import encoded
from aggregation.label_models import Aggregate
from aggregation.labels import NO_MAJORITY_LABEL
from aggregation.models import Adjudication, ItemOutcome
from aggregation.policy import REASONS, contest_reason_masks, reasons_of
from aggregation.rules import KEPT, REJECTED, AgreementRule, RuleOutcome
from annotation.models import Item, Job
from annotation.task_types.base import TaskType
from annotation.task_types.decisions import Decision
from annotation.task_types.rules import CategoricalRule

STAGE = "aggregation_outcome_stage"


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


@dataclass(frozen=True)
class Stored:
    adjudicated: set[int]  # items whose outcome carries an expert's adjudication
    changed: int  # items whose written label or status differ from the last run's


def outcome_columns(
    job: Job,
    outcome: RuleOutcome,
    fitted: Aggregate,
    task_type: TaskType,
    declared: CategoricalRule,
    min_posterior: float | None,
) -> OutcomeColumns:
    """The columns to write. ``min_posterior``: the model decides, and items below it are contested."""
    rule, confidence = outcome.rule, fitted.probabilities.max(axis=1)
    items = np.asarray(outcome.items, dtype=np.int64)
    reference = reference_codes(job, items, task_type, declared, rule)
    unsure = None if min_posterior is None else confidence < min_posterior
    reasons = contest_reason_masks(rule, outcome.agreement, outcome.labels, fitted.labels, reference, unsure)
    return OutcomeColumns(
        rule, items, outcome.counts, outcome.labels, outcome.fine_labels, fitted.labels, reference,
        outcome.agreement, confidence, outcome.kept, reasons,
    )  # fmt: skip


def reference_codes(
    job: Job,
    items: npt.NDArray[np.int64],
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


def store_outcomes(job: Job, run: Any, columns: OutcomeColumns) -> Stored:
    """Replace the job's outcomes with these, keeping the rows experts adjudicated (updated in place)."""
    adjudicated = set(
        ItemOutcome.objects.filter(job=job, adjudications__isnull=False).values_list("item_id", flat=True)
    )
    if connection.vendor == "postgresql":
        changed = _store_by_copy(job, run, columns)
    else:
        changed = _store_by_orm(job, run, columns, adjudicated)
    return Stored(adjudicated, changed)


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


def _stage_columns(columns: OutcomeColumns) -> tuple[list[tuple[str, str]], dict[str, npt.ArrayLike]]:
    counts = [(f"c{n}", "int4") for n in range(columns.counts.shape[1])]
    kinds = [("item_id", "int8"), *counts, ("label", "int2"), ("fine_label", "int2"), ("model_label", "int2"),
             ("reference", "int2"), ("reasons", "int2"), ("kept", "bool"), ("agreement", "float8"),
             ("confidence", "float8")]  # fmt: skip
    values: dict[str, npt.ArrayLike] = {f"c{n}": columns.counts[:, n] for n in range(len(counts))}
    values.update(
        item_id=columns.items, label=columns.labels, fine_label=columns.fine_labels,
        model_label=columns.model_labels, reference=columns.reference, reasons=columns.reasons,
        kept=columns.kept, agreement=columns.agreement, confidence=columns.confidence,
    )  # fmt: skip
    return kinds, values


def _written(rule: AgreementRule, width: int) -> tuple[dict[str, str], dict[str, list[Any]]]:
    """Per outcome column, its SQL over the stage row ``s`` and that SQL's parameters."""
    names = [NO_MAJORITY_LABEL, *rule.label_set.labels]  # indexed by code + 2 (SQL arrays start at 1)
    answers = [NO_MAJORITY_LABEL, *rule.answer_set.labels]
    reasons = [json.dumps(reasons_of(mask)) for mask in range(2 ** len(REASONS))]
    sql = {
        "counts": "jsonb_build_array(" + ", ".join(f"s.c{n}" for n in range(width)) + ")",
        "label": "(%s::text[])[s.label + 2]",
        "fine_label": "(%s::text[])[s.fine_label + 2]",
        "agreement": "NULLIF(s.agreement, 'NaN'::float8)",
        "status": f"CASE WHEN s.kept THEN '{KEPT}' ELSE '{REJECTED}' END",
        "model_label": "(%s::text[])[s.model_label + 2]",
        "model_confidence": "s.confidence",
        "reference_label": "(%s::text[])[s.reference + 2]",
        "contested": "s.reasons <> 0",
        "reasons": "(%s::jsonb[])[s.reasons + 1]",
    }
    params = {
        "label": [names], "fine_label": [answers], "model_label": [names],
        "reference_label": [["", *rule.label_set.labels]], "reasons": [reasons],
    }  # fmt: skip
    return sql, params


def _store_by_copy(job: Job, run: Any, columns: OutcomeColumns) -> int:
    kinds, values = _stage_columns(columns)
    outcomes, adjudications = ItemOutcome._meta.db_table, Adjudication._meta.db_table
    sql, params = _written(columns.rule, columns.counts.shape[1])
    fields = list(sql)
    expressions = [sql[name] for name in fields]
    arguments = [value for name in fields for value in params.get(name, [])]
    adjudicated = f"SELECT outcome_id FROM {adjudications} WHERE job_id = %s"
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {STAGE}")
        definitions = ", ".join(f"{name} {kind} NOT NULL" for name, kind in kinds)
        cursor.execute(f"CREATE TEMP TABLE {STAGE} ({definitions}, sampled bool NOT NULL DEFAULT false) "
                       "ON COMMIT DROP")  # fmt: skip
        names = ", ".join(name for name, _ in kinds)
        with cursor.cursor.copy(f"COPY {STAGE} ({names}) FROM STDIN (FORMAT binary)") as copy:
            copy.write(encoded(kinds, values))
        cursor.execute(f"ANALYZE {STAGE}")
        cursor.execute(
            f"SELECT count(*) FROM {outcomes} o JOIN {STAGE} s ON s.item_id = o.item_id WHERE o.job_id = %s "
            f"AND (o.label <> {sql['label']} OR o.status <> {sql['status']})",
            [job.pk, *params["label"]],
        )
        (changed,) = cursor.fetchone()
        cursor.execute(
            f"UPDATE {STAGE} s SET sampled = true FROM {outcomes} o "
            "WHERE o.job_id = %s AND o.sampled AND o.item_id = s.item_id",
            [job.pk],
        )
        assigned = ", ".join(
            f"{name} = {expression}" for name, expression in zip(fields, expressions, strict=True)
        )
        cursor.execute(
            f"UPDATE {outcomes} o SET run_id = %s, {assigned} FROM {STAGE} s "
            f"WHERE o.job_id = %s AND o.item_id = s.item_id AND o.id IN ({adjudicated})",
            [run.pk, *arguments, job.pk, job.pk],
        )
        cursor.execute(
            f"DELETE FROM {outcomes} WHERE job_id = %s AND id NOT IN ({adjudicated})", [job.pk, job.pk]
        )
        cursor.execute(
            f"INSERT INTO {outcomes} (item_id, job_id, run_id, sampled, {', '.join(fields)}) "
            f"SELECT s.item_id, %s, %s, s.sampled, {', '.join(expressions)} FROM {STAGE} s "
            f"WHERE NOT EXISTS (SELECT 1 FROM {outcomes} o WHERE o.item_id = s.item_id)",
            [job.pk, run.pk, *arguments],
        )
        cursor.execute(f"DROP TABLE {STAGE}")
    return int(changed)


def _store_by_orm(job: Job, run: Any, columns: OutcomeColumns, adjudicated: set[int]) -> int:
    existing = {o.item_id: o for o in ItemOutcome.objects.filter(job=job)}
    changed, kept, fresh = 0, [], []
    for pk, values in zip(columns.items.tolist(), _row_values(columns), strict=True):
        record = existing.get(pk)
        changed += record is not None and (record.label, record.status) != (values["label"], values["status"])
        if record is not None and pk in adjudicated:
            kept.append(_assigned(record, run, values))
        else:
            sampled = record.sampled if record is not None else False
            fresh.append(_assigned(ItemOutcome(item_id=pk, job=job, sampled=sampled), run, values))
    ItemOutcome.objects.filter(job=job).exclude(item_id__in=adjudicated).delete()
    ItemOutcome.objects.bulk_update(kept, ["run", *OUTCOME_FIELDS], batch_size=500)
    ItemOutcome.objects.bulk_create(fresh, batch_size=1000)
    return changed


OUTCOME_FIELDS = [
    "counts", "label", "fine_label", "agreement", "status", "reasons", "model_label", "contested",
    "model_confidence", "reference_label",
]  # fmt: skip


def _assigned(record: ItemOutcome, run: Any, values: Mapping[str, Any]) -> ItemOutcome:
    record.run = run
    for name, value in values.items():
        setattr(record, name, value)
    return record


def _row_values(columns: OutcomeColumns) -> Sequence[dict[str, Any]]:
    rule = columns.rule
    labels, fine = rule.label_set.names_of(columns.labels), rule.answer_set.names_of(columns.fine_labels)
    models = rule.label_set.names_of(columns.model_labels)
    rows = []
    for i, mask in enumerate(columns.reasons.tolist()):
        agreement, reference = float(columns.agreement[i]), int(columns.reference[i])
        rows.append({
            "counts": columns.counts[i].tolist(), "label": labels[i], "fine_label": fine[i],
            "agreement": None if np.isnan(agreement) else agreement,
            "status": KEPT if columns.kept[i] else REJECTED, "reasons": reasons_of(mask),
            "model_label": models[i], "contested": bool(mask),
            "model_confidence": float(columns.confidence[i]),
            "reference_label": "" if reference < 0 else rule.label_set.name_of(reference),
        })  # fmt: skip
    return rows
