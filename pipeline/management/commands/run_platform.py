"""Serve the platform; with REDIS_URL set, also run a Celery worker beside it."""

from __future__ import annotations

import subprocess
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser

from config.celery import worker_command


class Command(BaseCommand):
    help = "Serve on HOST:PORT (development server); start a Celery worker too when REDIS_URL is set."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", default="8000")

    def handle(self, *args: Any, host: str, port: str, **options: Any) -> None:
        worker = None
        if settings.REDIS_URL:
            worker = subprocess.Popen(worker_command("--loglevel", "INFO", "--concurrency", "2"))
            self.stdout.write(f"Celery worker started (pid {worker.pid}) on {settings.REDIS_URL}")
        else:
            self.stdout.write("No REDIS_URL: Celery tasks run in-process (the embedded default).")
        try:
            call_command("runserver", f"{host}:{port}", use_reloader=False)
        finally:
            if worker is not None:
                worker.terminate()
                worker.wait(timeout=30)
