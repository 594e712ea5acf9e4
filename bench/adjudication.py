"""Aggregation over the whole PERSPECTRUM release: a simulated stance job (30 workers, 20% spammers,
3 per pair, working in turns) aggregated and written back, on a throwaway SQLite database in a child
process. Prints the aggregation time, κ/α, the aggregate's accuracy against the average worker's, and
how many spammers were flagged."""

from __future__ import annotations

from bench._child import ChildError, run_child

CHILD = """
import os, time, django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
import numpy as np
from corpus.services import import_perspectrum
from annotation.work.jobs import create_job, publish_job, sync_job
from annotation.models import Response
from annotation.task_types.builtin_rules import STANCE_5_TO_3
from aggregation.models import WorkerQuality
from aggregation.services import aggregate_job
import_perspectrum(os.environ["RELEASE"])
crowd = {"size": 30, "spammer_share": 0.2, "seed": 5}
job = create_job("stance", {}, market="simulated", params={"crowd": crowd})
publish_job(job.pk)
t = time.perf_counter(); sync_job(job.pk)
crowd = time.perf_counter() - t
t = time.perf_counter(); report = aggregate_job(job.pk); first = time.perf_counter() - t
t = time.perf_counter(); aggregate_job(job.pk); again = time.perf_counter() - t
truth = {pk: STANCE_5_TO_3[k] for pk, k in job.items.values_list("pk", "known_answer")}
right = {}
for w, i, label in Response.objects.filter(job=job).values_list("worker_id", "item_id", "label"):
    right.setdefault(w, []).append(STANCE_5_TO_3[label] == truth[i])
worker = np.mean([np.mean(v) for v in right.values()])
written = dict(job.items.values_list("pk", "cluster__stance_3"))
status = dict(job.items.values_list("pk", "cluster__status"))
agg = np.mean([written[pk] == truth[pk] for pk in truth])
kept = [pk for pk in truth if status[pk] == "kept"]
kept_acc = np.mean([written[pk] == truth[pk] for pk in kept])
qs = list(WorkerQuality.objects.filter(job=job).select_related("worker"))
spam = [q for q in qs if q.worker.model.get("spammer")]
print(f"items={report.items} responses={len(Response.objects.filter(job=job))} crowd_s={crowd:.1f} "
      f"aggregate_s={first:.2f} reaggregate_s={again:.2f} kappa={report.fleiss_kappa:.3f} "
      f"alpha={report.krippendorff_alpha:.3f} kept={report.kept} rejected={report.rejected} "
      f"no_majority={report.no_majority} avg_worker_acc={worker:.3f} aggregate_acc={agg:.3f} "
      f"kept_acc={kept_acc:.3f} spammers_flagged={sum(q.flagged for q in spam)}/{len(spam)} "
      f"others_flagged={sum(q.flagged for q in qs if q not in spam)}/{len(qs) - len(spam)}")
"""


def main() -> None:
    try:
        figure = run_child(CHILD)[-1]
    except ChildError as error:
        figure = f"failed: {error}"
    print(f"adjudication: simulated stance job over the release aggregated: {figure}", flush=True)
