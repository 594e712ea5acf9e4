"""Celery tasks: start a crawl as a child process (Scrapy never runs inside the worker), and fail the
crawls that went silent."""

from __future__ import annotations

from config.celery import app
from crawler import services


@app.task(name=services.LAUNCH_CRAWL_TASK, acks_late=False, time_limit=60)
def launch_crawl_task(run_id: int, saved_pages: bool = False) -> int:
    """Start `manage.py crawl --run <run_id>`; returns its pid."""
    return services.launch_crawl(run_id, saved_pages)


@app.task(name="crawler.fail_silent_runs", time_limit=60)
def fail_silent_runs() -> list[int]:
    """Beat's sweep: a crawl killed with its container stays "running" no longer than the heartbeat limit."""
    return services.fail_dead_runs()
