"""Machine annotators (issue 46, item 3): workers of their own kind whose labels are responses marked
machine, never paid, never counted as a person."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from aggregation.machine_agreement import PEOPLE, PEOPLE_AND_MACHINES, agreement_by_origin
from annotation.ledger.models import LedgerEntry
from annotation.machines.models import MACHINE_MARKET
from annotation.machines.services import MachineError, record_machine_labels, register_annotator
from annotation.models import Response, ResponseOrigin
from annotation.work.jobs import create_job
from annotation.work.records import long_format
from tests.aggregation.jobdata import answer, keys, stance_job
from tests.annotation.factories import make_corpus

pytestmark = pytest.mark.django_db

S, U = "SUPPORT", "UNDERMINE"


def test_each_registration_is_a_new_version_with_its_own_worker() -> None:
    first = register_annotator("tfidf", "stance", "local", "tfidf-logistic")
    second = register_annotator("tfidf", "stance", "local", "tfidf-logistic", settings={"C": 2.0})
    assert (first.version, second.version) == (1, 2)
    assert first.worker != second.worker
    assert first.worker.market == MACHINE_MARKET and not first.worker.simulated


def test_an_unknown_backend_is_refused() -> None:
    with pytest.raises(MachineError, match="unknown backend 'oracle'"):
        register_annotator("x", "stance", "oracle", "m")


def test_machine_labels_are_responses_marked_machine_without_assignment_or_payment() -> None:
    job = stance_job(make_corpus(claims=1, perspectives=3))
    machine = register_annotator("tfidf", "stance", "local", "tfidf-logistic")
    items = dict(job.items.values_list("key", "pk"))
    ledger_before = LedgerEntry.objects.count()
    written = record_machine_labels(machine, job, {pk: S for pk in items.values()})
    rows = Response.objects.filter(worker=machine.worker)
    assert written == len(items) == rows.count() == 3
    assert set(rows.values_list("origin", "assignment", "label")) == {(ResponseOrigin.MACHINE, None, S)}
    assert LedgerEntry.objects.count() == ledger_before


def test_a_machines_labels_in_a_simulated_job_are_marked_simulated_as_the_jobs_crowd_is() -> None:
    """Its labels there are routed against a simulated crowd's decisions: no release may pass them for
    labels of a real annotation effort."""
    machine = register_annotator("tfidf", "stance", "local", "tfidf-logistic")
    simulated = create_job("stance", {"claims": [c.cid for c in make_corpus(claims=1)]}, market="simulated")
    real = stance_job(make_corpus(claims=1, perspectives=2))
    for job in (simulated, real):
        record_machine_labels(machine, job, {pk: S for pk in job.items.values_list("pk", flat=True)})
    assert set(Response.objects.filter(job=simulated).values_list("simulated", flat=True)) == {True}
    assert set(Response.objects.filter(job=real).values_list("simulated", flat=True)) == {False}


def test_a_rerun_writes_nothing_new() -> None:
    job = stance_job(make_corpus(claims=1, perspectives=2))
    machine = register_annotator("tfidf", "stance", "local", "tfidf-logistic")
    labels = {pk: U for pk in job.items.values_list("pk", flat=True)}
    assert record_machine_labels(machine, job, labels) == 2
    assert record_machine_labels(machine, job, labels) == 0


def test_a_label_outside_the_task_types_set_is_refused_and_nothing_is_written() -> None:
    job = stance_job(make_corpus(claims=1, perspectives=2))
    machine = register_annotator("tfidf", "stance", "local", "tfidf-logistic")
    with pytest.raises(MachineError, match=r"labels \['agree'\] are not among stance's"):
        record_machine_labels(machine, job, dict.fromkeys(job.items.values_list("pk", flat=True), "agree"))
    assert not Response.objects.filter(worker=machine.worker).exists()


def test_a_crowd_response_without_an_assignment_is_refused_by_the_database() -> None:
    job = stance_job(make_corpus(claims=1, perspectives=1))
    machine = register_annotator("tfidf", "stance", "local", "tfidf-logistic")
    item = job.items.get()
    with pytest.raises(IntegrityError), transaction.atomic():
        Response.objects.create(job=job, item=item, worker=machine.worker, label=S, created=item.job.created)


def test_agreement_is_reported_for_people_and_for_people_and_machines_side_by_side() -> None:
    job = stance_job(make_corpus(claims=1, perspectives=2))
    first, second = keys(job)
    answer(job, {first: [S, S, S], second: [S, S, S]})
    machine = register_annotator("tfidf", "stance", "local", "tfidf-logistic")
    record_machine_labels(machine, job, dict.fromkeys(job.items.values_list("pk", flat=True), U))
    figures = agreement_by_origin(job)
    assert figures[PEOPLE].mean_rho == 1.0 and figures[PEOPLE].ratings == 6
    assert figures[PEOPLE_AND_MACHINES].ratings == 8
    assert figures[PEOPLE_AND_MACHINES].mean_rho < 1.0


def test_the_aggregators_long_format_leaves_machines_out_unless_asked() -> None:
    job = stance_job(make_corpus(claims=1, perspectives=1))
    answer(job, {keys(job)[0]: [S, S]})
    machine = register_annotator("tfidf", "stance", "local", "tfidf-logistic")
    record_machine_labels(machine, job, dict.fromkeys(job.items.values_list("pk", flat=True), U))
    assert [label for *_, label in long_format(job)] == [S, S]
    assert sorted(label for *_, label in long_format(job, with_machines=True)) == [S, S, U]
