"""Aggregation's subscriptions to what annotation announces."""

from __future__ import annotations

from typing import Any

from django.db import connection
from django.db.models.signals import post_delete, pre_delete
from django.dispatch import receiver

from aggregation.models import AggregationRun, ItemOutcome, RunState
from annotation.models import Item, Job
from annotation.redundancy import adaptive_policy
from annotation.signals import job_completed, label_decisions
from annotation.task_types.decisions import NO_MAJORITY_LABEL


@receiver(job_completed, dispatch_uid="aggregation.aggregate_completed_job")
def aggregate_completed_job(sender: Any, job_id: int, **kwargs: Any) -> None:
    """A completed job is aggregated once its completion commits; a completed round of an adaptive job
    first gives its open items another round."""
    # Here, not above: the tasks load the aggregation services (NumPy), and Django imports this module
    # whenever it starts.
    from aggregation.tasks import request_aggregation, request_next_round

    params = Job.objects.filter(pk=job_id).values_list("params", flat=True).first()
    if params is not None and adaptive_policy(params) is not None:
        request_next_round(job_id)
        return
    request_aggregation(job_id)


@receiver(post_delete, sender=Job, dispatch_uid="aggregation.delete_late_outcomes")
def delete_late_outcomes(sender: Any, instance: Job, **kwargs: Any) -> None:
    """The outcomes an aggregation of the job committed while the job was being deleted: the ORM's
    cascade gathered the job's outcomes before its DELETE of the job row waited for that aggregation's
    lock, and the database checks no outcome's key, so nothing else would refuse them."""
    ItemOutcome.objects.filter(job_id=instance.pk).delete()


@receiver(pre_delete, sender=Item, dispatch_uid="aggregation.wait_for_the_jobs_aggregation")
def wait_for_the_jobs_aggregation(sender: Any, instance: Item, origin: Any = None, **kwargs: Any) -> None:
    """An item deleted on its own (not with its job) waits for its job's aggregation, then takes the
    outcome that aggregation committed meanwhile: the ORM's cascade gathered the item's outcomes
    before, and the database checks no outcome's key. Holding the lock until the deletion commits, it
    also keeps a run from starting on the item: a run reads the job's items under the job's lock and
    writes an outcome for each (aggregation/storing.py). FOR KEY SHARE waits only for the job's
    FOR UPDATE (the aggregation's lock, or the job's deletion), not for other changes to its row."""
    with_its_job = isinstance(origin, Job) or getattr(origin, "model", None) is Job  # a job or a job query
    if with_its_job or connection.vendor != "postgresql":
        return  # the job's deletion takes its outcomes itself (delete_late_outcomes); SQLite: one writer
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT 1 FROM {Job._meta.db_table} WHERE id = %s FOR KEY SHARE", [instance.job_id])
    ItemOutcome.objects.filter(item_id=instance.pk).delete()


@receiver(label_decisions, dispatch_uid="aggregation.stored_label_decisions")
def stored_label_decisions(sender: Any, job: Job, items: Any, **kwargs: Any) -> dict[str, Any]:
    """The job's label model's decisions on `items` (a query of item ids), as its last aggregation
    stored them (the model's label on the rule's labels, whatever the rule wrote); {} before any.

    A worker's own answer is left out of the decision where that is cheap: majority vote's decision
    without the worker is the others' majority, which the live check computes from the answers
    themselves, so none is given for it. Dawid-Skene's and MACE's decisions are given as fitted with
    the worker's answer in (taking it out means fitting again), and its influence is bounded by what
    the model learnt of the worker: their answer moves an item's posterior by the log ratio of their
    confusion (Dawid-Skene) or trust (MACE) rows, close to nothing for a spammer. An adversary's
    answer, to Dawid-Skene, speaks against itself; to MACE, it weighs as little as their trust. So a
    worker below the bar cannot agree with themselves much; a good worker's answer helps them a
    little, which errs towards not stopping them, the safe side."""
    model = _last_label_model(job)
    if model is None or model == "majority_vote":
        return {}
    stored = (
        ItemOutcome.objects.filter(job=job, item_id__in=items)
        .exclude(model_label__in=("", NO_MAJORITY_LABEL))
        .values_list("item_id", "model_label")
    )
    return {"model": model, "labels": dict(stored)}


def _last_label_model(job: Job) -> str | None:
    """The label model of the job's last successful aggregation (the one its outcomes come from)."""
    runs = AggregationRun.objects.filter(job=job, state=RunState.DONE).order_by("-created", "-pk")
    return runs.values_list("label_model", flat=True).first()
