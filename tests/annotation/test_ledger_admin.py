"""The ledger's admin: listed, read-only, and its actions run the ledger services."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib.auth.models import User
from django.test import Client

from annotation.ledger import intents
from annotation.ledger.models import LedgerEntry, ReconciliationIssue, RowKind, RowState
from annotation.models import Job


@pytest.fixture
def staff(client: Client) -> Client:
    client.force_login(User.objects.create_superuser("admin", "admin@example.com", "pw"))
    return client


@pytest.mark.django_db
def test_ledger_and_reconciliation_lists_show_rows(staff: Client) -> None:
    job = Job.objects.create(task_type="stance", market="mturk", reward=Decimal("1.50"))
    entry = intents.record(RowKind.BONUS, "mturk", ["asg:X", "r"], job_id=job.pk, market_ref="ASGX")
    ReconciliationIssue.objects.create(
        job=job, market="mturk", kind="bonus", ref="ASGX", ours="0", theirs="1"
    )

    ledger = staff.get("/admin/annotation/ledgerentry/")
    issues = staff.get("/admin/annotation/reconciliationissue/")
    detail = staff.get(f"/admin/annotation/ledgerentry/{entry.pk}/change/")

    assert ledger.status_code == issues.status_code == detail.status_code == 200
    assert b"ASGX" in ledger.content and b"ASGX" in issues.content
    assert b'name="token"' not in detail.content  # read-only: shown, never an input


@pytest.mark.django_db
def test_ledger_rows_cannot_be_added_or_deleted_by_hand(staff: Client) -> None:
    entry = intents.record(RowKind.APPROVE, "mturk", ["asg:Y"], market_ref="ASGY")

    assert staff.get("/admin/annotation/ledgerentry/add/").status_code == 403
    assert staff.get(f"/admin/annotation/ledgerentry/{entry.pk}/delete/").status_code == 403


@pytest.mark.django_db
def test_the_sweep_action_reports_what_it_did(staff: Client) -> None:
    entry = intents.record(RowKind.PAY, "prolific", ["bulk-1"], market_ref="bulk-1")
    LedgerEntry.objects.filter(pk=entry.pk).update(state=RowState.UNCLEAR)

    response = staff.post(
        "/admin/annotation/ledgerentry/",
        {"action": "sweep_stale", "index": 0, "_selected_action": [entry.pk]},
        follow=True,
    )

    assert b"Requeued 0, unclear 1" in response.content  # the admin capitalises messages


@pytest.mark.django_db
def test_an_unclear_payment_shows_on_the_job_and_a_person_decides_it_in_the_ledger(staff: Client) -> None:
    job = Job.objects.create(task_type="stance", market="prolific", currency="GBP", reward=Decimal("1.00"))
    Job.objects.filter(pk=job.pk).update(market_status="PAUSED", market_note="Prolific paused the study")
    pay = intents.record(
        RowKind.PAY, "prolific", ["bulk-9"], job_id=job.pk, market_ref="bulk-9", amount=Decimal("0.40")
    )
    LedgerEntry.objects.filter(pk=pay.pk).update(state=RowState.UNCLEAR, error="no answer to pay bulk-9")

    job_page = staff.get(f"/admin/annotation/job/{job.pk}/change/").content.decode()
    dashboard = staff.get(f"/aggregation/jobs/{job.pk}/").content.decode()
    decided = staff.post(
        "/admin/annotation/ledgerentry/",
        {"action": "decide_not_moved", "index": 0, "_selected_action": [pay.pk]},
        follow=True,
    )

    assert "1 unclear (pay 0.40 GBP)" in job_page and "Prolific paused the study" in job_page
    assert "Payments in doubt" in dashboard and "0.40 GBP" in dashboard
    pay.refresh_from_db()
    assert pay.state == RowState.FAILED and "decided by admin" in pay.error
    assert "no answer to pay bulk-9" in pay.error  # the evidence the decision rests on
    assert b"1 unclear rows decided by admin" in decided.content
