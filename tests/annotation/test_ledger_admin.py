"""The ledger's admin: listed, read-only, and its actions run the ledger services."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib.auth.models import User
from django.test import Client

from annotation.ledger import intents
from annotation.ledger.models import LedgerEntry, LedgerKind, LedgerState, ReconciliationIssue
from annotation.models import Job


@pytest.fixture
def staff(client: Client) -> Client:
    client.force_login(User.objects.create_superuser("admin", "admin@example.com", "pw"))
    return client


@pytest.mark.django_db
def test_ledger_and_reconciliation_lists_show_rows(staff: Client) -> None:
    job = Job.objects.create(task_type="stance", provider="mturk", reward=Decimal("1.50"))
    entry = intents.record(LedgerKind.BONUS, "mturk", ["asg:X", "r"], job_id=job.pk, market_ref="ASGX")
    ReconciliationIssue.objects.create(
        job=job, provider="mturk", kind="bonus", ref="ASGX", ours="0", theirs="1"
    )

    ledger = staff.get("/admin/annotation/ledgerentry/")
    issues = staff.get("/admin/annotation/reconciliationissue/")
    detail = staff.get(f"/admin/annotation/ledgerentry/{entry.pk}/change/")

    assert ledger.status_code == issues.status_code == detail.status_code == 200
    assert b"ASGX" in ledger.content and b"ASGX" in issues.content
    assert b'name="token"' not in detail.content  # read-only: shown, never an input


@pytest.mark.django_db
def test_ledger_rows_cannot_be_added_or_deleted_by_hand(staff: Client) -> None:
    entry = intents.record(LedgerKind.APPROVE, "mturk", ["asg:Y"], market_ref="ASGY")

    assert staff.get("/admin/annotation/ledgerentry/add/").status_code == 403
    assert staff.get(f"/admin/annotation/ledgerentry/{entry.pk}/delete/").status_code == 403


@pytest.mark.django_db
def test_the_sweep_action_reports_what_it_did(staff: Client) -> None:
    entry = intents.record(LedgerKind.PAY, "prolific", ["bulk-1"], market_ref="bulk-1")
    LedgerEntry.objects.filter(pk=entry.pk).update(state=LedgerState.UNCLEAR)

    response = staff.post(
        "/admin/annotation/ledgerentry/",
        {"action": "sweep_stale", "index": 0, "_selected_action": [entry.pk]},
        follow=True,
    )

    assert b"Requeued 0, unclear 1" in response.content  # the admin capitalises messages
