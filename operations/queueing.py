"""Find a Celery task by the name it is registered under.

A service that starts the task which calls it back cannot import that task: the tasks module
imports the service, and the two would import each other. The service names the task instead (the
tasks module takes its name from the service). The first time a process asks for a task it has not
loaded, it imports every module a worker imports for its tasks, so that starting Django (every
management command) does not load them and the services they import, nor Celery itself: the
project's Celery app (config.celery) loads here, or with the first tasks module a process imports.
"""

from __future__ import annotations

from importlib import import_module
from importlib.util import find_spec
from typing import TYPE_CHECKING

from django.apps import apps

if TYPE_CHECKING:
    from celery import Celery, Task


def registered_task(name: str) -> Task:  # type: ignore[type-arg]
    """The task registered as `name`; Celery's NotRegistered when no app registered it."""
    from config.celery import app

    if name not in app.tasks:
        _import_task_modules(app)
    return app.tasks[name]


def _import_task_modules(app: Celery) -> None:
    """The modules a worker imports for its tasks: CELERY_IMPORTS and each app's `tasks`. Imported
    here rather than by the loader's import_default_modules, whose signal has Celery's Django fix-up
    set Django up again, and so configure logging again in the middle of a command (a crawl's log
    went back to the terminal)."""
    named = [*app.conf.imports, *app.conf.include]
    found = [f"{config.name}.tasks" for config in apps.get_app_configs() if find_spec(f"{config.name}.tasks")]
    for module in [*named, *found]:
        import_module(module)
