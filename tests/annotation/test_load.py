"""The load benchmark's correctness check at a small size (bench/load.py): 20 simulated Prolific
participants for 30 s against gunicorn (4 workers, DEBUG off), PostgreSQL, Redis and a Celery worker.
Latency is the benchmark's business; here the crowd must meet no error, and the database must hold
exactly one assignment per participant and HIT and one response per item per assignment. Also how the
benchmark compares the CPU with the code before issue 30's changes, measured in the same run."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import load
from rigs import serving


@pytest.mark.postgres
@pytest.mark.redis
def test_twenty_participants_for_thirty_seconds_leave_one_assignment_and_one_response_each(
    tmp_path: Path,
) -> None:
    database_url, redis_url = serving.service_urls()
    with serving.served_stack(tmp_path, database_url, redis_url) as (group, env, base):
        result = load.run_level(group, env, base, users=20, seconds=30, think=(1.0, 3.0))
    assert result.errors == 0, load.report(result)
    assert result.submits >= 20, load.report(result)  # every participant got through at least once
    assert result.sound, load.report(result)
    assert result.check["submitted"] + result.check["open"] == result.check["assignments"]


def test_the_before_code_is_issue_30s_unless_another_commit_or_none_is_asked_for() -> None:
    assert load.before_option([]) == load.BEFORE_COMMIT == "327a8d8"
    assert load.before_option(["--before=main"]) == "main"
    assert load.before_option(["--no-before"]) == ""
    with pytest.raises(SystemExit, match="--fine-tune"):
        load.before_option(["--fine-tune"])


def test_checkout_writes_a_commits_tree_and_names_an_unknown_one(tmp_path: Path) -> None:
    code = load.checkout("HEAD", tmp_path / "code")
    assert (code / "manage.py").is_file() and (code / "bench" / "load.py").is_file()
    with pytest.raises(load.CheckoutError, match="no-such-commit"):
        load.checkout("no-such-commit", tmp_path / "other")


def _level(cpu_seconds: float, requests: int, submitted: int) -> load.LevelResult:
    check = {"submitted": submitted, "open": 0}
    return load.LevelResult(50, requests, 0.0, 0.0, 0.0, 0.0, 0, submitted, check, cpu_seconds)


def test_cpu_is_given_as_a_share_of_the_before_codes_measured_in_the_same_run() -> None:
    before, after = _level(40.0, 2000, 300), _level(18.0, 3000, 300)  # 0.133 -> 0.060 CPU-s a HIT
    line = load.cpu_report(after, before, "327a8d8")
    assert "cpu_s_per_hit=0.060 (45% of 0.133 before (327a8d8), goal <= 50%: met;" in line
    assert "cpu_ms_per_request=6.000 (30% of 20.000 before (327a8d8), goal <= 50%: met;" in line
    assert "MISSED" in load.cpu_report(_level(30.0, 3000, 300), before, "327a8d8")
    against_main = load.cpu_report(after, before, "main")  # another commit: a ratio, no goal
    assert "cpu_s_per_hit=0.060 (45% of 0.133 before (main); issue's" in against_main


def test_without_a_before_measured_in_the_run_no_ratio_is_printed() -> None:
    line = load.cpu_report(_level(18.0, 3000, 300))
    assert "no before code measured in this run: no ratio" in line and "%" not in line
