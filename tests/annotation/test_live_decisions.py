"""What a worker's live answers are compared with: the job's label model's current decisions, where
its last aggregation stored one, the other workers' majority elsewhere; and the check's queries stay
few however much the worker answered."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from aggregation.models import AggregationRun, ItemOutcome
from aggregation.services import aggregate_job
from annotation.models import Assignment, Item, Job, Worker
from annotation.quality import services as quality
from annotation.quality.evidence import evidence_of
from annotation.task_types.base import Answer
from annotation.work.assignments import items_of, next_assignment
from annotation.work.submitting import submit_assignment
from tests.annotation.doing_work import qualified
from tests.annotation.test_live_quality import live_job

pytestmark = pytest.mark.django_db

# Queries of one live check of an honest worker (their answers, the others', the job's last label
# model, its stored decisions, the check's row), the same after one HIT or many.
CHECK_BUDGET = 5


def answer_hit(job: Job, worker: Worker, label: str) -> Assignment:
    """One HIT answered: gold right, every other item with `label`."""
    assignment = next_assignment(job, worker)
    answers = {
        item.pk: Answer(label=str(item.known_answer) if item.is_gold else label)
        for item in items_of(assignment)
    }
    return submit_assignment(assignment.pk, answers)


def three_workers(job: Job, labels: tuple[str, str, str], hits: int = 2) -> list[Worker]:
    """Three workers who each answer the same `hits` HITs, each with their own label."""
    workers = [qualified(job, f"w{n}") for n in range(3)]
    for _ in range(hits):
        for worker, label in zip(workers, labels, strict=True):
            answer_hit(job, worker, label)
    return workers


def stored_decisions(job: Job, label_model: str, label: str) -> None:
    """The job's outcomes as an aggregation by `label_model` that decided `label` on every item."""
    run = AggregationRun.objects.create(job=job, task_type=job.task_type, label_model=label_model)
    for item in Item.objects.filter(job=job, is_gold=False, responses__isnull=False).distinct():
        ItemOutcome.objects.create(item=item, job=job, run=run, counts=[0, 0, 0, 0, 0], model_label=label)


def compared_rows(job: Job, worker: Worker) -> list[dict[str, object]]:
    return [row for row in evidence_of(job, worker.pk)[1] if not row["gold"]]


def test_an_answer_is_compared_with_the_label_models_stored_decision() -> None:
    job = live_job(stop_workers=False)
    worker = three_workers(job, ("SUPPORT", "SUPPORT", "SUPPORT"))[0]
    stored_decisions(job, "dawid_skene", "UNDERMINE")

    rows = compared_rows(job, worker)

    # The other two said SUPPORT, as the worker did; the label model decided UNDERMINE.
    assert rows and all(row["against"] == "UNDERMINE" and not row["right"] for row in rows)
    assert {row["by"] for row in rows} == {"the label model (dawid_skene)"}
    evidence, _ = evidence_of(job, worker.pk)
    assert (evidence.compared, evidence.agreed) == (len(rows), 0)


def test_items_the_model_has_not_decided_are_compared_with_the_others_majority() -> None:
    job = live_job(stop_workers=False)
    worker = three_workers(job, ("SUPPORT", "SUPPORT", "SUPPORT"), hits=1)[0]
    stored_decisions(job, "dawid_skene", "UNDERMINE")
    for other in Worker.objects.exclude(pk=worker.pk).order_by("pk"):
        answer_hit(job, other, "SUPPORT")
    answer_hit(job, worker, "SUPPORT")  # items answered since the aggregation

    by = [row["by"] for row in compared_rows(job, worker)]

    assert "the label model (dawid_skene)" in by and "the others' majority" in by


def test_an_aggregation_of_the_running_job_gives_its_decisions_on_the_decided_labels() -> None:
    job = live_job(stop_workers=False)
    worker = three_workers(job, ("MILDLY_SUPPORT", "SUPPORT", "SUPPORT"))[0]
    aggregate_job(job.pk)

    rows = compared_rows(job, worker)

    # Stance is decided on three labels: a mild support is a support.
    assert rows and all(row["against"] == "SUPPORT" and row["right"] for row in rows)
    assert {row["by"] for row in rows} == {"the label model (dawid_skene)"}


def test_with_majority_vote_the_decision_leaves_the_workers_own_answer_out() -> None:
    job = live_job(stop_workers=False)
    worker = three_workers(job, ("NOT_VALID", "SUPPORT", "UNDERMINE"))[0]
    # As majority vote would store it with the worker's own answer counted (no majority without it).
    stored_decisions(job, "majority_vote", "NOT_VALID")

    assert compared_rows(job, worker) == []  # the others tie: nothing decided without the worker


def check_queries(assignment: Assignment) -> int:
    assignment = Assignment.objects.select_related("job", "worker").get(pk=assignment.pk)
    assignment.quality_check.delete()
    with CaptureQueriesContext(connection) as queries:
        quality.check_after_submit(assignment)
    return len(queries.captured_queries)


def test_a_live_check_reads_the_decisions_in_a_few_queries_however_much_was_answered() -> None:
    job = live_job(claims=12, stop_workers=False)
    workers = three_workers(job, ("SUPPORT", "SUPPORT", "SUPPORT"), hits=1)
    stored_decisions(job, "dawid_skene", "SUPPORT")
    after_one = check_queries(Assignment.objects.get(worker=workers[0]))
    for _ in range(3):
        for worker in workers:
            answer_hit(job, worker, "SUPPORT")
    last = Assignment.objects.filter(worker=workers[0]).order_by("-pk").first()
    # Four HITs answered, the last one checked (a HIT's size varies with the gold placed in it).
    assert Assignment.objects.filter(worker=workers[0], submitted_at__isnull=False).count() == 4
    assert last is not None and workers[0].responses.count() > last.responses.count() > 0

    assert check_queries(last) == after_one <= CHECK_BUDGET
