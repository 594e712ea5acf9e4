"""Prolific behind the provider interface: one study per published batch, money through the ledger."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import ClassVar

from django.conf import settings

from annotation import payments
from annotation.ledger import LedgerKind, LedgerState
from annotation.models import Assignment, AssignmentState, Hit, Job
from annotation.payments import confirmed
from annotation.providers.base import (
    AssignmentReport,
    ExternalIdentity,
    Handoff,
    Provider,
    ProviderError,
    PublishedHit,
    SyncReport,
    WorkQueue,
)
from annotation.providers.market_clients import prolific_client
from annotation.providers.market_pages import task_url
from annotation.providers.prolific import StudySpec, completion_redirect
from annotation.worker_identity import PROLIFIC, market_ids

STATES = {
    "RESERVED": AssignmentState.ACCEPTED,
    "ACTIVE": AssignmentState.ACCEPTED,
    "AWAITING REVIEW": AssignmentState.SUBMITTED,
    "APPROVED": AssignmentState.APPROVED,
    "REJECTED": AssignmentState.REJECTED,
    "RETURNED": AssignmentState.RETURNED,
    "TIMED-OUT": AssignmentState.EXPIRED,
}
PROLIFIC_PARAMS = ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID")
FINISHED_STUDY = frozenset({"COMPLETED", "AWAITING REVIEW"})


def completion_code(job: Job) -> str:
    """The job's completion code: from its params, else derived from the job (stable, unguessable)."""
    code = job.params.get("completion_code")
    if code:
        return str(code)
    material = f"{settings.SECRET_KEY}|prolific-completion|{job.pk}".encode()
    return hashlib.sha256(material).hexdigest()[:8].upper()


class ProlificProvider(Provider):
    name = "prolific"
    # Prolific's platform fee on rewards and bonuses (33.3%); a job may set params["fee_rate"].
    pays_bonuses: ClassVar[bool] = True
    fee_rate: ClassVar[Decimal] = Decimal("0.3334")

    def publish(self, job: Job, hits: Sequence[Hit], idempotency_token: str) -> list[PublishedHit]:
        if not hits:
            return []
        # The worst-case cost was checked against budget and balance by the caller (services.jobs).
        reward = max(hit.reward for hit in hits)
        places = sum(hit.assignments_wanted for hit in hits)
        spec = StudySpec(
            name=str(job.params.get("title") or job.name or job.task_type)[:120],
            internal_name=f"stancework job {job.pk}",
            description=str(job.params.get("description") or f"{job.task_type} annotation"),
            task_url=task_url(job.pk),
            places=places,
            reward_cents=int(reward * 100),
            minutes=int(job.params.get("minutes", 10)),
            completion_code=completion_code(job),
        )
        entry = payments.record(
            LedgerKind.CREATE_HIT,
            self.name,
            [f"job:{job.pk}", f"hits:{min(h.pk for h in hits)}-{max(h.pk for h in hits)}"],
            job_id=job.pk,
            amount=reward * places,
            currency=str(job.params.get("currency", "GBP")),
            params={"study": dataclasses.asdict(spec)},
        )
        entry = confirmed(entry)
        return [PublishedHit(hit_pk=hit.pk, external_id=entry.result_ref, url=spec.task_url) for hit in hits]

    def sync(self, job: Job, queue: WorkQueue) -> SyncReport:
        client = prolific_client()
        reports = []
        studies = job.hits.exclude(external_id="").values_list("external_id", flat=True).distinct()
        for study_id in studies:
            for sub in client.list_submissions(study_id):
                reports.append(
                    AssignmentReport(
                        hit_external_id=study_id,
                        assignment_external_id=sub.submission_id,
                        worker_external_id=sub.participant_id,
                        state=STATES.get(sub.status, AssignmentState.ACCEPTED),
                    )
                )
        return SyncReport(assignments=reports)

    def approve(self, assignment: Assignment, feedback: str, idempotency_token: str) -> None:
        confirmed(payments.review_intent(assignment, approve=True, feedback=feedback))

    def reject(self, assignment: Assignment, reason: str, idempotency_token: str) -> None:
        category = str(assignment.job.params.get("rejection_category", "OTHER"))
        confirmed(payments.review_intent(assignment, approve=False, feedback=reason, category=category))

    def bonus(self, assignment: Assignment, amount: Decimal, reason: str, idempotency_token: str) -> None:
        setup = confirmed(payments.bonus_intent(assignment, amount, reason, idempotency_token))
        pay = payments.pay_bonus(setup)
        if pay.state != LedgerState.CONFIRMED:
            raise ProviderError(f"Prolific bonus payment is {pay.state}: {pay.error or 'resolve by reading'}")

    def extend(self, job: Job, hits: Sequence[Hit], count: int) -> None:
        """More places on the job's study: one EXTEND row naming the new total (idempotent to set)."""
        studies = {hit.external_id for hit in hits}
        if len(studies) != 1:
            raise ProviderError(f"a Prolific job is one study; these HITs name {sorted(studies)}")
        study_id = studies.pop()
        places = sum(hit.assignments_wanted for hit in job.hits.all()) + count * len(hits)
        entry = payments.record(
            LedgerKind.EXTEND,
            self.name,
            [f"job:{job.pk}", f"study:{study_id}", f"places:{places}"],
            job_id=job.pk,
            market_ref=study_id,
            amount=max(hit.reward for hit in hits) * count * len(hits),
            currency=str(job.params.get("currency", "GBP")),
            params={"places": places},
        )
        confirmed(entry)

    def balance(self) -> Decimal | None:
        balance = prolific_client().get_balance(settings.PROLIFIC_WORKSPACE_ID)
        return Decimal(balance.available_cents) / 100

    def reward_lines(self, hits: Sequence[Hit], extra: int = 0) -> list[tuple[Decimal, int]]:
        """One study for the batch: every place is paid the highest reward of its HITs."""
        if not hits:
            return []
        return [(max(hit.reward for hit in hits), sum(hit.assignments_wanted + extra for hit in hits))]

    def expire(self, hit: Hit) -> None:
        client = prolific_client()
        if client.get_study(hit.external_id).status not in FINISHED_STUDY:
            client.stop_study(hit.external_id)

    def identity_from_params(self, params: Mapping[str, str]) -> ExternalIdentity | None:
        ids = market_ids(params)
        if ids is None or ids.market != PROLIFIC:
            return None
        return ExternalIdentity(
            provider=self.name,
            worker_id=ids.worker_id,
            hit_id=ids.hit_id,
            assignment_id=ids.assignment_id,
            extra={name: params[name] for name in PROLIFIC_PARAMS},
        )

    def after_submit(self, assignment: Assignment, identity: ExternalIdentity | None) -> Handoff | None:
        if identity is None:
            return None
        return Handoff(completion_redirect(completion_code(assignment.job)))
