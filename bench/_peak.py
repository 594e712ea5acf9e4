"""Run a manage.py command and print its peak memory on stderr at exit (`peak_rss_kb=N`):

    python -m bench._peak aggregate_job 1 --label-model dawid_skene

A child's own figure: `RUSAGE_CHILDREN` would also count the bench's earlier children (the seeding).
"""

from __future__ import annotations

import os
import resource
import sys

from django.core.management import execute_from_command_line

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    try:
        execute_from_command_line(["manage.py", *sys.argv[1:]])
    finally:
        print(f"peak_rss_kb={resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}", file=sys.stderr)
