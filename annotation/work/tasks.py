"""Celery tasks of a job's life (publish, sync) and of beat's schedule (every live job synced, blocklist
calls sent again): thin, by id, safe to run twice. The services name the tasks they queue
(annotation.work.jobs), since these tasks import the services."""

from __future__ import annotations

from annotation.work import jobs
from annotation.work.blocklists import retry_unfinished
from annotation.work.syncing import sync_live_jobs
from config.celery import app


@app.task(name=jobs.PUBLISH_JOB_TASK)
def publish_job_task(job_id: int) -> str:
    return jobs.publish_job(job_id).state


@app.task(name=jobs.SYNC_JOB_TASK)
def sync_job_task(job_id: int) -> str:
    return jobs.sync_job(job_id).state


@app.task(name="annotation.sync_live_jobs")
def sync_live_jobs_task() -> dict[str, int]:
    done = sync_live_jobs()
    return {"synced": done.synced, "failed": done.failed, "withdrawn": done.withdrawn}


@app.task(name="annotation.retry_blocklist_calls")
def retry_blocklist_calls_task() -> int:
    return len(retry_unfinished())
