"""Releases over the full PERSPECTRUM import, in a throwaway SQLite database and releases directory.

Figures: the seeded 60/15/25 split (time and how close it comes), building a release (files, manifest,
zip), verifying it, the diff of two releases; then a simulated-crowd stance job over 100 claims and a
release that carries its annotations, agreement and pseudonyms. Targets: build <= 5 s, verify <= 10 s.
"""

from __future__ import annotations

from bench._child import ChildError, run_child

CHILD = """
import time, django, os
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
from annotation.work.jobs import create_job, publish_job, sync_job
from corpus.models import Claim
from corpus.services import import_perspectrum
from export.claim_splits import assign_claim_splits
from export.services import build_release, diff_releases
from export.splits import SplitPlan
from export.verify import verify_release

def timed(call):
    started = time.perf_counter()
    result = call()
    return result, time.perf_counter() - started

import_perspectrum(os.environ["RELEASE"])
report, split_s = timed(lambda: assign_claim_splits(SplitPlan(seed=0)))
shares = " ".join(f"{k}={v:.4f}" for k, v in report["shares"].items())
leak = report["leakage"]
print(f"release split_s={split_s:.2f} {shares} max_share_error={report['max_share_error']} "
      f"topic_pairs_across_splits={leak['topic_sharing_pairs_across_splits']}/{leak['topic_sharing_pairs']}")
first, build_s = timed(lambda: build_release("1.0"))
problems, verify_s = timed(lambda: verify_release(first.path))
size = sum(entry["bytes"] for entry in first.files)
print(f"release build_s={build_s:.2f} verify_s={verify_s:.2f} problems={len(problems)} "
      f"files={len(first.files)} bytes={size} zip_bytes={first.zip_path.stat().st_size}")
cids = list(Claim.objects.filter(text_missing=False).order_by("cid").values_list("cid", flat=True)[:100])
def run_job():
    crowd = {"crowd": {"size": 20}}
    job = create_job("stance", {"claims": cids}, market="simulated", params=crowd)
    publish_job(job.pk)
    return sync_job(job.pk)
job, job_s = timed(run_job)
second, build2_s = timed(lambda: build_release("1.1", split_plan=SplitPlan(seed=1)))
changes, diff_s = timed(lambda: diff_releases(first, second))
agreement = second.manifest["jobs"][0]["agreement"]
print(f"release simulated_job_s={job_s:.2f} responses={second.manifest['jobs'][0]['responses']} "
      f"build_with_annotations_s={build2_s:.2f} fleiss_kappa={agreement.get('fleiss_kappa')} "
      f"diff_s={diff_s:.2f} split_moves={len(changes.split_moves)}")
"""


def main() -> None:
    try:
        lines = run_child(CHILD)
    except ChildError as error:
        print(f"release failed: {error}", flush=True)
        return
    for line in lines:
        if line.startswith("release "):
            print(line, "(targets: build_s<=5 verify_s<=10)" if "build_s=" in line else "", flush=True)
