"""Celery tasks for the money ledger: thin, by id, safe to deliver any number of times."""

from __future__ import annotations

from annotation.ledger import engine, reconcile
from annotation.ledger.models import RowState
from config.celery import app


@app.task(bind=True, name=engine.EXECUTE_TASK, max_retries=6)
def execute_ledger_entry_task(self, entry_id: int) -> str:  # type: ignore[no-untyped-def]
    entry = engine.execute(entry_id)
    if entry.state == RowState.REQUESTED and entry.error:
        # Back in `requested` after a named transient error: try again later, same token.
        raise self.retry(countdown=30 * 2**self.request.retries)
    return str(entry.state)


@app.task(name=engine.RESOLVE_TASK)
def resolve_ledger_entry_task(entry_id: int) -> str:
    return str(engine.resolve(entry_id).state)


@app.task(name="annotation.sweep_ledger")
def sweep_ledger_task() -> dict[str, int]:
    report = engine.sweep_stale()
    for entry_id in report.requeued:
        execute_ledger_entry_task.delay(entry_id)
    for entry_id in report.unclear:
        resolve_ledger_entry_task.delay(entry_id)
    return {"requeued": len(report.requeued), "unclear": len(report.unclear)}


@app.task(name="annotation.reconcile_job")
def reconcile_job_task(job_id: int) -> int:
    return len(reconcile.reconcile_job(job_id))


@app.task(name="annotation.reconcile_market_jobs")
def reconcile_market_jobs_task() -> int:
    """On the beat schedule: one reconciliation task per active market job."""
    job_ids = reconcile.jobs_to_reconcile()
    reconcile.reconcile_markets()
    for job_id in job_ids:
        reconcile_job_task.delay(job_id)
    return len(job_ids)
