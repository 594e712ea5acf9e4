"""Start an operation (a row, then a task once the row commits) and run it exactly once."""

from __future__ import annotations

from typing import Any

from django.db.models import F, Value
from django.db.models.functions import Concat
from django.utils import timezone

from operations import registry
from operations.models import Operation, OperationState
from operations.queueing import registered_task

# The task that runs an operation (operations/tasks.py registers it under this name).
RUN_OPERATION_TASK = "operations.run_operation"


def start_operation(
    kind: str, label: str, params: dict[str, Any], *, total: int, user: Any = None
) -> Operation:
    """Record the operation and queue it for a worker once the current transaction commits."""
    registry.runner_for(kind)  # refuse an unknown kind before anything is written
    operation = Operation.objects.create(
        kind=kind,
        label=label[:200],
        params=params,
        total=total,
        requested_by=user if getattr(user, "pk", None) else None,
    )
    registered_task(RUN_OPERATION_TASK).delay_on_commit(operation.pk)  # type: ignore[attr-defined]
    return operation


class RowProgress:
    """Writes each step to the operation's row at once, so the admin shows it while it runs."""

    def __init__(self, operation: Operation) -> None:
        self.pk = operation.pk
        self.results = dict(operation.results)

    def step(self, line: str) -> None:
        Operation.objects.filter(pk=self.pk).update(
            done=F("done") + 1, log=Concat(F("log"), Value(line[:1000] + "\n"))
        )

    def result(self, key: str, outcome: str) -> None:
        """The operation runs in one worker, once: the row's results are these."""
        self.results[key] = outcome[:1000]
        Operation.objects.filter(pk=self.pk).update(results=self.results)


def run_operation(operation_id: int) -> Operation:
    """Claim a queued operation and run it; a second delivery finds it claimed and does nothing."""
    claimed = Operation.objects.filter(pk=operation_id, state=OperationState.QUEUED).update(
        state=OperationState.RUNNING, started_at=timezone.now()
    )
    operation = Operation.objects.get(pk=operation_id)
    if not claimed:
        return operation
    try:
        registry.call(operation.kind, RowProgress(operation), dict(operation.params))
    except registry.OperationFailedError as error:
        # Failures the runner named and logged (a market that could not be reached): a failed
        # operation with its message, not a crash.
        Operation.objects.filter(pk=operation_id).update(
            state=OperationState.FAILED, error=str(error)[:500], finished_at=timezone.now()
        )
        operation.refresh_from_db()
        return operation
    except Exception as error:
        # Each runner reports per-object failures itself; reaching here means the whole run broke
        # (a bug or a lost service). Recorded on the row for the admin, then raised for Celery's log.
        Operation.objects.filter(pk=operation_id).update(
            state=OperationState.FAILED,
            error=f"{type(error).__name__}: {error}"[:500],
            finished_at=timezone.now(),
        )
        raise
    Operation.objects.filter(pk=operation_id).update(state=OperationState.DONE, finished_at=timezone.now())
    operation.refresh_from_db()
    return operation
