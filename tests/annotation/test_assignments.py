"""Who is given which work (annotation/work/assignments.py): a qualified worker, a HIT with a free
slot, never the same item twice, never their own paraphrase; a failed quiz or a block means none."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from annotation.models import (
    Assignment,
    AssignmentState,
    Authorship,
    Hit,
    Response,
    WorkerItem,
    WorkerItemReason,
)
from annotation.task_types import get_task_type
from annotation.work import assignments
from annotation.work.assignments import (
    NotQualifiedError,
    NoWorkError,
    get_worker,
    has_work_left,
    items_of,
    next_assignment,
)
from annotation.work.jobs import create_job, publish_job
from annotation.work.quiz import grade_quiz
from annotation.work.records import block_worker
from annotation.work.submitting import submit_assignment
from corpus.models import Origin, Perspective, Status
from tests.annotation.doing_work import answers_for, qualified
from tests.annotation.factories import PerspectiveFactory, make_corpus

pytestmark = pytest.mark.django_db


def test_a_worker_never_gets_the_same_item_twice_even_through_shared_gold() -> None:
    make_corpus(claims=6, perspectives=2)
    make_corpus(claims=2, perspectives=1, status=Status.ADJUDICATED)
    job = create_job(
        "stance",
        {"status": "candidate", "gold": {"status": "adjudicated"}},
        params={"groups_per_hit": 1, "gold_per_hit": 1},
    )
    publish_job(job.pk)
    worker = qualified(job)

    taken = []
    while True:
        try:
            assignment = next_assignment(job, worker)
        except NoWorkError:
            break
        submit_assignment(assignment.pk, answers_for(assignment))
        taken.append(assignment)

    items = list(Response.objects.filter(worker=worker).values_list("item_id", flat=True))
    assert len(items) == len(set(items))
    # Two gold items are shared by six HITs: the worker can take only two of them.
    assert len(taken) == 2


def test_the_database_refuses_a_second_row_for_the_same_worker_and_item() -> None:
    make_corpus(claims=1)
    job = create_job("stance", {})
    publish_job(job.pk)
    worker = qualified(job)
    assignment = next_assignment(job, worker)
    item = items_of(assignment)[0]

    with pytest.raises(IntegrityError), transaction.atomic():
        WorkerItem.objects.create(
            item=item, worker=worker, assignment=assignment, reason=WorkerItemReason.ASSIGNED
        )


def test_a_hit_gets_no_more_workers_than_it_wants() -> None:
    make_corpus(claims=1)
    job = create_job("stance", {}, params={"workers_per_item": 2})
    publish_job(job.pk)

    next_assignment(job, qualified(job, "a"))
    next_assignment(job, qualified(job, "b"))

    with pytest.raises(NoWorkError):
        next_assignment(job, qualified(job, "c"))


def test_a_hit_deleted_between_finding_and_taking_it_is_passed_over(monkeypatch) -> None:
    make_corpus(claims=1)
    job = create_job("stance", {})
    publish_job(job.pk)
    hit = job.hits.get()
    gone = Hit.objects.order_by("-pk").values_list("pk", flat=True).first() + 1  # as if deleted meanwhile
    monkeypatch.setattr(assignments, "_open_hits", lambda *args: [gone, hit.pk])

    assignment = next_assignment(job, qualified(job))

    assert assignment.hit_id == hit.pk


def test_the_next_hit_is_the_first_not_expired_whose_slots_are_not_all_held() -> None:
    make_corpus(claims=3)
    job = create_job("stance", {}, params={"groups_per_hit": 1, "workers_per_item": 1})
    publish_job(job.pk)
    first, second, third = job.hits.order_by("position")
    Hit.objects.filter(pk=first.pk).update(expired=True)

    taken = next_assignment(job, qualified(job, "a"))
    assert taken.hit == second
    # Work submitted but not confirmed by its market holds no slot: the HIT is offered again.
    Assignment.objects.filter(pk=taken.pk).update(state=AssignmentState.SUBMITTED, confirmed=False)
    assert next_assignment(job, qualified(job, "b")).hit == second
    assert has_work_left(job, qualified(job, "c"))
    assert next_assignment(job, qualified(job, "c")).hit == third
    assert not has_work_left(job, qualified(job, "d"))


def test_failing_the_quiz_means_no_work() -> None:
    make_corpus(claims=1)
    job = create_job("stance", {})
    publish_job(job.pk)
    worker = get_worker("inhouse", "w")

    result = grade_quiz(worker, job, {})

    assert not result.passed and result.score == 0
    with pytest.raises(NotQualifiedError, match="did not pass"):
        next_assignment(job, worker)
    # One attempt by default: a later right answer does not overturn the fail.
    assert not grade_quiz(worker, job, {q.key: q.answer for q in get_task_type("stance").quiz}).passed


def test_blocking_a_worker_returns_their_open_work() -> None:
    make_corpus(claims=1)
    job = create_job("stance", {})
    publish_job(job.pk)
    worker = qualified(job)
    assignment = next_assignment(job, worker)

    block_worker(worker.pk, "spam")

    assignment.refresh_from_db()
    assert assignment.state == "returned"
    with pytest.raises(NoWorkError, match="no longer"):
        next_assignment(job, worker)


def test_the_writer_of_a_paraphrase_never_verifies_it() -> None:
    claims = make_corpus(claims=1, perspectives=1)
    original = claims[0].clusters.get().perspectives.get()
    writer, other = get_worker("inhouse", "writer"), get_worker("inhouse", "other")
    written = PerspectiveFactory(origin=Origin.PARAPHRASE, source="paraphrase", paraphrase_of=original)
    Authorship.objects.create(perspective=written, worker=writer)

    job = create_job("paraphrase_verification", {})
    publish_job(job.pk)
    for worker in (writer, other):
        grade_quiz(worker, job, {q.key: q.answer for q in get_task_type(job.task_type).quiz})

    with pytest.raises(NoWorkError):
        next_assignment(job, writer)
    assert next_assignment(job, other).hit.items.get().perspective == written
    assert WorkerItem.objects.filter(worker=writer, reason=WorkerItemReason.AUTHORED).count() == 1


def test_a_paraphrase_the_release_put_in_another_cluster_of_the_claim_is_known_as_different() -> None:
    # PERSPECTRUM links a paraphrase to the head of the first cluster (by cId) that holds it; another
    # claim may keep the two apart. There the release's answer is "different", not unknown.
    claim = make_corpus(claims=1, perspectives=2)[0]
    first, second = (cluster.perspectives.get() for cluster in claim.clusters.order_by("position"))
    Perspective.objects.filter(pk=second.pk).update(origin=Origin.PARAPHRASE, paraphrase_of=first)

    specs = list(get_task_type("paraphrase_verification").select_items({}, {}))

    assert [(spec.perspective_id, spec.known_answer) for spec in specs] == [(second.pk, "different")]


def test_a_release_paraphrase_clustered_with_its_original_under_another_claim_is_known_as_same() -> None:
    claim = make_corpus(claims=1, perspectives=1)[0]
    original = claim.clusters.get().perspectives.get()
    elsewhere = PerspectiveFactory(origin=Origin.PARAPHRASE, source="paraphrase", paraphrase_of=original)

    specs = list(get_task_type("paraphrase_verification").select_items({}, {}))

    assert [(spec.perspective_id, spec.known_answer) for spec in specs] == [(elsewhere.pk, "same")]
