"""The scheduled backup. Only the compose `backup` service consumes its queue: it alone has pg_dump
and the backups volume."""

from __future__ import annotations

from django.conf import settings

from backups import services
from config.celery import app

# A dump of a large database outlasts the default 30-minute task limit.
HOURS = 60 * 60


@app.task(name="backups.create_backup", queue=settings.BACKUP_QUEUE, time_limit=6 * HOURS)
def create_backup() -> str:
    return str(services.create_backup().path)
