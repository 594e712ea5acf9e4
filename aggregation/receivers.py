"""Aggregation's subscriptions to what annotation announces."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from aggregation.tasks import request_aggregation
from annotation.signals import job_completed


@receiver(job_completed, dispatch_uid="aggregation.aggregate_completed_job")
def aggregate_completed_job(sender: Any, job_id: int, **kwargs: Any) -> None:
    """A completed job is aggregated once its completion commits."""
    request_aggregation(job_id)
