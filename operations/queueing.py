"""Find a Celery task by the name it is registered under.

A service that starts the task which calls it back cannot import that task: the tasks module
imports the service, and the two would import each other. The service names the task instead (the
tasks module takes its name from the service). The first time a process asks for a task it has not
loaded, it loads every app's tasks modules as a worker does at start, so that starting Django (every
management command) does not load them and the services they import.
"""

from __future__ import annotations

from celery import Task, current_app


def registered_task(name: str) -> Task:  # type: ignore[type-arg]
    """The task registered as `name`; Celery's NotRegistered when no app registered it."""
    if name not in current_app.tasks:
        current_app.loader.import_default_modules()
    return current_app.tasks[name]
