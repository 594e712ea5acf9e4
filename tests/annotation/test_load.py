"""The load benchmark's correctness check at a small size (bench/load.py): 20 simulated Prolific
participants for 30 s against gunicorn (4 workers, DEBUG off), PostgreSQL, Redis and a Celery worker.
Latency is the benchmark's business; here the crowd must meet no error, and the database must hold
exactly one assignment per participant and HIT and one response per item per assignment."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import load

pytestmark = [pytest.mark.postgres, pytest.mark.redis]


def test_twenty_participants_for_thirty_seconds_leave_one_assignment_and_one_response_each(
    tmp_path: Path,
) -> None:
    database_url, redis_url = load.service_urls()
    with load.served_stack(tmp_path, database_url, redis_url) as (group, env, base):
        result = load.run_level(group, env, base, users=20, seconds=30, think=(1.0, 3.0))
    assert result.errors == 0, load.report(result)
    assert result.submits >= 20, load.report(result)  # every participant got through at least once
    assert result.sound, load.report(result)
    assert result.check["submitted"] + result.check["open"] == result.check["assignments"]
