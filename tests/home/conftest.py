"""`make run` in a test: the demo built on a SQLite file of its own, then the platform served on a
free port, as `make run HOST=… PORT=…` does. Shared by the click-only walk and the README's curl block."""

from __future__ import annotations

import os
import sys
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bench.rigs.processes import ProcessGroup, free_port

REPO = Path(__file__).resolve().parents[2]
DEMO_SECONDS = 900


@dataclass(frozen=True)
class ServedDemo:
    base: str
    env: dict[str, str]
    demo_output: str
    password: str


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return bool(response.status == 200)
    except OSError:
        return False


@pytest.fixture(scope="session")
def served_demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServedDemo]:
    root = tmp_path_factory.mktemp("make-run")
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{root / 'demo.sqlite3'}",
        "STANCEWORK_VAR_DIR": str(root / "var"),
        "REDIS_URL": "",
        "LOG_LEVEL": "WARNING",
        "HOST": "127.0.0.1",
        "PORT": str(port),
    }
    env.pop("PUBLIC_URL", None)
    processes = ProcessGroup(root, REPO)
    manage = [sys.executable, "manage.py"]
    processes.run("migrate", [*manage, "migrate", "--noinput", "-v0"], env, timeout=300)
    output = processes.run("setup_demo", [*manage, "setup_demo"], env, timeout=DEMO_SECONDS)
    password = (root / "var" / "staff_password").read_text().strip()
    processes.start("server", [*manage, "run_platform", "--host", "127.0.0.1", "--port", str(port)], env)
    base = f"http://127.0.0.1:{port}"
    try:
        processes.wait_until(lambda: answers(f"{base}/healthz"), "the platform answers", timeout=60)
        yield ServedDemo(base=base, env=env, demo_output=output, password=password)
    finally:
        processes.stop()
