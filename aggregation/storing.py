"""A categorical aggregation's item outcomes, written set-wise.

On PostgreSQL the columns go to the server by binary COPY and only what differs from the stored
outcomes is written (aggregation.copying_outcomes). Elsewhere (SQLite, whose jobs are small) the
same rows are written through the ORM. Either way an outcome an expert adjudicated is never
deleted, the random-sample marks stay, and an adjudicated item's corpus row is left as the expert
set it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from django.db import connection

from aggregation.copying_outcomes import store_by_copy
from aggregation.models import ItemOutcome
from aggregation.outcome_columns import POSTERIOR_TOLERANCE, OutcomeColumns
from aggregation.policy import reasons_of
from aggregation.rules import KEPT, REJECTED
from annotation.models import Item, Job


@dataclass(frozen=True)
class Stored:
    adjudicated: set[int]  # items whose outcome carries an expert's adjudication
    changed: int  # items whose written label or status differ from the last run's


def store_outcomes(
    job: Job, run: Any, columns: OutcomeColumns, job_items: npt.NDArray[np.int64] | None
) -> Stored:
    """Replace the job's outcomes with these, keeping the rows experts adjudicated (updated in place).
    ``job_items``: what ``first_run_items`` read for the job earlier in this transaction."""
    adjudicated = set(
        ItemOutcome.objects.filter(job=job, adjudications__isnull=False).values_list("item_id", flat=True)
    )
    if connection.vendor == "postgresql":
        changed = store_by_copy(job, run, columns, job_items)
    else:
        changed = _store_by_orm(job, run, columns, adjudicated)
    return Stored(adjudicated, changed)


def _store_by_orm(job: Job, run: Any, columns: OutcomeColumns, adjudicated: set[int]) -> int:
    """As ``store_by_copy`` does, one object per item: rewrite what differs, add what is new, and
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
    "counts",
    "label",
    "fine_label",
    "agreement",
    "status",
    "reasons",
    "model_label",
    "contested",
    "model_confidence",
    "reference_label",
]


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
        rows.append(
            {
                "counts": columns.counts[i].tolist(),
                "label": labels[i],
                "fine_label": fine[i],
                "agreement": None if np.isnan(agreement) else agreement,
                "status": KEPT if columns.kept[i] else REJECTED,
                "reasons": reasons_of(mask),
                "model_label": models[i],
                "contested": bool(mask),
                "model_confidence": float(columns.confidence[i]),
                "reference_label": "" if reference < 0 else rule.label_set.name_of(reference),
            }
        )
    return rows
