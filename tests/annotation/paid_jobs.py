"""Jobs whose workers were paid, rejected and given bonuses through the fake markets, for the tests
that read money figures (the ledger's payments, the truth test).

Call inside `market_clients(...)` with the guarded fakes (tests.annotation.fake_markets), from a test
that runs outside a transaction (`django_db(transaction=True)`): paying calls refuse an open one.
"""

from __future__ import annotations

from decimal import Decimal

from annotation.markets.mturk.fake import FakeMTurk
from annotation.markets.prolific.fake import FakeProlific
from annotation.models import Assignment, Job
from annotation.work.jobs import create_job, publish_job, sync_job
from annotation.work.market import bonus_assignment
from annotation.work.records import review_assignment
from tests.annotation.test_no_unledgered_payments import work_at_our_pages

REASON = "The answers to the worked examples inside this HIT were not given; " * 2
BONUS = Decimal("0.50")


def paid_mturk_job(market: FakeMTurk, claims: list[int]) -> Job:
    """An MTurk job over `claims`: two workers did its one HIT; one approved with a bonus, one rejected."""
    job = create_job("stance", {"claims": claims}, provider="mturk", params={"bonus_cap": "2.00"})
    hit_id = publish_job(job.pk).hits.get().external_id
    done = []
    for n in range(2):
        params = {
            "assignmentId": f"ASG{job.pk:04d}{n:023d}",
            "hitId": hit_id,
            "workerId": f"AWORKER{n}",
            "turkSubmitTo": "https://workersandbox.mturk.com",
        }
        done.append(work_at_our_pages(job, params))
        market.submit(hit_id, params["assignmentId"], params["workerId"])
    return _review(job, done)


def paid_prolific_job(market: FakeProlific, claims: list[int]) -> Job:
    """A Prolific job over `claims`: two participants; one approved with a bonus, one rejected."""
    job = create_job("stance", {"claims": claims}, provider="prolific", params={"bonus_cap": "2.00"})
    study_id = publish_job(job.pk).hits.get().external_id
    done = []
    for n in range(2):
        params = {
            "PROLIFIC_PID": f"participant{job.pk}x{n}",
            "STUDY_ID": study_id,
            "SESSION_ID": f"s{job.pk}x{n}",
        }
        done.append(work_at_our_pages(job, params))
        market.submit(study_id, params["SESSION_ID"], params["PROLIFIC_PID"])
    return _review(job, done)


def _review(job: Job, done: list[Assignment]) -> Job:
    sync_job(job.pk)
    review_assignment(done[0].pk, approve=True, feedback="Thanks")
    review_assignment(done[1].pk, approve=False, feedback=REASON)
    bonus_assignment(done[0].pk, BONUS, "Gold right", "gold")
    return Job.objects.get(pk=job.pk)
