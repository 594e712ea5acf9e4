"""The money ledger over MTurk: rows before calls, one call per row, reads before reviews, sweeps."""

from __future__ import annotations

import datetime as dt
import threading
import time
from decimal import Decimal
from typing import Any

import pytest
from botocore.exceptions import ReadTimeoutError
from botocore.stub import ANY, Stubber
from django.db import OperationalError, connection, transaction
from django.utils import timezone

from annotation.ledger import engine, intents
from annotation.ledger.listings import publish_hits
from annotation.ledger.models import LedgerEntry, RowKind, RowState
from annotation.ledger.tokens import idempotency_token
from annotation.markets.mturk.answers import MarketAssignment, Outcome
from annotation.markets.mturk.client import MTurkClient
from annotation.models import Assignment, AssignmentState, Hit, Job, JobState, Worker
from annotation.work.job_errors import BudgetError
from annotation.work.jobs import publish_job
from tests.annotation.market_clients import market_clients

HIT_ID = "3AQN9REUTFGXCRWFMS2HA7Y9KHNDYV"
ASG = "3PWWM24LHSX369EBUXKO681UQPO82A"
WORKER = "A2Z8QB6XQFTQ1D"
NOW = dt.datetime(2026, 11, 1, 12, 0, tzinfo=dt.UTC)


def make_job(budget: Decimal | None = None, hits: int = 1, external: bool = True) -> Job:
    job = Job.objects.create(task_type="stance", market="mturk", reward=Decimal("1.50"), budget=budget)
    for position in range(hits):
        Hit.objects.create(
            job=job,
            position=position,
            assignments_wanted=3,
            reward=Decimal("1.50"),
            external_id=HIT_ID if external and position == 0 else "",
        )
    return job


def make_assignment(job: Job, state: str = AssignmentState.SUBMITTED, ext: str = ASG) -> Assignment:
    worker, _ = Worker.objects.get_or_create(market="mturk", external_id=WORKER)
    return Assignment.objects.create(
        job=job, hit=job.hits.first(), worker=worker, state=state, external_id=ext, accepted_at=timezone.now()
    )


def market_assignment(status: str, asg: str = ASG) -> dict[str, Any]:
    return {"AssignmentId": asg, "WorkerId": WORKER, "HITId": HIT_ID, "AssignmentStatus": status}


def bonus_params(entry: LedgerEntry) -> dict[str, Any]:
    return {
        "WorkerId": WORKER,
        "AssignmentId": ASG,
        "BonusAmount": "0.50",
        "Reason": "All gold right",
        "UniqueRequestToken": entry.token,
    }


def expect_create_hit(stub: Stubber, hit: Hit, hit_id: str) -> None:
    """MTurk answers the HIT's creation with `hit_id`, asked with the ledger's token for it (of type TYPE1,
    three assignments)."""
    token = idempotency_token("create_hit", "mturk", f"job:{hit.job_id}", f"hit:{hit.pk}")
    stub.add_response(
        "create_hit_with_hit_type",
        {"HIT": {"HITId": hit_id}},
        {
            "HITTypeId": "TYPE1",
            "MaxAssignments": 3,
            "LifetimeInSeconds": ANY,
            "Question": ANY,
            "RequesterAnnotation": token,
            "UniqueRequestToken": token,
        },
    )


@pytest.mark.django_db
def test_a_bonus_row_is_sent_before_the_market_hears_of_it(
    boto_client: Any, mturk: MTurkClient, stub: Stubber
) -> None:
    entry = intents.bonus_intent(make_assignment(make_job()), Decimal("0.5"), "All gold right", "rule:gold")
    seen: list[str] = []

    def check_row(params: dict[str, Any], **kwargs: Any) -> None:
        seen.append(LedgerEntry.objects.get(token=params["UniqueRequestToken"]).state)

    boto_client.meta.events.register("provide-client-params.mturk.SendBonus", check_row)
    stub.add_response("get_assignment", {"Assignment": market_assignment("Approved")}, {"AssignmentId": ASG})
    stub.add_response("send_bonus", {}, bonus_params(entry))

    done = engine.execute(entry.pk)

    assert seen == [RowState.SENT]
    assert (done.state, done.attempts, len(done.token) <= 64) == (RowState.CONFIRMED, 1, True)


@pytest.mark.django_db
def test_the_same_intent_is_one_row(mturk: MTurkClient) -> None:
    assignment = make_assignment(make_job())

    first = intents.bonus_intent(assignment, Decimal("0.5"), "All gold right", "rule:gold")
    again = intents.bonus_intent(assignment, Decimal("0.5"), "All gold right", "rule:gold")
    other = intents.bonus_intent(assignment, Decimal("0.5"), "Second batch", "rule:batch-2")

    assert first.pk == again.pk != other.pk
    assert first.token == idempotency_token("bonus", "mturk", f"asg:{ASG}", "rule:gold")


@pytest.mark.django_db
def test_work_the_market_does_not_report_as_submitted_is_never_paid(
    mturk: MTurkClient, stub: Stubber
) -> None:
    entry = intents.bonus_intent(make_assignment(make_job()), Decimal("0.5"), "All gold right", "rule:gold")
    stub.add_response("get_assignment", {"Assignment": market_assignment("Rejected")})

    done = engine.execute(entry.pk)

    assert done.state == RowState.FAILED
    assert "Rejected" in done.error


@pytest.mark.django_db
def test_approval_reads_the_market_first_and_confirms_an_already_approved_assignment(
    mturk: MTurkClient, stub: Stubber
) -> None:
    assignment = make_assignment(make_job())
    stub.add_response("get_assignment", {"Assignment": market_assignment("Approved")}, {"AssignmentId": ASG})

    engine.confirmed(intents.review_intent(assignment, approve=True, feedback="Thanks"))

    entry = LedgerEntry.objects.get(kind=RowKind.APPROVE)
    assert (entry.state, entry.market_ref) == (RowState.CONFIRMED, ASG)


@pytest.mark.django_db
def test_a_rejection_goes_through_the_ledger_with_feedback(mturk: MTurkClient, stub: Stubber) -> None:
    assignment = make_assignment(make_job())
    stub.add_response("get_assignment", {"Assignment": market_assignment("Submitted")})
    stub.add_response(
        "reject_assignment", {}, {"AssignmentId": ASG, "RequesterFeedback": "Failed the checks"}
    )

    engine.confirmed(intents.review_intent(assignment, approve=False, feedback="Failed the checks"))

    assert LedgerEntry.objects.get(kind=RowKind.REJECT).state == RowState.CONFIRMED


@pytest.mark.django_db
def test_a_timeout_after_the_market_paid_is_retried_with_the_same_token_and_pays_once(
    boto_client: Any, mturk: MTurkClient, stub: Stubber
) -> None:
    entry = intents.bonus_intent(make_assignment(make_job()), Decimal("0.5"), "All gold right", "rule:gold")
    paid: list[str] = []

    def lose_the_reply(http_response: Any, **kwargs: Any) -> None:
        if http_response.status_code == 200 and not paid:
            paid.append("once")
            raise ReadTimeoutError(endpoint_url="https://mturk-requester-sandbox.us-east-1.amazonaws.com")

    boto_client.meta.events.register("after-call.mturk.SendBonus", lose_the_reply)
    stub.add_response("get_assignment", {"Assignment": market_assignment("Approved")})
    stub.add_response("send_bonus", {}, bonus_params(entry))
    stub.add_response("get_assignment", {"Assignment": market_assignment("Approved")})
    stub.add_client_error(
        "send_bonus",
        "RequestError",
        "This request has already been processed.",
        expected_params=bonus_params(entry),
    )
    bonus = {"WorkerId": WORKER, "BonusAmount": "0.50", "AssignmentId": ASG, "Reason": "x", "GrantTime": NOW}
    stub.add_response(
        "list_bonus_payments", {"BonusPayments": [bonus]}, {"AssignmentId": ASG, "MaxResults": 100}
    )

    first = engine.execute(entry.pk)
    second = engine.execute(entry.pk)

    assert first.state == RowState.REQUESTED and "unreachable" in first.error
    assert (second.state, second.attempts) == (RowState.CONFIRMED, 2)
    assert "replayed" in second.response_excerpt
    assert paid == ["once"]
    assert LedgerEntry.objects.count() == 1


class CountingMarket:
    """A market that pays every SendBonus it receives, counting them (thread-safe)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.bonuses: list[str] = []

    def get_assignment(self, assignment_id: str) -> MarketAssignment:
        return MarketAssignment(assignment_id, WORKER, HIT_ID, "Approved", NOW, "")

    def send_bonus(
        self, worker_id: str, assignment_id: str, amount: Decimal, reason: str, token: str
    ) -> Outcome:
        with self.lock:
            self.bonuses.append(token)
        return Outcome(assignment_id)


def deliver_concurrently(entry_id: int, market: CountingMarket, deliveries: int = 50) -> list[BaseException]:
    """`deliveries` threads run the payment task for one row at the same moment."""
    start = threading.Barrier(deliveries)
    errors: list[BaseException] = []

    def deliver() -> None:
        try:
            start.wait()
            if connection.vendor != "sqlite":
                engine.execute(entry_id)
                return
            # SQLite's shared in-memory test database locks whole tables, even for readers, so a
            # delivery runs in one IMMEDIATE transaction and is redelivered when it cannot start,
            # as a queue would. PostgreSQL (the marked variant) runs them truly side by side.
            for _ in range(1000):
                try:
                    with transaction.atomic():
                        engine.execute(entry_id)
                    return
                except OperationalError as exc:
                    if "locked" not in str(exc):
                        raise
                    time.sleep(0.002)
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    with market_clients(mturk=market):
        threads = [threading.Thread(target=deliver) for _ in range(deliveries)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    return errors


@pytest.mark.django_db(transaction=True)
def test_fifty_concurrent_deliveries_of_one_payment_make_one_market_call() -> None:
    entry = intents.bonus_intent(make_assignment(make_job()), Decimal("0.5"), "All gold right", "rule:gold")
    market = CountingMarket()

    errors = deliver_concurrently(entry.pk, market)

    assert errors == []
    assert market.bonuses == [entry.token]
    assert LedgerEntry.objects.get(pk=entry.pk).state == RowState.CONFIRMED


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_fifty_concurrent_deliveries_make_one_call_on_postgresql() -> None:
    entry = intents.bonus_intent(make_assignment(make_job()), Decimal("0.5"), "All gold right", "rule:gold")
    market = CountingMarket()

    assert deliver_concurrently(entry.pk, market) == []
    assert market.bonuses == [entry.token]


@pytest.mark.django_db
def test_the_sweeper_requeues_what_is_safe_and_marks_the_rest_unclear(mturk: MTurkClient) -> None:
    job = make_job()
    assignment = make_assignment(job)
    long_ago = timezone.now() - dt.timedelta(hours=1)
    claimed = intents.review_intent(assignment, approve=True, feedback="")
    sent_bonus = intents.bonus_intent(assignment, Decimal("1"), "r", "rule:a")
    sent_pay = intents.record(RowKind.PAY, "prolific", ["bulk-1"], job_id=job.pk, market_ref="bulk-1")
    old_bonus = intents.bonus_intent(assignment, Decimal("1"), "r", "rule:old")
    LedgerEntry.objects.filter(pk=claimed.pk).update(state=RowState.CLAIMED, claimed_at=long_ago)
    LedgerEntry.objects.filter(pk__in=[sent_bonus.pk, sent_pay.pk, old_bonus.pk]).update(
        state=RowState.SENT, sent_at=long_ago
    )
    LedgerEntry.objects.filter(pk=old_bonus.pk).update(requested_at=timezone.now() - dt.timedelta(hours=30))

    report = engine.sweep_stale(stale=dt.timedelta(minutes=10))

    assert sorted(report.requeued) == sorted([claimed.pk, sent_bonus.pk])
    assert sorted(report.unclear) == sorted([sent_pay.pk, old_bonus.pk])
    assert LedgerEntry.objects.get(pk=sent_pay.pk).state == RowState.UNCLEAR


@pytest.mark.django_db
def test_an_unclear_mturk_bonus_is_resolved_from_the_bonus_listing(mturk: MTurkClient, stub: Stubber) -> None:
    entry = intents.bonus_intent(make_assignment(make_job()), Decimal("0.5"), "r", "rule:gold")
    LedgerEntry.objects.filter(pk=entry.pk).update(state=RowState.UNCLEAR)
    bonus = {"WorkerId": WORKER, "BonusAmount": "0.50", "AssignmentId": ASG, "Reason": "r", "GrantTime": NOW}
    stub.add_response(
        "list_bonus_payments", {"BonusPayments": [bonus]}, {"AssignmentId": ASG, "MaxResults": 100}
    )

    assert engine.resolve(entry.pk).state == RowState.CONFIRMED


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("status", "decided"), [("Approved", RowState.CONFIRMED), ("Submitted", RowState.FAILED)]
)
def test_an_unclear_review_is_decided_by_the_assignments_status(
    mturk: MTurkClient, stub: Stubber, status: str, decided: str
) -> None:
    entry = intents.review_intent(make_assignment(make_job()), approve=True, feedback="Thanks")
    LedgerEntry.objects.filter(pk=entry.pk).update(state=RowState.UNCLEAR)
    stub.add_response("get_assignment", {"Assignment": market_assignment(status)}, {"AssignmentId": ASG})

    resolved = engine.resolve(entry.pk)

    assert (resolved.state, resolved.market_ref) == (decided, ASG)
    stub.assert_no_pending_responses()


@pytest.mark.django_db
def test_publishing_is_refused_when_the_worst_case_exceeds_the_balance(
    mturk: MTurkClient, stub: Stubber, settings: Any
) -> None:
    settings.MARKET_PUBLIC_URL = "https://sw.example"
    job = make_job(hits=2, external=False)
    job.params = {"bonus_cap": "5.00"}
    job.save()
    # (1.50 × 3 × 2 + 5.00) × 1.2 = 16.80 > 16.79
    stub.add_response("get_account_balance", {"AvailableBalance": "16.79"})

    with pytest.raises(BudgetError, match=r"16\.80 exceeds the market balance"):
        publish_job(job.pk)

    assert not LedgerEntry.objects.exists()
    assert Job.objects.get(pk=job.pk).state == JobState.DRAFT


@pytest.mark.django_db
def test_publishing_is_refused_when_the_worst_case_exceeds_the_budget(
    mturk: MTurkClient, stub: Stubber
) -> None:
    job = make_job(budget=Decimal("5.00"), external=False)
    stub.add_response("get_account_balance", {"AvailableBalance": "10000.00"})

    with pytest.raises(BudgetError, match=r"5\.40 exceeds the job budget 5\.00"):
        publish_job(job.pk)

    assert not LedgerEntry.objects.exists()


@pytest.mark.django_db
def test_publishing_writes_one_create_hit_row_per_hit(
    mturk: MTurkClient, stub: Stubber, settings: Any
) -> None:
    settings.MARKET_PUBLIC_URL = "https://sw.example"
    job = make_job(hits=2, external=False)
    hits = list(job.hits.all())
    stub.add_response("create_hit_type", {"HITTypeId": "TYPE1"})
    for n, hit in enumerate(hits):
        expect_create_hit(stub, hit, f"HIT{n}")

    published = publish_hits(job, hits)

    assert [p.external_id for p in published] == ["HIT0", "HIT1"]
    assert published[0].url == f"https://sw.example/annotate/jobs/{job.pk}/"
    rows = LedgerEntry.objects.filter(kind=RowKind.CREATE_HIT, state=RowState.CONFIRMED)
    assert rows.count() == 2


class StallingMarket(CountingMarket):
    """The read before a payment takes so long that the sweeper takes the claimed row back meanwhile."""

    def get_assignment(self, assignment_id: str) -> MarketAssignment:
        engine.sweep_stale(now=timezone.now() + dt.timedelta(hours=1))
        return super().get_assignment(assignment_id)


@pytest.mark.django_db
def test_a_delivery_that_lost_its_claim_while_reading_never_calls_the_market() -> None:
    entry = intents.bonus_intent(make_assignment(make_job()), Decimal("0.5"), "All gold right", "rule:gold")
    market = StallingMarket()

    with market_clients(mturk=market):
        stalled = engine.execute(entry.pk)

    assert (stalled.state, market.bonuses) == (RowState.REQUESTED, [])
