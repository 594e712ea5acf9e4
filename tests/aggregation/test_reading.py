"""A job's responses read by binary COPY on PostgreSQL are the rows the ORM reads, coded alike."""

from __future__ import annotations

import pytest
from django.db import transaction

from aggregation import reading
from aggregation.copying import decoded_arrays
from aggregation.labels import LabelSet
from aggregation.models import ItemOutcome
from aggregation.reading import _copied, _fetched, job_responses
from aggregation.responses import ResponsesError
from aggregation.services import aggregate_job
from annotation.models import Assignment, AssignmentState, Job, Response, Worker
from annotation.work.records import long_format
from tests.aggregation.jobdata import answer, keys, stance_job, worker
from tests.annotation.factories import make_corpus

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]
S, U, NV = "SUPPORT", "UNDERMINE", "NOT_VALID"


@pytest.mark.parametrize("packed", [True, False], ids=["packed", "three columns"])
def test_copy_and_the_orm_give_the_same_columns_and_responses(
    packed: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reading, "_packable", lambda: packed)
    job = stance_job(make_corpus(claims=2, perspectives=3))
    answer(job, dict(zip(keys(job), [[S, S, U], [U, NV, U], [S, S, S]] * 2, strict=True)))
    rows = long_format(job, include_gold=True)

    # Told only of SUPPORT, the reading asks the server for the other labels in a second pass.
    copied, fetched = _copied(rows, [S]), _fetched(rows)

    def triples(columns: tuple) -> list[tuple[int, int, str]]:
        items, workers, codes, names = columns
        return sorted(zip(items.tolist(), workers.tolist(), [names[c] for c in codes], strict=True))

    assert len(copied[0]) == len(fetched[0]) == 18
    assert triples(copied) == triples(fetched)  # COPY reads them unordered
    labels = LabelSet("stance", (S, U, NV))
    coded = job_responses(job, [], str, labels)
    assert coded.n_items == 6 and len(coded) == 18


def test_labels_spelled_otherwise_are_read_and_spelled_by_the_task() -> None:
    job = stance_job(make_corpus(claims=1, perspectives=2))
    answer(job, dict(zip(keys(job), [[S, S, U], [U, NV, U]], strict=True)))
    Response.objects.filter(job=job, label=U).update(label="undermine")

    coded = job_responses(job, [], str.upper, LabelSet("stance", (S, U, NV)))

    assert sorted(coded.counts().tolist()) == [[0, 2, 1], [2, 1, 0]]


def test_a_job_without_responses_is_refused_by_copy_too() -> None:
    job = stance_job(make_corpus(claims=1, perspectives=1))
    with pytest.raises(ResponsesError, match="no responses"):
        job_responses(job, [], str, LabelSet("stance", (S, U, NV)))


def test_the_rows_read_leave_out_rejected_and_unconfirmed_work_and_dropped_workers() -> None:
    job = stance_job(make_corpus(claims=2, perspectives=2))
    answer(job, dict(zip(keys(job), [[S, S, U, NV, U], [U, NV, U, S, S]] * 2, strict=True)))
    Assignment.objects.filter(job=job, worker=worker("w1")).update(state=AssignmentState.REJECTED)
    Assignment.objects.filter(job=job, worker=worker("w2")).update(confirmed=False)
    dropped = [worker("w3").pk]

    read = job_responses(job, dropped, str, LabelSet("stance", (S, U, NV)))

    triples = zip(
        read.items[read.item_index].tolist(),
        read.workers[read.worker_index].tolist(),
        read.label_set.names_of(read.label),
        strict=True,
    )
    assert sorted(triples) == sorted(long_format(job, include_gold=True, exclude_workers=dropped))
    assert len(read) == 8 and set(read.workers.tolist()) == {worker("w0").pk, worker("w4").pk}


def test_rows_are_packed_only_while_every_id_fits_its_bits() -> None:
    job = stance_job(make_corpus(claims=1, perspectives=1))
    answer(job, {keys(job)[0]: [S, U]})
    assert reading._packable()
    Worker.objects.create(pk=(1 << 32) - 1, market="inhouse", external_id="last")  # the last id of 32 bits
    assert reading._packable()
    Worker.objects.create(pk=1 << 32, market="inhouse", external_id="late")

    assert not reading._packable()


def _spied_parts(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The rows each connection of a shared read sent, recorded as they arrive."""
    rows: list[int] = []

    def counted(snapshot: str, sql: str, params: list[object]) -> bytearray:
        data = original(snapshot, sql, params)
        rows.append(sum(len(block[1]) for block in decoded_arrays(("int2", "int8"), data)))
        return data

    original = reading._read_on_snapshot
    monkeypatch.setattr(reading, "_read_on_snapshot", counted)
    return rows


@pytest.mark.django_db(transaction=True)
def test_in_its_own_transaction_the_read_is_shared_by_connections_each_over_their_pages(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    job = stance_job(make_corpus(claims=4, perspectives=10))  # 40 items × 5 workers: a few pages
    answer(job, {key: [S, U, NV, S, U][: 3 + n % 3] for n, key in enumerate(keys(job))})
    rows = long_format(job, include_gold=True)
    parts = _spied_parts(monkeypatch)

    with transaction.atomic():
        Job.objects.select_for_update().get(pk=job.pk)  # as the aggregation locks it
        items, workers, codes, names = _copied(rows, [S, U, NV], shared=True)

    # However the rows lie in the pages (rolled-back tests leave some), each is read once.
    assert len(parts) == reading.READERS and sum(parts) == len(items) == rows.count() == 159
    read = sorted(zip(items.tolist(), workers.tolist(), [names[c] for c in codes], strict=True))
    assert read == sorted(rows)


@pytest.mark.django_db(transaction=True)
def test_an_aggregation_shares_its_read_only_in_a_transaction_of_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    job = stance_job(make_corpus(claims=1, perspectives=3))
    answer(job, dict(zip(keys(job), [[S, S, U], [U, NV, U], [S, S, S]], strict=True)))
    parts = _spied_parts(monkeypatch)
    aggregate_job(job.pk)
    assert len(parts) == reading.READERS

    parts.clear()
    with transaction.atomic():
        # Written in the caller's transaction: connections of their own would not see it.
        Response.objects.filter(job=job, label=NV).update(label=S)
        aggregate_job(job.pk)

    assert parts == [] and ItemOutcome.objects.get(item__key=keys(job)[1]).counts == [1, 0, 0, 2, 0]
