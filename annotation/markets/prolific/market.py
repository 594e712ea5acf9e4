"""Prolific behind the market interface, one class: one study per published batch, each listing a ledger
row that `ProlificMarket.send` makes into Prolific's calls (calls.py)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from decimal import Decimal
from typing import ClassVar, cast

from django.conf import settings

from annotation.market_interface import base
from annotation.market_interface.base import Control, Market
from annotation.market_interface.errors import MarketAuthError, MarketConfigError, MarketRejectedError
from annotation.market_interface.money import Discrepancy, Records
from annotation.market_interface.pages import task_url
from annotation.markets.prolific import account, calls
from annotation.markets.prolific.client import ProlificClient, prolific_client
from annotation.markets.prolific.identity import PROLIFIC, PROLIFIC_PARAMS, prolific_ids
from annotation.markets.prolific.reconcile import reconcile_prolific_job, unowned_studies
from annotation.markets.prolific.rejections import check_rejection, rejection_category
from annotation.markets.prolific.screening import Screening, screening
from annotation.markets.prolific.states import study_status_note, submission_state
from annotation.markets.prolific.studies import AWAITING_REVIEW as STUDY_AWAITING_REVIEW
from annotation.markets.prolific.studies import StudySpec, completion_redirect
from annotation.models import Assignment, Hit, Job, JobState, Worker


def completion_code(job: Job) -> str:
    """The job's completion code: from its params, else derived from the job (stable, unguessable)."""
    code = job.params.get("completion_code")
    if code:
        return str(code)
    material = f"{settings.SECRET_KEY}|prolific-completion|{job.pk}".encode()
    return hashlib.sha256(material).hexdigest()[:8].upper()


class ProlificMarket(Market):
    name = PROLIFIC
    capabilities = base.Capabilities(
        review=True,
        bonus=True,
        extend=True,
        reconcile=True,
        confirms_work=True,
        controls=frozenset({Control.PAUSE, Control.RESUME, Control.EXPIRE, Control.BLOCK, Control.UNBLOCK}),
        one_listing_per_batch=True,
        job_blocklist=True,
    )
    # Prolific's platform fee on rewards and bonuses (33.3%); a job may set params["fee_rate"].
    fee_rate: ClassVar[Decimal] = Decimal("0.3334")
    url_params = PROLIFIC_PARAMS
    money = calls.MONEY

    def __init__(self) -> None:
        # The workspace's currency; checked against the workspace itself before publishing.
        self.currency = str(settings.PROLIFIC_CURRENCY).upper()

    def publish(self, job: Job, hits: Sequence[Hit], more: int = 0) -> Iterator[base.Listing]:
        """One study for the batch: every place is paid the highest reward of its HITs."""
        if more:
            yield self._more_places(job, hits, more)
            return
        # The worst-case cost was checked against budget and balance by the caller (work.jobs).
        reward = max(hit.reward for hit in hits)
        places = sum(hit.assignments_wanted for hit in hits)
        client = prolific_client()
        account.check_currency(client, job.currency)
        first, last = min(h.pk for h in hits), max(h.pk for h in hits)
        minutes = int(job.params.get("minutes", 10))
        spec = StudySpec(
            name=str(job.params.get("title") or job.name or job.task_type)[:120],
            # How a lost create is found again: unique per job and batch, like the ledger row.
            internal_name=f"stancework job {job.pk} hits {first}-{last}",
            description=str(job.params.get("description") or f"{job.task_type} annotation"),
            task_url=task_url(job.pk),
            places=places,
            reward_cents=int(reward * 100),
            minutes=minutes,
            completion_code=completion_code(job),
            project=account.project_id(),
            blocklist_group=account.blocklist_group(client),
            job_blocklist_group=job.market_blocklist,
            screening=job_screening(job),
        )
        yield base.Listing(
            tuple(hit.pk for hit in hits),
            spec.task_url,
            refs=(f"hits:{first}-{last}",),
            amount=reward * places,
            params={"study": spec.as_params()},
        )

    def _more_places(self, job: Job, hits: Sequence[Hit], more: int) -> base.Listing:
        """More places on the job's study, the listing naming the new total (idempotent to set)."""
        studies = {hit.external_id for hit in hits}
        if len(studies) != 1:
            raise base.MarketCallError(f"a Prolific job is one study; these HITs name {sorted(studies)}")
        study_id = studies.pop()
        places = sum(hit.assignments_wanted for hit in job.hits.all()) + more * len(hits)
        return base.Listing(
            tuple(hit.pk for hit in hits),
            refs=(f"study:{study_id}", f"places:{places}"),
            market_ref=study_id,
            amount=max(hit.reward for hit in hits) * more * len(hits),
            params={"places": places},
        )

    def check(self, job: Job, *, rejection: str | None = None) -> None:
        """A rejection's message and category; else, before publishing, the project and the job's
        screening: refused here as Prolific would refuse them, before any row or call."""
        if rejection is not None:
            check_rejection(rejection, rejection_category(job.params))
            return
        try:
            account.project_id()
        except MarketConfigError as error:
            raise base.MarketCallError(str(error)) from error
        job_screening(job)

    def sync(self, job: Job, queue: base.WorkQueue) -> base.SyncReport:
        client = prolific_client()
        reports, studies, notes = [], [], []
        for study_id in job_studies(job):
            studies.append(client.get_study(study_id))
            for sub in client.list_submissions(study_id):
                state = submission_state(sub.status)
                if state is None:
                    notes.append(
                        f"submission {sub.submission_id} is {sub.status!r} at Prolific: left as it was"
                    )
                    continue
                reports.append(
                    base.AssignmentReport(
                        hit_external_id=study_id,
                        assignment_external_id=sub.submission_id,
                        worker_external_id=sub.participant_id,
                        state=state,
                    )
                )
        found = study_status_note(studies, paused_here=job.state == JobState.PAUSED)
        return base.SyncReport(
            assignments=reports,
            notes=notes,
            market_status=found.status,
            market_note=found.note,
            market_paused=found.paused,
            market_recruiting=found.recruiting,
        )

    def control(self, action: Control, target: Job | Hit | Worker, reason: str = "") -> str:
        """Study transitions for a job (PAUSE, START) and a HIT (STOP, and START again once extended);
        the blocklist group, which every study of ours excludes, for a worker."""
        client = prolific_client()
        if action == Control.PAUSE:
            for study_id in live_studies(cast(Job, target)):
                client.move_study(study_id, "PAUSE")
        elif action == Control.RESUME:
            return resume_studies(client, cast(Job, target))
        elif action == Control.EXPIRE:
            # STOP when the study's status allows (ACTIVE, PAUSED); a draft or finished one is left be.
            client.move_study(cast(Hit, target).external_id, "STOP")
        elif action in (Control.BLOCK, Control.UNBLOCK):
            group, worker_id = account.blocklist_group(client), [cast(Worker, target).external_id]
            if action == Control.BLOCK:
                client.add_to_participant_group(group, worker_id)
            elif set(worker_id) & set(client.participant_group_members(group)):
                client.remove_from_participant_group(group, worker_id)
        return ""

    def make_blocklist(self, job: Job, name: str) -> str:
        """The job's own participant group in the project's workspace, which its studies exclude: the
        group of this name when an earlier call made it, else made now."""
        client = prolific_client()
        workspace = account.workspace_id(client)
        for group in client.list_participant_groups(workspace):
            if group.name == name:
                return group.group_id
        description = f"Participants no longer offered the studies of Stancework job {job.pk}."
        return client.create_participant_group(workspace, name, description).group_id

    def blocklist(self, job: Job, worker: Worker, listed: bool) -> None:
        """Add a stopped participant to the job's group (at once: its studies exclude them), or remove
        them, read first as unblocking does, so a repeated removal sends nothing."""
        client, participant = prolific_client(), [worker.external_id]
        if listed:
            client.add_to_participant_group(job.market_blocklist, participant)
        elif worker.external_id in client.participant_group_members(job.market_blocklist):
            client.remove_from_participant_group(job.market_blocklist, participant)

    def fee(self, job: Job) -> Decimal:
        """The fee rate, VAT included, as Prolific's study cost calculator prices this job; the job's
        `fee_rate` parameter when set, and the published rate where the account may not ask."""
        if "fee_rate" in job.params:
            return super().fee(job)
        lines = base.reward_lines(self, list(job.hits.all()))
        if not lines or lines[0][0] <= 0:
            return self.fee_rate
        reward, places = lines[0]
        rewards_cents = int(reward * 100) * places
        try:
            total_cents = prolific_client().study_cost(int(reward * 100), places)
        except (MarketAuthError, MarketRejectedError):
            return self.fee_rate  # the account is not allowed the calculator: the published rate
        return max(total_cents / rewards_cents - 1, Decimal(0)).quantize(Decimal("0.0001"))

    def balance(self) -> Decimal | None:
        """What the workspace owning our project can still spend (Prolific answers in cents)."""
        client = prolific_client()
        balance = client.get_balance(account.workspace_id(client))
        return Decimal(balance.available_cents) / 100

    def market_ids(self, params: Mapping[str, str]) -> base.MarketIds | None:
        return prolific_ids(params)

    def reconcile(self, job: Job | None, records: Records) -> Iterable[Discrepancy]:
        """Submissions and bonuses per study of a job; for no job, the studies none of ours recorded."""
        return reconcile_prolific_job(job, records) if job is not None else unowned_studies(records)

    def after_submit(
        self, assignment: Assignment, identity: base.ExternalIdentity | None
    ) -> base.Handoff | None:
        if identity is None:
            return None
        return base.Handoff(completion_redirect(completion_code(assignment.job)))


def resume_studies(client: ProlificClient, job: Job) -> str:
    """START the job's paused studies. A study AWAITING REVIEW has no free place: START would do
    nothing there, so nothing is sent, and the answer says so (the job stays paused)."""
    full = []
    for study_id in live_studies(job):
        study = client.get_study(study_id)
        if study.status == STUDY_AWAITING_REVIEW:
            full.append(study_id)
            continue
        client.move_study(study_id, "START")
    if full:
        return (
            f"Prolific study {', '.join(full)} is AWAITING REVIEW: every place is taken, so START does "
            "nothing and was not sent; review its submissions or add places, then resume"
        )
    return ""


def job_screening(job: Job) -> Screening:
    """The job's `prolific_screening` parameter, validated (ScreeningError names what is wrong)."""
    return screening(job.params.get("prolific_screening"), minutes=int(job.params.get("minutes", 10)))


def job_studies(job: Job) -> list[str]:
    """Every study the job has at Prolific, each once."""
    return sorted(set(job.hits.exclude(external_id="").values_list("external_id", flat=True)))


def live_studies(job: Job) -> list[str]:
    """The job's studies still offered (its HITs not expired), each once."""
    found = job.hits.filter(expired=False).exclude(external_id="").values_list("external_id", flat=True)
    return sorted(set(found))
