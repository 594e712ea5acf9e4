"""Celery tasks of the search app: thin wrappers over search/services.py."""

from __future__ import annotations

from config.celery import app
from search import services
from search.base import IndexBusyError, Kind


@app.task(
    name=services.SYNC_INDEX_TASK,
    autoretry_for=(IndexBusyError,),
    retry_backoff=True,
    max_retries=5,
    time_limit=10 * 60,
)
def sync_index_task(kind: str, ids: list[int]) -> None:
    """Bring the `kind` index in step with the corpus for these public ids."""
    services.sync_index(Kind(kind), ids)
