"""MTurk behind the market interface, one class: one listing per HIT; every HIT, review and bonus is a
ledger row that `MTurkMarket.send` makes into MTurk's call (calls.py)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Iterable, Iterator, Mapping, Sequence
from decimal import Decimal
from typing import ClassVar, cast

from django.conf import settings

from annotation.market_interface import base
from annotation.market_interface.base import Control, Market
from annotation.market_interface.errors import MarketRejectedError
from annotation.market_interface.money import Discrepancy, Records
from annotation.market_interface.pages import task_url
from annotation.markets.mturk import calls
from annotation.markets.mturk.client import mturk_client
from annotation.markets.mturk.identity import (
    MTURK,
    MTURK_PARAMS,
    WORKER_SITES,
    external_submit_url,
    mturk_ids,
)
from annotation.markets.mturk.reconcile import reconcile_mturk_job
from annotation.markets.mturk.spec import (
    DEFAULT_FEE_RATE,
    HitTypeSpec,
    QualificationPolicy,
    check_assignments,
)
from annotation.markets.mturk.states import ASSIGNMENT_STATES
from annotation.models import Assignment, AssignmentState, Hit, Job, Worker

# UpdateExpirationForHIT with a time in the past expires the HIT at once.
PAST = dt.datetime(2015, 1, 1, tzinfo=dt.UTC)


def lifetime(job: Job) -> dt.timedelta:
    """How long a HIT of the job is offered (job parameter `lifetime_seconds`, a week by default)."""
    return dt.timedelta(seconds=int(job.params.get("lifetime_seconds", 7 * 86400)))


def qualification_policy(params: Mapping[str, object]) -> QualificationPolicy:
    """Settings give the defaults (the paper's crowd); a job's params may override each one."""
    return QualificationPolicy(
        locales=tuple(params.get("mturk_locales", settings.MTURK_LOCALES)),  # type: ignore[arg-type]
        min_approved_hits=params.get("mturk_min_approved_hits", settings.MTURK_MIN_APPROVED_HITS),  # type: ignore[arg-type]
        min_approval_rate=params.get("mturk_min_approval_rate", settings.MTURK_MIN_APPROVAL_RATE),  # type: ignore[arg-type]
        quiz_qualification_id=settings.MTURK_QUIZ_QUALIFICATION_ID or None,
        soft_block_qualification_id=settings.MTURK_SOFT_BLOCK_QUALIFICATION_ID or None,
    )


class MTurkMarket(Market):
    name = MTURK
    currency = "USD"
    capabilities = base.Capabilities(
        review=True,
        bonus=True,
        extend=True,
        reconcile=True,
        worker_takes_hit=True,
        confirms_work=True,
        controls=frozenset({Control.EXPIRE, Control.REOFFER, Control.BLOCK, Control.UNBLOCK}),
        job_blocklist=True,
    )
    fee_rate: ClassVar[Decimal] = DEFAULT_FEE_RATE
    url_params = MTURK_PARAMS
    frame_ancestors = WORKER_SITES
    money = calls.MONEY

    def publish(self, job: Job, hits: Sequence[Hit], more: int = 0) -> Iterator[base.Listing]:
        """One listing per HIT: a new HIT of its reward's HIT type, or `more` assignments on it."""
        if more:
            yield from self._extensions(job, hits, more)
            return
        client = mturk_client()
        for hit in hits:
            check_assignments(hit.assignments_wanted)
        # The worst-case cost was checked against budget and balance by the caller (work.jobs).
        url = task_url(job.pk)
        hit_types: dict[Decimal, str] = {}
        for hit in hits:
            if hit.reward not in hit_types:
                hit_types[hit.reward] = client.create_hit_type(self._hit_type(job, hit.reward))
            yield base.Listing(
                (hit.pk,),
                url,
                refs=(f"hit:{hit.pk}",),
                hit_pk=hit.pk,
                amount=hit.reward * hit.assignments_wanted,
                params={
                    "hit_type_id": hit_types[hit.reward],
                    "task_url": url,
                    "max_assignments": hit.assignments_wanted,
                    "lifetime": int(lifetime(job).total_seconds()),
                },
            )

    def _extensions(self, job: Job, hits: Sequence[Hit], more: int) -> Iterator[base.Listing]:
        """More assignments on each HIT, each listing naming the total it reaches ("to:N")."""
        for hit in hits:
            check_assignments(more, already=hit.assignments_wanted)
            yield base.Listing(
                (hit.pk,),
                refs=(f"hit:{hit.pk}", f"to:{hit.assignments_wanted + more}"),
                hit_pk=hit.pk,
                market_ref=hit.external_id,
                amount=hit.reward * more,
                params={"count": more},
            )

    def _hit_type(self, job: Job, reward: Decimal) -> HitTypeSpec:
        params = job.params
        return HitTypeSpec(
            title=str(params.get("title") or job.name or job.task_type)[:128],
            description=str(params.get("description") or f"{job.task_type} annotation")[:2000],
            reward=reward,
            assignment_duration=dt.timedelta(seconds=int(params.get("assignment_seconds", 3600))),
            keywords=tuple(params.get("keywords", ("annotation", "stance"))),
            qualifications=dataclasses.replace(
                qualification_policy(params), job_blocklist_qualification_id=job.market_blocklist or None
            ),
        )

    def sync(self, job: Job, queue: base.WorkQueue) -> base.SyncReport:
        client = mturk_client()
        reports = []
        for hit in job.hits.exclude(external_id="").order_by("position"):
            for found in client.list_assignments(hit.external_id):
                reports.append(
                    base.AssignmentReport(
                        hit_external_id=hit.external_id,
                        assignment_external_id=found.assignment_id,
                        worker_external_id=found.worker_id,
                        state=ASSIGNMENT_STATES.get(found.status, AssignmentState.SUBMITTED),
                        submitted_at=found.submit_time,
                    )
                )
        return base.SyncReport(assignments=reports)

    def control(self, action: Control, target: Job | Hit | Worker, reason: str = "") -> str:
        """Expiring and re-offering set a HIT's expiry; blocking is a soft block, our own qualification,
        which our HITs require to be absent (nothing to do where none is configured)."""
        blocker = settings.MTURK_SOFT_BLOCK_QUALIFICATION_ID
        if action == Control.EXPIRE:
            mturk_client().update_expiration(cast(Hit, target).external_id, PAST)
        elif action == Control.REOFFER:
            hit = cast(Hit, target)
            mturk_client().update_expiration(hit.external_id, dt.datetime.now(dt.UTC) + lifetime(hit.job))
        elif action in (Control.BLOCK, Control.UNBLOCK) and blocker:
            worker_id = cast(Worker, target).external_id
            if action == Control.BLOCK:
                mturk_client().grant_qualification(blocker, worker_id)
            else:
                mturk_client().revoke_qualification(blocker, worker_id, "unblocked by staff")
        return ""

    def make_blocklist(self, job: Job, name: str) -> str:
        """The job's own qualification type, which its HITs require a worker not to hold: found by its
        name when an earlier call made it (MTurk refuses a second type of one name), else made now."""
        client = mturk_client()
        found = client.find_qualification_type(name)
        if found:
            return found
        description = f"Held by workers no longer offered the HITs of Stancework job {job.pk}."
        try:
            return client.create_qualification_type(name, description)
        except MarketRejectedError:
            # A retried create whose first reply was lost is refused by name: the first one made it.
            found = client.find_qualification_type(name)
            if found:
                return found
            raise

    def blocklist(self, job: Job, worker: Worker, listed: bool) -> None:
        """Grant the job's qualification to a stopped worker (no notification), or take it back."""
        if listed:
            mturk_client().grant_qualification(job.market_blocklist, worker.external_id)
        else:
            reason = "A person reviewed your work in this job and offers you its HITs again."
            mturk_client().revoke_qualification(job.market_blocklist, worker.external_id, reason)

    def balance(self) -> Decimal | None:
        return mturk_client().get_account_balance()

    def market_ids(self, params: Mapping[str, str]) -> base.MarketIds | None:
        return mturk_ids(params)

    def reconcile(self, job: Job | None, records: Records) -> Iterable[Discrepancy]:
        """Assignments and bonuses per HIT of a job; MTurk lists no HIT that none of ours recorded."""
        return reconcile_mturk_job(job, records) if job is not None else ()

    def after_submit(
        self, assignment: Assignment, identity: base.ExternalIdentity | None
    ) -> base.Handoff | None:
        """MTurk's externalSubmit (turkSubmitTo checked against the allowlist), posted with assignmentId."""
        if identity is None:
            return None
        # The identity carries MTurk's parameters as they came (turkSubmitTo as the page token bound
        # it): read them as the page did, so a preview stays one and is refused here.
        ids = mturk_ids(identity.extra)
        return base.Handoff(external_submit_url(ids), {"assignmentId": identity.assignment_id})
