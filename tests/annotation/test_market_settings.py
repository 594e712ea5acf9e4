"""Deployment settings for the markets: `check --deploy` is clean, the beat schedule runs real tasks."""

from __future__ import annotations

import datetime as dt
import os
import secrets
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import timezone

from annotation.ledger.reconcile import jobs_to_reconcile
from annotation.models import Job, JobState
from config.celery import app

ROOT = Path(__file__).resolve().parent.parent.parent


def test_check_deploy_is_clean_with_production_settings(tmp_path: Path) -> None:
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")},
        "DEBUG": "0",
        "SECRET_KEY": secrets.token_urlsafe(60),
        "WORKER_PSEUDONYM_KEY": secrets.token_urlsafe(60),
        "ALLOWED_HOSTS": "stancework.example",
        "STANCEWORK_VAR_DIR": str(tmp_path),
    }
    done = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert done.returncode == 0, done.stdout + done.stderr
    assert "no issues" in done.stdout


def test_the_beat_schedule_runs_the_sweeper_and_reconciliation_as_registered_tasks() -> None:
    app.loader.import_default_modules()
    schedule = settings.CELERY_BEAT_SCHEDULE

    tasks = {entry["task"] for entry in schedule.values()}

    assert tasks >= {"annotation.sweep_ledger", "annotation.reconcile_market_jobs"}  # backups have one too
    assert tasks <= set(app.tasks)
    assert all(float(entry["schedule"]) > 0 for entry in schedule.values())


@pytest.mark.django_db
def test_scheduled_reconciliation_looks_at_active_and_recent_market_jobs_only() -> None:
    def job(market: str, state: str, age_days: int = 0) -> int:
        made = Job.objects.create(task_type="stance", market=market, state=state, reward=Decimal("1"))
        Job.objects.filter(pk=made.pk).update(updated=timezone.now() - dt.timedelta(days=age_days))
        return made.pk

    live = job("mturk", JobState.COLLECTING, age_days=90)
    paused = job("prolific", JobState.PAUSED, age_days=90)
    recent = job("mturk", JobState.COMPLETE, age_days=3)
    job("mturk", JobState.COMPLETE, age_days=90)
    job("mturk", JobState.DRAFT)
    job("inhouse", JobState.COLLECTING)

    assert jobs_to_reconcile() == sorted([live, paused, recent])
