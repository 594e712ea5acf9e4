"""The Celery app without REDIS_URL: tasks run in process on the in-memory broker, and nothing in the
output suggests a Redis host is expected."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

SEND_A_TASK = """
import django
django.setup()
from config.celery import app

@app.task(name="tests.double")
def double(number):
    return 2 * number

print("result", double.delay(21).get(timeout=10))
"""


def test_a_task_sent_without_redis_runs_in_process_and_names_no_host(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'unused.sqlite3'}",
        "STANCEWORK_VAR_DIR": str(tmp_path / "var"),
        "REDIS_URL": "",
        "LOG_LEVEL": "INFO",
    }
    sent = subprocess.run(
        [sys.executable, "-c", SEND_A_TASK], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )
    assert sent.returncode == 0, sent.stderr[-3000:]
    assert "result 42" in sent.stdout
    assert "No hostname was supplied" not in sent.stderr + sent.stdout
    assert "localhost" not in sent.stderr, sent.stderr  # no broker host is named at all


# Django's start loads no Celery (tests/config/test_startup.py): the first tasks module a process
# imports brings the project's app, so its tasks are sent through it (the broker of the settings,
# delay_on_commit), not through Celery's default app.
IMPORT_A_TASKS_MODULE = """
import django
django.setup()
from annotation.work.tasks import publish_job_task
print("app", publish_job_task.app.main, hasattr(publish_job_task, "delay_on_commit"))
"""


def test_a_tasks_module_imported_after_djangos_start_binds_its_tasks_to_the_project_app(
    tmp_path: Path,
) -> None:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'unused.sqlite3'}",
        "STANCEWORK_VAR_DIR": str(tmp_path / "var"),
    }
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_A_TASKS_MODULE], cwd=REPO, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["app", "stancework", "True"]
