"""The start's search for HITs with a free slot reads the worker's own items, never all of the job's:
what PostgreSQL reads for it does not grow with the job, even while its tables have no statistics (a
new database, a job just created, autovacuum off), as in the load benchmark's database."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from annotation.models import Assignment, Hit, HitItem, Item, Job, JobState, Qualification, Worker, WorkerItem
from annotation.work import assignments
from annotation.work.jobs import create_job
from tests.annotation.factories import make_corpus

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

STARTS_TABLES = [model._meta.db_table for model in (Hit, HitItem, Item, WorkerItem, Assignment)]


def blocks_read(sql: str) -> int:
    """The buffers PostgreSQL touches running `sql` (shared blocks hit or read), from its own EXPLAIN."""
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql)
        plan = cursor.fetchone()[0][0]["Plan"]
    return int(plan["Shared Hit Blocks"] + plan["Shared Read Blocks"])


def test_finding_free_hits_reads_less_than_one_block_per_item_of_the_job() -> None:
    with connection.cursor() as cursor:  # statistics taken while the tables were empty, as in a new database
        cursor.execute(f"ANALYZE {', '.join(STARTS_TABLES)}")
    make_corpus(claims=150, perspectives=8)
    job = create_job("stance", {}, market="simulated")
    Job.objects.filter(pk=job.pk).update(state=JobState.PUBLISHED, published_at=timezone.now())
    job.refresh_from_db()
    worker = Worker.objects.create(market="simulated", external_id="w1")
    Qualification.objects.create(worker=worker, task_type="stance", passed=True, score=1.0)
    assignments.next_assignment(job, worker)  # the worker has seen one HIT's items

    with CaptureQueriesContext(connection) as queries:
        free = assignments._open_hits(job, worker, None, assignments.CANDIDATE_HITS)
    items = Item.objects.filter(job=job).count()

    assert free
    assert items >= 1000
    assert blocks_read(queries.captured_queries[-1]["sql"]) < items / 4
