"""Choosing a job's machine routing once the crowd has decided its calibration items (`manage.py
route_job`): the threshold with its guarantee, the machine's calibration (ECE) and the forecast, kept
in the job's ``machine_routing`` parameter for its page and its release.

The calibration sample is drawn from the job's items in order, seeded by the job's id, so it is the
same sample every time it is asked for. Items the machine did not label (it was trained on them, or
gave no answer) are never accepted from it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from decimal import Decimal

import numpy as np

from aggregation.machines.calibrating import calibrate
from aggregation.machines.forecasting import Forecast, forecast
from aggregation.machines.routing import Routing, choose_threshold
from aggregation.models import ItemOutcome
from annotation.machines.asking import job_spend
from annotation.machines.models import MachineAnnotator
from annotation.machines.plans import MachinePlan, calibration_ids, machine_plan
from annotation.machines.services import MachineError
from annotation.models import Job, Response, ResponseOrigin
from annotation.work.cost_checks import estimate_cost_locally


@dataclass(frozen=True)
class JobRouting:
    plan: MachinePlan
    annotator: MachineAnnotator
    routing: Routing
    ece: float
    forecast: Forecast
    currency: str

    def describe(self) -> str:
        chosen = self.routing
        if chosen.threshold is None:
            verdict = f"nothing is accepted from the machine: {chosen.reason}"
        else:
            verdict = f"machine labels accepted at a score of at least {chosen.threshold:.4f}"
        return f"{self.annotator}: {verdict}; ECE {self.ece:.4f}; {self.forecast.describe(self.currency)}"


def calibration_items(job: Job, plan: MachinePlan) -> list[int]:
    """The ids of the job's calibration sample, the items the crowd labels first."""
    items = list(job.items.filter(is_gold=False).order_by("pk").values_list("pk", flat=True))
    return calibration_ids(items, plan, seed=job.pk)


def _machine_rows(job: Job, annotator: MachineAnnotator) -> dict[int, tuple[str, float]]:
    rows = Response.objects.filter(job=job, worker=annotator.worker, origin=ResponseOrigin.MACHINE)
    return {
        item: (label, float((value or {}).get("score", 1.0)))
        for item, label, value in rows.values_list("item_id", "label", "value")
    }


def crowd_cost_per_item(job: Job) -> Decimal:
    """What the crowd's work on one item costs at most: the worst case of the job's HITs (every
    assignment at its reward, the market's fee), as create_job forecast it, over the items they hold
    (gold is part of each one's price). Before routing they hold only the calibration sample."""
    held = job.items.filter(is_gold=False, hits__job=job).distinct().count()
    return estimate_cost_locally(job).worst_case / held if held else Decimal(0)


UNLABELLED = -1.0  # below every score: an item the machine gave no label is never accepted from it


def latest_annotator(name: str, task_type: str) -> MachineAnnotator:
    found = MachineAnnotator.objects.filter(name=name, task_type=task_type).order_by("-version").first()
    if found is None:
        raise MachineError(f"no machine annotator {name!r} labels {task_type}")
    return found


def _outcomes(job: Job, sample: list[int]) -> dict[int, str]:
    decided = dict(
        ItemOutcome.objects.filter(job=job, item_id__in=sample)
        .exclude(fine_label="")
        .values_list("item_id", "fine_label")
    )
    if len(decided) < len(sample):
        raise MachineError(
            f"{len(sample) - len(decided)} of the {len(sample)} calibration items are not decided "
            "by the crowd yet"
        )
    return decided


def route_job(job: Job) -> JobRouting:
    """Choose the threshold on the crowd's decisions of the calibration sample, and keep it on the job."""
    plan = machine_plan(job.params)
    if plan is None:
        raise MachineError(f"job {job.pk} has no machine parameter")
    annotator = latest_annotator(plan.annotator, job.task_type)
    items = list(job.items.filter(is_gold=False).order_by("pk").values_list("pk", flat=True))
    sample_ids = calibration_items(job, plan)
    decided, machine = _outcomes(job, sample_ids), _machine_rows(job, annotator)
    scores = np.array([machine.get(pk, ("", UNLABELLED))[1] for pk in items])
    sample = np.isin(items, sample_ids)
    agrees = np.array(
        [machine.get(pk, ("", 0.0))[0] == decided[pk] for pk in np.array(items)[sample].tolist()]
    )
    routing = choose_threshold(scores, sample, agrees, plan.target_error, plan.delta)
    ece = calibrate(scores[sample], agrees).ece
    machine_per_item = job_spend(job) / len(items)
    cost = forecast(routing, len(items), machine_per_item, crowd_cost_per_item(job))
    job.params["machine_routing"] = {
        "annotator": f"{annotator.name} v{annotator.version}",
        "threshold": routing.threshold,
        "reason": routing.reason,
        "ece": ece,
        "share_accepted": routing.share_accepted,
        "calibration_items": routing.calibration_items,
        "errors": routing.errors,
        "forecast": {k: str(v) for k, v in asdict(cost).items()},
    }
    job.save(update_fields=["params"])
    return JobRouting(plan, annotator, routing, ece, cost, job.currency)
