"""The PostgreSQL path of storing outcomes, set-wise.

A first run (the job has no outcomes) sends them by binary COPY straight into the outcome table, for
the job's own items only (the database checks no outcome's key), every row of one width and in item
order. A re-run stages them in a temporary table by binary COPY; one join then counts how the staged
rows differ from the stored ones, and only what differs is written: an UPDATE of the rows whose
values changed (adjudicated ones too, the crowd's new figures beside the expert's decision), an
INSERT … SELECT of the new items' rows, joined only with the job's items, and a DELETE of the
vanished items' (unless adjudicated). A re-run that changes nothing writes nothing: a row keeps the
run that last wrote it."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from django.db import connection

from aggregation.copying import (
    HEADER,
    TRAILER,
    choices,
    decoded_arrays,
    encoded_rows,
    fixed_records,
    text,
)
from aggregation.labels import NO_MAJORITY_LABEL
from aggregation.models import Adjudication, ItemOutcome
from aggregation.outcome_columns import POSTERIOR_TOLERANCE, OutcomeColumns
from aggregation.policy import REASONS, reasons_of
from aggregation.rules import KEPT, REJECTED, AgreementRule
from annotation.models import Item, Job

STAGE = "aggregation_outcome_stage"
OUTCOMES, ADJUDICATIONS, ITEMS = ItemOutcome._meta.db_table, Adjudication._meta.db_table, Item._meta.db_table


def first_run_items(job: Job) -> npt.NDArray[np.int64] | None:
    """On PostgreSQL, for a job with no outcomes yet: its items' ids, ascending, which a first run's
    outcomes are matched against (see _copy_first_run); else None. An aggregation reads them while it
    fits: under the job's lock, neither its items nor its outcomes change until it commits."""
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        return None if _has_outcomes(cursor, job) else _job_items(cursor, job)


def _stage_columns(columns: OutcomeColumns) -> tuple[list[tuple[str, str]], dict[str, np.ndarray]]:
    kinds = [
        ("item_id", "int8"),
        ("counts", "int4[]"),
        ("label", "int2"),
        ("fine_label", "int2"),
        ("model_label", "int2"),
        ("reference", "int2"),
        ("reasons", "int2"),
        ("kept", "bool"),
        ("agreement", "float8"),
        ("confidence", "float8"),
    ]
    values: dict[str, np.ndarray] = dict(
        item_id=columns.items,
        counts=columns.counts,
        label=columns.labels,
        fine_label=columns.fine_labels,
        model_label=columns.model_labels,
        reference=columns.reference,
        reasons=columns.reasons,
        kept=columns.kept,
        agreement=columns.agreement,
        confidence=columns.confidence,
    )
    return kinds, values


def store_by_copy(
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
    ("item_id", "int8"),
    ("job_id", "int8"),
    ("run_id", "int8"),
    ("sampled", "bool"),
    ("contested", "bool"),
    ("counts", "int4[]"),
    ("agreement", "float8"),
    ("model_confidence", "float8"),
)
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
    records = fixed_records(
        FIRST_RUN_FIXED,
        {
            "item_id": columns.items[ours],
            "job_id": job.pk,
            "run_id": run.pk,
            "sampled": False,
            "contested": reasons != 0,
            "counts": columns.counts[ours],
            "agreement": columns.agreement[ours],
            "model_confidence": columns.confidence[ours],
        },
        len(FIRST_RUN_FIXED) + len(FIRST_RUN_CHOSEN),
    )
    names = [text(name) for name in (NO_MAJORITY_LABEL, *rule.label_set.labels)]  # by code + 1
    answers = [text(name) for name in (NO_MAJORITY_LABEL, *rule.answer_set.labels)]
    # The reasons (jsonb) first: padded there, every row has the same width (see choices).
    tails, combination = choices(
        [
            ([b"\x01" + text(json.dumps(reasons_of(mask))) for mask in range(2 ** len(REASONS))], reasons),
            (names, columns.labels[ours] + 1),
            (answers, columns.fine_labels[ours] + 1),
            ([text(REJECTED), text(KEPT)], columns.kept[ours]),
            (names, columns.model_labels[ours] + 1),
            ([text(name) for name in ("", *rule.label_set.labels)], columns.reference[ours] + 1),
        ],
        padded=0,
    )
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
        return cls(
            {
                "counts": ("s.counts", []),
                "label": ("(%s::text[])[s.label + 2]", [names]),
                "fine_label": (
                    "(%s::text[])[s.fine_label + 2]",
                    [[NO_MAJORITY_LABEL, *rule.answer_set.labels]],
                ),
                "agreement": ("NULLIF(s.agreement, 'NaN'::float8)", []),
                "status": (f"CASE WHEN s.kept THEN '{KEPT}' ELSE '{REJECTED}' END", []),
                "model_label": ("(%s::text[])[s.model_label + 2]", [names]),
                "model_confidence": ("s.confidence", []),
                "reference_label": ("(%s::text[])[s.reference + 2]", [["", *rule.label_set.labels]]),
                "contested": ("s.reasons <> 0", []),
                "reasons": ("(%s::jsonb[])[s.reasons + 1]", [reasons]),
            }
        )

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
        fixed_records(
            kinds, {name: column[start : start + COPY_PART] for name, column in values.items()}, len(kinds)
        ).tobytes()
        for start in range(0, len(columns), COPY_PART)
    )
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
