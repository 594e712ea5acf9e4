"""Prolific's reconciliation step: submissions per study, and the bonuses on each submission we paid."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from decimal import Decimal

from annotation.market_interface import money
from annotation.markets.prolific import account
from annotation.markets.prolific.client import prolific_client
from annotation.markets.prolific.identity import PROLIFIC
from annotation.markets.prolific.states import ASSIGNMENT_STATES, REVIEWED
from annotation.models import Hit, Job


def reconcile_prolific_job(job: Job, records: money.Records) -> Iterable[money.Discrepancy]:
    client = prolific_client()
    market: dict[str, tuple[str, str]] = {}
    recorded = set(job.hits.exclude(external_id="").values_list("external_id", flat=True))
    made = {row.result_ref for row in records.rows(money.RowKind.CREATE_HIT, job_id=job.pk) if row.result_ref}
    for study_id in sorted(made - recorded):
        # The ledger made a study the job's HITs never took (a publish whose reply was lost).
        status = client.get_study(study_id).status
        yield money.issue(money.IssueKind.HIT, study_id, f"job {job.state}, no HIT names the study", status)
    for study_id in sorted(recorded | made):
        for sub in client.list_submissions(study_id):
            market[sub.submission_id] = (sub.status, sub.participant_id)
    yield from records.compare_assignments(job.pk, market, ASSIGNMENT_STATES, REVIEWED)
    # Bonuses show only on a submission's own record: read those the ledger paid or tried to pay.
    touched = {row.market_ref for row in records.rows(money.RowKind.BONUS, job_id=job.pk)}
    paid = {ref: Decimal(sum(client.bonuses_paid(ref))) / 100 for ref in sorted(touched) if ref}
    ours: dict[str, Decimal] = defaultdict(Decimal)
    for row in records.rows(money.RowKind.PAY, job_id=job.pk, states=[money.RowState.CONFIRMED]):
        ours[str(row.params.get("submission_id", ""))] += row.amount
    yield from money.bonus_issues(ours, paid)


def unowned_studies(records: money.Records) -> Iterable[money.Discrepancy]:
    """Studies in our project that no HIT and no ledger row of ours names: made by a reply we lost
    before it was recorded, or by hand. Listed for a person; nothing is changed at Prolific."""
    ours = set(Hit.objects.exclude(external_id="").values_list("external_id", flat=True))
    ours |= {
        row.result_ref for row in records.rows(money.RowKind.CREATE_HIT, market=PROLIFIC) if row.result_ref
    }
    for study in prolific_client().list_project_studies(account.project_id()):
        if study.study_id not in ours:
            yield money.Discrepancy(
                money.IssueKind.UNOWNED,
                study.study_id,
                "no job owns it",
                f"{study.status}: {study.internal_name}",
            )
