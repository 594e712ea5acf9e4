"""Celery task for admin operations: thin, by id; a second delivery of the same id does nothing."""

from __future__ import annotations

from config.celery import app
from operations import services


@app.task(name=services.RUN_OPERATION_TASK)
def run_operation_task(operation_id: int) -> str:
    return str(services.run_operation(operation_id).state)
