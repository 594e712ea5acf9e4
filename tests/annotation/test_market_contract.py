"""One contract every market must keep, run against each: MTurk and Prolific (behind their stateful
fakes: botocore validates every MTurk request), simulated, in-house, and a toy market that exists
only in this module and reaches the platform through `ANNOTATION_MARKETS` alone.

Modelled on Django's cache and session backend tests: a mixin of tests, one subclass per backend.
Each subclass says how a worker arrives at its market (`example_params`) and how that worker's
submitted work becomes known to the market (`submit_at_market`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from decimal import Decimal
from typing import Any, ClassVar

import pytest

from annotation.ledger.listings import publish_hits
from annotation.ledger.models import LedgerEntry, RowKind, RowState
from annotation.ledger.reconcile import reconcile_job
from annotation.market_interface.base import (
    AssignmentReport,
    Capabilities,
    Listing,
    Market,
    MarketIds,
    MissingParamsError,
    Money,
    SyncReport,
    WorkQueue,
    external_identity,
)
from annotation.market_interface.money import Finish, Records, Row
from annotation.market_interface.registry import get_market, market_ids, market_names
from annotation.markets.prolific.fake import FakeProlific
from annotation.models import Assignment, AssignmentState, Hit, Job
from annotation.work.assignments import next_assignment
from annotation.work.jobs import create_job, publish_job, sync_job
from annotation.work.market import bonus_assignment
from annotation.work.records import ReviewError, review_assignment
from annotation.work.service_queue import ServiceQueue
from annotation.work.submitting import submit_assignment
from tests.annotation.doing_work import answers_for, qualified
from tests.annotation.factories import make_corpus
from tests.annotation.fake_markets import Guard, GuardedMTurk, GuardedProlific
from tests.annotation.market_clients import market_clients

pytestmark = pytest.mark.django_db(transaction=True)


# -- a market that lives only here ----------------------------------------------------------------

TOY_CALLS: list[tuple[str, str]] = []
TOY_PARAMS = ("toy_worker", "toy_task", "toy_session")


class ToyMoney(Money):
    """The toy market's paying calls."""

    def work_status(self, row: Row) -> str:
        raise AssertionError("it declares no payable states, so the engine never reads a work status")

    def send(self, row: Row, records: Records) -> Finish:
        TOY_CALLS.append((row.kind, row.token))
        return Finish(RowState.CONFIRMED, row.market_ref or f"toy-{len(TOY_CALLS)}")


class ToyMarket(Market):
    """Pays through the ledger like a real market; knows its workers from three URL parameters."""

    name = "toy"
    capabilities = Capabilities(review=True, bonus=True)
    url_params = TOY_PARAMS
    money = ToyMoney("Toy")

    def publish(self, job: Job, hits: Sequence[Hit], more: int = 0) -> Iterator[Listing]:
        for hit in hits:
            yield Listing((hit.pk,), external_id=f"toy-{hit.pk}")

    def sync(self, job: Job, queue: WorkQueue) -> SyncReport:
        return SyncReport()

    def market_ids(self, params: Mapping[str, str]) -> MarketIds | None:
        present = [name for name in TOY_PARAMS if params.get(name)]
        if not present:
            return None
        if len(present) != len(TOY_PARAMS):
            raise MissingParamsError(f"toy parameters missing: {sorted(set(TOY_PARAMS) - set(present))}")
        return MarketIds(self.name, params["toy_worker"], params["toy_task"], params["toy_session"])


# -- the contract ---------------------------------------------------------------------------------


class MarketContract:
    name: ClassVar[str]
    # The parameters a worker brings to our task page; empty for markets that send none.
    example_params: ClassVar[dict[str, str]] = {}
    sessions = itertools.count(1)

    @pytest.fixture(autouse=True)
    def market_settings(self, settings: Any) -> Iterator[None]:
        settings.MARKET_PUBLIC_URL = "https://stancework.example"
        settings.PROLIFIC_PROJECT_ID = FakeProlific.PROJECT
        settings.PROLIFIC_WORKSPACE_ID = FakeProlific.WORKSPACE
        settings.ANNOTATION_MARKETS = {**settings.ANNOTATION_MARKETS, "toy": f"{__name__}.ToyMarket"}
        return

    def submit_at_market(self, job: Job, assignment: Assignment, worker_id: str) -> None:
        """What the market learns when the worker submits (markets that keep no state: nothing)."""

    def worker_ids(self, job: Job) -> tuple[str, str]:
        """(worker id, assignment id) a worker brings for the job's first HIT."""
        return f"W{next(self.sessions):05d}", ""

    def submitted(self, job: Job) -> Assignment:
        worker_id, assignment_id = self.worker_ids(job)
        worker = qualified(job, worker_id)
        assignment = next_assignment(job, worker, external_id=assignment_id)
        submit_assignment(assignment.pk, answers_for(assignment))
        self.submit_at_market(job, assignment, worker_id)
        return Assignment.objects.get(pk=assignment.pk)

    def published(self, **params: Any) -> Job:
        make_corpus(claims=2, perspectives=2)
        job = create_job("stance", {}, market=self.name, params={"bonus_cap": 5, **params})
        return publish_job(job.pk)

    @property
    def market(self) -> Market:
        return get_market(self.name)

    def test_it_is_registered_under_its_name(self) -> None:
        assert self.name in market_names()
        assert self.market.name == self.name

    def test_publishing_names_every_hit_and_publishing_again_adds_nothing(self) -> None:
        job = self.published()
        hits = list(job.hits.order_by("position"))
        assert hits and all(hit.external_id for hit in hits)
        rows = LedgerEntry.objects.count()
        again = publish_hits(job, hits)
        assert {p.hit_pk: p.external_id for p in again} == {hit.pk: hit.external_id for hit in hits}
        assert LedgerEntry.objects.count() == rows

    def test_every_paying_call_has_a_confirmed_ledger_row_naming_the_market(self) -> None:
        job = self.published()
        assignment = self.submitted(job)
        review_assignment(assignment.pk, approve=True)
        rows = LedgerEntry.objects.filter(job=job, kind=RowKind.APPROVE)
        if self.market.capabilities.review:
            assert [(r.market, r.state) for r in rows] == [(self.name, RowState.CONFIRMED)]
        else:
            assert not rows.exists()
        assert Assignment.objects.get(pk=assignment.pk).state == AssignmentState.APPROVED

    def test_a_bonus_is_paid_through_the_ledger_or_refused_with_nothing_written(self) -> None:
        job = self.published()
        assignment = self.submitted(job)
        if self.market.capabilities.bonus:
            entry = bonus_assignment(assignment.pk, Decimal("0.50"), "All gold right", "gold")
            assert (entry.market, entry.state, entry.amount) == (
                self.name,
                RowState.CONFIRMED,
                Decimal("0.50"),
            )
        else:
            with pytest.raises(ReviewError):
                bonus_assignment(assignment.pk, Decimal("0.50"), "All gold right", "gold")
            assert not LedgerEntry.objects.filter(job=job).exists()

    def test_a_market_that_pays_declares_its_money_and_one_that_does_not_declares_none(self) -> None:
        caps = self.market.capabilities
        assert (self.market.money is not None) == (caps.review or caps.bonus or caps.extend)

    def test_sync_reports_only_states_of_our_vocabulary(self) -> None:
        job = self.published()
        self.submitted(job)
        report = self.market.sync(job, ServiceQueue(job))
        assert all(isinstance(found, AssignmentReport) for found in report.assignments)
        assert {found.state for found in report.assignments} <= set(AssignmentState.values)
        sync_job(job.pk)  # and the platform takes them without error

    def test_reconciling_a_clean_job_finds_no_disagreement(self) -> None:
        job = self.published()
        assignment = self.submitted(job)
        review_assignment(assignment.pk, approve=True)
        assert reconcile_job(job.pk) == []

    def test_its_url_parameters_name_its_workers_and_half_of_them_are_refused(self) -> None:
        if not self.example_params:
            assert self.market.url_params == ()
            assert self.market.market_ids({"workerId": "x", "PROLIFIC_PID": "y"}) is None
            return
        ids = market_ids(self.example_params)
        assert ids is not None and ids.market == self.name and ids.worker_id
        identity = external_identity(self.market, self.example_params)
        assert identity is not None and identity.market == self.name
        with pytest.raises(MissingParamsError):
            market_ids(dict(list(self.example_params.items())[:1]))


class TestMTurk(MarketContract):
    name = "mturk"
    example_params: ClassVar[dict[str, str]] = {
        "assignmentId": "3PWWM24LHSX369EBUXKO681UQPO82A",
        "hitId": "3AQN9REUTFGXCRWFMS2HA7Y9KHNDYV",
        "workerId": "A2Z8QB6XQFTQ1D",
        "turkSubmitTo": "https://www.mturk.com",
    }

    @pytest.fixture(autouse=True)
    def fake(self, market_settings: None) -> Iterator[GuardedMTurk]:
        self.fake_market = GuardedMTurk(Guard())
        with market_clients(mturk=self.fake_market.client(attempts=1)):
            yield self.fake_market
        assert self.fake_market.guard.violations == []

    def worker_ids(self, job: Job) -> tuple[str, str]:
        n = next(self.sessions)
        return f"A{n:013d}", f"3ASG{n:026d}"

    def submit_at_market(self, job: Job, assignment: Assignment, worker_id: str) -> None:
        self.fake_market.submit(assignment.hit.external_id, assignment.external_id, worker_id)


class TestProlific(MarketContract):
    name = "prolific"
    example_params: ClassVar[dict[str, str]] = {
        "PROLIFIC_PID": "60bf9310e8dec401be6e9615",
        "STUDY_ID": "60aca280709ee40ec37d4885",
        "SESSION_ID": "611d60a35b7fae26f6f9f8a5",
    }

    @pytest.fixture(autouse=True)
    def fake(self, market_settings: None) -> Iterator[FakeProlific]:
        self.fake_market = GuardedProlific(Guard())
        with market_clients(prolific=self.fake_market.client(attempts=1)):
            yield self.fake_market
        assert self.fake_market.guard.violations == []

    def worker_ids(self, job: Job) -> tuple[str, str]:
        n = next(self.sessions)
        return f"{n:024x}", f"session{n:017d}"

    def submit_at_market(self, job: Job, assignment: Assignment, worker_id: str) -> None:
        self.fake_market.submit(assignment.hit.external_id, assignment.external_id, worker_id)


class TestSimulated(MarketContract):
    name = "simulated"


class TestInhouse(MarketContract):
    name = "inhouse"


class TestToyMarketAddedInSettings(MarketContract):
    name = "toy"
    example_params: ClassVar[dict[str, str]] = {"toy_worker": "w", "toy_task": "t", "toy_session": "s"}

    def test_its_calls_reach_its_own_send(self) -> None:
        TOY_CALLS.clear()
        job = self.published()
        assignment = self.submitted(job)
        review_assignment(assignment.pk, approve=True)
        bonus_assignment(assignment.pk, Decimal("0.25"), "Thanks", "b1")
        tokens = set(LedgerEntry.objects.filter(market="toy").values_list("token", flat=True))
        assert [kind for kind, _ in TOY_CALLS] == [RowKind.APPROVE, RowKind.BONUS]
        assert {token for _, token in TOY_CALLS} == tokens


def test_a_market_without_money_is_refused_before_its_ledger_row_is_claimed(settings: Any) -> None:
    from annotation.ledger import engine, intents
    from annotation.market_interface.errors import MarketConfigError

    make_corpus(claims=1, perspectives=1)
    job = create_job("stance", {}, market="inhouse")
    entry = intents.record(RowKind.APPROVE, "inhouse", ["asg:1"], job_id=job.pk)
    with pytest.raises(MarketConfigError):
        engine.execute(entry.pk)
    entry.refresh_from_db()
    assert (entry.state, entry.attempts) == (RowState.REQUESTED, 0)
