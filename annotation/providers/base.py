"""The one interface every crowd provider implements (SPEC §4).

A provider is where work is *advertised* and *paid*: it publishes HITs, reports the assignments
it knows of, approves, rejects, bonuses, expires HITs and blocks workers. The work itself is always
done in our own task pages, whatever the provider, so answers reach us through the worker pages
(or, for the simulated crowd, through the same services the pages call: `WorkQueue`).

Calls that create work or pay take an `idempotency_token`: the money ledger (crowd-market issue)
records the intent with that token before the call, and a retry reuses it.

External identity: markets put the worker, HIT and assignment in URL parameters. Each provider
names its parameters in `identity_from_params`; `annotation.identity` is the one place that reads
them from a request (and where they will be checked against a signed token).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

if TYPE_CHECKING:
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


class WorkQueue(Protocol):
    """What a task page does, offered to providers whose workers are not people at our pages."""

    def worker(self, external_id: str, *, simulated: bool, model: Mapping[str, Any]) -> Worker: ...

    def qualify(self, worker: Worker, answers: Mapping[str, str]) -> bool: ...

    def next_assignment(self, worker: Worker) -> Assignment | None: ...

    def submit(self, assignment: Assignment, answers: Mapping[int, Answer]) -> None: ...


class Provider(ABC):
    """Base for inhouse, simulated, mturk and prolific."""

    name: ClassVar[str]
    simulated: ClassVar[bool] = False
    # Market fee on top of rewards, for the worst-case cost check before publishing.
    fee_rate: ClassVar[Decimal] = Decimal("0")
    # Whether `bonus` pays anybody (the markets); the others refuse bonuses.
    pays_bonuses: ClassVar[bool] = False

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

    def block(self, worker: Worker, reason: str) -> None:  # noqa: B027 - a no-op suits providers that do not pay
        """Keep the worker from any more of our work on the market."""

    def identity_from_params(self, params: Mapping[str, str]) -> ExternalIdentity | None:
        """The worker named in the URL parameters, or None when this provider uses none."""
        return None

    def after_submit(self, assignment: Assignment, identity: ExternalIdentity | None) -> Handoff | None:
        """Where the worker goes once we have saved their work; None: stay on our pages."""
        return None
