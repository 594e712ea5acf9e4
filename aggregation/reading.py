"""A job's responses as the aggregators' integer codes, streamed from PostgreSQL.

On PostgreSQL the rows leave the server through ``COPY (…) TO STDOUT`` as CSV into a spooled temporary
file, which pandas reads back in chunks into integer arrays: ten million responses take a few hundred
megabytes, never a Python tuple per row. Other databases (SQLite, the embedded default, whose jobs
are small) read the rows through the ORM.
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
from annotation.models import Job, Response
from annotation.work import long_format

# What COPY writes stays in memory up to this size, then goes to a temporary file.
SPOOL_BYTES = 64 * 1024 * 1024
CHUNK_ROWS = 1_000_000
# Ids parsed as integers and labels as categories: no Python string per row.
CSV_TYPES = {"item": np.int64, "worker": np.int64, "label": "category"}

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
    copy_out = (
        f"COPY (SELECT item_id AS item, worker_id AS worker, label FROM ({sql}) AS rows) "
        "TO STDOUT WITH (FORMAT csv, HEADER)"
    )
    names: dict[str, int] = {}  # raw label → code, first seen first
    parts: list[tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.intp]]] = []
    with tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES) as spool:
        with connection.cursor() as cursor, cursor.cursor.copy(copy_out, params) as copy:
            for block in copy:
                spool.write(block)
        spool.seek(0)
        for chunk in pd.read_csv(spool, dtype=CSV_TYPES, chunksize=CHUNK_ROWS, keep_default_na=False):
            labels = chunk["label"].cat
            shared = np.array(
                [names.setdefault(str(c), len(names)) for c in labels.categories], dtype=np.intp
            )
            parts.append(
                (chunk["item"].to_numpy(), chunk["worker"].to_numpy(), shared[labels.codes.to_numpy()])
            )
    if not parts:
        return np.array([], np.int64), np.array([], np.int64), np.array([], np.intp), []
    items, workers, codes = (np.concatenate([part[n] for part in parts]) for n in range(3))
    return items, workers, codes, list(names)
