"""Which process a crawl run is: its pid, when that process started, and its command line.

A pid alone is not an identity: once a crawl dies the kernel may give its pid to any other
process. A run therefore records its process's start time, and a process counts as the run's only
while pid, start time and command line all still match. No Django here.
"""

from __future__ import annotations

from dataclasses import dataclass

import psutil

# Start times are read back from /proc with a clock tick's resolution.
START_TOLERANCE_SECONDS = 1.0


@dataclass(frozen=True)
class CrawlProcess:
    pid: int
    started: float  # seconds since the epoch


def describe(pid: int) -> CrawlProcess | None:
    """The process now holding `pid`, or None when there is none."""
    try:
        return CrawlProcess(pid, psutil.Process(pid).create_time())
    except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
        return None


def is_crawl_of(pid: int, started: float | None, run_id: int) -> bool:
    """Whether `pid` is still the crawl process of run `run_id` that started at `started`."""
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
