"""What a job's page says of its machine beside the crowd: the plan, the routing once chosen (threshold,
share accepted, ECE, forecast, or why nothing is accepted) and agreement without and with machines."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from aggregation.agreement import DatasetAgreement
from aggregation.machine_agreement import PEOPLE, PEOPLE_AND_MACHINES, agreement_by_origin
from annotation.machines.plans import MachinePlan, MachinePlanError, machine_plan
from annotation.models import Job, Response, ResponseOrigin


@dataclass(frozen=True)
class MachinePanel:
    plan: MachinePlan
    routing: dict[str, Any] | None  # the job's machine_routing, None until route_job has run
    people: DatasetAgreement | None
    people_and_machines: DatasetAgreement | None


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
        plan, job.params.get("machine_routing"), agreement.get(PEOPLE), agreement.get(PEOPLE_AND_MACHINES)
    )
