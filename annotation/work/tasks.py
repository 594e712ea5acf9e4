"""Celery tasks: thin, by id, safe to run twice (the services are idempotent)."""

from __future__ import annotations

from celery import shared_task

from annotation import work


@shared_task(name="annotation.publish_job")
def publish_job_task(job_id: int) -> str:
    return work.publish_job(job_id).state


@shared_task(name="annotation.sync_job")
def sync_job_task(job_id: int) -> str:
    return work.sync_job(job_id).state
