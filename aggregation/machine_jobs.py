"""A job with a machine beside the crowd, from start to end.

1. `create_job` gives HITs only to the calibration sample (annotation.work.jobs): people label it first.
2. `manage.py label_job JOB` has the job's machine label every item it can (`label_with_machine`).
3. Once the crowd has decided the sample, `manage.py route_job JOB` (`dispatch`) chooses the threshold
   (aggregation.machine_routing); the items above it are the machine's alone, and its labels stand as
   their answers (annotation.work.records.machine_accepted); every other item gets HITs with the job's
   redundancy and goes to the crowd. When no threshold meets the bound, they all go to the crowd.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from aggregation.adaptive_rounds import claim_hits, give_back_hits, publish_pending
from aggregation.machine_routing import JobRouting, latest_annotator, route_job
from aggregation.machine_training import label_job
from annotation.machines.asking import label_job_by_chat
from annotation.machines.models import MachineBackend
from annotation.machines.plans import machine_plan
from annotation.machines.services import MachineError
from annotation.market_interface.registry import get_market
from annotation.models import HitItem, Job, Response
from annotation.work.cost_checks import check_cost
from annotation.work.job_errors import BudgetError
from annotation.work.records import machine_accepted
from config.wording import count


def label_with_machine(job: Job, cap: Decimal | None = None) -> str:
    """Have the job's machine (its plan's annotator, latest version) label the job; what it did."""
    plan = machine_plan(job.params)
    if plan is None:
        raise MachineError(f"job {job.pk} has no machine parameter")
    annotator = latest_annotator(plan.annotator, job.task_type)
    if annotator.backend == MachineBackend.LOCAL:
        written, seen, _ = label_job(annotator, job)
        return f"{annotator}: {count(written, 'label')} written; {seen} items seen in training left to people"
    spend_cap = cap if cap is not None else job.budget
    if spend_cap is None:
        raise MachineError(f"job {job.pk} has no budget: give the machine's spend cap (--cap)")
    run = label_job_by_chat(annotator, job, spend_cap)
    said = f"{annotator}: {count(run.asked, 'call')}, {run.cached} from the cache, {run.unclear} unclear"
    return said + (f"; stopped: {run.stopped}" if run.stopped else "")


@dataclass(frozen=True)
class Dispatched:
    routing: JobRouting
    accepted: int  # items the machine labels alone
    to_crowd: int  # items sent to people after the calibration sample
    hits: int  # HITs published for them
    refused: str = ""  # why they were not published (the budget cap)

    def describe(self) -> str:
        said = f"{self.routing.describe()}\n{count(self.accepted, 'item')} accepted from the machine; "
        said += f"{count(self.to_crowd, 'item')} to the crowd"
        return said + (
            f": not published, {self.refused}" if self.refused else f" in {count(self.hits, 'HIT')}"
        )


def dispatch(job: Job) -> Dispatched:
    """Choose the routing on the decided calibration sample, then send the items the machine is not
    trusted with to the crowd with the job's redundancy. Safe to call again: an item asked once is not
    asked again."""
    routing = route_job(job)
    waiting = job.items.filter(is_gold=False).exclude(
        pk__in=HitItem.objects.filter(hit__job=job).values("item_id")
    )
    accepted = set(
        Response.objects.filter(job=job, item__in=waiting)
        .filter(machine_accepted(job))
        .values_list("item_id", flat=True)
    )
    rest = sorted(set(waiting.values_list("pk", flat=True)) - accepted)
    if not rest:
        return Dispatched(routing, len(accepted), 0, 0)
    if not claim_hits(job, rest, assignments=job.workers_per_item):
        raise MachineError(f"job {job.pk} is still collecting its calibration sample; route it once complete")
    try:
        check_cost(job, get_market(job.market))
    except BudgetError as error:
        give_back_hits(job)
        return Dispatched(routing, len(accepted), len(rest), 0, refused=str(error))
    return Dispatched(routing, len(accepted), len(rest), publish_pending(job))
