"""A job's blocklist is made at its market once, however many runs publish the job at once: the one
MAKE row per job lives in the database (a conditional unique constraint) and is claimed once.

Prolific is the market where this matters: it makes a second participant group of the same name
(MTurk refuses a second qualification type of one name)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from annotation.markets.prolific.fake import FakeProlific
from annotation.models import Job
from annotation.quality.models import BlocklistAction, BlocklistCall
from annotation.work.blocklists import ensure_job_blocklist
from annotation.work.job_errors import JobError
from annotation.work.jobs import create_job
from tests.annotation.factories import make_corpus
from tests.annotation.market_clients import market_clients
from tests.races import race

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
RUNS = 8


class HeldProlific(FakeProlific):
    """Holds every request that creates a participant group until the other runs are done, so that a
    second run reaching the market would find no group yet and make one."""

    def __init__(self) -> None:
        super().__init__()
        self.others_done = threading.Event()

    def respond(self, method: str, url: str, body: Any) -> tuple[int, Any]:
        if method == "POST" and url.endswith("/participant-groups/"):
            self.others_done.wait(30)
        return super().respond(method, url, body)


@pytest.fixture
def prolific(settings: Any) -> Iterator[HeldProlific]:
    settings.MARKET_PUBLIC_URL = "https://stancework.example"
    settings.PROLIFIC_PROJECT_ID = FakeProlific.PROJECT
    settings.PROLIFIC_WORKSPACE_ID = ""
    market = HeldProlific()
    with market_clients(prolific=market.client(attempts=1)):
        yield market


def test_parallel_publishes_make_the_jobs_participant_group_once(prolific: HeldProlific) -> None:
    make_corpus(claims=2, perspectives=2)
    job = create_job("stance", {}, market="prolific", params={"stop_workers": True})
    finished, refused, lock = [0], list[str](), threading.Lock()

    def publish(n: int) -> None:
        try:
            ensure_job_blocklist(Job.objects.get(pk=job.pk))
        except JobError as error:
            refused.append(str(error))
        finally:
            with lock:
                finished[0] += 1
                if finished[0] == RUNS - 1:
                    prolific.others_done.set()

    assert race(RUNS, publish) == []

    job.refresh_from_db()
    assert prolific.effects["create-participant-group"] == 1 and job.market_blocklist in prolific.groups
    assert BlocklistCall.objects.filter(job=job, action=BlocklistAction.MAKE).count() == 1
    assert len(refused) == RUNS - 1 and all("another run is making it now" in why for why in refused)
