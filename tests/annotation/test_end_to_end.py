"""Done-when on the real release: a stance job over 20 claims completed by the simulated crowd."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotation.models import JobState, Response
from annotation.work.jobs import create_job, publish_job, sync_job
from annotation.work.records import long_format
from corpus.models import Claim
from corpus.services import import_perspectrum

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def test_a_simulated_crowd_completes_a_stance_job_over_twenty_release_claims(perspectrum_dir: Path) -> None:
    import_perspectrum(perspectrum_dir)
    cids = list(Claim.objects.filter(text_missing=False).order_by("cid").values_list("cid", flat=True)[:20])

    job = create_job("stance", {"claims": cids}, market="simulated", params={"crowd": {"size": 12}})
    publish_job(job.pk)
    job = sync_job(job.pk)

    items = job.items.count()
    rows = list(long_format(job))
    assert job.state == JobState.COMPLETE
    assert len(rows) == items * 3 and len({(item, worker) for item, worker, _ in rows}) == len(rows)
    assert not Response.objects.filter(job=job, simulated=False).exists()
    # Modelled workers answer mostly from the release's labels.
    agree = sum(
        1
        for response in Response.objects.filter(job=job).select_related("item")
        if response.label == response.item.known_answer
    )
    assert agree / len(rows) > 0.6
