from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from annotation.models import Job, JobState, Response
from tests.annotation.factories import make_corpus

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_create_publish_sync_completes_a_simulated_job() -> None:
    claims = make_corpus(claims=5, perspectives=2)
    cids = ",".join(str(claim.cid) for claim in claims[:4])

    created = run(
        "create_job", "stance", "--claims", cids, "--market", "simulated", "--workers", "2", "--bundle", "2"
    )
    job = Job.objects.get()
    run("publish_job", str(job.pk))
    synced = run("sync_job", str(job.pk))

    job.refresh_from_db()
    assert "8 items in 2 HITs" in created
    assert job.state == JobState.COMPLETE and "complete" in synced
    assert Response.objects.count() == 8 * 2


def test_create_job_refuses_filters_that_choose_nothing() -> None:
    with pytest.raises(CommandError, match="choose no items"):
        run("create_job", "stance", "--claims", "999")


def test_publish_job_refuses_a_job_over_budget() -> None:
    make_corpus(claims=2)
    run("create_job", "stance", "--budget", "2.00")

    with pytest.raises(CommandError, match="exceeds the job budget"):
        run("publish_job", str(Job.objects.get().pk))
