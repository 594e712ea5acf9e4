from __future__ import annotations

from config.celery import app
from pipeline import services


@app.task(name="pipeline.run_all", acks_late=True)
def run_pipeline_task(run_id: int) -> list[str]:
    return [f"{s.name}: {s.state}" for s in services.run_all(run_id)]
