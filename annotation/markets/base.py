"""The one interface every crowd provider implements (SPEC §4).

A provider is where work is *advertised* and *paid*: it publishes HITs, reports the assignments
it knows of, approves, rejects, bonuses, expires HITs and blocks workers. The work itself is always
done in our own task pages, whatever the provider, so answers reach us through the worker pages
(or, for the simulated crowd, through the same services the pages call: `WorkQueue`).

Calls that create work or pay take an `idempotency_token`: the money ledger (crowd-market issue)
records the intent with that token before the call, and a retry reuses it.

External identity: markets put the worker, HIT and assignment in URL parameters. Each provider
names its parameters (`url_params`) and reads them (`market_ids`, `identity_from_params`);
`annotation.web.identity` is the one place that reads them from a request.

A market plugs in through this module alone: its provider says what it can do (`Capabilities`),
hands the ledger engine its `Gateway` (annotation.ledger.gateway: how a ledger row becomes market
calls) and runs its own reconciliation step. Nothing outside a market's folder tests the market's name.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

if TYPE_CHECKING:
    from annotation.ledger.gateway import Gateway
    from annotation.ledger.models import ReconciliationIssue
    from annotation.models import Assignment, Hit, Job, Worker
    from annotation.task_types.base import Answer


class ProviderError(RuntimeError):
    """A provider refused a call or could not be reached."""


class ProviderNotAvailableError(ProviderError):
    """The job names a provider that is not installed or not configured."""


@dataclass(frozen=True)
class ExternalIdentity:
    """Who is at the task page, as the market says in URL parameters."""

    provider: str
    worker_id: str
    hit_id: str = ""
    assignment_id: str = ""
    # Anything else the market sent that must be carried through our pages (turkSubmitTo, SESSION_ID…).
    extra: Mapping[str, str] = field(default_factory=dict)
    preview: bool = False


@dataclass(frozen=True)
class PublishedHit:
    hit_pk: int
    external_id: str
    url: str = ""


@dataclass(frozen=True)
class AssignmentReport:
    """An assignment as the market knows it, returned by `sync`."""

    hit_external_id: str
    assignment_external_id: str
    worker_external_id: str
    state: str  # one of annotation.models.AssignmentState
    submitted_at: Any = None


@dataclass(frozen=True)
class Handoff:
    """Where a worker goes once their work is saved: a plain redirect, or a POST of `fields` to `url`."""

    url: str
    fields: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class SyncReport:
    assignments: Sequence[AssignmentReport] = ()
    notes: Sequence[str] = ()
    # The market's own status of the job's work and why, shown on the job (Prolific's study status).
    market_status: str = ""
    market_note: str = ""
    # The market stopped recruiting by itself (Prolific pauses a full study on a rejection or return).
    market_paused: bool = False


class WorkQueue(Protocol):
    """What a task page does, offered to providers whose workers are not people at our pages."""

    def worker(self, external_id: str, *, simulated: bool, model: Mapping[str, Any]) -> Worker: ...

    def qualify(self, worker: Worker, answers: Mapping[str, str]) -> bool: ...

    def next_assignment(self, worker: Worker) -> Assignment | None: ...

    def submit(self, assignment: Assignment, answers: Mapping[int, Answer]) -> None: ...


@dataclass(frozen=True)
class Capabilities:
    """What a market can do; the platform asks these, never the market's name."""

    review: bool = False  # approve and reject reach a market (through the ledger)
    bonus: bool = False  # `bonus` pays somebody
    block: bool = False  # `block` keeps a worker from our work at the market
    extend: bool = False  # more assignments can be bought on published work
    reconcile: bool = False  # `reconcile` compares our records with the market's
    logged_in_workers: bool = False  # workers are our own users, logged in (no URL identity)
    worker_takes_hit: bool = False  # the market hands each worker one particular HIT (MTurk)
    # Work arrives with ids anybody can type: it counts only once `sync` reports it as this
    # worker's on this HIT. Our own workers' work (in-house, simulated) is confirmed when taken.
    confirms_work: bool = False


@dataclass(frozen=True)
class MarketIds:
    """The market's names for the worker, the unit of work and the session, from URL parameters."""

    market: str
    worker_id: str
    hit_id: str = ""  # MTurk hitId, or Prolific STUDY_ID
    assignment_id: str = ""  # MTurk assignmentId, or Prolific SESSION_ID
    submit_to: str = ""  # MTurk turkSubmitTo, already checked against the allowlist
    preview: bool = False  # the market shows the task before anybody has accepted it

    def binding(self) -> list[str]:
        return [self.market, self.worker_id, self.hit_id, self.assignment_id]


class WorkerIdentityError(ValueError):
    """A worker page request whose market identity cannot be trusted."""


class MissingParamsError(WorkerIdentityError):
    """Some, but not all, of a market's parameters are present."""


class SubmitOriginError(WorkerIdentityError):
    """turkSubmitTo points somewhere other than MTurk's own sites."""


class InvalidParamsError(WorkerIdentityError):
    """A market id that is too long, holds a control character, or is off the market's alphabet."""


def checked_id(name: str, value: str, pattern: re.Pattern[str]) -> str:
    """A market id as given, or `InvalidParamsError` (before it reaches the database: 400, not 500)."""
    if not pattern.fullmatch(value):
        shown = value[:40].encode("unicode_escape").decode()
        raise InvalidParamsError(f"{name} {shown!r} is not an id this market issues")
    return value


class Provider(ABC):
    """Base for every market: inhouse, simulated, mturk, prolific, and any added in settings."""

    name: ClassVar[str]
    simulated: ClassVar[bool] = False
    capabilities: ClassVar[Capabilities] = Capabilities()
    # Market fee on top of rewards, for the worst-case cost check before publishing.
    fee_rate: ClassVar[Decimal] = Decimal("0")
    # The URL parameters the market appends to our task page.
    url_params: ClassVar[tuple[str, ...]] = ()
    # The market's sites that show our task page in a frame (CSP frame-ancestors).
    frame_ancestors: ClassVar[tuple[str, ...]] = ()
    # How ledger rows become calls at this market; None where nothing is paid through a market.
    gateway: ClassVar[Gateway | None] = None
    # The one currency the market pays in (MTurk: USD); None where a job names its own.
    currency: ClassVar[str | None] = None

    def job_currency(self, params: Mapping[str, Any]) -> str:
        """The currency a new job with these parameters is booked in, fixed for its life."""
        asked = str(params.get("currency") or "").upper()
        if self.currency:
            if asked and asked != self.currency:
                raise ProviderError(f"{self.name} pays in {self.currency}; a job in {asked} is refused")
            return self.currency
        return asked or "USD"

    @abstractmethod
    def publish(self, job: Job, hits: Sequence[Hit], idempotency_token: str) -> list[PublishedHit]:
        """Advertise the HITs; return their external ids. Publishing a HIT twice must not duplicate it."""

    @abstractmethod
    def sync(self, job: Job, queue: WorkQueue) -> SyncReport:
        """Bring the job up to date with the market: report assignments it knows of."""

    def approve(self, assignment: Assignment, feedback: str, idempotency_token: str) -> None:  # noqa: B027 - a no-op suits providers that do not pay
        """Accept the work (and pay the reward, where the market pays)."""

    def reject(self, assignment: Assignment, reason: str, idempotency_token: str) -> None:  # noqa: B027 - a no-op suits providers that do not pay
        """Refuse the work with a reason the worker sees."""

    def bonus(self, assignment: Assignment, amount: Decimal, reason: str, idempotency_token: str) -> None:
        raise ProviderError(f"the {self.name} provider pays no bonuses")

    def extend(self, job: Job, hits: Sequence[Hit], count: int) -> None:  # noqa: B027 - no market to tell
        """Offer `count` more assignments on each HIT (the caller then raises `assignments_wanted`)."""

    def balance(self) -> Decimal | None:
        """What the market account can still spend; None where nothing is paid through a market."""
        return None

    def fee(self, job: Job) -> Decimal:
        """The market fee rate for this job: the job's `fee_rate` parameter, else the provider's."""
        return Decimal(str(job.params.get("fee_rate", self.fee_rate)))

    def reward_lines(self, hits: Sequence[Hit], extra: int = 0) -> list[tuple[Decimal, int]]:
        """(reward, assignments) per HIT as the market charges them, with `extra` more assignments each."""
        return [(hit.reward, hit.assignments_wanted + extra) for hit in hits]

    def expire(self, hit: Hit) -> None:  # noqa: B027 - a no-op suits providers that do not pay
        """Stop offering the HIT; work already accepted may still be submitted."""

    def pause(self, job: Job) -> None:  # noqa: B027 - a no-op suits markets that hand out no work
        """Stop the market recruiting for the job's live HITs while the job is paused."""

    def resume(self, job: Job) -> str:
        """Let the market recruit for the job's live HITs again. Returns why nothing was done, when the
        market cannot recruit (every place taken); "" when it recruits again."""
        return ""

    def check_publishable(self, job: Job) -> None:  # noqa: B027 - most markets take any job
        """Raise (a MarketRejectedError) when the market would refuse the job as set up; before any call."""

    def check_rejection(self, job: Job, message: str) -> None:  # noqa: B027 - most markets take any reason
        """Raise RejectionError when the market would refuse this rejection message; called before any
        ledger row is written."""

    def block(self, worker: Worker, reason: str) -> None:  # noqa: B027 - a no-op suits providers that do not pay
        """Keep the worker from any more of our work on the market."""

    def unblock(self, worker: Worker) -> None:  # noqa: B027 - a no-op suits providers that do not pay
        """Let a blocked worker take our work on the market again."""

    def market_ids(self, params: Mapping[str, str]) -> MarketIds | None:
        """This market's ids in URL parameters; None when none of its parameters are present.

        Raises `MissingParamsError` when some are present and others missing, `SubmitOriginError`
        when a return address is not the market's.
        """
        return None

    def identity_from_params(self, params: Mapping[str, str]) -> ExternalIdentity | None:
        """The worker named in the URL parameters, or None when this provider uses none."""
        ids = self.market_ids(params)
        if ids is None:
            return None
        return ExternalIdentity(
            provider=self.name,
            worker_id=ids.worker_id,
            hit_id=ids.hit_id,
            assignment_id=ids.assignment_id,
            extra={name: params[name] for name in self.url_params if params.get(name)},
            preview=ids.preview,
        )

    def bonus_params(self, assignment: Assignment) -> dict[str, Any]:
        """What a bonus ledger row needs beyond the assignment (Prolific: the study)."""
        return {}

    def reconcile(self, job: Job) -> Iterable[ReconciliationIssue]:
        """Every disagreement between our records and the market for one job."""
        return ()

    def reconcile_market(self) -> Iterable[ReconciliationIssue]:
        """What the market has that no job of ours recorded (issues with no job)."""
        return ()

    def after_submit(self, assignment: Assignment, identity: ExternalIdentity | None) -> Handoff | None:
        """Where the worker goes once we have saved their work; None: stay on our pages."""
        return None
