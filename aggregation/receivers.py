"""Aggregation's subscriptions to what annotation announces."""

from __future__ import annotations

from typing import Any

from django.db.models.signals import post_delete
from django.dispatch import receiver

from aggregation.models import ItemOutcome
from aggregation.tasks import request_aggregation, request_next_round
from annotation.models import Job
from annotation.redundancy import adaptive_policy
from annotation.signals import job_completed


@receiver(job_completed, dispatch_uid="aggregation.aggregate_completed_job")
def aggregate_completed_job(sender: Any, job_id: int, **kwargs: Any) -> None:
    """A completed job is aggregated once its completion commits; a completed round of an adaptive job
    first gives its open items another round."""
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
