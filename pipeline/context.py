"""What a pipeline step receives and returns; shared by the step modules (steps.py, review.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from annotation.models import Job
from pipeline.models import StepRun


class StepError(RuntimeError):
    """A step cannot go on (a failed crawl, a job that cannot be created, ...)."""


@dataclass
class Outcome:
    state: str
    message: str
    output: dict[str, Any] = field(default_factory=dict)


@dataclass
class Context:
    step: StepRun
    params: dict[str, Any]

    @property
    def claims(self) -> list[int]:
        return list(self.params.get("claims") or [])

    def job(self, key: str, create: Callable[[], Job | None]) -> Job | None:
        """The step's job under `key`, created once; None when there was nothing to annotate."""
        job_id = self.step.output.get("jobs", {}).get(key)
        if job_id is not None:
            return Job.objects.get(pk=job_id)
        if key in self.step.output.get("empty", []):
            return None
        job = create()
        if job is None:
            self.step.output.setdefault("empty", []).append(key)
        else:
            self.step.output.setdefault("jobs", {})[key] = job.pk
            self.step.jobs.add(job)
        self.step.save(update_fields=["output"])
        return job
