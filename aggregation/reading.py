"""A job's responses as the aggregators' integer codes, streamed from PostgreSQL.

On PostgreSQL the rows leave the server through ``COPY (…) TO STDOUT`` as CSV into a spooled temporary
file, which `streaming.read_labels` reads back in chunks into integer codes: ten million responses
take a few hundred megabytes, never a Python tuple per row. Other databases (SQLite, the embedded
default, whose jobs are small) read the rows through the ORM.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable

import numpy as np
import numpy.typing as npt
import pandas as pd
from django.db import connection
from django.db.models import QuerySet

from aggregation.labels import LabelSet
from aggregation.responses import Responses, ResponsesError, label_codes
from aggregation.streaming import read_labels
from annotation.models import Job, Response
from annotation.work import long_format

# What COPY writes stays in memory up to this size, then goes to a temporary file.
SPOOL_BYTES = 64 * 1024 * 1024

Columns = tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.intp], list[str]]


def job_responses(
    job: Job, exclude_workers: Iterable[int], spell: Callable[[str], str], label_set: LabelSet
) -> Responses:
    """Every counted response of the job (gold included), its labels spelled and coded on ``label_set``."""
    rows = long_format(job, include_gold=True, exclude_workers=exclude_workers)
    items, workers, raw_codes, raw_labels = (
        _copied(rows) if connection.vendor == "postgresql" else _fetched(rows)
    )
    if not len(items):
        raise ResponsesError("the job has no responses yet")
    code_of_raw = label_codes([spell(label) for label in raw_labels], label_set)
    return Responses.from_codes(items, workers, code_of_raw[raw_codes], label_set)


def _fetched(rows: Iterable[tuple[int, int, str]]) -> Columns:
    frame = pd.DataFrame(list(rows), columns=["item", "worker", "label"])
    codes, uniques = pd.factorize(frame["label"])
    return frame["item"].to_numpy(np.int64), frame["worker"].to_numpy(np.int64), codes, list(uniques)


def _copied(rows: QuerySet[Response, tuple[int, int, str]]) -> Columns:
    # Unordered: the codes do not depend on the row order, and sorting 10M rows costs PostgreSQL more
    # than reading them.
    sql, params = rows.order_by().query.sql_with_params()
    raw_labels = sorted(set(rows.order_by().values_list("label", flat=True).distinct()))
    with tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES) as spool:
        with (
            connection.cursor() as cursor,
            cursor.cursor.copy(  # type: ignore[attr-defined]
                f"COPY (SELECT item_id AS item, worker_id AS worker, label FROM ({sql}) AS rows) "
                "TO STDOUT WITH (FORMAT csv, HEADER)",
                params,
            ) as copy,
        ):
            for block in copy:
                spool.write(block)
        spool.seek(0)
        coded = read_labels(spool, raw_labels) if raw_labels else None
    if coded is None:
        return np.array([], np.int64), np.array([], np.int64), np.array([], np.intp), []
    items = np.array(coded.item_names, dtype=np.int64)[coded.item_codes]
    workers = np.array(coded.worker_names, dtype=np.int64)[coded.worker_codes]
    return items, workers, coded.label_codes.astype(np.intp), raw_labels
