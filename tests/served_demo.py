"""`make run` in a test, once per session: a migrated SQLite file of its own, the demo built on it by
`setup_demo` (read line by line through a pipe, as make reads it), then the platform served on a free
port, as `make run HOST=… PORT=…` does. Shared by the click-only walk, the README's curl block and the
demo's own test, which works on a copy of the demo as `setup_demo` left it, before anything was served."""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from rigs.processes import ProcessGroup, free_port

REPO = Path(__file__).resolve().parents[1]
DEMO_SECONDS = 900
DATABASE = "demo.sqlite3"
STEP_LINE = re.compile(r"^  (\w+): (\w+) — ")


@dataclass(frozen=True)
class ServedDemo:
    base: str
    env: dict[str, str]
    demo_output: str
    password: str
    # For each step `setup_demo` said was done, how many steps the database held done just then.
    heard: list[tuple[str, int]]
    demo_errors: str  # what `setup_demo` wrote to stderr
    as_set_up: Path  # DATABASE and var/ as `setup_demo` left them; copy before changing anything


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return bool(response.status == 200)
    except OSError:
        return False


def steps_done(database: Path) -> int:
    with sqlite3.connect(database, timeout=60) as db:
        return int(db.execute("SELECT COUNT(*) FROM pipeline_steprun WHERE state = 'done'").fetchone()[0])


def setup_demo_as_it_speaks(
    env: Mapping[str, str], database: Path, log: Path, *args: str
) -> tuple[str, list[tuple[str, int]]]:
    """Run `setup_demo` through a pipe, as `make run` does, reading each line as it arrives. Returns
    the output and, for each step said to be done, how many steps the database held done just then."""
    heard: list[tuple[str, int]] = []
    lines: list[str] = []
    with log.open("w") as errors:
        command = [sys.executable, "manage.py", "setup_demo", *args]
        process = subprocess.Popen(
            command, cwd=REPO, env=dict(env), stdout=subprocess.PIPE, stderr=errors, text=True
        )
        watchdog = threading.Timer(DEMO_SECONDS, process.kill)  # bounded: a hung demo fails the test
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


def demo_env(root: Path, port: int) -> dict[str, str]:
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{root / DATABASE}",
        "STANCEWORK_VAR_DIR": str(root / "var"),
        "REDIS_URL": "",
        "LOG_LEVEL": "WARNING",
        "HOST": "127.0.0.1",
        "PORT": str(port),
    }
    env.pop("PUBLIC_URL", None)
    return env


def copy_database(source: Path, target: Path) -> None:
    """A whole copy of an SQLite database in WAL mode: what its -wal file holds too."""
    with sqlite3.connect(source) as reading, sqlite3.connect(target) as writing:
        reading.backup(writing)
    reading.close()
    writing.close()


def keep_as_set_up(root: Path) -> Path:
    kept = root / "as-set-up"
    kept.mkdir()
    copy_database(root / DATABASE, kept / DATABASE)
    shutil.copytree(root / "var", kept / "var")
    return kept


@pytest.fixture(scope="session")
def served_demo(tmp_path_factory: pytest.TempPathFactory, migrated_sqlite: Path) -> Iterator[ServedDemo]:
    root = tmp_path_factory.mktemp("make-run")
    port = free_port()
    env = demo_env(root, port)
    shutil.copy(migrated_sqlite, root / DATABASE)  # `make run`'s migrate (run once for the session)
    output, heard = setup_demo_as_it_speaks(env, root / DATABASE, root / "setup_demo.stderr")
    as_set_up = keep_as_set_up(root)
    password = (root / "var" / "staff_password").read_text().strip()
    processes = ProcessGroup(root, REPO)
    processes.start(
        "server",
        [sys.executable, "manage.py", "run_platform", "--host", "127.0.0.1", "--port", str(port)],
        env,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        processes.wait_until(lambda: answers(f"{base}/healthz"), "the platform answers", timeout=60)
        errors = (root / "setup_demo.stderr").read_text()
        yield ServedDemo(base, env, output, password, heard, errors, as_set_up)
    finally:
        processes.stop()
