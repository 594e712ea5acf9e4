"""Votes that count: rejected, unconfirmed and (by policy) blocked or flagged workers' answers never vote."""

from __future__ import annotations

import pytest

from aggregation.models import AggregationRun, ItemOutcome
from aggregation.services import aggregate_job
from annotation.models import Response
from annotation.work.jobs import create_job, publish_job, sync_job
from annotation.work.records import block_worker
from tests.annotation.factories import make_corpus

pytestmark = pytest.mark.django_db


def simulated_job() -> int:
    make_corpus(claims=6, perspectives=3)
    job = create_job("stance", {}, market="simulated", params={"crowd": {"crowd_size": 6}})
    publish_job(job.pk)
    sync_job(job.pk)
    return job.pk


def test_blocked_workers_leave_the_vote_by_policy_and_the_run_says_what_changed() -> None:
    job_id = simulated_job()
    first = aggregate_job(job_id)
    before = {o.item_id: (o.label, o.status) for o in ItemOutcome.objects.filter(job_id=job_id)}
    blocked = Response.objects.filter(job_id=job_id).values_list("worker_id", flat=True).first()
    block_worker(blocked, "answers at random")

    kept_all = aggregate_job(job_id)
    second = aggregate_job(job_id, overrides={"drop_workers": "blocked"})

    theirs = Response.objects.filter(job_id=job_id, worker_id=blocked, is_gold=False).count()
    runs = AggregationRun.objects.filter(job_id=job_id).order_by("pk")
    assert runs.get(pk=kept_all.run_id).responses == runs.get(pk=first.run_id).responses
    assert runs.get(pk=second.run_id).responses == runs.get(pk=first.run_id).responses - theirs > 0
    after = {o.item_id: (o.label, o.status) for o in ItemOutcome.objects.filter(job_id=job_id)}
    assert second.changed_items == sum(1 for item, written in after.items() if before[item] != written) > 0
    assert kept_all.changed_items == 0


def test_an_unknown_drop_setting_is_refused() -> None:
    job_id = simulated_job()
    with pytest.raises(Exception, match="drop_workers"):
        aggregate_job(job_id, overrides={"drop_workers": "everyone"})
