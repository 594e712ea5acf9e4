"""`make run`'s data step on a fresh database: the release imported, the saved pages crawled, every
pipeline step done with the simulated crowd and said as it ends, and a release that verifies.

Run as `manage.py setup_demo` in its own process on a SQLite file of its own (the crawl inside it
is a further process), as `make run` does; the test reads the results back with sqlite3.
"""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pandas as pd
import pytest

from pipeline.definition import STEPS

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"
STEP_LINE = re.compile(r"^  (\w+): (\w+) — ")


def setup_demo_as_it_speaks(
    env: dict[str, str], database: Path, log: Path
) -> tuple[str, list[tuple[str, int]]]:
    """Run `setup_demo` through a pipe, as `make run` does, reading each line as it arrives. Returns
    the output and, for each step said to be done, how many steps the database held done just then."""
    heard: list[tuple[str, int]] = []
    lines: list[str] = []
    with log.open("w") as errors:
        command = [sys.executable, "manage.py", "setup_demo", "--url", "http://10.0.0.7:8123/"]
        process = subprocess.Popen(
            command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=errors, text=True
        )
        watchdog = threading.Timer(900, process.kill)  # bounded: a hung demo fails the test
        watchdog.start()
        try:
            assert process.stdout is not None
            for line in process.stdout:
                lines.append(line)
                said = STEP_LINE.match(line)
                if said and said.group(2) == "done":
                    heard.append((said.group(1), steps_done(database)))
        finally:
            watchdog.cancel()
            process.wait(timeout=60)
    assert process.returncode == 0, log.read_text()[-3000:]
    return "".join(lines), heard


def steps_done(database: Path) -> int:
    with sqlite3.connect(database, timeout=60) as db:
        return int(db.execute("SELECT COUNT(*) FROM pipeline_steprun WHERE state = 'done'").fetchone()[0])


@pytest.mark.slow
def test_setup_demo_shows_every_step_and_a_verified_release(tmp_path: Path) -> None:
    if not (SHARED / "fixtures" / "idebate" / "pages").is_dir():
        pytest.fail("the saved idebate pages are expected in ../shared/fixtures")
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'demo.sqlite3'}",
        "STANCEWORK_VAR_DIR": str(tmp_path / "var"),
        "REDIS_URL": "",
        "LOG_LEVEL": "WARNING",
    }

    def manage(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout

    manage("migrate", "--noinput", "-v0")
    output, heard = setup_demo_as_it_speaks(env, tmp_path / "demo.sqlite3", tmp_path / "stderr.log")

    assert "SIMULATED crowd" in output
    # One line per step, each said while the later steps were still to run, not all at the end.
    assert [name for name, _ in heard] == [step.name for step in STEPS]
    done_when_heard = [done for _, done in heard]
    assert done_when_heard == sorted(done_when_heard) and done_when_heard[0] < len(STEPS) - 1, heard
    assert "No hostname was supplied" not in (tmp_path / "stderr.log").read_text()  # no broker is used
    assert "Staff login for http://10.0.0.7:8123/admin/ : admin / " in output  # make run's HOST and PORT
    with sqlite3.connect(tmp_path / "demo.sqlite3") as db:
        steps = db.execute(
            "SELECT s.name, s.state, s.message FROM pipeline_steprun s ORDER BY s.position"
        ).fetchall()
        simulated = db.execute("SELECT simulated FROM pipeline_pipelinerun").fetchall()
        claims = db.execute("SELECT COUNT(*) FROM corpus_claim WHERE text_missing = 0").fetchone()[0]
        crawled = db.execute("SELECT COUNT(*) FROM crawler_debate").fetchone()[0]
        real_responses = db.execute(
            "SELECT COUNT(*) FROM annotation_response WHERE simulated = 0"
        ).fetchone()[0]
    assert [state for _, state, _ in steps] == ["done"] * len(STEPS), steps
    assert simulated == [(1,)]
    assert crawled == 41
    assert claims >= 907
    assert real_responses == 0  # every response of the demo is labelled simulated
    assert "release demo-1" in steps[-1][2]
    vast = dict((name, message) for name, _, message in steps)["vast"]
    assert "complete and aggregated; VAST CSV:" in vast and "VAST CSV" in output
    (vast_csv,) = (tmp_path / "var" / "data" / "vast").glob("run*-job*.csv")
    frame = pd.read_csv(vast_csv, keep_default_na=False)
    assert len(frame) > 0 and {"post", "new_topic", "label", "type_idx"} <= set(frame.columns)
    assert set(frame["simulated"]) == {1}
    verified = manage("verify_release", str(tmp_path / "var" / "releases" / "demo-1"))
    assert "verified against its manifest and schemas" in verified

    manage("export_release", "--version", "demo-1", "--out", str(tmp_path / "first"))
    again = manage("setup_demo")  # make run again: nothing new is crawled, imported or released
    assert "release demo-1" in again
    assert "already imported, not imported again" in again and "updated" not in again
    manage("export_release", "--version", "demo-1", "--out", str(tmp_path / "second"))
    first = {path.name: path.read_bytes() for path in (tmp_path / "first").iterdir()}
    assert first == {path.name: path.read_bytes() for path in (tmp_path / "second").iterdir()}
