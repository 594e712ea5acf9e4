"""Quality acted on while a job runs: adaptive gold in assignments, workers stopped on evidence,
told why, let back in by a person; all in the audit trail."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from accounts.models import AuditEvent
from annotation.ledger.models import LedgerEntry, RowKind, RowState
from annotation.machines.services import record_machine_labels, register_annotator
from annotation.models import Assignment, Hit, HitItem, Item, Job, Worker, WorkerItem, WorkerItemReason
from annotation.quality import services as quality
from annotation.quality.models import QualityCheck, WorkerStop
from annotation.task_types.base import Answer
from annotation.work.assignments import NoWorkError, item_ids_of, items_of, next_assignment
from annotation.work.job_errors import JobError
from annotation.work.jobs import create_job, publish_job, sync_job
from annotation.work.submitting import submit_assignment
from corpus.models import Status
from tests.annotation.doing_work import qualified
from tests.annotation.factories import make_corpus

pytestmark = pytest.mark.django_db

LIVE = {"groups_per_hit": 1, "gold_schedule": "adaptive", "stop_workers": True, "quality_bar": 0.5}


def live_job(claims: int = 8, gold_claims: int = 6, **params: object) -> Job:
    make_corpus(claims=claims, perspectives=3)
    make_corpus(claims=gold_claims, perspectives=3, status=Status.ADJUDICATED)
    job = create_job(
        "stance", {"status": "candidate", "gold": {"status": "adjudicated"}}, params={**LIVE, **params}
    )
    publish_job(job.pk)
    return job


def opposite(item: Item) -> str:
    """A stance on the other side of the item's, as the job decides stances (on three labels, where a
    mild support is a support): undermine for a support, support for anything else."""
    right = str(item.known_answer or "SUPPORT")
    return "UNDERMINE" if right in ("SUPPORT", "MILDLY_SUPPORT") else "SUPPORT"


def do_hit(job: Job, worker: Worker, *, honest: bool) -> Assignment:
    assignment = next_assignment(job, worker)
    answers = {
        item.pk: Answer(label=str(item.known_answer or "SUPPORT") if honest else opposite(item))
        for item in items_of(assignment)
    }
    return submit_assignment(assignment.pk, answers)


def test_an_adaptive_job_puts_no_gold_in_its_hits_but_gives_a_new_worker_some() -> None:
    job = live_job()
    assert not HitItem.objects.filter(hit__job=job, item__is_gold=True).exists()
    worker = qualified(job, "w1")

    assignment = next_assignment(job, worker)

    items = items_of(assignment)
    gold = [item for item in items if item.is_gold]
    extra = WorkerItem.objects.filter(assignment=assignment, reason=WorkerItemReason.GOLD)
    assert sorted(item.pk for item in gold) == sorted(extra.values_list("item_id", flat=True))
    assert [item.pk for item in items] == item_ids_of(assignment)
    assert items_of(assignment) == items  # the places stay where they were drawn
    hit_items = [item.pk for item in items if not item.is_gold]
    assert hit_items == list(HitItem.objects.filter(hit=assignment.hit).values_list("item_id", flat=True))


def test_a_new_worker_meets_gold_at_about_one_item_in_ten() -> None:
    job = live_job(claims=40, gold_claims=20)
    shown = gold = 0
    for n in range(12):
        assignment = next_assignment(job, qualified(job, f"w{n}"))
        items = items_of(assignment)
        shown += len(items)
        gold += sum(1 for item in items if item.is_gold)
    assert shown > 0
    assert 0.02 <= gold / shown <= 0.25


def test_gold_answers_of_the_added_items_are_scored() -> None:
    job = live_job()
    worker = qualified(job, "w1")
    for _ in range(3):
        do_hit(job, worker, honest=True)
    check = QualityCheck.objects.filter(worker=worker).last()
    assert check is not None and check.gold_answered == check.gold_correct
    assert QualityCheck.objects.filter(worker=worker).count() == 3


def stop_an_adversary(job: Job) -> Worker:
    honest = [qualified(job, f"h{n}") for n in range(2)]
    adversary = qualified(job, "market-id-of-the-adversary")
    for _ in range(4):
        for worker in honest:
            do_hit(job, worker, honest=True)
    for _ in range(8):
        if WorkerStop.objects.filter(worker=adversary).exists():
            break
        do_hit(job, adversary, honest=False)
    with pytest.raises(NoWorkError) as stopped:
        next_assignment(job, adversary)
    assert "not offering you more work" in str(stopped.value)
    assert "Nothing you submitted has been rejected" in str(stopped.value)
    return adversary


def test_a_worker_who_answers_the_opposite_is_stopped_told_why_and_nothing_is_rejected() -> None:
    job = live_job()
    adversary = stop_an_adversary(job)

    stop = WorkerStop.objects.get(job=job, worker=adversary)
    assert stop.in_force and stop.quality_check.high < 0.5
    assert stop.evidence and all(not row["right"] for row in stop.evidence)
    assert {"item", "answer", "gold", "against", "right"} <= set(stop.evidence[0])
    assert not Assignment.objects.filter(worker=adversary, state="rejected").exists()
    assert Assignment.objects.filter(worker=adversary, state="submitted").exists()
    event = AuditEvent.objects.get(action=AuditEvent.Action.WORKER_STOPPED)
    assert event.detail["stop"] == stop.pk and event.detail["evidence"] == stop.evidence
    assert adversary.external_id not in str(event.detail)


def test_honest_workers_are_not_stopped() -> None:
    job = live_job()
    stop_an_adversary(job)
    assert list(WorkerStop.objects.values_list("worker__external_id", flat=True)) == [
        "market-id-of-the-adversary"
    ]


def test_a_person_reverses_a_stop_and_the_worker_gets_work_again_for_good() -> None:
    job = live_job()
    adversary = stop_an_adversary(job)
    stop = WorkerStop.objects.get(worker=adversary)
    person = User.objects.create(username="lead")

    quality.reverse_stop(stop.pk, person, "talked to them: they misread the instructions")

    assert next_assignment(job, adversary).worker == adversary
    event = AuditEvent.objects.get(action=AuditEvent.Action.WORKER_STOP_REVERSED)
    assert event.actor == person and event.detail["stop"] == stop.pk
    with pytest.raises(quality.StopReversalError):
        quality.reverse_stop(stop.pk, person)
    assert WorkerStop.objects.count() == 1


def ledger_row(assignment: Assignment, kind: str, state: str, amount: str = "0") -> LedgerEntry:
    """A ledger row of the assignment as the engine leaves it (its market call made or failed)."""
    token = f"{kind}-{state}-{amount}"
    return LedgerEntry.objects.create(
        kind=kind,
        market="inhouse",
        job=assignment.job,
        hit=assignment.hit,
        assignment=assignment,
        token=token,
        intent=token,
        state=state,
        amount=Decimal(amount),
    )


def test_money_paid_to_a_stopped_worker_is_read_from_the_ledger() -> None:
    job = live_job()
    adversary = stop_an_adversary(job)
    assignment = Assignment.objects.filter(worker=adversary).first()
    assert assignment is not None
    ledger_row(assignment, RowKind.APPROVE, RowState.CONFIRMED)
    ledger_row(assignment, RowKind.BONUS, RowState.CONFIRMED, "0.25")
    ledger_row(assignment, RowKind.BONUS, RowState.FAILED, "9.00")
    honest = Assignment.objects.exclude(worker=adversary).first()
    assert honest is not None
    ledger_row(honest, RowKind.BONUS, RowState.CONFIRMED, "5.00")  # paid, but to a worker not stopped

    reward = Hit.objects.get(pk=assignment.hit_id).reward
    assert quality.paid_to_stopped(job) == reward + Decimal("0.25")
    assert quality.paid_to_stopped() == reward + Decimal("0.25")


def test_an_adaptive_job_without_a_gold_filter_is_refused_with_why() -> None:
    make_corpus(claims=2)
    with pytest.raises(JobError, match="gold_schedule: adaptive needs a `gold` filter"):
        create_job("stance", {}, params={"gold_schedule": "adaptive"})


def test_an_impossible_bar_is_refused_at_creation() -> None:
    make_corpus(claims=2)
    with pytest.raises(JobError, match="quality_bar"):
        create_job("stance", {}, params={"quality_bar": 2})


def test_a_simulated_crowd_answers_the_gold_added_to_its_assignments_and_its_bad_workers_are_stopped() -> (
    None
):
    make_corpus(claims=40, perspectives=3)
    make_corpus(claims=12, perspectives=3, status=Status.ADJUDICATED)
    crowd = {"size": 10, "spammer_share": 0.2, "adversary_share": 0.2, "accuracy_low": 0.85}
    job = create_job(
        "stance",
        {"status": "candidate", "gold": {"status": "adjudicated"}},
        market="simulated",
        params={**LIVE, "crowd": crowd},
    )
    publish_job(job.pk)
    sync_job(job.pk)

    gold = WorkerItem.objects.filter(
        worker__in=job.assignments.values("worker"), reason=WorkerItemReason.GOLD
    )
    assert gold.exists()
    assert job.responses.filter(is_gold=True).count() == gold.count()
    assert QualityCheck.objects.filter(job=job).count() == job.assignments.filter(state="submitted").count()
    stopped = [stop.worker.model for stop in WorkerStop.objects.filter(job=job)]
    assert stopped and all(model["spammer"] or model["adversary"] for model in stopped)


def test_a_stopped_in_house_annotator_is_told_why_on_the_page(client: Client) -> None:
    job = live_job()
    user = User.objects.create_user("annotator")
    stop_an_adversary(job)
    stopped = WorkerStop.objects.get().worker  # becomes the in-house annotator's own worker row
    stopped.external_id, stopped.user = f"user-{user.pk}", user
    stopped.save()
    client.force_login(user)

    page = client.post(reverse("annotation:start", args=[job.pk]))

    text = page.content.decode()
    assert page.status_code == 200
    assert "not offering you more work" in text and "Nothing you submitted has been rejected" in text


def test_a_machines_labels_are_not_an_other_worker_in_the_live_decision() -> None:
    job = live_job(stop_workers=False)
    machine = register_annotator("tfidf", "stance", "local", "tfidf-logistic")
    items = list(job.items.filter(is_gold=False))
    assert items
    record_machine_labels(machine, job, {item.pk: opposite(item) for item in items})
    first, second = qualified(job, "p1"), qualified(job, "p2")
    do_hit(job, first, honest=False)  # the machine backs their answers

    check = do_hit(job, second, honest=True).quality_check

    # One other person answered the items: too few for a decision, whatever the machine said.
    assert check.compared == 0
