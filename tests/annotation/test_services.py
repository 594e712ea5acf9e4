from __future__ import annotations

from decimal import Decimal

import pytest
from django.db import IntegrityError, transaction

from annotation.market_interface.base import AssignmentReport, SyncReport
from annotation.markets.inhouse.market import InhouseMarket
from annotation.models import (
    Assignment,
    AssignmentState,
    Authorship,
    Hit,
    HitItem,
    JobState,
    Response,
    Worker,
    WorkerItem,
    WorkerItemReason,
)
from annotation.task_types import get_task_type
from annotation.task_types.base import Answer
from annotation.work import assignments
from annotation.work.assignments import (
    AnswerError,
    NotQualifiedError,
    NoWorkError,
    get_worker,
    has_work_left,
    items_of,
    next_assignment,
)
from annotation.work.job_errors import BudgetError, JobStateError
from annotation.work.jobs import (
    cancel_job,
    create_job,
    pause_job,
    publish_job,
    request_publish,
    resume_job,
    sync_job,
)
from annotation.work.quiz import grade_quiz
from annotation.work.records import block_worker, gold_accuracy, long_format, worker_pseudonym
from annotation.work.submitting import submit_assignment
from corpus.models import Origin, Perspective, Status
from tests.annotation.factories import PerspectiveFactory, make_corpus

pytestmark = pytest.mark.django_db


def qualified(job, name: str = "w1") -> Worker:
    worker = get_worker(job.market, name)
    grade_quiz(worker, job, {q.key: q.answer for q in get_task_type(job.task_type).quiz})
    return worker


def answers_for(assignment: Assignment, label: str = "SUPPORT") -> dict[int, Answer]:
    return {item.pk: Answer(label=label) for item in items_of(assignment)}


def test_stance_job_bundles_ten_claims_with_all_their_perspectives_per_hit() -> None:
    make_corpus(claims=23, perspectives=3)

    job = create_job("stance", {}, market="inhouse")

    hits = list(job.hits.order_by("position"))
    assert [hit.items.count() for hit in hits] == [30, 30, 9]
    first_claims = {item.payload["cid"] for item in hits[0].items.all()}
    assert len(first_claims) == 10
    assert job.state == JobState.DRAFT and job.workers_per_item == 3


def test_job_parameters_override_the_task_type_defaults() -> None:
    make_corpus(claims=4, perspectives=2)

    job = create_job("stance", {}, params={"groups_per_hit": 2, "workers_per_item": 5, "reward": "2.00"})

    assert job.hits.count() == 2
    assert set(job.hits.values_list("assignments_wanted", flat=True)) == {5}
    assert job.reward == Decimal("2.00")


def test_unknown_parameters_are_refused() -> None:
    make_corpus(claims=1)

    with pytest.raises(ValueError, match="no parameter"):
        create_job("stance", {}, params={"wokers_per_item": 5})


def test_simulated_job_completes_after_publish_then_sync() -> None:
    make_corpus(claims=20, perspectives=3)
    job = create_job("stance", {}, market="simulated", params={"crowd": {"size": 8}})

    publish_job(job.pk)
    job = sync_job(job.pk)

    assert job.state == JobState.COMPLETE
    assert Response.objects.filter(job=job).count() == 60 * 3
    assert not Response.objects.filter(job=job, simulated=False).exists()
    assert long_format(job).count() == 180


def test_publish_and_sync_are_safe_to_repeat() -> None:
    make_corpus(claims=3)
    job = create_job("stance", {}, market="simulated")

    publish_job(job.pk)
    publish_job(job.pk)
    sync_job(job.pk)
    sync_job(job.pk)

    assert Response.objects.filter(job=job).count() == 12 * 3


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


def test_pause_stops_new_work_and_cancel_expires_hits() -> None:
    make_corpus(claims=2)
    job = create_job("stance", {}, params={"groups_per_hit": 1})
    publish_job(job.pk)
    worker = qualified(job)

    pause_job(job.pk)
    job.refresh_from_db()
    with pytest.raises(NoWorkError, match="not taking work"):
        next_assignment(job, worker)

    cancel_job(job.pk)
    assert set(job.hits.values_list("expired", flat=True)) == {True}
    with pytest.raises(JobStateError):
        publish_job(job.pk) and resume_job(job.pk)


def test_publishing_over_budget_is_refused() -> None:
    make_corpus(claims=20)
    job = create_job("stance", {}, budget=Decimal("5.00"))  # 2 HITs × 3 × 1.50 = 9.00

    with pytest.raises(BudgetError):
        publish_job(job.pk)

    job.refresh_from_db()
    assert job.state == JobState.DRAFT


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


def test_publish_is_enqueued_only_after_commit(django_capture_on_commit_callbacks) -> None:
    make_corpus(claims=1)
    job = create_job("stance", {})

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        request_publish(job)
        job.refresh_from_db()
        assert job.state == JobState.DRAFT

    for callback in callbacks:
        callback()
    job.refresh_from_db()
    assert len(callbacks) == 1 and job.state == JobState.PUBLISHED


def test_each_hit_item_belongs_to_its_job() -> None:
    make_corpus(claims=2)
    first = create_job("stance", {})
    second = create_job("topic_tagging", {})

    assert not HitItem.objects.filter(hit__job=first).exclude(item__job=first).exists()
    assert second.items.count() == 2 and Perspective.objects.count() == 8


class ReportingMarket(InhouseMarket):
    """In-house work whose 'market' reports A1 approved, A2 rejected and an assignment we never had."""

    name = "reporting"

    def sync(self, job, queue) -> SyncReport:
        return SyncReport(
            assignments=[
                AssignmentReport("h", "A1", "w1", AssignmentState.APPROVED),
                AssignmentReport("h", "A2", "w2", AssignmentState.REJECTED),
                AssignmentReport("h", "A3", "w3", AssignmentState.APPROVED),
            ]
        )


def test_sync_takes_each_assignments_state_from_the_market(settings) -> None:
    settings.ANNOTATION_MARKETS = {
        **settings.ANNOTATION_MARKETS,
        "reporting": "tests.annotation.test_services.ReportingMarket",
    }
    make_corpus(claims=2, perspectives=2)
    job = publish_job(create_job("stance", {}, market="reporting").pk)
    first = next_assignment(job, qualified(job, "w1"), external_id="A1")
    second = next_assignment(job, qualified(job, "w2"), external_id="A2")
    submit_assignment(first.pk, answers_for(first))
    submit_assignment(second.pk, answers_for(second))

    sync_job(job.pk)

    states = dict(job.assignments.values_list("external_id", "state"))
    assert states == {"A1": AssignmentState.APPROVED, "A2": AssignmentState.REJECTED}
