"""Celery application. Without REDIS_URL, tasks run in-process (the embedded default)."""

import os
import sys

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("stancework")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def worker_command(*options: str) -> list[str]:
    """The command line that starts a worker of this app under the running Python, with these options
    (`run_platform`, and the benchmarks' rigs that start and kill workers)."""
    return [sys.executable, "-m", "celery", "-A", "config", "worker", *options]
