"""Celery task: start a crawl as a child process. Scrapy never runs inside the worker."""

from __future__ import annotations

from celery import shared_task

from crawler import services


@shared_task(acks_late=False, time_limit=60)
def launch_crawl_task(run_id: int) -> int:
    """Start `manage.py crawl --run <run_id>`; returns its pid."""
    return services.launch_crawl(run_id)
