"""The simulated crowd spreads a job over all its workers, spammers included, as a real market does."""

from __future__ import annotations

from collections import Counter

import pytest

from annotation.models import Assignment
from annotation.simulation import CrowdParams, make_crowd
from annotation.work.jobs import create_job, publish_job, sync_job
from tests.annotation.factories import make_corpus

pytestmark = pytest.mark.django_db


def test_sync_spreads_the_work_over_the_whole_crowd() -> None:
    make_corpus(claims=20, perspectives=2)
    crowd = {"size": 10, "spammer_share": 0.2}
    job = create_job("stance", {}, market="simulated", params={"crowd": crowd, "groups_per_hit": 1})
    publish_job(job.pk)

    sync_job(job.pk)

    per_worker = Counter(
        Assignment.objects.filter(hit__job=job).values_list("worker__external_id", flat=True)
    )
    assert len(per_worker) == 10  # every modelled worker got some of the 60 assignments
    assert max(per_worker.values()) - min(per_worker.values()) <= 2


def test_spammers_are_drawn_at_random_not_placed_first() -> None:
    crowd = make_crowd(CrowdParams(size=50, spammer_share=0.2, seed=3), ["a", "b"])
    flags = [model.spammer for model in crowd]
    assert sum(flags) == 10
    assert flags[:10] != [True] * 10
