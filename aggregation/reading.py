"""A job's responses as the aggregators' integer codes, streamed from PostgreSQL.

On PostgreSQL the rows leave the server through ``COPY (…) TO STDOUT`` in the binary format, as
arrays of items and workers, one row per block of items and label (whose code the server computes
once a row of arrays), read straight into numpy: ten million responses take a few hundred megabytes and
never a Python object per row.
Other databases (SQLite, the embedded default, whose jobs are small) read the rows through the ORM.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np
import numpy.typing as npt
import pandas as pd
from django.db import connection
from django.db.models import Max, QuerySet

from aggregation.copying import decoded_arrays
from aggregation.labels import LabelSet
from aggregation.responses import Responses, ResponsesError, label_codes
from annotation.models import Item, Job, Response, Worker
from annotation.work import long_format

ITEMS_PER_BLOCK = 32768  # items whose responses travel as one row of three arrays
WORK_MEM = "256MB"

Columns = tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.intp], list[str]]


def job_responses(
    job: Job, exclude_workers: Iterable[int], spell: Callable[[str], str], label_set: LabelSet
) -> Responses:
    """Every counted response of the job (gold included), its labels spelled and coded on ``label_set``."""
    rows = long_format(job, include_gold=True, exclude_workers=exclude_workers)
    items, workers, raw_codes, raw_labels = (
        _copied(rows, list(label_set.labels)) if connection.vendor == "postgresql" else _fetched(rows)
    )
    if not len(items):
        raise ResponsesError("the job has no responses yet")
    code_of_raw = label_codes([spell(label) for label in raw_labels], label_set)
    return Responses.from_codes(items, workers, code_of_raw[raw_codes], label_set)


def _fetched(rows: Iterable[tuple[int, int, str]]) -> Columns:
    frame = pd.DataFrame(list(rows), columns=["item", "worker", "label"])
    codes, uniques = pd.factorize(frame["label"])
    return frame["item"].to_numpy(np.int64), frame["worker"].to_numpy(np.int64), codes, list(uniques)


def _copied(rows: QuerySet[Response, tuple[int, int, str]], known: list[str]) -> Columns:
    """The rows by binary COPY, each label as its index in the raw labels (`known` first). A label
    outside them makes a second pass, which asks the server for the job's other spellings."""
    # Unordered: the codes do not depend on the row order, and sorting 10M rows costs PostgreSQL more
    # than reading them.
    sql, params = rows.order_by().query.sql_with_params()
    with connection.cursor() as cursor:
        # The join with the job's counted assignments spills to disk in the default 4 MB (for the rest
        # of the aggregation's transaction only; outside one, SET LOCAL changes nothing).
        cursor.execute(f"SET LOCAL work_mem = '{WORK_MEM}'")
        # Compiling the query's expressions cost 0.5–0.8 s of the server's CPU at 10M rows, more than
        # the compiled code saved there.
        cursor.execute("SET LOCAL jit = off")
    items, workers, codes = _copy_out(sql, params, known)
    if (codes < 0).any():
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT DISTINCT label FROM ({sql}) AS rows WHERE NOT (label = ANY(%s))", [*params, known]
            )
            known = known + sorted(label for (label,) in cursor.fetchall())
        items, workers, codes = _copy_out(sql, params, known)
    return items, workers, codes, known


def _copy_out(
    sql: str, params: tuple[object, ...], raw_labels: list[str]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.intp]]:
    """The rows' items, workers and label codes (−1: not among ``raw_labels``), item and worker packed
    in one integer a row when the ids allow it, else as two columns."""
    if _packable(0):
        # Item and worker in one int8 a row: half the elements to send (the server's array output
        # costs more than its scan and grouping).
        blocks = _blocks(sql, params, raw_labels, [f"item_id * {1 << ITEM_SHIFT} + worker_id"], ("int8",))
        if not blocks:
            return _no_rows()
        rows = np.concatenate([block[1] for block in blocks], dtype=np.int64)
        return rows >> ITEM_SHIFT, rows & ((1 << ITEM_SHIFT) - 1), _codes(blocks)
    blocks = _blocks(sql, params, raw_labels, ["item_id::int8", "worker_id::int8"], ("int8", "int8"))
    if not blocks:
        return _no_rows()
    # Joined and turned to native integers in one pass each.
    items, workers = (np.concatenate([block[n] for block in blocks], dtype=np.int64) for n in (1, 2))
    return items, workers, _codes(blocks)


def _codes(blocks: list[list[npt.NDArray[np.generic]]]) -> npt.NDArray[np.intp]:
    """Each row's label code: its block's (code + 1, one element), repeated for the block's rows."""
    codes = np.array([int(block[0][0]) - 1 for block in blocks], dtype=np.intp)
    return np.repeat(codes, [len(block[1]) for block in blocks])


ITEM_SHIFT = 32  # a packed row: the item's id above bit 32, the worker's below


def _packable(code_bits: int) -> bool:
    """Whether every item id fits 31 bits and every worker id, shifted past ``code_bits``, 32: the
    largest ids by the tables' keys (two index look-ups), not by scanning the job's rows."""
    item = Item.objects.aggregate(largest=Max("pk"))["largest"] or 0
    worker = Worker.objects.aggregate(largest=Max("pk"))["largest"] or 0
    return item < 1 << (63 - ITEM_SHIFT) and worker < 1 << (ITEM_SHIFT - code_bits)


def _blocks(
    sql: str, params: tuple[object, ...], raw_labels: list[str], columns: list[str], kinds: tuple[str, ...]
) -> list[list[npt.NDArray[np.generic]]]:
    """These expressions of the rows, as an array per block of items and label, each headed by the
    label's code (its index in ``raw_labels`` + 1, 0 if none) as an array of one: COPY sends a
    message per row, and ten million messages cost Python more than the rest of the read; grouped
    by label, the server codes each label once a block rather than once a row."""
    aggregated = ", ".join(f"array_agg({column})" for column in columns)
    copy_out = (
        f"COPY (SELECT ARRAY[coalesce(array_position(%s::text[], label), 0)]::int2[], {aggregated} "
        f"FROM ({sql}) AS rows GROUP BY item_id / {ITEMS_PER_BLOCK}, label) TO STDOUT (FORMAT binary)"
    )
    data = bytearray()
    with connection.cursor() as cursor, cursor.cursor.copy(copy_out, [raw_labels, *params]) as copy:
        for block in copy:
            data += block
    return decoded_arrays(("int2", *kinds), data)


def _no_rows() -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.intp]]:
    return np.array([], np.int64), np.array([], np.int64), np.array([], np.intp)
