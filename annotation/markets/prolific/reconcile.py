"""Prolific's reconciliation step: submissions per study, and the bonuses on each submission we paid."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from decimal import Decimal

from annotation.ledger.models import IssueKind, LedgerEntry, LedgerKind
from annotation.ledger.reconcile import bonus_issues, compare_assignments, confirmed_rows, issue
from annotation.market_interface.money import Discrepancy
from annotation.markets.prolific import account
from annotation.markets.prolific.client import prolific_client
from annotation.markets.prolific.identity import PROLIFIC
from annotation.markets.prolific.states import ASSIGNMENT_STATES, REVIEWED
from annotation.models import Hit, Job


def reconcile_prolific_job(job: Job) -> Iterable[Discrepancy]:
    client = prolific_client()
    market: dict[str, tuple[str, str]] = {}
    recorded = set(job.hits.exclude(external_id="").values_list("external_id", flat=True))
    created = LedgerEntry.objects.filter(job=job, kind=LedgerKind.CREATE_HIT).exclude(result_ref="")
    made = set(created.values_list("result_ref", flat=True))
    for study_id in sorted(made - recorded):
        # The ledger made a study the job's HITs never took (a publish whose reply was lost).
        status = client.get_study(study_id).status
        yield issue(IssueKind.HIT, study_id, f"job {job.state}, no HIT names the study", status)
    for study_id in sorted(recorded | made):
        for sub in client.list_submissions(study_id):
            market[sub.submission_id] = (sub.status, sub.participant_id)
    yield from compare_assignments(job, market, ASSIGNMENT_STATES, REVIEWED)
    # Bonuses show only on a submission's own record: read those the ledger paid or tried to pay.
    touched = LedgerEntry.objects.filter(job=job, kind=LedgerKind.BONUS).values_list("market_ref", flat=True)
    paid = {ref: Decimal(sum(client.bonuses_paid(ref))) / 100 for ref in sorted(set(touched)) if ref}
    ours: dict[str, Decimal] = defaultdict(Decimal)
    for rows in confirmed_rows(job, LedgerKind.PAY).values():
        for row in rows:
            ours[str(row.params.get("submission_id", ""))] += row.amount
    yield from bonus_issues(ours, paid)


def unowned_studies() -> Iterable[Discrepancy]:
    """Studies in our project that no HIT and no ledger row of ours names: made by a reply we lost
    before it was recorded, or by hand. Listed for a person; nothing is changed at Prolific."""
    ours = set(Hit.objects.exclude(external_id="").values_list("external_id", flat=True))
    ours |= set(
        LedgerEntry.objects.filter(provider=PROLIFIC, kind=LedgerKind.CREATE_HIT)
        .exclude(result_ref="")
        .values_list("result_ref", flat=True)
    )
    for study in prolific_client().list_project_studies(account.project_id()):
        if study.study_id not in ours:
            yield Discrepancy(
                IssueKind.UNOWNED, study.study_id, "no job owns it", f"{study.status}: {study.internal_name}"
            )
