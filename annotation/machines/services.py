"""Registering machine annotators and recording their labels as responses marked machine."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from annotation.machines.models import MACHINE_MARKET, MachineAnnotator, MachineBackend
from annotation.market_interface.registry import is_simulated
from annotation.models import Item, Job, Response, ResponseOrigin, Worker
from annotation.task_types.registry import get_task_type


class MachineError(ValueError):
    """A machine that does not fit the job, or a label outside its task type's set."""


@transaction.atomic
def register_annotator(
    name: str,
    task_type: str,
    backend: str,
    model_name: str,
    *,
    prompt_version: str = "",
    settings: Mapping[str, Any] | None = None,
) -> MachineAnnotator:
    """A new version of machine ``name`` (the first is 1), with the worker it labels as."""
    if backend not in MachineBackend.values:
        raise MachineError(f"unknown backend {backend!r}; known: {sorted(MachineBackend.values)}")
    get_task_type(task_type)  # an unknown task type is refused here, not when the machine first labels
    latest = MachineAnnotator.objects.select_for_update().filter(name=name).aggregate(Max("version"))
    version = (latest["version__max"] or 0) + 1
    worker = Worker.objects.create(market=MACHINE_MARKET, external_id=f"{name}@{version}")
    return MachineAnnotator.objects.create(
        name=name,
        version=version,
        task_type=task_type,
        backend=backend,
        model_name=model_name,
        prompt_version=prompt_version,
        settings=dict(settings or {}),
        worker=worker,
    )


def record_machine_labels(
    annotator: MachineAnnotator,
    job: Job,
    labels: Mapping[int, str],
    scores: Mapping[int, float] | None = None,
) -> int:
    """Store the machine's label of each item (item id → label) as a response marked machine, with no
    assignment, and its score (how sure it was, in [0, 1]) in the response's value. In a simulated
    crowd's job its labels are marked simulated too: they are routed against that crowd's decisions. A
    re-run adds only what is new: a label already recorded is kept. Returns how many were written."""
    if annotator.task_type != job.task_type:
        raise MachineError(f"{annotator} labels {annotator.task_type}, not this job's {job.task_type}")
    allowed = set(get_task_type(job.task_type).label_values)
    outside = sorted({label for label in labels.values() if label not in allowed})
    if outside:
        raise MachineError(f"labels {outside} are not among {job.task_type}'s {sorted(allowed)}")
    items = set(Item.objects.filter(job=job, pk__in=list(labels)).values_list("pk", flat=True))
    if len(items) != len(labels):
        raise MachineError(f"{len(labels) - len(items)} of the items are not this job's")
    now, simulated = timezone.now(), is_simulated(job.market)
    rows = [
        Response(
            job=job,
            item_id=item,
            worker=annotator.worker,
            label=label,
            origin=ResponseOrigin.MACHINE,
            value={"score": (scores or {}).get(item, 1.0)},
            simulated=simulated,
            created=now,
        )
        for item, label in labels.items()
    ]
    before = Response.objects.filter(job=job, worker=annotator.worker).count()
    Response.objects.bulk_create(rows, ignore_conflicts=True)
    return Response.objects.filter(job=job, worker=annotator.worker).count() - before
