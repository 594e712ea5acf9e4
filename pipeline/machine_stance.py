"""The stance step's machine beside the crowd (the run's `stance_machine` parameter): once the crowd has
decided the job's calibration sample, a local machine is trained on the corpus's decided stances of
other claims, labels the job, and its threshold is chosen; the items it is not trusted with go to the
crowd (aggregation.machine_jobs).

The machine is trained for the job and never on it: pairs sharing a claim or perspective text with
the job's items are left out of its training (a crawled debate is often one the imported release
holds word for word), and it labels no pair it was trained on.
"""

from __future__ import annotations

from typing import Any

from aggregation.machine_jobs import dispatch, label_with_machine
from aggregation.machine_training import corpus_stance_examples, train_on
from aggregation.services import aggregate_job
from annotation.machines.models import MachineAnnotator
from annotation.machines.plans import FIELDS
from annotation.models import Job
from pipeline.context import StepError


def machine_plan_of(settings: dict[str, Any]) -> dict[str, Any] | None:
    """The job's `machine` parameter from the run's `stance_machine` (None without one)."""
    return {name: settings[name] for name in sorted(FIELDS) if name in settings} if settings else None


def job_texts(job: Job) -> set[str]:
    """Every claim and perspective text of the job's items."""
    return {
        str(payload.get(field, ""))
        for payload in job.items.values_list("payload", flat=True)
        for field in ("claim", "perspective")
    }


def trained_for(job: Job, settings: dict[str, Any]) -> MachineAnnotator:
    """The machine trained for this job: the one already trained (a step run again), else a new version
    trained now on the decided stances of the claims of ``train_splits``. It is not cross-validated:
    the job's calibration sample measures it on the job's own items, which is what the routing needs."""
    name = str(settings["annotator"])
    found = MachineAnnotator.objects.filter(name=name, task_type="stance", settings__for_job=job.pk).last()
    if found is not None:
        return found
    splits = [str(split) for split in settings.get("train_splits") or ["train"]]
    decided = corpus_stance_examples(splits, leave_out=job_texts(job))
    source = {"splits": splits, "for_job": job.pk}
    return train_on(name, "stance", decided, source, cross_validate=False).annotator


def route_stance_job(job: Job, settings: dict[str, Any]) -> str:
    """Train (once), label, choose the threshold and send the rest to the crowd; what was done."""
    machine = trained_for(job, settings)
    labelled = label_with_machine(job)
    routed = dispatch(job)
    if routed.refused:
        raise StepError(f"job {job.pk}: the items the machine is not trusted with: {routed.refused}")
    if not routed.to_crowd:
        aggregate_job(job.pk)  # the machine's accepted labels decide their items; no crowd round follows
    figures = machine.settings
    trained = (
        f"machine {machine.name} v{machine.version} trained on {figures['examples']} decided stances of "
        f"the {', '.join(figures['splits'])} split's claims (measured on the calibration sample, not "
        "cross-validated)"
    )
    return f"{trained}; {labelled}; {routed.describe().replace(chr(10), '; ')}"
