"""Jobs kept in step with their markets on a schedule: beat runs `sync_live_jobs` every
MARKET_SYNC_SECONDS, so a job's state follows its market's (a study Prolific paused by itself, a resume
that raced an auto-pause) without anybody syncing by hand, and a study or HIT made for a cancelled job
is stopped even when the publish that made it died before it could stop it."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from annotation.market_interface.base import MarketCallError
from annotation.market_interface.errors import MarketError
from annotation.models import Job, JobState
from annotation.work.jobs import sync_job
from annotation.work.withdrawals import withdraw_unwanted

log = logging.getLogger(__name__)

LIVE = [*JobState.open(), JobState.PAUSED]


@dataclass(frozen=True)
class SyncRound:
    synced: int
    failed: int
    withdrawn: int


def sync_live_jobs() -> SyncRound:
    """Sync every live job with its market, each on its own (one market down fails its jobs only),
    then stop what was made for cancelled jobs."""
    synced = failed = 0
    for job_id in Job.objects.filter(state__in=LIVE).order_by("pk").values_list("pk", flat=True):
        try:
            sync_job(job_id)
        except (MarketCallError, MarketError) as error:
            log.warning("job %s not synced: %s", job_id, error)
            failed += 1
        else:
            synced += 1
    return SyncRound(synced, failed, withdraw_unwanted())
