"""Which process a crawl run is: its pid namespace, its pid, when it started, and its command line.

Liveness and Stop go through the run's row (heartbeat, stop request); this module only lets a
process that shares the crawl's pid namespace notice at once that the crawl is gone, instead of
waiting out the heartbeat limit (a crawl killed and run again by hand, on one machine).

A pid means something only inside its pid namespace on its kernel: containers have their own. So a
run records where its pid lives (`pid_namespace()`: the kernel's boot id and the namespace's inode)
and its pid is looked at only by a process in that same namespace. Nor is a pid alone an identity:
once a crawl dies the kernel may give its pid to any other process. So a process counts as the
run's only while pid, start time and command line all still match. No Django here.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

# Start times are read back from /proc with a clock tick's resolution.
START_TOLERANCE_SECONDS = 1.0


@dataclass(frozen=True)
class CrawlProcess:
    pid: int
    started: float  # seconds since the epoch


@cache
def pid_namespace() -> str:
    """Where this process's pids mean something: this kernel boot and this pid namespace ("" when
    unknown, and then no pid is ever compared)."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
        namespace = os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return ""
    return f"{boot}:{namespace}"


def describe(pid: int) -> CrawlProcess | None:
    """The process now holding `pid`, or None when there is none."""
    import psutil  # here and below: the crawl services import this module, and the admin them

    try:
        return CrawlProcess(pid, psutil.Process(pid).create_time())
    except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
        return None


def run_identity(pid: int) -> dict[str, Any]:
    """Who crawls a run, as this process sees it, in the run's fields: pid, start time, pid namespace
    and host name."""
    described = describe(pid)
    return {
        "pid": pid,
        "pid_started": described.started if described else None,
        "pid_namespace": pid_namespace(),
        "host": socket.gethostname()[:255],
    }


def is_crawl_of(pid: int, started: float | None, run_id: int) -> bool:
    """Whether `pid` is still the crawl process of run `run_id` that started at `started`."""
    import psutil

    try:
        process = psutil.Process(pid)
        if process.status() == psutil.STATUS_ZOMBIE:
            return False
        if started is not None and abs(process.create_time() - started) > START_TOLERANCE_SECONDS:
            return False
        command = process.cmdline()
    except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
        return False
    # `manage.py crawl <site> --run <id>` (a launched run) or `manage.py crawl <site>` (one started
    # by hand, which records its own run on start).
    return "crawl" in command and (str(run_id) in command or "--run" not in command)
