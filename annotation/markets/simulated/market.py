"""A simulated crowd for tests, demos and benchmarks. Every response it gives is marked simulated.

Syncing a job lets each modelled worker take the qualification quiz, then the workers take turns
(in a seeded random order each round) asking the work queue for one assignment at a time until
none is left, so the work spreads over the whole crowd as it does in a real market.
Job parameters `crowd_size`, `accuracy_low`, `accuracy_high`, `spammer_share` and `seed` shape the
crowd (defaults in `annotation.simulation.CrowdParams`).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

from annotation.market_interface.base import Listing, Market, SyncReport, WorkQueue
from annotation.models import Hit, Job
from annotation.simulation import CrowdParams, make_crowd
from annotation.task_types import get_task_type


class SimulatedMarket(Market):
    name = "simulated"
    crowd = "simulated crowd"
    simulated = True

    def publish(self, job: Job, hits: Sequence[Hit], more: int = 0) -> Iterator[Listing]:
        for hit in hits:
            yield Listing((hit.pk,), external_id=f"sim-{hit.pk}")

    def sync(self, job: Job, queue: WorkQueue) -> SyncReport:
        task_type = get_task_type(job.task_type)
        crowd_params = job.params.get("crowd", {})
        params = CrowdParams.from_mapping({"seed": job.params.get("seed", 0), **crowd_params})
        crowd = make_crowd(params, task_type.label_values or ["x"])
        # Seeded by the job's own settings, not its database id: the same job simulated on any database
        # (a fresh demo, a test session on PostgreSQL whose ids never rewind) gets the same answers.
        rng = random.Random(f"{params.seed}-{job.task_type}")
        # Modelled workers read the instructions: they answer the worked examples right.
        answers = {q.key: q.answer for q in task_type.quiz}
        active = []
        for model in crowd:
            worker = queue.worker(model.name, simulated=True, model=model.as_dict())
            if queue.qualify(worker, answers):
                active.append((model, worker))
        done = 0
        while active:
            rng.shuffle(active)
            still_working = []
            for model, worker in active:
                assignment = queue.next_assignment(worker)
                if assignment is None:
                    continue
                items = queue.items(assignment)
                queue.submit(assignment, {item.pk: task_type.simulate(item, model, rng) for item in items})
                done += 1
                still_working.append((model, worker))
            active = still_working
        return SyncReport(notes=[f"{len(crowd)} simulated workers submitted {done} assignments"])
