"""The one interface every crowd market implements (docs/design/construction.md, markets): one class per
market, `Market`.

A market is where work is *advertised* and *paid*; the work itself is always done in our own task
pages, whatever the market, so answers reach us through the worker pages (or, for the simulated
crowd, through the same services the pages call: `WorkQueue`).

A market does five things: publish (describe the listings to offer), sync (read the market's work),
pay and review (make one ledger row's call: `send`, and `resolve` a lost reply by reading), and read the
market's state of one piece of work (`work_status`). Whatever spends or commits money is a ledger row,
recorded before the call; the ledger engine alone calls `send`, `resolve`, `work_status` and
`follow_ups`, with rows it speaks of in this interface's own terms (`money.Row`), and hands them what
else of its records a market may read or write (`money.Records`). The non-paying calls
(pause, resume, expire, re-offer, block, unblock) are one method, `control`. What a market can do is
declared data: `Capabilities`, and `Money` for how its paying calls are made safe (None where nothing is
paid, so a market without money implements no money hook).

External identity: markets put the worker, HIT and assignment in URL parameters. Each market
names its parameters (`url_params`) and reads them (`market_ids`); `annotation.web.identity` is the
one place that reads them from a request. Nothing outside a market's folder tests the market's name.
"""

from __future__ import annotations

import datetime as dt
import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from annotation.market_interface.money import Discrepancy, Finish, Records, Row, RowState

if TYPE_CHECKING:
    from annotation.models import Assignment, Hit, Item, Job, Worker
    from annotation.task_types.base import Answer


class MarketCallError(RuntimeError):
    """A market refused a call or could not be reached."""


class UnknownMarketError(MarketCallError):
    """The job names a market that is not installed or not configured."""


@dataclass(frozen=True)
class ExternalIdentity:
    """Who is at the task page, as the market says in URL parameters."""

    market: str
    worker_id: str
    hit_id: str = ""
    assignment_id: str = ""
    # Anything else the market sent that must be carried through our pages (turkSubmitTo, SESSION_ID…).
    extra: Mapping[str, str] = field(default_factory=dict)
    preview: bool = False


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
    # The market recruits for work paused here (a resume whose answer was lost): the job follows it.
    market_recruiting: bool = False


class WorkQueue(Protocol):
    """What a task page does, offered to markets whose workers are not people at our pages."""

    def worker(self, external_id: str, *, simulated: bool, model: Mapping[str, Any]) -> Worker: ...

    def qualify(self, worker: Worker, answers: Mapping[str, str]) -> bool: ...

    def next_assignment(self, worker: Worker) -> Assignment | None: ...

    def items(self, assignment: Assignment) -> list[Item]:
        """The items the assignment's page shows, in their places (its HIT's, and any gold added)."""
        ...

    def submit(self, assignment: Assignment, answers: Mapping[int, Answer]) -> None: ...


class Control(StrEnum):
    """The non-paying calls a market may take (`Market.control`), each on one kind of target."""

    PAUSE = "pause"  # a job: stop recruiting for its live HITs while it is paused here
    RESUME = "resume"  # a job: recruit for its live HITs again (or say why the market cannot)
    EXPIRE = "expire"  # a HIT: stop offering it; work already accepted may still be submitted
    REOFFER = "reoffer"  # a HIT expired earlier and extended since: offer it again
    BLOCK = "block"  # a worker: keep them from any more of our work at the market
    UNBLOCK = "unblock"  # a worker: let them take our work at the market again


@dataclass(frozen=True)
class Listing:
    """Work offered at a market under one market id, as `Market.publish` describes it.

    A market that pays nobody names the work itself (`external_id`). Any other listing is one ledger
    row (CREATE_HIT; EXTEND for more assignments on published work) that the market's `send` makes
    into the call: `refs` (after the job) make the row's idempotency token, `amount` is what it
    commits, `params` what `send` needs.
    """

    hit_pks: tuple[int, ...]
    url: str = ""
    external_id: str = ""
    refs: tuple[str, ...] = ()
    hit_pk: int | None = None  # the row's HIT, when the listing is one HIT
    market_ref: str = ""  # the market's id of the published work a listing extends
    amount: Decimal = Decimal(0)
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Capabilities:
    """What a market can do; the platform asks these, never the market's name."""

    review: bool = False  # approve and reject reach the market (through the ledger)
    bonus: bool = False  # bonuses are paid at the market (through the ledger)
    extend: bool = False  # more assignments can be bought on published work (through the ledger)
    reconcile: bool = False  # `reconcile` compares our records with the market's
    logged_in_workers: bool = False  # workers are our own users, logged in (no URL identity)
    worker_takes_hit: bool = False  # the market hands each worker one particular HIT (MTurk)
    # Work arrives with ids anybody can type: it counts only once `sync` reports it as this
    # worker's on this HIT. Our own workers' work (in-house, simulated) is confirmed when taken.
    confirms_work: bool = False
    # The non-paying calls the market takes (`Market.control`); the others are no call at all.
    controls: frozenset[Control] = frozenset()
    # One listing carries a whole batch of HITs, every place paid the batch's highest reward
    # (Prolific's study); otherwise each HIT is its own listing at its own reward.
    one_listing_per_batch: bool = False
    # The market keeps one worker from one job's work: the job has a blocklist of its own there, made
    # before it is published (`make_blocklist`), on which the workers the live quality check stops
    # are put and from which a person's reversal takes them (`blocklist`). Without it, only our own
    # pages refuse a stopped worker.
    job_blocklist: bool = False


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


@dataclass(frozen=True)
class Money(ABC):
    """A paid market's money in one place: how its paying calls are made safe, declared once (what the
    ledger engine and its sweeper read), and the hooks the ledger engine alone calls with its rows. A
    market that pays nobody has none (`Market.money` is None)."""

    # What the market calls itself in a row's excerpt ("already Approved at MTurk").
    market: str
    # What the market calls one piece of reviewed or paid work.
    work_noun: str = "assignment"
    # Row kinds whose call is not idempotent: once sent, never sent again (resolved by reading).
    not_idempotent: frozenset[str] = frozenset()
    # Row kinds whose call carries the row's token, and how long the market honours it.
    token_protected: frozenset[str] = frozenset()
    token_lifetime: dt.timedelta | None = None
    # Reviews and payments act on one piece of work: the market's states it may be in for each row
    # kind, and the state a review leaves it in.
    payable: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    reviewed: Mapping[str, str] = field(default_factory=dict)
    # Row kinds whose confirmation moves money to a worker: an approval pays the work's reward, a bonus
    # its amount (at Prolific the bonus is set up first and its `pay` row moves the money).
    pays: frozenset[str] = frozenset({"approve", "bonus"})

    @abstractmethod
    def work_status(self, row: Row) -> str:
        """The market's state of the work a review or payment row acts on (`row.market_ref`)."""

    @abstractmethod
    def send(self, row: Row, records: Records) -> Finish:
        """Make the row's one call (publish, extend, review, pay) and say how it ended."""

    def resolve(self, row: Row, records: Records) -> Finish | None:
        """Decide an unclear row from the market's state, never by repeating the call; None: not yet.
        A review is decided here for every market: made when its work is in the state it leaves."""
        if row.kind not in self.reviewed:
            return None
        status = self.work_status(row)
        made = status == self.reviewed[row.kind]
        return Finish(RowState.CONFIRMED if made else RowState.FAILED, row.market_ref, status)

    def follow_ups(self, row: Row, records: Records) -> Sequence[Row]:
        """The ledger rows a confirmed row leads to (Prolific's pay row after a bonus is set up),
        recorded in the transaction that confirms it; the engine then executes them. None by default."""
        return []

    def row_params(self, kind: str, assignment: Assignment) -> dict[str, Any]:
        """What a review or bonus row of this kind needs beyond the assignment (Prolific: the study a
        bonus is paid on, a rejection's category). Raising here refuses the row before it is written."""
        return {}


class Market(ABC):
    """Base for every market: inhouse, simulated, mturk, prolific, and any added in settings.

    Work: `publish` describes the listings the ledger records (and this market's `money.send` makes),
    `sync` reads the market's work, `control` takes the non-paying actions it declares. Money, where the
    market is paid: one object, `money` (`Money`: its declared values and `work_status`, `send`,
    `resolve`, `follow_ups`, `row_params`), called by the ledger only. The rest is what the cost check
    reads (`balance`, `fee`), what the market would refuse before any row (`check`), its reconciliation
    and how it reads a worker at our pages.
    """

    name: ClassVar[str]
    # Who does the work, in a sentence ("in-house annotators"); the name where unset.
    crowd: ClassVar[str] = ""
    simulated: ClassVar[bool] = False
    capabilities: ClassVar[Capabilities] = Capabilities()
    # The market's money, declared values and hooks in one object; None where nothing is paid there.
    money: ClassVar[Money | None] = None
    # Market fee on top of rewards, for the worst-case cost check before publishing.
    fee_rate: ClassVar[Decimal] = Decimal("0")
    # The URL parameters the market appends to our task page.
    url_params: ClassVar[tuple[str, ...]] = ()
    # The market's sites that show our task page in a frame (CSP frame-ancestors).
    frame_ancestors: ClassVar[tuple[str, ...]] = ()
    # The one currency the market pays in (MTurk: USD; Prolific: its workspace's, from settings);
    # None where a job names its own.
    currency: str | None = None

    # -- work ---------------------------------------------------------------------------------------

    @abstractmethod
    def publish(self, job: Job, hits: Sequence[Hit], more: int = 0) -> Iterable[Listing]:
        """The listings offering these HITs, or `more` assignments on each once they are published.

        Described one at a time: the ledger records and sends each before the next is described.
        Describing the same HITs again describes the same listings (the ledger finds their rows)."""

    @abstractmethod
    def sync(self, job: Job, queue: WorkQueue) -> SyncReport:
        """Bring the job up to date with the market: report assignments it knows of."""

    def control(self, action: Control, target: Job | Hit | Worker, reason: str = "") -> str:
        """Take one of the actions declared in `capabilities.controls` (see `Control` for each target);
        returns why nothing was done, "" when done. Reached through `registry.control` only."""
        raise MarketCallError(f"the {self.name} market takes no {action} action")

    def make_blocklist(self, job: Job, name: str) -> str:
        """Make the job's blocklist at the market, named `name` (unique to the job), or find the one an
        earlier call made whose reply was lost; returns the market's id for it (`capabilities.job_blocklist`).
        Reached through `annotation.work.blocklists` only."""
        raise MarketCallError(f"the {self.name} market keeps no blocklist of a job's own")

    def blocklist(self, job: Job, worker: Worker, listed: bool) -> None:
        """Put the worker on the job's blocklist (`job.market_blocklist`), or take them off (`listed`
        False); doing it again changes nothing. Reached through `annotation.work.blocklists` only."""
        raise MarketCallError(f"the {self.name} market keeps no blocklist of a job's own")

    def check(self, job: Job, *, rejection: str | None = None) -> None:  # noqa: B027 - most take anything
        """Raise when the market would refuse the job as set up (a MarketError), or, given a rejection's
        message, that rejection (a RejectionError); called before any ledger row or market call."""

    # -- what the cost check, reconciliation and our pages read ---------------------------------------

    def balance(self) -> Decimal | None:
        """What the market account can still spend; None where nothing is paid through a market."""
        return None

    def fee(self, job: Job) -> Decimal:
        """The market fee rate for this job; by default the declared one (`declared_fee`)."""
        return declared_fee(self, job)

    def reconcile(self, job: Job | None, records: Records) -> Iterable[Discrepancy]:
        """Every disagreement between our records and the market for one job; for no job (None), what
        the market has that no job of ours recorded."""
        return ()

    def market_ids(self, params: Mapping[str, str]) -> MarketIds | None:
        """This market's ids in URL parameters; None when none of its parameters are present.

        Raises `MissingParamsError` when some are present and others missing, `SubmitOriginError`
        when a return address is not the market's.
        """
        return None

    def after_submit(self, assignment: Assignment, identity: ExternalIdentity | None) -> Handoff | None:
        """Where the worker goes once we have saved their work; None: stay on our pages."""
        return None


def external_identity(market: Market, params: Mapping[str, str]) -> ExternalIdentity | None:
    """The worker the market names in the URL parameters, or None when it names none."""
    ids = market.market_ids(params)
    if ids is None:
        return None
    return ExternalIdentity(
        market=market.name,
        worker_id=ids.worker_id,
        hit_id=ids.hit_id,
        assignment_id=ids.assignment_id,
        extra={name: params[name] for name in market.url_params if params.get(name)},
        preview=ids.preview,
    )


def booking_currency(market: Market, params: Mapping[str, Any]) -> str:
    """The currency a new job with these parameters is booked in, fixed for its life."""
    asked = str(params.get("currency") or "").upper()
    if market.currency:
        if asked and asked != market.currency:
            raise MarketCallError(f"the job asks for {asked}, but {market.name} pays in {market.currency}")
        return market.currency
    return asked or "USD"


def declared_fee(market: Market, job: Job) -> Decimal:
    """The fee rate known without asking the market: the job's `fee_rate` parameter, else the market's."""
    return Decimal(str(job.params.get("fee_rate", market.fee_rate)))


def reward_lines(market: Market, hits: Sequence[Hit], extra: int = 0) -> list[tuple[Decimal, int]]:
    """(reward, assignments) as the market charges them, with `extra` more assignments on each HIT."""
    if not market.capabilities.one_listing_per_batch:
        return [(hit.reward, hit.assignments_wanted + extra) for hit in hits]
    if not hits:
        return []
    return [(max(hit.reward for hit in hits), sum(hit.assignments_wanted + extra for hit in hits))]
