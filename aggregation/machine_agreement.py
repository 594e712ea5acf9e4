"""Agreement with and without machine annotators: a machine is never counted as a person, so ρ, κ and
α are reported for people, and for people and machines together, side by side."""

from __future__ import annotations

import numpy as np

from aggregation.agreement import DatasetAgreement, dataset_agreement
from annotation.models import Job, ResponseOrigin
from annotation.task_types.registry import get_task_type
from annotation.work.records import long_format

PEOPLE, PEOPLE_AND_MACHINES = "people", "people and machines"


def _counts(job: Job, labels: list[str], with_machines: bool) -> np.ndarray:
    """(items × labels) answer counts of the job's counted responses."""
    column = {label: code for code, label in enumerate(labels)}
    rows = long_format(job, with_machines=with_machines)
    if not with_machines:  # not even the labels a machine gave alone within the job's bound
        rows = rows.exclude(origin=ResponseOrigin.MACHINE)
    items: dict[int, int] = {}
    pairs = [
        (items.setdefault(item, len(items)), column[label]) for item, _, label in rows if label in column
    ]
    counts = np.zeros((len(items), len(labels)), dtype=np.int64)
    if pairs:
        np.add.at(counts, tuple(np.array(pairs).T), 1)
    return counts


def agreement_by_origin(job: Job) -> dict[str, DatasetAgreement]:
    """The job's dataset agreement among people, and among people and machines."""
    labels = get_task_type(job.task_type).label_values
    return {
        PEOPLE: dataset_agreement(_counts(job, labels, with_machines=False)),
        PEOPLE_AND_MACHINES: dataset_agreement(_counts(job, labels, with_machines=True)),
    }
