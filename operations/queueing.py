"""Find a Celery task by the name it is registered under.

A service that starts the task which calls it back cannot import that task: the tasks module
imports the service, and the two would import each other. The service names the task instead (the
tasks module takes its name from the service), and the app's `AppConfig.ready` imports its tasks
module, so the name is registered in every process, not only in a worker.
"""

from __future__ import annotations

from celery import Task, current_app


def registered_task(name: str) -> Task:  # type: ignore[type-arg]
    """The task registered as `name`; Celery's NotRegistered when no app registered it."""
    return current_app.tasks[name]
