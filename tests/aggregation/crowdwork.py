"""A simulated crowd working a job in turns: each modelled worker takes one HIT at a time, round-robin.

The simulated provider's sync lets each worker take HITs until none is left for them, so the first
few workers (the spammers, by ``make_crowd``'s order) do the whole job; a crowd's mix only shows when
workers interleave, as people at a market do. Work still goes through annotation's own queue
(``ServiceQueue``), so completion, the distinct-worker rule and the aggregation hook all run.
"""

from __future__ import annotations

import random

from annotation.models import Job, Worker
from annotation.services import ServiceQueue
from annotation.simulation import CrowdParams, WorkerModel, make_crowd
from annotation.task_types import get_task_type


def work_in_turns(job: Job, params: CrowdParams) -> int:
    """Have ``params.size`` modelled workers complete ``job``; returns the assignments submitted."""
    task_type = get_task_type(job.task_type)
    queue = ServiceQueue(job)
    rng = random.Random(f"{params.seed}-{job.pk}")
    active: list[tuple[Worker, WorkerModel]] = []
    for model in make_crowd(params, task_type.label_values):
        worker = queue.worker(model.name, simulated=True, model=model.as_dict())
        if queue.qualify(worker, {question.key: question.answer for question in task_type.quiz}):
            active.append((worker, model))
    done = 0
    while active:
        rng.shuffle(active)
        still = []
        for worker, model in active:
            assignment = queue.next_assignment(worker)
            if assignment is None:
                continue
            items = [
                hit_item.item for hit_item in assignment.hit.hit_items.select_related("item", "item__job")
            ]
            queue.submit(assignment, {item.pk: task_type.simulate(item, model, rng) for item in items})
            still.append((worker, model))
            done += 1
        active = still
    return done
