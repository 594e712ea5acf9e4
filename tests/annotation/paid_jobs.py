"""Jobs whose workers were paid, rejected and given bonuses through the fake markets, for the tests
that read money figures (the ledger's payments, the truth test), and the worker doing a HIT at our
pages and submitting it at the market that they are made of.

Call inside `market_clients(...)` with the guarded fakes (tests.annotation.fake_markets), from a test
that runs outside a transaction (`django_db(transaction=True)`): paying calls refuse an open one.
"""

from __future__ import annotations

from decimal import Decimal

from django.test import Client

from annotation.markets.mturk.fake import FakeMTurk
from annotation.markets.prolific.fake import FakeProlific
from annotation.models import Assignment, Job
from annotation.work.jobs import create_job, publish_job, sync_job
from annotation.work.market import bonus_assignment
from annotation.work.records import review_assignment
from tests.annotation.test_market_pages import answers_for, reach_the_task, token_of

REASON = "The answers to the worked examples inside this HIT were not given; " * 2
BONUS = Decimal("0.50")


def work_at_our_pages(job: Job, params: dict[str, str]) -> Assignment:
    """A market worker does the HIT at our pages (page tokens all the way) and submits it."""
    client = Client()
    task_url = reach_the_task(client, job, params)
    token = token_of(client.get(task_url))
    assignment = Assignment.objects.get(external_id=params.get("assignmentId") or params.get("SESSION_ID"))
    client.post(task_url, {**answers_for(assignment), "page_token": token})
    return assignment


def mturk_worker_done(market: FakeMTurk, job: Job, hit_id: str, n: int) -> Assignment:
    """The job's `n`th MTurk worker does the HIT at our pages, then submits it at MTurk."""
    params = {
        "assignmentId": f"ASG{job.pk:04d}{n:023d}",
        "hitId": hit_id,
        "workerId": f"AWORKER{n}",
        "turkSubmitTo": "https://workersandbox.mturk.com",
    }
    done = work_at_our_pages(job, params)
    market.submit(hit_id, params["assignmentId"], params["workerId"])
    return done


def prolific_participant_done(market: FakeProlific, job: Job, study_id: str, n: int) -> Assignment:
    """The job's `n`th Prolific participant does the study at our pages, then submits it at Prolific."""
    params = {
        "PROLIFIC_PID": f"participant{job.pk}x{n}",
        "STUDY_ID": study_id,
        "SESSION_ID": f"s{job.pk}x{n}",
    }
    done = work_at_our_pages(job, params)
    market.submit(study_id, params["SESSION_ID"], params["PROLIFIC_PID"])
    return done


def paid_mturk_job(market: FakeMTurk, claims: list[int]) -> Job:
    """An MTurk job over `claims`: two workers did its one HIT; one approved with a bonus, one rejected."""
    job = create_job("stance", {"claims": claims}, market="mturk", params={"bonus_cap": "2.00"})
    hit_id = publish_job(job.pk).hits.get().external_id
    return _review(job, [mturk_worker_done(market, job, hit_id, n) for n in range(2)])


def paid_prolific_job(market: FakeProlific, claims: list[int]) -> Job:
    """A Prolific job over `claims`: two participants; one approved with a bonus, one rejected."""
    job = create_job("stance", {"claims": claims}, market="prolific", params={"bonus_cap": "2.00"})
    study_id = publish_job(job.pk).hits.get().external_id
    return _review(job, [prolific_participant_done(market, job, study_id, n) for n in range(2)])


def _review(job: Job, done: list[Assignment]) -> Job:
    sync_job(job.pk)
    review_assignment(done[0].pk, approve=True, feedback="Thanks")
    review_assignment(done[1].pk, approve=False, feedback=REASON)
    bonus_assignment(done[0].pk, BONUS, "Gold right", "gold")
    return Job.objects.get(pk=job.pk)
