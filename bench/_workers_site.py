"""bench.workers' database side, run in the app's environment (REDIS_URL set: tasks go to the broker):

python -m bench._workers_site ledger N        # N bonus rows, each delivered twice, and sweeps
python -m bench._workers_site pipeline CLAIMS # the real corpus, and a simulated run queued
"""

from __future__ import annotations

import io
import json
import os
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import django

# The HIT, assignment and worker the ledger rows pay, as MTurk (its fake, in each worker) holds them.
MARKET_WORK = ("H", "A", "W")


def ledger(rows: int) -> dict[str, Any]:
    from django.utils import timezone

    from annotation.ledger import intents
    from annotation.ledger.tasks import execute_ledger_entry_task, sweep_ledger_task
    from annotation.models import Assignment, AssignmentState, Hit, Job, Worker

    hit_id, assignment_id, worker_id = MARKET_WORK
    job = Job.objects.create(task_type="stance", market="mturk", reward=Decimal("1.50"))
    hit = Hit.objects.create(
        job=job, position=0, assignments_wanted=3, reward=Decimal("1.50"), external_id=hit_id
    )
    worker = Worker.objects.create(market="mturk", external_id=worker_id)
    assignment = Assignment.objects.create(
        job=job,
        hit=hit,
        worker=worker,
        state=AssignmentState.APPROVED,
        external_id=assignment_id,
        accepted_at=timezone.now(),
    )
    # Recording an intent queues nothing (its caller does, once): here every row is queued twice, as
    # two messages side by side, as a broker redelivers a task whose ack was lost. Three workers
    # prefetch from one queue, so the two copies usually run at once, on two workers.
    ids = [intents.bonus_intent(assignment, Decimal("0.01"), "bench", f"row:{n}").pk for n in range(rows)]
    for number, pk in enumerate(ids):
        execute_ledger_entry_task.delay(pk)
        execute_ledger_entry_task.delay(pk)
        if number % (rows // 4 or 1) == 0:
            sweep_ledger_task.delay()  # the sweeper runs among the deliveries, as on its schedule
    return {"job": job.pk, "rows": len(ids)}


def pipeline(claims: int) -> dict[str, Any]:
    from django.conf import settings
    from django.core.management import call_command

    from corpus.models import Claim
    from pipeline import services
    from pipeline.demo import web_sentences_file
    from pipeline.tasks import run_pipeline_task

    call_command("import_perspectrum", str(settings.PERSPECTRUM_DIR), stdout=io.StringIO())
    cids = list(
        Claim.objects.filter(text_missing=False).order_by("cid").values_list("cid", flat=True)[:claims]
    )
    web = web_sentences_file(Path(settings.DATA_DIR) / "web.jsonl")
    params = {"claims": cids, "web_source_file": str(web or ""), "version": "bench-workers"}
    run = services.create_run("bench: several Celery workers, simulated crowd", params)
    run_pipeline_task.delay(run.pk)
    return {"run": run.pk, "claims": len(cids)}


def main(argv: list[str]) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    command, size = argv
    print(json.dumps(ledger(int(size)) if command == "ledger" else pipeline(int(size))))


if __name__ == "__main__":
    main(sys.argv[1:])
