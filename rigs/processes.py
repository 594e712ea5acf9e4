"""Long-running processes for a test: started in their own process groups, logged to files, all stopped."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

STOP_SECONDS = 10


def free_port() -> int:
    """A loopback port nobody listens on right now (the kernel picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class ProcessGroup:
    """Processes of one test, each with a log file under log_dir; `stop` ends every one of them."""

    def __init__(self, log_dir: Path, cwd: Path) -> None:
        self.log_dir = log_dir
        self.cwd = cwd
        self.running: dict[str, subprocess.Popen[bytes]] = {}

    def start(self, name: str, argv: Sequence[str], env: Mapping[str, str]) -> None:
        log = (self.log_dir / f"{name}.log").open("wb")
        # A session of its own: stopping the group also stops gunicorn's and Celery's children.
        self.running[name] = subprocess.Popen(
            list(argv),
            cwd=self.cwd,
            env=dict(env),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()

    def run(self, name: str, argv: Sequence[str], env: Mapping[str, str], timeout: float) -> str:
        """Run one command to completion; its output, or an AssertionError with it."""
        done = subprocess.run(
            list(argv),
            cwd=self.cwd,
            env=dict(env),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        assert done.returncode == 0, f"{name} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
        return done.stdout

    def log_tail(self, name: str, lines: int = 30) -> str:
        path = self.log_dir / f"{name}.log"
        text = path.read_text(errors="replace") if path.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def logs(self) -> str:
        return "\n".join(f"--- {name} ---\n{self.log_tail(name)}" for name in self.running)

    def assert_alive(self) -> None:
        for name, process in self.running.items():
            assert process.poll() is None, f"{name} exited with {process.returncode}:\n{self.log_tail(name)}"

    def wait_until(self, ready: Callable[[], bool], what: str, timeout: float) -> None:
        """Poll `ready` until it holds; fail early when a process dies, and with every log at the deadline."""
        deadline = time.monotonic() + timeout
        while not ready():
            self.assert_alive()
            if time.monotonic() > deadline:
                raise AssertionError(f"{what}: not within {timeout:.0f} s\n{self.logs()}")
            time.sleep(0.2)

    def stop(self) -> None:
        for process in reversed(self.running.values()):
            self._signal(process, signal.SIGTERM)
        for process in self.running.values():
            try:
                process.wait(STOP_SECONDS)
            except subprocess.TimeoutExpired:
                self._signal(process, signal.SIGKILL)
                process.wait(STOP_SECONDS)

    @staticmethod
    def _signal(process: subprocess.Popen[bytes], number: int) -> None:
        with contextlib.suppress(ProcessLookupError):  # the group is already gone
            os.killpg(process.pid, number)
