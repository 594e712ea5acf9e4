"""A job's responses as the aggregators' integer codes, streamed from PostgreSQL.

On PostgreSQL the rows leave the server through ``COPY (…) TO STDOUT`` in the binary format, as
arrays of items and workers, one row per block of items and label (whose code the server computes
once a row of arrays), read straight into numpy: ten million responses take a few hundred megabytes and
never a Python object per row. An aggregation's read is shared by READERS connections of their own,
each over its part of the response table's pages and all on the aggregation's snapshot, so the server
scans and groups on as many cores (it cannot share array_agg between its own parallel workers before
PostgreSQL 16).
Other databases (SQLite, the embedded default, whose jobs are small) read the rows through the ORM.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import numpy.typing as npt
import psycopg
from django.db import connection
from django.db.models import Max, QuerySet, TextField
from django.db.models.expressions import RawSQL
from psycopg.sql import SQL

from aggregation.copying import decoded_arrays
from aggregation.labels import LabelSet
from aggregation.responses import Responses, ResponsesError, label_codes
from annotation.models import Item, Job, Response, Worker
from annotation.work.records import long_format

ITEMS_PER_BLOCK = 32768  # items whose responses travel as one row of three arrays
# Connections sharing a read: on 2 cores, two read 10M rows in little more than half the time of one.
READERS = 2
WORK_MEM = "256MB"

Integers = npt.NDArray[np.integer[Any]]
Rows = tuple[Integers, Integers, Integers]  # items, workers and label codes
Columns = tuple[Integers, Integers, Integers, list[str]]


def job_responses(
    job: Job,
    exclude_workers: Iterable[int],
    spell: Callable[[str], str],
    label_set: LabelSet,
    *,
    shared: bool = False,
) -> Responses:
    """Every counted response of the job (gold included), its labels spelled and coded on ``label_set``.
    ``shared``: other connections may read them on this transaction's snapshot, as they can when the
    transaction wrote no responses or assignments (which they would not see)."""
    rows = long_format(job, include_gold=True, exclude_workers=exclude_workers)
    items, workers, raw_codes, raw_labels = (
        _copied(rows, list(label_set.labels), shared) if connection.vendor == "postgresql" else _fetched(rows)
    )
    if not len(items):
        raise ResponsesError("the job has no responses yet")
    code_of_raw = label_codes([spell(label) for label in raw_labels], label_set)
    return Responses.from_codes(items, workers, code_of_raw[raw_codes], label_set)


def _fetched(rows: Iterable[tuple[int, int, str]]) -> Columns:
    import pandas as pd  # here, not at the top: a process that never reads responses does not load it

    frame = pd.DataFrame(list(rows), columns=["item", "worker", "label"])
    codes, uniques = pd.factorize(frame["label"])
    return frame["item"].to_numpy(np.int64), frame["worker"].to_numpy(np.int64), codes, list(uniques)


def _copied(
    rows: QuerySet[Response, tuple[int, int, str]], known: list[str], shared: bool = False
) -> Columns:
    """The rows by binary COPY, each label as its index in the raw labels (`known` first). A label
    outside them makes a second pass, which asks the server for the job's other spellings."""
    # Unordered: the codes do not depend on the row order, and sorting 10M rows costs PostgreSQL more
    # than reading them.
    # The row's place in the table, by which the readers share the pages (a TID range scan each).
    tid = RawSQL(f'"{Response._meta.db_table}".ctid', (), output_field=TextField())
    sql, params = rows.order_by().annotate(tid=tid).query.sql_with_params()
    items, workers, codes = _copy_out(sql, params, known, shared)
    if (codes < 0).any():
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT DISTINCT label FROM ({sql}) AS rows WHERE NOT (label = ANY(%s))", [*params, known]
            )
            known = known + sorted(label for (label,) in cursor.fetchall())
        items, workers, codes = _copy_out(sql, params, known, shared)
    return items, workers, codes, known


def _copy_out(sql: str, params: tuple[object, ...], raw_labels: list[str], shared: bool) -> Rows:
    """The rows' items, workers and label codes (−1: not among ``raw_labels``), item and worker packed
    in one integer a row when the ids allow it, else as two columns."""
    if _packable():
        # Item and worker in one int8 a row: half the elements to send (the server's array output
        # costs more than its scan and grouping).
        packed = [f"item_id * {1 << ITEM_SHIFT} + worker_id"]
        blocks = _blocks(sql, params, raw_labels, packed, ("int8",), shared)
        if not blocks:
            return _no_rows()
        # Unpacked as views of the rows' halves, not copied: ten million rows make 80 MB an array.
        halves = np.concatenate([block[1] for block in blocks], dtype="<i8").view("<u4").reshape(-1, 2)
        return halves[:, 1], halves[:, 0], _codes(blocks)
    blocks = _blocks(sql, params, raw_labels, ["item_id::int8", "worker_id::int8"], ("int8", "int8"), shared)
    if not blocks:
        return _no_rows()
    # Joined and turned to native integers in one pass each.
    items, workers = (np.concatenate([block[n] for block in blocks], dtype=np.int64) for n in (1, 2))
    return items, workers, _codes(blocks)


def _codes(blocks: list[list[npt.NDArray[np.generic]]]) -> npt.NDArray[np.int16]:
    """Each row's label code: its block's (code + 1, one element), repeated for the block's rows."""
    codes = np.array([int(block[0][0]) - 1 for block in blocks], dtype=np.int16)
    return np.repeat(codes, [len(block[1]) for block in blocks])


ITEM_SHIFT = 32  # a packed row: the item's id above bit 32, the worker's below


def _packable() -> bool:
    """Whether every item id fits 31 bits and every worker id 32: the largest ids by the tables' keys
    (two index look-ups), not by scanning the job's rows."""
    item = Item.objects.aggregate(largest=Max("pk"))["largest"] or 0
    worker = Worker.objects.aggregate(largest=Max("pk"))["largest"] or 0
    return item < 1 << (63 - ITEM_SHIFT) and worker < 1 << ITEM_SHIFT


def _blocks(
    sql: str,
    params: tuple[object, ...],
    raw_labels: list[str],
    columns: list[str],
    kinds: tuple[str, ...],
    shared: bool,
) -> list[list[npt.NDArray[np.generic]]]:
    """These expressions of the rows, as an array per block of items and label, each headed by the
    label's code (its index in ``raw_labels`` + 1, 0 if none) as an array of one: COPY sends a
    message per row, and ten million messages cost Python more than the rest of the read; grouped
    by label, the server codes each label once a block rather than once a row."""
    aggregated = ", ".join(f"array_agg({column})" for column in columns)
    code = "ARRAY[coalesce(array_position(%s::text[], label), 0)]::int2[]"
    select = f"SELECT {code}, {aggregated} FROM ({sql}) AS rows"
    grouped = f"GROUP BY item_id / {ITEMS_PER_BLOCK}, label"
    return [
        block
        for data in _copied_out(select, grouped, [raw_labels, *params], shared)
        for block in decoded_arrays(("int2", *kinds), data)
    ]


def _copied_out(select: str, grouped: str, params: list[object], shared: bool) -> list[bytearray]:
    """What ``COPY (select grouped) TO STDOUT (FORMAT binary)`` sends: if ``shared``, one stream from
    each of READERS connections reading their part of the pages at once, else (or when the server has
    no connection to spare) one from this connection."""
    if shared and connection.in_atomic_block:
        snapshot, pages = _shared_snapshot()
        edges = [f"({pages * n // READERS},0)" for n in range(1, READERS)]
        parts = [
            (f"{select} WHERE {' AND '.join(where)} {grouped}", [*params, *bounds])
            for where, bounds in _page_ranges(edges)
        ]
        try:
            with ThreadPoolExecutor(READERS) as pool:
                return list(pool.map(lambda part: _read_on_snapshot(snapshot, *part), parts))
        except psycopg.OperationalError:
            pass  # read alone
    connection.ensure_connection()
    return [_read(connection.connection, f"{select} {grouped}", params)]


def _page_ranges(edges: list[str]) -> list[tuple[list[str], list[str]]]:
    """Conditions on ``tid`` splitting the table at these pages: below the first, …, from the last on
    (a page the table gains meanwhile holds nothing the snapshot sees, but is read all the same)."""
    lows, highs = [None, *edges], [*edges, None]
    return [
        (
            [*(["tid >= %s::tid"] if low else []), *(["tid < %s::tid"] if high else [])],
            [e for e in (low, high) if e],
        )
        for low, high in zip(lows, highs, strict=True)
    ]


def _shared_snapshot() -> tuple[str, int]:
    """This transaction's snapshot, exported for other connections, and the response table's pages."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_export_snapshot(), "
            "pg_relation_size(%s::regclass) / current_setting('block_size')::int",
            [Response._meta.db_table],
        )
        snapshot, pages = cursor.fetchone()
    return snapshot, int(pages)


def _read_on_snapshot(snapshot: str, sql: str, params: list[object]) -> bytearray:
    """A COPY on a new connection, in a read-only transaction that sees what ``snapshot`` saw."""
    with psycopg.connect(**connection.get_connection_params()) as other:
        other.isolation_level, other.read_only = psycopg.IsolationLevel.REPEATABLE_READ, True
        other.execute(SQL("SET TRANSACTION SNAPSHOT {}").format(snapshot))
        return _read(other, sql, params)


def _read(database: psycopg.Connection[Any], sql: str, params: list[object]) -> bytearray:
    """The binary COPY of ``sql``, with room to group in memory (spilling to disk in the default 4 MB)
    and without compiling its expressions (at 10M rows the compiling cost the server more CPU than the
    compiled code saved), for the rest of the transaction only (outside one, SET LOCAL changes nothing)."""
    data = bytearray()
    with database.cursor() as cursor:
        cursor.execute(f"SET LOCAL work_mem = '{WORK_MEM}'")
        cursor.execute("SET LOCAL jit = off")
        with cursor.copy(f"COPY ({sql}) TO STDOUT (FORMAT binary)", params) as copy:
            for block in copy:
                data += block
    return data


def _no_rows() -> Rows:
    return np.array([], np.int64), np.array([], np.int64), np.array([], np.intp)
