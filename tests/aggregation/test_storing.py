"""Item outcomes written set-wise: a re-run keeps what experts decided and the sample marks, counts
what changed, rewrites only the rows that differ (none when nothing changed), and PostgreSQL's COPY
path writes exactly the rows the ORM path writes."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.db.models import RestrictedError
from django.db.models.signals import pre_delete
from django.test.utils import CaptureQueriesContext

from aggregation import copying_outcomes, services, storing
from aggregation.adjudication import adjudicate
from aggregation.models import Adjudication, AggregationRun, ItemOutcome
from aggregation.outcome_columns import OutcomeColumns
from annotation.models import Job
from corpus.models import PerspectiveCluster, Status
from tests.aggregation.jobdata import answer, keys, stance_job
from tests.annotation.factories import make_corpus

pytestmark = pytest.mark.django_db

S, MS, U, NV = "SUPPORT", "MILDLY_SUPPORT", "UNDERMINE", "NOT_VALID"
FIELDS = (
    "item_id",
    "run_id",
    "counts",
    "label",
    "fine_label",
    "agreement",
    "status",
    "model_label",
    "model_confidence",
    "reference_label",
    "contested",
    "reasons",
    "sampled",
)


@pytest.fixture
def job() -> Any:
    job = stance_job(make_corpus(claims=2, perspectives=3))
    votes = [[S, S, S], [U, U, S], [S, U, NV], [U, U, U], [MS, S, S], [NV, NV, U]]
    answer(job, dict(zip(keys(job), votes, strict=True)))
    services.aggregate_job(job.pk)
    return job


def rows(job: Any) -> list[tuple[Any, ...]]:
    outcomes = ItemOutcome.objects.filter(job=job).order_by("item_id").values_list(*FIELDS)
    return [tuple(round(v, 9) if isinstance(v, float) else v for v in row) for row in outcomes]


def test_a_rerun_keeps_the_adjudicated_outcome_and_the_sample_marks_and_counts_changes(job: Any) -> None:
    expert = get_user_model().objects.create_user("expert")
    tied = ItemOutcome.objects.get(job=job, item__key=keys(job)[2])
    adjudicate(tied.pk, NV, user=expert)
    ItemOutcome.objects.filter(job=job, item__key=keys(job)[0]).update(sampled=True)
    # One worker changes their mind on the first item: S S S becomes S U U.
    first = job.items.get(key=keys(job)[0])
    for response in first.responses.order_by("pk")[1:]:
        response.label = U
        response.save()
    before = {row[0]: row[2:] for row in rows(job)}

    report = services.aggregate_job(job.pk)

    assert report.adjudicated == 1 and report.changed_items == 1
    assert Adjudication.objects.get().outcome_id == ItemOutcome.objects.get(item__key=keys(job)[2]).pk
    cluster = PerspectiveCluster.objects.get(pk=tied.item.cluster_id)
    assert (cluster.stance_3, cluster.status) == (NV, Status.REJECTED)  # as the expert left it
    again = ItemOutcome.objects.get(item=first)
    assert (again.label, again.sampled, again.run_id) == (U, True, report.run_id)
    assert ItemOutcome.objects.filter(job=job).count() == 6
    # Every row names the run that last wrote it: this run the rows it changed, the first run the others.
    assert all((row[1] == report.run_id) == (row[2:] != before[row[0]]) for row in rows(job))


OUTCOME_WRITES = ("UPDATE ", "INSERT INTO ", "DELETE FROM ")


def test_a_rerun_with_nothing_new_writes_no_outcome(job: Any) -> None:
    before = rows(job), list(ItemOutcome.objects.filter(job=job).order_by("pk").values_list("pk", flat=True))

    with CaptureQueriesContext(connection) as queries:
        report = services.aggregate_job(job.pk)

    table = ItemOutcome._meta.db_table
    writes = [
        q["sql"] for q in queries if q["sql"].startswith(OUTCOME_WRITES) and table in q["sql"].split()[2]
    ]
    assert report.changed_items == 0 and writes == []
    assert (
        rows(job),
        list(ItemOutcome.objects.filter(job=job).order_by("pk").values_list("pk", flat=True)),
    ) == before


def written_by_the_orm(job: Any, run: Any, columns: OutcomeColumns, job_items: Any) -> int:
    adjudicated = ItemOutcome.objects.filter(job=job, adjudications__isnull=False)
    return storing._store_by_orm(job, run, columns, {outcome.item_id for outcome in adjudicated})


def written_then_undone(job: Any) -> tuple[list[tuple[Any, ...]], int]:
    """The outcome rows a run leaves (run ids as "this run" or not) and its changed count, undone after."""
    with transaction.atomic():
        report = services.aggregate_job(job.pk)
        written = [(row[0], row[1] == report.run_id, *row[2:]) for row in rows(job)]
        transaction.set_rollback(True)
    return written, report.changed_items


@pytest.mark.postgres
@pytest.mark.parametrize("part", [copying_outcomes.COPY_PART, 4], ids=["one part", "staged in parts"])
def test_the_copy_path_writes_the_rows_the_orm_path_writes(
    job: Any, monkeypatch: pytest.MonkeyPatch, part: int
) -> None:
    assert connection.vendor == "postgresql"
    monkeypatch.setattr(copying_outcomes, "COPY_PART", part)
    expert = get_user_model().objects.create_user("expert")
    adjudicate(ItemOutcome.objects.get(job=job, item__key=keys(job)[1]).pk, S, user=expert)
    ItemOutcome.objects.filter(job=job, item__key=keys(job)[3]).update(sampled=True)
    # What a re-run meets: outcomes another run left (another label, other figures) and one gone.
    ItemOutcome.objects.filter(job=job, item__key=keys(job)[0]).update(label=NV)
    ItemOutcome.objects.filter(job=job, item__key=keys(job)[4]).update(counts=[], model_confidence=0.5)
    ItemOutcome.objects.filter(job=job, item__key=keys(job)[5]).delete()

    by_copy = written_then_undone(job)
    monkeypatch.setattr(storing, "store_by_copy", written_by_the_orm)
    by_orm = written_then_undone(job)

    assert by_copy == by_orm
    rewritten = {row[0] for row in by_copy[0] if row[1]}
    assert rewritten == set(
        job.items.filter(key__in=keys(job)[::4] + keys(job)[5:]).values_list("pk", flat=True)
    )
    assert by_copy[1] == 1 and any(row[10] and row[11] for row in by_copy[0])  # contested, with reasons


def test_deleting_a_job_deletes_its_outcomes_and_their_adjudications(job: Any) -> None:
    # The outcome's job has no constraint in the database (the item's implies it): the ORM's cascade
    # must still take the outcomes, and the adjudications on them, with the job.
    expert = get_user_model().objects.create_user("expert")
    adjudicate(ItemOutcome.objects.get(job=job, item__key=keys(job)[2]).pk, NV, user=expert)
    assert ItemOutcome.objects.filter(job=job).count() == 6

    job.delete()

    assert not ItemOutcome.objects.exists() and not Adjudication.objects.exists()


def test_outcomes_written_while_their_job_is_deleted_go_with_it(job: Any) -> None:
    # What a concurrent aggregation leaves: outcomes committed after the cascade gathered the job's.
    def late_outcomes(sender: Any, instance: Any, **kwargs: Any) -> None:
        ItemOutcome.objects.all().delete()
        ItemOutcome.objects.bulk_create(
            ItemOutcome(item_id=pk, job_id=instance.pk, run=run)
            for pk in instance.items.values_list("pk", flat=True)
        )

    run = AggregationRun.objects.get(pk=ItemOutcome.objects.filter(job=job).values_list("run", flat=True)[0])
    pre_delete.connect(late_outcomes, sender=Job, dispatch_uid="test.late_outcomes")
    try:
        job.delete()
    finally:
        pre_delete.disconnect(sender=Job, dispatch_uid="test.late_outcomes")

    assert not ItemOutcome.objects.exists()


@pytest.mark.postgres
def test_the_outcome_table_keeps_only_the_indexes_and_checks_its_queries_use(job: Any) -> None:
    table = ItemOutcome._meta.db_table
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, table)
    indexed = sorted(tuple(c["columns"]) for c in constraints.values() if c["index"] or c["unique"])
    checked = sorted(c["foreign_key"][0] for c in constraints.values() if c["foreign_key"])
    # The item (the key: one outcome each), the job's rows, and the job's waiting rows (the queue's).
    assert indexed == [("item_id",), ("job_id",), ("job_id",)]
    assert [c["columns"] for c in constraints.values() if c["primary_key"]] == [["item_id"]]
    assert checked == []  # what the writer joins and the ORM cascades instead: the tests below
    # The job's rows by block ranges, summarized as they fill.
    assert constraints["itemoutcome_job"]["type"] == "brin"
    with connection.cursor() as cursor:
        cursor.execute("SELECT reloptions FROM pg_class WHERE relname = 'itemoutcome_job'")
        assert cursor.fetchone()[0] == ["autosummarize=on"]
        cursor.execute("SELECT reloptions FROM pg_class WHERE relname = %s", [table])
        assert cursor.fetchone()[0] is None  # full pages (migration 0013)


def captured_columns(job: Any, monkeypatch: pytest.MonkeyPatch) -> OutcomeColumns:
    """The columns a run of the job stores (the run itself undone)."""
    captured = []

    def capture(job: Any, run: Any, columns: OutcomeColumns, job_items: Any) -> storing.Stored:
        captured.append(columns)
        return storing.store_outcomes(job, run, columns, job_items)

    monkeypatch.setattr(services, "store_outcomes", capture)
    with transaction.atomic():
        services.aggregate_job(job.pk)
        transaction.set_rollback(True)
    monkeypatch.undo()
    return captured[0]


@pytest.mark.parametrize("first_run", [True, False], ids=["first run", "re-run"])
def test_no_outcome_is_written_for_a_missing_item_or_another_jobs(
    job: Any, monkeypatch: pytest.MonkeyPatch, first_run: bool
) -> None:
    other = stance_job(make_corpus(claims=1, perspectives=1))
    columns = captured_columns(job, monkeypatch)
    theirs = other.items.order_by("pk").values_list("pk", flat=True)[0]
    missing = theirs + 1000
    # The job's last two items swapped for another job's item and an id no item has (still ascending).
    items = columns.items.copy()
    items[-2:] = [theirs, missing]
    ours = set(items[:-2].tolist())
    ItemOutcome.objects.filter(job=job, item_id__in=columns.items[-2:].tolist()).delete()
    if first_run:
        ItemOutcome.objects.filter(job=job).delete()
    run = AggregationRun.objects.create(job=job, task_type="stance")

    storing.store_outcomes(job, run, replace(columns, items=items), copying_outcomes.first_run_items(job))

    assert set(ItemOutcome.objects.values_list("item_id", flat=True)) == ours
    assert set(ItemOutcome.objects.values_list("job_id", flat=True)) == {job.pk}


def test_deleting_an_item_deletes_its_outcome_and_its_adjudications(job: Any) -> None:
    expert = get_user_model().objects.create_user("expert")
    outcome = ItemOutcome.objects.get(job=job, item__key=keys(job)[2])
    adjudicate(outcome.pk, NV, user=expert)

    outcome.item.delete()

    assert not ItemOutcome.objects.filter(pk=outcome.pk).exists() and not Adjudication.objects.exists()
    assert ItemOutcome.objects.filter(job=job).count() == 5


def test_a_run_that_last_wrote_outcomes_cannot_be_deleted_and_takes_no_expert_decision(job: Any) -> None:
    # A run is history; the outcomes it last wrote, and the experts' adjudications on them, are not
    # its to take. Only deleting the job (or the item) takes them.
    expert = get_user_model().objects.create_user("expert")
    adjudicate(ItemOutcome.objects.get(job=job, item__key=keys(job)[2]).pk, NV, user=expert)
    first = AggregationRun.objects.get(pk=ItemOutcome.objects.get(job=job, item__key=keys(job)[0]).run_id)
    second = AggregationRun.objects.get(pk=services.aggregate_job(job.pk).run_id)

    with pytest.raises(RestrictedError):
        first.delete()
    assert ItemOutcome.objects.filter(job=job).count() == 6 and Adjudication.objects.count() == 1

    second.delete()  # it wrote nothing (nothing had changed): it goes alone
    assert ItemOutcome.objects.filter(job=job).count() == 6 and Adjudication.objects.count() == 1
    job.delete()
    assert not AggregationRun.objects.exists() and not ItemOutcome.objects.exists()


@pytest.mark.postgres
@pytest.mark.parametrize("part", [copying_outcomes.COPY_PART, 4], ids=["one part", "encoded in parts"])
def test_a_first_run_copies_the_rows_the_orm_path_writes(
    job: Any, monkeypatch: pytest.MonkeyPatch, part: int
) -> None:
    # Straight into the table by binary COPY: labels, reasons, counts and the NULL ρ of an item with
    # one rating (written NaN, then NULL) as the ORM writes them.
    monkeypatch.setattr(copying_outcomes, "COPY_PART", part)
    first = job.items.get(key=keys(job)[0])
    for response in first.responses.order_by("pk")[1:]:
        response.delete()
    ItemOutcome.objects.filter(job=job).delete()

    by_copy = written_then_undone(job)
    monkeypatch.setattr(storing, "store_by_copy", written_by_the_orm)
    by_orm = written_then_undone(job)

    assert by_copy == by_orm and len(by_copy[0]) == 6
    assert [row[5] for row in by_copy[0] if row[0] == first.pk] == [None]  # agreement
    assert any(row[10] and row[11] for row in by_copy[0])  # contested, with reasons
    assert all(row[1] for row in by_copy[0])  # every row this run's


def test_a_first_run_writes_counts_as_integers(job: Any) -> None:
    counts = dict(ItemOutcome.objects.filter(job=job).values_list("item__key", "counts"))
    assert counts[keys(job)[0]] == [3, 0, 0, 0, 0] and counts[keys(job)[5]] == [0, 0, 0, 1, 2]
