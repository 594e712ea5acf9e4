"""What a submission stores (annotation/work/submitting.py) and how the work is read back: one
response per item, all or nothing, gold scored per worker, the long-format rows, the pseudonym."""

from __future__ import annotations

import pytest

from annotation.models import Response
from annotation.task_types.base import Answer
from annotation.work.assignments import AnswerError, get_worker, items_of, next_assignment
from annotation.work.jobs import create_job, publish_job, sync_job
from annotation.work.records import gold_accuracy, long_format, worker_pseudonym
from annotation.work.submitting import submit_assignment
from corpus.models import Status
from tests.annotation.doing_work import answers_for, qualified
from tests.annotation.factories import make_corpus

pytestmark = pytest.mark.django_db


def test_double_submit_stores_one_response_per_item() -> None:
    make_corpus(claims=1, perspectives=3)
    job = create_job("stance", {})
    publish_job(job.pk)
    assignment = next_assignment(job, qualified(job))

    submit_assignment(assignment.pk, answers_for(assignment, "SUPPORT"))
    again = submit_assignment(assignment.pk, answers_for(assignment, "UNDERMINE"))

    assert Response.objects.filter(assignment=assignment).count() == 3
    assert set(Response.objects.values_list("label", flat=True)) == {"SUPPORT"}
    assert again.state == "submitted" and again.work_seconds is not None and again.work_seconds >= 0


def test_a_submission_must_answer_every_item_or_nothing_is_saved() -> None:
    make_corpus(claims=1, perspectives=3)
    job = create_job("stance", {})
    publish_job(job.pk)
    assignment = next_assignment(job, qualified(job))
    partial = dict(list(answers_for(assignment).items())[:2])

    with pytest.raises(AnswerError):
        submit_assignment(assignment.pk, partial)

    assert not Response.objects.exists()


def test_gold_answers_are_scored_per_worker() -> None:
    make_corpus(claims=2, perspectives=1)
    make_corpus(claims=2, perspectives=1, status=Status.ADJUDICATED)
    job = create_job(
        "stance", {"status": "candidate", "gold": {"status": "adjudicated"}}, params={"gold_per_hit": 2}
    )
    publish_job(job.pk)
    worker = qualified(job)
    assignment = next_assignment(job, worker)
    answers = {
        item.pk: Answer(label=item.known_answer if item.is_gold else "SUPPORT")
        for item in items_of(assignment)
    }
    gold_item = next(item for item in items_of(assignment) if item.is_gold)
    answers[gold_item.pk] = Answer(label="NOT_VALID")

    submit_assignment(assignment.pk, answers)

    worker.refresh_from_db()
    assert (worker.gold_answered, worker.gold_correct) == (2, 1)
    assert gold_accuracy(job) == {worker.pk: (2, 1)}
    assert long_format(job).count() == 2  # gold stays out of the aggregators' rows


def test_long_format_rows_come_from_one_query(django_assert_num_queries) -> None:
    make_corpus(claims=3)
    job = create_job("stance", {}, market="simulated")
    publish_job(job.pk)
    sync_job(job.pk)

    with django_assert_num_queries(1):
        rows = list(long_format(job))

    assert len(rows) == 36 and all(isinstance(label, str) and label for _, _, label in rows)


def test_worker_pseudonym_is_keyed_and_hides_the_external_id(settings) -> None:
    settings.WORKER_PSEUDONYM_KEY = "a-test-key-of-enough-length"
    worker = get_worker("mturk", "A2Z8QB6XQFTQ1D")

    alias = worker_pseudonym(worker)
    settings.WORKER_PSEUDONYM_KEY = "another-test-key-of-enough-length"

    assert "A2Z8QB6XQFTQ1D" not in alias
    assert alias != worker_pseudonym(worker)
