"""Item outcomes written set-wise: a re-run keeps what experts decided and the sample marks, counts
what changed, and PostgreSQL's COPY path writes exactly the rows the ORM path writes."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from aggregation import services, storing
from aggregation.adjudication import adjudicate
from aggregation.models import Adjudication, AggregationRun, ItemOutcome
from corpus.models import PerspectiveCluster, Status
from tests.aggregation.jobdata import answer, keys, stance_job
from tests.annotation.factories import make_corpus

pytestmark = pytest.mark.django_db

S, MS, U, NV = "SUPPORT", "MILDLY_SUPPORT", "UNDERMINE", "NOT_VALID"
FIELDS = ("item_id", "run_id", "counts", "label", "fine_label", "agreement", "status", "model_label",
          "model_confidence", "reference_label", "contested", "reasons", "sampled")  # fmt: skip


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

    report = services.aggregate_job(job.pk)

    assert report.adjudicated == 1 and report.changed_items == 1
    assert Adjudication.objects.get().outcome_id == ItemOutcome.objects.get(item__key=keys(job)[2]).pk
    cluster = PerspectiveCluster.objects.get(pk=tied.item.cluster_id)
    assert (cluster.stance_3, cluster.status) == (NV, Status.REJECTED)  # as the expert left it
    again = ItemOutcome.objects.get(item=first)
    assert (again.label, again.sampled, again.run_id) == (U, True, report.run_id)
    assert ItemOutcome.objects.filter(job=job).count() == 6
    assert set(ItemOutcome.objects.filter(job=job).values_list("run_id", flat=True)) == {report.run_id}


def written_by_the_orm(job: Any, run: Any, columns: storing.OutcomeColumns) -> int:
    adjudicated = ItemOutcome.objects.filter(job=job, adjudications__isnull=False)
    return storing._store_by_orm(job, run, columns, {outcome.item_id for outcome in adjudicated})


@pytest.mark.postgres
def test_the_copy_path_writes_the_rows_the_orm_path_writes(job: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    assert connection.vendor == "postgresql"
    expert = get_user_model().objects.create_user("expert")
    adjudicate(ItemOutcome.objects.get(job=job, item__key=keys(job)[1]).pk, S, user=expert)
    ItemOutcome.objects.filter(job=job, item__key=keys(job)[3]).update(sampled=True)

    copied = services.aggregate_job(job.pk)
    by_copy = rows(job)
    monkeypatch.setattr(storing, "_store_by_copy", written_by_the_orm)
    by_orm_report = services.aggregate_job(job.pk)
    by_orm = rows(job)

    assert [row[:1] + row[2:] for row in by_copy] == [row[:1] + row[2:] for row in by_orm]
    assert {row[1] for row in by_copy} == {copied.run_id} and {row[1] for row in by_orm} == {
        by_orm_report.run_id
    }
    assert AggregationRun.objects.filter(job=job).count() == 3
    assert any(row[10] and row[11] for row in by_copy)  # contested, with reasons
