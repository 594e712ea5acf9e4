"""The fault rig's own processes: a throwaway redis-server it can restart (losing the queue) and a
Celery worker it can kill, freeze and thaw (rigs.fault_rig says why each)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
import uuid
from pathlib import Path
from typing import Any

import redis
from django.conf import settings

from config.celery import worker_command
from rigs.processes import free_port

WAIT = 45.0  # seconds: the bound on any wait in a scenario


class RigError(RuntimeError):
    """A piece of the rig did not start, or a scenario did not settle in time."""


def wait_for(check: Any, what: str, timeout: float = WAIT, every: float = 0.05) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise RigError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(every)


# -- Redis ---------------------------------------------------------------------------------------


class RedisServer:
    """A throwaway redis-server on a loopback port, without persistence: a restart loses the queue."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.workdir = workdir
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        command = [
            "redis-server",
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(self.workdir),
            "--loglevel",
            "warning",
        ]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(self._answers, f"redis-server on port {self.port}", timeout=10)

    def _answers(self) -> bool:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), 0.2) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
        return False

    def queued(self, queue: str = "celery") -> int:
        """Messages waiting in a queue (not those a worker has taken)."""
        client = redis.Redis.from_url(self.url)
        try:
            waiting = client.llen(queue)
            assert isinstance(waiting, int), "a synchronous client answers at once"
            return waiting
        finally:
            client.close()

    def stop(self) -> None:
        """Kill the server outright: whatever was queued is gone."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)
        self.process = None

    def restart(self) -> None:
        self.stop()
        self.start()


# -- the worker ----------------------------------------------------------------------------------


class WorkerProcess:
    """`celery -A config worker` in its own session, so SIGKILL reaches it and nothing it started."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.env = env
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        command = worker_command(
            "--pool",
            "solo",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "--loglevel",
            "INFO",
            "--hostname",
            f"faults-{uuid.uuid4().hex[:8]}@127.0.0.1",
        )
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                command, env=self.env, cwd=settings.BASE_DIR, stdout=out, stderr=out, start_new_session=True
            )

    def kill(self) -> None:
        """SIGKILL, as the kernel's OOM killer or a lost machine would: no shutdown, no acks."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)
        self.process = None

    def freeze(self) -> None:
        """SIGSTOP: the worker keeps its rows and its socket but does nothing (a paused VM, a long GC)."""
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGSTOP)

    def thaw(self) -> None:
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGCONT)

    def stop(self) -> None:
        """SIGTERM: a warm shutdown, which lets the task in hand finish first."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()
        self.process = None

    def tail(self, lines: int = 40) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
