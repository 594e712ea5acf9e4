"""What a job with a machine beside the crowd can cost, forecast when it is created, before anything is
spent: its threshold is chosen only once people have decided the calibration sample, so until then
the machine is trusted with none of the items and the crowd may have to label them all. A forecast
over the job's budget is refused then, before the machine's first call or the crowd's first HIT."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_UP, Decimal

from annotation.machines.asking import worst_case_spend
from annotation.machines.models import MachineAnnotator
from annotation.machines.plans import MachinePlan, machine_plan
from annotation.models import Job
from annotation.work.cost_checks import estimate_cost_locally
from annotation.work.job_errors import BudgetError

CENT = Decimal("0.01")


@dataclass(frozen=True)
class ForecastBeforeCalibration:
    plan: MachinePlan
    job: int
    items: int
    sample: Decimal  # the crowd's worst case on the calibration sample
    crowd: Decimal  # the crowd's worst case on every item (the machine trusted with none)
    machine: Decimal  # the machine's worst case on every item (a local one costs nothing)
    annotator: MachineAnnotator | None  # None: no machine of that name labels the task type yet

    @property
    def total(self) -> Decimal:
        return self.crowd + self.machine

    def describe(self, currency: str) -> str:
        machine = (
            f"the machine's at most {self.machine} {currency}"
            if self.annotator is not None
            else f"the machine's not counted ({self.plan.annotator} is not trained or registered yet)"
        )
        return (
            f"{self.plan.describe()}.\nForecast before calibration: people label "
            f"{self.plan.calibration_items} of the {self.items} items first (at most {self.sample} "
            f"{currency}); if the machine is trusted with none of the rest, the crowd's cost is at most "
            f"{self.crowd} {currency} and {machine}, each step checked against the budget before it is "
            f"published. `manage.py label_job {self.job}`, then, once the sample is decided, "
            f"`manage.py route_job {self.job}` forecasts from the sample."
        )

    def refusal(self, budget: Decimal | None, currency: str) -> str:
        """Why the job may not go on, or "": its forecast exceeds its budget."""
        if budget is None or self.total <= budget:
            return ""
        return (
            f"the forecast exceeds the job's budget of {budget} {currency}: the crowd at most {self.crowd} "
            f"{currency} (the machine is trusted with no item until people have decided the "
            f"{self.plan.calibration_items} calibration items) and the machine at most {self.machine} "
            f"{currency}; raise the budget, or ask about fewer items"
        )


def forecast_before_calibration(job: Job) -> ForecastBeforeCalibration | None:
    """The forecast of a job with a machine beside the crowd (None without one)."""
    plan = machine_plan(job.params)
    if plan is None:
        return None
    items = job.items.filter(is_gold=False).count()
    sample = estimate_cost_locally(job).worst_case
    annotator = (
        MachineAnnotator.objects.filter(name=plan.annotator, task_type=job.task_type)
        .order_by("-version")
        .first()
    )
    return ForecastBeforeCalibration(
        plan,
        job.pk,
        items,
        sample,
        (sample * items / plan.calibration_items).quantize(CENT, rounding=ROUND_UP),
        worst_case_spend(annotator, job).quantize(CENT, rounding=ROUND_UP) if annotator else Decimal("0.00"),
        annotator,
    )


def check_machine_forecast(job: Job) -> None:
    """Refuse (BudgetError) a job whose forecast exceeds its budget."""
    forecast = forecast_before_calibration(job)
    refused = forecast.refusal(job.budget, job.currency) if forecast else ""
    if refused:
        raise BudgetError(refused)
