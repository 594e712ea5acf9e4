"""A categorical aggregation's item outcomes, written set-wise, and the decisions the corpus is told.

The outcome of every item is a set of columns (:class:`OutcomeColumns`). On PostgreSQL a first run
(the job has no outcomes) sends them by binary COPY straight into the outcome table, for the job's
own items only (the database checks no outcome's key), every row of one width and in item order. A
re-run stages them in a temporary table by binary COPY; one join then counts how the staged rows
differ from the stored ones, and only what differs is written: an UPDATE of the rows whose values
changed (adjudicated ones too, the crowd's new figures beside the expert's decision), an INSERT …
SELECT of the new items' rows, joined only with the job's items, and a DELETE of the vanished items'
(unless adjudicated). Labels, counts and reasons are codes in numpy until the server has them, so a
million items never become a million Python objects, and a re-run that changes nothing writes
nothing: a row keeps the run that last wrote it.
Elsewhere (SQLite, whose jobs are small) the same rows are written through the ORM. Either way an
outcome an expert adjudicated is never deleted, the random-sample marks stay, and an adjudicated
item's corpus row is left as the expert set it."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from django.db import connection
from django.db.models import Q

from aggregation.copying import (
    HEADER,
    TRAILER,
    choices,
    decoded_arrays,
    encoded_rows,
    fixed_records,
    text,
)
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
OUTCOMES, ADJUDICATIONS, ITEMS = ItemOutcome._meta.db_table, Adjudication._meta.db_table, Item._meta.db_table
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


@dataclass(frozen=True)
class Stored:
    adjudicated: set[int]  # items whose outcome carries an expert's adjudication
    changed: int  # items whose written label or status differ from the last run's


def outcome_columns(
    outcome: RuleOutcome,
    fitted: Aggregate,
    reference: npt.NDArray[np.intp],
    min_posterior: float | None,
) -> OutcomeColumns:
    """The columns to write; ``reference``: of the outcome's items, as ``reference_codes`` finds them.
    ``min_posterior``: the model decides, and items below it are contested (None: the rule decides)."""
    rule, confidence = outcome.rule, fitted.probabilities.max(axis=1)
    items = np.asarray(outcome.items, dtype=np.int64)
    unsure = None if min_posterior is None else confidence < min_posterior
    reasons = contest_reason_masks(rule, outcome.agreement, outcome.labels, fitted.labels, reference, unsure)
    return OutcomeColumns(
        rule, items, outcome.counts, outcome.labels, outcome.fine_labels, fitted.labels, reference,
        outcome.agreement, confidence, outcome.kept, reasons,
    )  # fmt: skip


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


def first_run_items(job: Job) -> npt.NDArray[np.int64] | None:
    """On PostgreSQL, for a job with no outcomes yet: its items' ids, ascending, which a first run's
    outcomes are matched against (see _copy_first_run); else None. An aggregation reads them while it
    fits: under the job's lock, neither its items nor its outcomes change until it commits."""
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        return None if _has_outcomes(cursor, job) else _job_items(cursor, job)


def store_outcomes(
    job: Job, run: Any, columns: OutcomeColumns, job_items: npt.NDArray[np.int64] | None
) -> Stored:
    """Replace the job's outcomes with these, keeping the rows experts adjudicated (updated in place).
    ``job_items``: what ``first_run_items`` read for the job earlier in this transaction."""
    adjudicated = set(
        ItemOutcome.objects.filter(job=job, adjudications__isnull=False).values_list("item_id", flat=True)
    )
    if connection.vendor == "postgresql":
        changed = _store_by_copy(job, run, columns, job_items)
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


def _stage_columns(columns: OutcomeColumns) -> tuple[list[tuple[str, str]], dict[str, np.ndarray]]:
    kinds = [("item_id", "int8"), ("counts", "int4[]"), ("label", "int2"), ("fine_label", "int2"),
             ("model_label", "int2"), ("reference", "int2"), ("reasons", "int2"), ("kept", "bool"),
             ("agreement", "float8"), ("confidence", "float8")]  # fmt: skip
    values: dict[str, np.ndarray] = dict(
        item_id=columns.items, counts=columns.counts, label=columns.labels, fine_label=columns.fine_labels,
        model_label=columns.model_labels, reference=columns.reference, reasons=columns.reasons,
        kept=columns.kept, agreement=columns.agreement, confidence=columns.confidence,
    )  # fmt: skip
    return kinds, values


def _store_by_copy(
    job: Job, run: Any, columns: OutcomeColumns, job_items: npt.NDArray[np.int64] | None
) -> int:
    """A first run's outcomes (``job_items``: the job's items) straight into the table; else stage the
    columns, survey the job's outcomes, and write only what differs from them."""
    written = _Written.of(columns.rule)
    with connection.cursor() as cursor:
        if job_items is not None:
            _copy_first_run(cursor, job, run, columns, job_items)
            return 0
        _stage(cursor, columns)
        survey = _survey(cursor, job, written)
        if survey.differing:
            _update_differing(cursor, job, run, written)
        if survey.matched < len(columns):
            _insert_new(cursor, job, run, written)
        if survey.matched < survey.stored:
            _delete_vanished(cursor, job)
        cursor.execute(f"DROP TABLE {STAGE}")
    return survey.changed


def _copy_first_run(
    cursor: Any, job: Job, run: Any, columns: OutcomeColumns, job_items: npt.NDArray[np.int64]
) -> None:
    """Every outcome of a job that has none, by binary COPY straight into the table (no stage, no
    INSERT … SELECT). Only the job's items get one, as the re-run's join with the item table ensures:
    the database checks no outcome's key (see ItemOutcome), so the ids are matched here against
    ``job_items``, the job's own, read in this transaction under the job's lock. None of them can be
    gone, or another job's, before this commits: an item is deleted only under its job's lock too
    (aggregation.receivers), and no item changes job."""
    ours = _of_the_job(columns.items, job_items)
    fields = ", ".join(name for name, _ in FIRST_RUN_FIXED) + ", " + ", ".join(FIRST_RUN_CHOSEN)
    indices = np.flatnonzero(ours)
    parts = (indices[start : start + COPY_PART] for start in range(0, len(indices), COPY_PART))
    blocks = (block for part in parts for block in encoded_rows(*_first_run_rows(job, run, columns, part)))
    _copy_in(cursor, f"COPY {OUTCOMES} ({fields}) FROM STDIN (FORMAT binary)", blocks)
    if np.isnan(columns.agreement[ours]).any():  # ρ of an item with one rating: written NaN, kept NULL
        cursor.execute(
            f"UPDATE {OUTCOMES} SET agreement = NULL WHERE job_id = %s AND agreement = 'NaN'", [job.pk]
        )


FIRST_RUN_FIXED = (
    ("item_id", "int8"), ("job_id", "int8"), ("run_id", "int8"), ("sampled", "bool"),
    ("contested", "bool"), ("counts", "int4[]"), ("agreement", "float8"), ("model_confidence", "float8"),
)  # fmt: skip
FIRST_RUN_CHOSEN = ("reasons", "label", "fine_label", "status", "model_label", "reference_label")
COPY_PART = 1 << 17  # rows encoded at a time


def _copy_in(cursor: Any, sql: str, blocks: Iterable[bytes]) -> None:
    """A binary ``COPY … FROM STDIN`` of these rows, sent as they are encoded: the server stores
    one part while the next is encoded."""
    with cursor.cursor.copy(sql) as copy:
        copy.write(HEADER)
        for block in blocks:
            copy.write(block)
        copy.write(TRAILER)


def _job_items(cursor: Any, job: Job) -> npt.NDArray[np.int64]:
    """The ids of the job's items, ascending, in one array (one COPY row)."""
    data = bytearray()
    query = f"SELECT coalesce(array_agg(id::int8), '{{}}') FROM {ITEMS} WHERE job_id = %s"
    with cursor.cursor.copy(f"COPY ({query}) TO STDOUT (FORMAT binary)", [job.pk]) as copy:
        for block in copy:
            data += block
    return np.sort(decoded_arrays(("int8",), data)[0][0].astype(np.int64))


def _of_the_job(items: npt.NDArray[np.int64], job_items: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
    """Which of ``items`` are among ``job_items`` (both ascending)."""
    position = np.minimum(np.searchsorted(job_items, items), max(len(job_items) - 1, 0))
    return job_items[position] == items if len(job_items) else np.zeros(len(items), dtype=np.bool_)


def _first_run_rows(
    job: Job, run: Any, columns: OutcomeColumns, ours: npt.NDArray[np.intp]
) -> tuple[np.ndarray, list[bytes], npt.NDArray[np.intp]]:
    """The rows at ``ours`` (indices) as fixed_records, and the combinations of their text and JSON
    columns."""
    rule, reasons = columns.rule, columns.reasons[ours]
    records = fixed_records(FIRST_RUN_FIXED, {
        "item_id": columns.items[ours], "job_id": job.pk, "run_id": run.pk, "sampled": False,
        "contested": reasons != 0, "counts": columns.counts[ours], "agreement": columns.agreement[ours],
        "model_confidence": columns.confidence[ours],
    }, len(FIRST_RUN_FIXED) + len(FIRST_RUN_CHOSEN))  # fmt: skip
    names = [text(name) for name in (NO_MAJORITY_LABEL, *rule.label_set.labels)]  # by code + 1
    answers = [text(name) for name in (NO_MAJORITY_LABEL, *rule.answer_set.labels)]
    # The reasons (jsonb) first: padded there, every row has the same width (see choices).
    tails, combination = choices([
        ([b"\x01" + text(json.dumps(reasons_of(mask))) for mask in range(2 ** len(REASONS))], reasons),
        (names, columns.labels[ours] + 1),
        (answers, columns.fine_labels[ours] + 1),
        ([text(REJECTED), text(KEPT)], columns.kept[ours]),
        (names, columns.model_labels[ours] + 1),
        ([text(name) for name in ("", *rule.label_set.labels)], columns.reference[ours] + 1),
    ], padded=0)  # fmt: skip
    return records, tails, combination


@dataclass(frozen=True)
class Survey:
    """The staged outcomes beside the job's stored ones."""

    stored: int  # the job's stored outcomes
    matched: int  # staged items that have a stored outcome
    differing: int  # of those, the ones whose stored values differ from the staged ones
    changed: int  # of those, the ones whose label or status differ


@dataclass(frozen=True)
class _Written:
    """The outcome columns as SQL over the stage row ``s``: per column, its SQL and their parameters."""

    sql: dict[str, tuple[str, list[Any]]]

    @classmethod
    def of(cls, rule: AgreementRule) -> _Written:
        names = [NO_MAJORITY_LABEL, *rule.label_set.labels]  # indexed by code + 2 (SQL arrays start at 1)
        reasons = [json.dumps(reasons_of(mask)) for mask in range(2 ** len(REASONS))]
        return cls({
            "counts": ("s.counts", []),
            "label": ("(%s::text[])[s.label + 2]", [names]),
            "fine_label": ("(%s::text[])[s.fine_label + 2]", [[NO_MAJORITY_LABEL, *rule.answer_set.labels]]),
            "agreement": ("NULLIF(s.agreement, 'NaN'::float8)", []),
            "status": (f"CASE WHEN s.kept THEN '{KEPT}' ELSE '{REJECTED}' END", []),
            "model_label": ("(%s::text[])[s.model_label + 2]", [names]),
            "model_confidence": ("s.confidence", []),
            "reference_label": ("(%s::text[])[s.reference + 2]", [["", *rule.label_set.labels]]),
            "contested": ("s.reasons <> 0", []),
            "reasons": ("(%s::jsonb[])[s.reasons + 1]", [reasons]),
        })  # fmt: skip

    @property
    def names(self) -> str:
        return ", ".join(self.sql)

    def values(self) -> tuple[str, list[Any]]:
        """The staged values of every column, comma-separated, and their parameters."""
        return ", ".join(sql for sql, _ in self.sql.values()), [
            p for _, params in self.sql.values() for p in params
        ]

    def differ(self, *names: str) -> tuple[str, list[Any]]:
        """SQL true where the stored row ``o`` differs from the staged one in these columns (or all);
        the posterior only by more than ``POSTERIOR_TOLERANCE``."""
        stored, staged, params = [], [], []
        for name in names or tuple(self.sql):
            if name == "model_confidence":
                continue
            stored.append(f"o.{name}")
            staged.append(self.sql[name][0])
            params += self.sql[name][1]
        differ = f"({', '.join(stored)}) IS DISTINCT FROM ({', '.join(staged)})"
        if not names or "model_confidence" in names:
            posterior = self.sql["model_confidence"][0]
            differ += f" OR coalesce(abs(o.model_confidence - {posterior}) > {POSTERIOR_TOLERANCE}, true)"
        return f"({differ})", params

    def assigned(self) -> tuple[str, list[Any]]:
        """``column = staged value, …`` for an UPDATE, and its parameters."""
        return ", ".join(f"{name} = {sql}" for name, (sql, _) in self.sql.items()), self.values()[1]


def _has_outcomes(cursor: Any, job: Job) -> bool:
    """Whether the job has an outcome: one row found, rather than all of them counted."""
    cursor.execute(f"SELECT EXISTS (SELECT 1 FROM {OUTCOMES} WHERE job_id = %s)", [job.pk])
    return bool(cursor.fetchone()[0])


def _stage(cursor: Any, columns: OutcomeColumns) -> None:
    """The columns in a temporary table, by binary COPY, analyzed for the joins that read it."""
    kinds, values = _stage_columns(columns)
    definitions = ", ".join(f"{name} {kind} NOT NULL" for name, kind in kinds)
    cursor.execute(f"DROP TABLE IF EXISTS {STAGE}")
    cursor.execute(f"CREATE TEMP TABLE {STAGE} ({definitions}) ON COMMIT DROP")
    names = ", ".join(name for name, _ in kinds)
    blocks = (
        fixed_records(kinds, {name: column[start : start + COPY_PART] for name, column in values.items()},
                      len(kinds)).tobytes()
        for start in range(0, len(columns), COPY_PART)
    )  # fmt: skip
    _copy_in(cursor, f"COPY {STAGE} ({names}) FROM STDIN (FORMAT binary)", blocks)
    cursor.execute(f"ANALYZE {STAGE}")


def _survey(cursor: Any, job: Job, written: _Written) -> Survey:
    """One join of the job's stored outcomes with the staged ones, counted."""
    differing, differing_params = written.differ()
    changed, changed_params = written.differ("label", "status")
    matched = "s.item_id IS NOT NULL"
    cursor.execute(
        f"SELECT count(*), count(s.item_id), count(*) FILTER (WHERE {matched} AND {differing}), "
        f"count(*) FILTER (WHERE {matched} AND {changed}) "
        f"FROM {OUTCOMES} o LEFT JOIN {STAGE} s ON s.item_id = o.item_id WHERE o.job_id = %s",
        [*differing_params, *changed_params, job.pk],
    )
    return Survey(*(int(value) for value in cursor.fetchone()))


def _update_differing(cursor: Any, job: Job, run: Any, written: _Written) -> None:
    """Rewrite the outcomes whose values differ, adjudicated ones included (the crowd's new figures
    beside the expert's decision), in place: an unchanged row keeps the run that wrote it."""
    assigned, assigned_params = written.assigned()
    differing, differing_params = written.differ()
    cursor.execute(
        f"UPDATE {OUTCOMES} o SET run_id = %s, {assigned} FROM {STAGE} s "
        f"WHERE o.job_id = %s AND o.item_id = s.item_id AND {differing}",
        [run.pk, *assigned_params, job.pk, *differing_params],
    )


def _insert_new(cursor: Any, job: Job, run: Any, written: _Written) -> None:
    """The outcomes of a re-run's new items, in one INSERT … SELECT. Only items the item table holds
    for this job get one: the database checks no outcome's key (see ItemOutcome), so this join is what
    keeps an outcome from naming a missing item, or another job's."""
    new = f"AND NOT EXISTS (SELECT 1 FROM {OUTCOMES} o WHERE o.item_id = s.item_id)"
    staged, params = written.values()
    cursor.execute(
        f"INSERT INTO {OUTCOMES} (item_id, job_id, run_id, sampled, {written.names}) "
        f"SELECT s.item_id, %s, %s, false, {staged} FROM {STAGE} s "
        f"JOIN {ITEMS} i ON i.id = s.item_id WHERE i.job_id = %s {new}",
        [job.pk, run.pk, *params, job.pk],
    )


def _delete_vanished(cursor: Any, job: Job) -> None:
    """The outcomes of items no longer aggregated (their answers left out), unless adjudicated."""
    cursor.execute(
        f"DELETE FROM {OUTCOMES} o WHERE o.job_id = %s "
        f"AND NOT EXISTS (SELECT 1 FROM {STAGE} s WHERE s.item_id = o.item_id) "
        f"AND NOT EXISTS (SELECT 1 FROM {ADJUDICATIONS} a WHERE a.outcome_id = o.item_id)",
        [job.pk],
    )


def _store_by_orm(job: Job, run: Any, columns: OutcomeColumns, adjudicated: set[int]) -> int:
    """As ``_store_by_copy`` does, one object per item: rewrite what differs, add what is new, and
    delete the outcomes of vanished items that no expert adjudicated."""
    existing = {o.item_id: o for o in ItemOutcome.objects.filter(job=job)}
    items = set(Item.objects.filter(job=job).values_list("pk", flat=True))
    changed, rewritten, fresh = 0, [], []
    for pk, values in zip(columns.items.tolist(), _row_values(columns), strict=True):
        record = existing.pop(pk, None)
        if record is None and pk not in items:
            continue  # as the COPY path's join: no outcome for an item the job does not hold
        if record is None:
            fresh.append(_assigned(ItemOutcome(item_id=pk, job=job, sampled=False), run, values))
        elif _differs(record, values):
            changed += (record.label, record.status) != (values["label"], values["status"])
            rewritten.append(_assigned(record, run, values))
    ItemOutcome.objects.filter(
        pk__in=[o.pk for o in existing.values() if o.item_id not in adjudicated]
    ).delete()
    ItemOutcome.objects.bulk_update(rewritten, ["run", *OUTCOME_FIELDS], batch_size=500)
    ItemOutcome.objects.bulk_create(fresh, batch_size=1000)
    return changed


def _differs(record: ItemOutcome, values: Mapping[str, Any]) -> bool:
    stored = {name: getattr(record, name) for name in values}
    posterior, stored_posterior = values["model_confidence"], stored.pop("model_confidence")
    close = stored_posterior is not None and abs(stored_posterior - posterior) <= POSTERIOR_TOLERANCE
    return not close or any(stored[name] != values[name] for name in stored)


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
