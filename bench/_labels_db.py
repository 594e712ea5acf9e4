"""A stance job of ITEMS items × 10 simulated workers (labels on the 5-point scale) written straight
into the database with COPY, for bench.labels' aggregate_job figures. Run in the app's environment:

    python -m bench._labels_db ITEMS     # prints the job id, and whether it wrote or kept the rows

The database is kept between benchmark runs: a job named for ITEMS and SEED_VERSION is reused, its
aggregation state cleared (every run starts from no outcomes); else the rows are written in one
transaction (never half a seed) and vacuumed, as autovacuum would have left a real database.
Items carry no corpus links, so the write-back has nothing to change: the figures are the read, the
decision and the outcome rows.
"""

from __future__ import annotations

import csv
import io
import itertools
import os
import sys
from collections.abc import Iterable, Iterator
from typing import Any

import django
import numpy as np
import pandas as pd

PER_ITEM, WORKERS, ITEMS_PER_HIT, CHUNK = 10, 2000, 10, 1_000_000
LABELS = np.array(["SUPPORT", "MILDLY_SUPPORT", "MILDLY_UNDERMINE", "UNDERMINE", "NOT_VALID"])
NOW = "2026-01-01 00:00:00+00"
INDEX_MEMORY = "256MB"  # per index build, while seeding


SEED_VERSION = 2  # change when the seeded rows change: a kept database is then seeded anew
AGGREGATION_STATE = ("aggregation_itemoutcome", "aggregation_workerquality", "aggregation_aggregationrun")


def seeded_job(items: int) -> tuple[int, bool]:
    """The job of the kept seed, its aggregation state cleared, or a new seed's; and whether it seeded."""
    from django.db import connection, transaction

    from annotation.models import Job

    found = Job.objects.filter(name=job_name(items)).values_list("pk", flat=True).first()
    if found is not None:
        with connection.cursor() as cursor:
            cursor.execute(f"TRUNCATE {', '.join(AGGREGATION_STATE)} CASCADE")
        return found, False
    with transaction.atomic():
        job = seed(items)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    return job, True


def job_name(items: int) -> str:
    return f"bench: simulated labels, {items} items × {PER_ITEM} (seed {SEED_VERSION})"


def seed(items: int) -> int:
    from django.db import connection

    from annotation.models import Job, JobState
    from annotation.task_types import get_task_type

    params = get_task_type("stance").params({"workers_per_item": PER_ITEM})
    job = Job.objects.create(
        name=job_name(items),
        task_type="stance",
        market="inhouse",
        state=JobState.COMPLETE,
        params=params,
        workers_per_item=PER_ITEM,
    )
    rng = np.random.default_rng(7)
    ids = np.arange(1, items + 1)
    hits = items // ITEMS_PER_HIT
    # Each HIT's 10 assignments go to 10 different workers; assignment ids are hit × 10 + slot.
    slots = np.arange(hits * PER_ITEM)
    hit_of = slots // PER_ITEM + 1
    worker_of = (rng.integers(0, WORKERS, hits)[hit_of - 1] + slots % PER_ITEM) % WORKERS + 1
    tables = {
        "annotation_worker": _chunks(_workers()),
        "annotation_hit": _chunks(_hits(job.pk, hits)),
        "annotation_item": (_items(job.pk, chunk) for chunk in _id_chunks(ids, CHUNK)),
        "annotation_hititem": (_hit_items(chunk) for chunk in _id_chunks(ids, CHUNK)),
        "annotation_assignment": _chunks(_assignments(job.pk, hit_of, worker_of)),
        "annotation_response": _responses(job.pk, ids, worker_of, rng),
    }
    with connection.cursor() as cursor:
        _without_foreign_key_checks(cursor)
        cursor.execute(f"SET LOCAL maintenance_work_mem = '{INDEX_MEMORY}'")
        for table, frames in tables.items():
            _copy_then_index(cursor, table, frames)
            cursor.execute(f"ANALYZE {table}")  # as autovacuum would soon: the planner needs the sizes
    return job.pk


def _copy_then_index(cursor: Any, table: str, frames: Iterable[pd.DataFrame]) -> None:
    """COPY with the table's plain indexes dropped, then each built again in one sort: keeping ten
    million rows in order in seven indexes, row by row, took most of the seeding. Constraints' own
    indexes stay. The same definitions come back, so the benchmark reads the app's schema."""
    cursor.execute(
        "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = %s "
        "AND indexname NOT IN (SELECT conname FROM pg_constraint WHERE conrelid = %s::regclass)",
        [table, table],
    )
    indexes = cursor.fetchall()
    for name, _ in indexes:
        cursor.execute(f'DROP INDEX "{name}"')
    _copy(cursor.cursor, table, frames)
    for _, definition in indexes:
        cursor.execute(definition)


def _without_foreign_key_checks(cursor: Any) -> None:
    """The rows are consistent by construction: PostgreSQL need not check 40M foreign keys one by one
    (minutes on 2 shared cores). Needs a superuser, as the benchmark's local server has; else checked."""
    from django.db import DatabaseError, transaction

    try:
        with transaction.atomic():
            cursor.execute("SET session_replication_role = replica")
    except DatabaseError:
        pass


def _workers() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "id": np.arange(1, WORKERS + 1),
            "market": "inhouse",
            "external_id": [f"bench-{n}" for n in range(WORKERS)],
            "simulated": True,
            "model": "{}",
            "blocked": False,
            "blocked_reason": "",
            "gold_answered": 0,
            "gold_correct": 0,
            "created": NOW,
        }
    )


def _hits(job: int, hits: int) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "id": np.arange(1, hits + 1),
            "job_id": job,
            "position": np.arange(hits),
            "assignments_wanted": PER_ITEM,
            "reward": "0.10",
            "external_id": "",
            "expired": False,
        }
    )


def _items(job: int, ids: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "id": ids,
            "job_id": job,
            "key": ids.astype(str),
            "group": (ids // 5).astype(str),
            "payload": "{}",
            "is_gold": False,
        }
    )


def _hit_items(ids: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame(
        {"hit_id": (ids - 1) // ITEMS_PER_HIT + 1, "item_id": ids, "position": (ids - 1) % ITEMS_PER_HIT}
    )


def _assignments(job: int, hit_of: np.ndarray, worker_of: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "id": np.arange(1, len(hit_of) + 1),
            "job_id": job,
            "hit_id": hit_of,
            "worker_id": worker_of,
            "state": "submitted",
            "external_id": "",
            "simulated": True,
            "accepted_at": NOW,
            "feedback": "",
            "confirmed": True,
        }
    )


def _responses(
    job: int, ids: np.ndarray, worker_of: np.ndarray, rng: np.random.Generator
) -> Iterator[pd.DataFrame]:
    """Ten labels per item, each right with its worker's accuracy, else another label at random."""
    truth = rng.integers(0, len(LABELS), len(ids))
    accuracy = rng.uniform(0.6, 0.95, WORKERS)
    for chunk in _id_chunks(ids, CHUNK // PER_ITEM):
        item = np.repeat(chunk, PER_ITEM)
        assignment = ((item - 1) // ITEMS_PER_HIT) * PER_ITEM + np.tile(np.arange(PER_ITEM), len(chunk)) + 1
        worker = worker_of[assignment - 1]
        right = rng.random(len(item)) < accuracy[worker - 1]
        wrong = (truth[item - 1] + rng.integers(1, len(LABELS), len(item))) % len(LABELS)
        yield pd.DataFrame(
            {
                "job_id": job,
                "item_id": item,
                "worker_id": worker,
                "assignment_id": assignment,
                "label": LABELS[np.where(right, truth[item - 1], wrong)],
                "is_gold": False,
                "simulated": True,
                "created": NOW,
            }
        )


def _id_chunks(ids: np.ndarray, size: int) -> list[np.ndarray]:
    return np.array_split(ids, max(1, len(ids) // size))


def _chunks(frame: pd.DataFrame) -> Iterator[pd.DataFrame]:
    for start in range(0, len(frame), CHUNK):
        yield frame.iloc[start : start + CHUNK]


def _copy(cursor: Any, table: str, frames: Iterable[pd.DataFrame]) -> None:
    """COPY the frames into the table, their columns named as the table's."""
    chunks = iter(frames)
    first = next(chunks)
    columns = ", ".join(f'"{name}"' for name in first.columns)
    with cursor.copy(f"COPY {table} ({columns}) FROM STDIN WITH (FORMAT csv)") as stream:
        for frame in itertools.chain([first], chunks):
            buffer = io.StringIO()
            frame.to_csv(buffer, header=False, index=False, quoting=csv.QUOTE_NONNUMERIC)  # "" is not NULL
            stream.write(buffer.getvalue())


def main(argv: list[str]) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    job, seeded = seeded_job(int(argv[0]))
    print(job, "wrote" if seeded else "kept")


if __name__ == "__main__":
    main(sys.argv[1:])
