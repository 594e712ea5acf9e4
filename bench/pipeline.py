"""The whole pipeline over the bundled pages with the simulated crowd (issue 8): what `make run` does.

A fresh SQLite database and var/ directory; prints the import time, each step's time, and the total.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.sqlite3"
        env = {
            **os.environ,
            "DATABASE_URL": f"sqlite:///{db}",
            "STANCEWORK_VAR_DIR": tmp,
            "REDIS_URL": "",
            "LOG_LEVEL": "WARNING",
        }
        manage = [sys.executable, str(REPO / "manage.py")]
        subprocess.run([*manage, "migrate", "-v0"], env=env, check=True, cwd=REPO)
        started = time.perf_counter()
        done = subprocess.run([*manage, "setup_demo"], env=env, cwd=REPO, capture_output=True, text=True)
        total = time.perf_counter() - started
        if done.returncode != 0:
            print(f"pipeline failed: {done.stderr[-500:]}")
            return
        with sqlite3.connect(db) as connection:
            rows = connection.execute(
                "SELECT name, state, started, finished FROM pipeline_steprun ORDER BY position"
            ).fetchall()
    steps = []
    for name, state, begun, ended in rows:
        seconds = (
            (datetime.fromisoformat(ended) - datetime.fromisoformat(begun)).total_seconds() if ended else 0
        )
        steps.append(f"{name}={seconds:.1f}s" + ("" if state == "done" else f"({state})"))
    pipeline = sum(float(s.split("=")[1].split("s")[0]) for s in steps)
    print(f"pipeline simulated-demo total_s={total:.1f} (import + pipeline) pipeline_s={pipeline:.1f}")
    print("pipeline steps " + " ".join(steps))
