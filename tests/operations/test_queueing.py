"""A service starts the task that calls it back by the task's name: every such name is registered in
a process that has only set Django up (a web process, a command), not only in a worker."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from celery.exceptions import NotRegistered

from operations.queueing import registered_task

ROOT = Path(__file__).resolve().parents[2]
# Each service's name for its task, and the task it must find.
NAMED = {
    "crawler.services.LAUNCH_CRAWL_TASK": "crawler.tasks.launch_crawl_task",
    "operations.services.RUN_OPERATION_TASK": "operations.tasks.run_operation_task",
    "search.services.SYNC_INDEX_TASK": "search.tasks.sync_index_task",
}


def test_every_task_a_service_names_is_registered_once_django_is_set_up(tmp_path: Path) -> None:
    code = (
        "import importlib, sys, django\n"
        "django.setup()\n"
        "from operations.queueing import registered_task\n"
        f"for constant, task in {NAMED!r}.items():\n"
        "    module, _, name = constant.rpartition('.')\n"
        "    found = registered_task(getattr(importlib.import_module(module), name))\n"
        "    owner, _, function = task.rpartition('.')\n"
        "    assert found.run is getattr(sys.modules[owner], function).run, (constant, found)\n"
        "    assert found.app.main == 'stancework', found.app  # the project's app, not Celery's default\n"
        "print('ok')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DATABASE_URL": f"sqlite:///{tmp_path / 'unused.sqlite3'}",
            "STANCEWORK_VAR_DIR": str(tmp_path / "var"),
        },
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_a_name_no_app_registered_is_refused() -> None:
    with pytest.raises(NotRegistered):
        registered_task("operations.no_such_task")
