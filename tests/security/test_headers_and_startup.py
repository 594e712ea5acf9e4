"""What every response says about itself, and what the server refuses to start without."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.test import Client

from annotation.work.jobs import create_job, publish_job
from tests.annotation.factories import make_corpus

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION = {"DEBUG": "false", "SECRET_KEY": "s" * 50, "ALLOWED_HOSTS": "stancework.example"}


def run_manage(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in {"WORKER_PSEUDONYM_KEY", "DEBUG"}}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_production_refuses_to_start_without_a_worker_pseudonym_key() -> None:
    checked = run_manage("check", "--deploy", env=PRODUCTION)

    assert checked.returncode != 0
    assert "WORKER_PSEUDONYM_KEY" in checked.stderr


def test_production_starts_with_a_worker_pseudonym_key() -> None:
    checked = run_manage("check", env={**PRODUCTION, "WORKER_PSEUDONYM_KEY": "k" * 50})

    assert checked.returncode == 0, checked.stderr


@pytest.mark.django_db
def test_worker_staff_and_release_pages_are_never_cached() -> None:
    make_corpus(claims=1, perspectives=1)
    job = publish_job(create_job("stance", {}).pk)
    client = Client()
    client.force_login(User.objects.create_superuser("lead", "lead@example.org", "pw-for-tests-only"))

    pages = [client.get(f"/annotate/jobs/{job.pk}/"), client.get("/admin/"), client.get("/releases/")]

    assert [page.status_code for page in pages] == [200, 200, 200]
    for page in pages:
        assert {"private", "no-store"} <= {part.strip() for part in page["Cache-Control"].split(",")}


def test_static_files_carry_the_framing_headers(settings: pytest.FixtureRequest) -> None:
    settings.WHITENOISE_USE_FINDERS = True  # type: ignore[attr-defined]
    settings.WHITENOISE_AUTOREFRESH = True  # type: ignore[attr-defined]

    response = Client().get("/static/admin/css/base.css")

    assert response.status_code == 200
    assert response["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in response["Content-Security-Policy"]


@pytest.mark.django_db
def test_an_oversized_post_to_a_worker_page_is_refused_before_it_is_read() -> None:
    make_corpus(claims=1, perspectives=1)
    job = publish_job(create_job("stance", {}).pk)
    client = Client()
    client.force_login(User.objects.create_user("annotator", password="pw-for-tests-only"))

    response = client.post(
        f"/annotate/jobs/{job.pk}/start/", data=b"x" * (2 * 1024 * 1024), content_type="text/plain"
    )

    assert response.status_code == 413
