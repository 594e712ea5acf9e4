"""Run a manage.py command and print, on stderr at exit, its peak memory (`peak_rss_kb=N`), its own CPU
time (`cpu_s=S`), its wall time without the interpreter's start-up (`command_s=S`) and, when
PostgreSQL runs on this machine, its database backends' CPU time (`server_cpu_s=S`: its own and the
others it opened, as the aggregation's read does):

    python -m bench._peak aggregate_job 1 --label-model dawid_skene

A child's own figures: `RUSAGE_CHILDREN` would also count the bench's earlier children (the seeding).
CPU seconds do not grow with other processes sharing the cores, as wall seconds do.
"""

from __future__ import annotations

import os
import resource
import sys
import time
from pathlib import Path

import django
from django.core.management import call_command
from django.db import connection


def server_cpu_seconds(ended_before: float = 0.0) -> float | None:
    """The CPU time of this process's PostgreSQL backend so far, and of the backends that ended since
    ``ended_before`` was read (the connections an aggregation's read opens of its own, and any other
    client's: run it on a quiet server), from /proc (None if elsewhere)."""
    if (times := _backend_times()) is None:
        return None
    own, ended = times
    return own + ended - ended_before


def _backend_times() -> tuple[float, float] | None:
    """This backend's CPU seconds, and those of the server's ended backends (its postmaster's children
    waited for, all told)."""
    if connection.vendor != "postgresql" or connection.connection is None:
        return None
    backend = Path(f"/proc/{connection.connection.info.backend_pid}/stat")
    if not backend.exists():
        return None
    fields = _stat(backend)
    postmaster = _stat(Path(f"/proc/{fields[1]}/stat"))
    ticks = os.sysconf("SC_CLK_TCK")
    # utime + stime, and the postmaster's cutime + cstime
    return (int(fields[11]) + int(fields[12])) / ticks, (int(postmaster[13]) + int(postmaster[14])) / ticks


def _stat(path: Path) -> list[str]:
    """The fields of /proc/PID/stat after the command's name: state, ppid, …"""
    return path.read_text().rsplit(")", 1)[1].split()


def main(argv: list[str]) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    connection.ensure_connection()
    ended_before = times[1] if (times := _backend_times()) is not None else 0.0
    started = time.perf_counter()
    try:
        call_command(*argv)  # not execute_from_command_line, which closes the connection at the end
    finally:
        usage, took = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter() - started
        cpu = usage.ru_utime + usage.ru_stime
        print(f"peak_rss_kb={usage.ru_maxrss} cpu_s={cpu:.2f} command_s={took:.2f}", file=sys.stderr)
        if (server := server_cpu_seconds(ended_before)) is not None:
            print(f"server_cpu_s={server:.2f}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
