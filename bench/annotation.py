"""A simulated crowd completing a stance job over the whole PERSPECTRUM release, through the work.

Every claim–perspective pair of the release (each cluster member: ~11.8k) × 3 workers, on a
throwaway SQLite database in a child process.
"""

from __future__ import annotations

from bench._child import ChildError, run_child

CHILD = """
import os, time, django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
from corpus.services import import_perspectrum
from annotation.work.jobs import create_job, job_progress, publish_job, sync_job
from annotation.work.records import long_format
import_perspectrum(os.environ["RELEASE"])
t = time.perf_counter()
params = {"members": "all", "crowd": {"size": 30}}
job = create_job("stance", {}, market="simulated", params=params)
created = time.perf_counter() - t
t = time.perf_counter(); publish_job(job.pk); published = time.perf_counter() - t
t = time.perf_counter(); job = sync_job(job.pk); synced = time.perf_counter() - t
progress = job_progress(job)
t = time.perf_counter(); rows = len(list(long_format(job))); read = time.perf_counter() - t
print(f"state={job.state} items={job.items.count()} hits={progress.hits} responses={progress.responses} "
      f"create_s={created:.2f} publish_s={published:.2f} crowd_s={synced:.2f} "
      f"responses_per_s={progress.responses / synced:.0f} long_format_s={read:.2f} rows={rows}")
"""


def main() -> None:
    try:
        figure = run_child(CHILD)[-1]
    except ChildError as error:
        figure = f"failed: {error}"
    print(f"annotation simulated stance job over the release: {figure}", flush=True)
