"""Run a manage.py command and print, on stderr at exit, its peak memory (`peak_rss_kb=N`), its own CPU
time (`cpu_s=S`), its wall time without the interpreter's start-up (`command_s=S`) and, when
PostgreSQL runs on this machine, its database backend's CPU time (`server_cpu_s=S`):

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


def server_cpu_seconds() -> float | None:
    """The CPU time of this process's PostgreSQL backend so far, read from /proc (None if elsewhere)."""
    if connection.vendor != "postgresql" or connection.connection is None:
        return None
    stat = Path(f"/proc/{connection.connection.info.backend_pid}/stat")
    if not stat.exists():
        return None
    fields = stat.read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def main(argv: list[str]) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    started = time.perf_counter()
    try:
        call_command(*argv)  # not execute_from_command_line, which closes the connection at the end
    finally:
        usage, took = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter() - started
        cpu = usage.ru_utime + usage.ru_stime
        print(f"peak_rss_kb={usage.ru_maxrss} cpu_s={cpu:.2f} command_s={took:.2f}", file=sys.stderr)
        if (server := server_cpu_seconds()) is not None:
            print(f"server_cpu_s={server:.2f}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
