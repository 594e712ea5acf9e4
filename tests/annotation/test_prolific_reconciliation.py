"""Reconciliation with Prolific: a draft whose study went live, and a study in our project that no
job owns, are flagged. Against FakeProlific."""

from __future__ import annotations

import pytest

from annotation.ledger.models import IssueKind, LedgerEntry, ReconciliationIssue, RowKind
from annotation.ledger.reconcile import jobs_to_reconcile, reconcile_job, reconcile_markets
from annotation.markets.prolific.fake import FakeProlific
from annotation.models import Job, JobState
from tests.annotation.test_prolific_market import fake, published, study_of

pytestmark = pytest.mark.django_db(transaction=True)
__all__ = ["fake"]  # the fixture, imported for pytest


def test_a_draft_whose_study_went_live_is_reconciled_and_flagged(fake: FakeProlific) -> None:
    job = published()
    Job.objects.filter(pk=job.pk).update(state=JobState.DRAFT)  # the publish reply was lost
    job.hits.update(external_id="")

    assert job.pk in jobs_to_reconcile()
    issues = reconcile_job(job.pk)

    assert [(i.kind, i.ref) for i in issues] == [(IssueKind.HIT, study_of_ledger(job))]
    assert "ACTIVE" in issues[0].theirs


def study_of_ledger(job: Job) -> str:
    return str(LedgerEntry.objects.get(job=job, kind=RowKind.CREATE_HIT).result_ref)


def test_a_study_in_our_project_that_no_job_owns_is_flagged(fake: FakeProlific) -> None:
    job = published()
    fake.studies["study-by-hand"] = {
        "id": "study-by-hand",
        "internal_name": "made by hand",
        "status": "ACTIVE",
        "total_available_places": 3,
        "project": FakeProlific.PROJECT,
    }

    found = reconcile_markets()

    assert [(i.kind, i.ref, i.job_id) for i in found] == [(IssueKind.UNOWNED, "study-by-hand", None)]
    assert ReconciliationIssue.objects.filter(kind=IssueKind.UNOWNED).count() == 1
    assert study_of(job) not in {i.ref for i in found}
