from __future__ import annotations

from celery import shared_task

from pipeline import services


@shared_task(name="pipeline.run_all", acks_late=True)
def run_pipeline_task(run_id: int) -> list[str]:
    return [f"{s.name}: {s.state}" for s in services.run_all(run_id)]
