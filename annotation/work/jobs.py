"""Job lifecycle: create (choose items, bundle into HITs), publish (once the worst case passes
annotation/work/cost_checks.py), sync, pause, cancel, progress."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.db.models import Count, Q, Sum
from django.utils import timezone

from annotation.ledger.listings import publish_hits
from annotation.machines.plans import MachinePlanError, calibration_ids, machine_plan
from annotation.market_interface.base import (
    Control,
    MarketCallError,
    booking_currency,
)
from annotation.market_interface.errors import MarketError
from annotation.market_interface.registry import control, get_market
from annotation.models import (
    AssignmentState,
    Hit,
    Item,
    Job,
    JobState,
)
from annotation.planning import amounts
from annotation.quality.gold_schedule import GoldPolicyError, QualityPolicy
from annotation.redundancy import AdaptiveError, AdaptivePolicy, adaptive_policy
from annotation.task_types import get_task_type
from annotation.task_types.base import ItemSpec, TaskType, gold_filters
from annotation.work import job_rows, market_reports
from annotation.work.blocklists import ensure_job_blocklist
from annotation.work.cost_checks import check_cost
from annotation.work.job_errors import JobError, JobStateError, NoItemsError
from annotation.work.job_rows import BATCH
from annotation.work.service_queue import ServiceQueue
from annotation.work.settling import settle_job
from annotation.work.withdrawals import cancel_offers, withdraw_unwanted
from config.wording import listing
from operations.queueing import registered_task

# Agreement (ρ, κ, α, the label models) compares answers: it needs two of them on an item.
# The job's Celery tasks (annotation/work/tasks.py) call back into this module, so it names them.
PUBLISH_JOB_TASK = "annotation.publish_job"
SYNC_JOB_TASK = "annotation.sync_job"
MIN_WORKERS_TO_AGREE = 2


@dataclass(frozen=True)
class Progress:
    hits: int
    assignments_wanted: int
    assignments_done: int
    responses: int

    @property
    def fraction(self) -> float:
        return self.assignments_done / self.assignments_wanted if self.assignments_wanted else 0.0


def check_workers_per_item(task_type: str, params: Mapping[str, Any] | None = None) -> None:
    """Refuse one worker per item for a task type whose answers are decided by agreement: its
    aggregation would fail on every item ("a single rater"). Callers offer an explicit way past it
    for a job that is not meant to be aggregated (an expert pass, answers checked against known ones)."""
    definition = get_task_type(task_type)
    workers = int(definition.params(params)["workers_per_item"])
    if definition.aggregation is not None and workers < MIN_WORKERS_TO_AGREE:
        raise JobError(
            f"{task_type} answers are decided by agreement among workers, which needs at least "
            f"{MIN_WORKERS_TO_AGREE} workers per item; {workers} would leave every item with a single "
            "answer and aggregation would fail. Ask for more workers, or allow a single worker explicitly "
            "(create_job --allow-single-worker) for a job you will not aggregate."
        )


def create_job(
    task_type: str,
    filters: Mapping[str, Any] | None = None,
    *,
    market: str = "inhouse",
    params: Mapping[str, Any] | None = None,
    budget: Decimal | None = None,
    name: str = "",
    created_by: Any = None,
) -> Job:
    """Create a draft job: choose its items (and gold), bundle them into HITs, fence off authors."""
    definition = get_task_type(task_type)
    merged, adaptive = _job_params(definition, params, market)
    merged, budget = amounts.check_job_money(merged, budget)
    filters = dict(filters or {})
    specs = list(definition.select_items(filters, merged))
    if not specs:
        raise NoItemsError(f"the filters ({listing(filters)}) choose no items for {task_type}")
    gold = _select_gold(definition, filters, merged, specs)
    with transaction.atomic():
        job = Job.objects.create(
            name=name or f"{definition.name} over {len(specs)} items",
            task_type=task_type,
            market=market,
            params=merged,
            filters=filters,
            # Adaptive: the first round asks min_workers per item; later rounds only the open items.
            workers_per_item=adaptive.min_workers if adaptive else int(merged["workers_per_item"]),
            reward=Decimal(str(merged["reward"])),
            budget=budget,
            currency=merged["currency"],
            created_by=created_by,
        )
        items = job_rows.store_items(job, specs, is_gold=False)
        gold_items = job_rows.store_items(job, gold, is_gold=True)
        job_rows.store_hits(job, _crowd_first(job, items, merged), gold_items, merged)
        job_rows.fence_authors(specs + gold, {item.key: item for item in items + gold_items})
    return job


def check_new_job(task_type: str, params: Mapping[str, Any] | None, market: str, budget: Any) -> None:
    """What `create_job` checks before it reads any item: the parameters, the market and the money."""
    merged, _ = _job_params(get_task_type(task_type), params, market)
    amounts.check_job_money(merged, budget)


def _job_params(
    definition: TaskType, params: Mapping[str, Any] | None, market_name: str
) -> tuple[dict[str, Any], AdaptivePolicy | None]:
    """The task type's defaults with `params` over them and the market's currency; the adaptive policy."""
    merged = definition.params(params)
    try:  # the redundancy, machine and quality policies are checked now, not when they are used
        adaptive = adaptive_policy(merged)
        machine_plan(merged)
        QualityPolicy.from_params(merged)
    except (AdaptiveError, MachinePlanError, GoldPolicyError) as error:
        raise JobError(str(error)) from None
    market = get_market(market_name)  # fail now, not at publishing, on an unknown market
    try:
        merged["currency"] = booking_currency(market, merged)
    except MarketCallError as error:
        raise JobError(str(error)) from error
    return merged, adaptive


def _select_gold(
    definition: TaskType, filters: Mapping[str, Any], params: Mapping[str, Any], specs: list[ItemSpec]
) -> list[ItemSpec]:
    """The gold items the `gold` filter chooses, minus the regular items; none unless gold_per_hit > 0
    or the gold schedule is adaptive (it adds gold to each worker's assignments, not to the HITs)."""
    adaptive = QualityPolicy.from_params(params).adaptive
    if int(params["gold_per_hit"]) <= 0 and not adaptive:
        return []
    chosen = gold_filters(filters)
    if chosen is None:
        needs = "gold_schedule: adaptive" if adaptive else "gold_per_hit > 0"
        raise JobError(f"{needs} needs a `gold` filter choosing the gold items")
    regular_keys = {spec.key for spec in specs}
    return [spec for spec in definition.select_gold(chosen, params) if spec.key not in regular_keys]


def _crowd_first(job: Job, items: list[Item], params: Mapping[str, Any]) -> list[Item]:
    """The items people are asked about first: all of them, or with a machine beside the crowd only
    its calibration sample; the rest wait for the machine's threshold (aggregation.machine_jobs)."""
    plan = machine_plan(params)
    if plan is None:
        return items
    try:
        chosen = set(calibration_ids(sorted(item.pk for item in items), plan, seed=job.pk))
    except MachinePlanError as error:
        raise JobError(str(error)) from None
    return [item for item in items if item.pk in chosen]


def publish_job(job_id: int) -> Job:
    """Advertise a draft job's HITs through its market. Safe to call twice: a published job is left be.

    No transaction is open while the market is called: the ledger commits each listing's row before
    its call, and a caller racing this one finds the same rows, so no HIT is created twice.
    """
    job = Job.objects.get(pk=job_id)
    if job.state != JobState.DRAFT:
        return job
    market = get_market(job.market)
    try:
        market.check(job)
    except MarketError as error:
        raise JobError(f"job {job.pk} cannot be published: {error}") from error
    check_cost(job, market)
    job = ensure_job_blocklist(job)  # its HITs (studies) exclude the workers stopped in it from the start
    pending = list(job.hits.filter(external_id="").order_by("position"))
    try:
        published = {entry.hit_pk: entry for entry in publish_hits(job, pending)}
    except MarketCallError:
        if not _cancelled(job_id):
            raise
        published = {}  # the ledger refused the rest: the job was cancelled meanwhile
    if _cancelled(job_id):
        # Cancelled while its listings were being made: what was made is stopped, and said on the job.
        withdraw_unwanted(job)
        return Job.objects.get(pk=job_id)
    with transaction.atomic():
        job = Job.objects.select_for_update().get(pk=job_id)
        if job.state != JobState.DRAFT:
            return job
        now = timezone.now()
        for hit in pending:
            if hit.pk in published:
                hit.external_id, hit.published_at = published[hit.pk].external_id, now
        Hit.objects.bulk_update(pending, ["external_id", "published_at"], batch_size=BATCH)
        job.state, job.published_at = JobState.PUBLISHED, now
        job.save(update_fields=["state", "published_at", "updated"])
    return job


def _cancelled(job_id: int) -> bool:
    return Job.objects.filter(pk=job_id, state=JobState.CANCELLED).exists()


def sync_job(job_id: int) -> Job:
    """Bring a job up to date with its market, then settle its state. Safe to call any number of times."""
    job = Job.objects.get(pk=job_id)
    market = get_market(job.market)
    # A paused job is still read from a market that reports work (submissions keep arriving there);
    # a crowd that works when synced (the simulated one) is left alone while the job is paused.
    readable = [*JobState.open(), JobState.PAUSED] if market.capabilities.confirms_work else JobState.open()
    if job.state not in readable:
        return job
    report = market.sync(job, ServiceQueue(job))
    for start in range(0, len(report.assignments), BATCH):
        market_reports.take_reports(job, report.assignments[start : start + BATCH])
    market_reports.take_market_status(job.pk, report)
    return settle_job(job.pk)


def job_progress(job: Job) -> Progress:
    wanted = job.hits.aggregate(n=Count("pk"), wanted=Sum("assignments_wanted"))
    done = job.assignments.aggregate(
        done=Count("pk", filter=Q(state__in=AssignmentState.done(), confirmed=True)),
    )
    return Progress(
        hits=wanted["n"] or 0,
        assignments_wanted=wanted["wanted"] or 0,
        assignments_done=done["done"] or 0,
        responses=job.responses.count(),
    )


def pause_job(job_id: int) -> Job:
    """Stop handing out work, at the market and then here; accepted assignments may still be submitted.

    The job follows the market: it is paused here only once the market has confirmed the pause
    (outside any transaction: pausing pays nobody). A market that refuses or cannot be reached leaves
    the job as it was, and says why.
    """
    job = Job.objects.get(pk=job_id)
    if job.state == JobState.PAUSED:
        return job
    if job.state not in JobState.open():
        raise JobStateError(f"cannot move job {job.pk} from {job.state} to {JobState.PAUSED}")
    control(job.market, Control.PAUSE, job)
    return _move(job_id, JobState.open(), JobState.PAUSED)


def resume_job(job_id: int) -> Job:
    """Let the market recruit again, then hand out work here. The market is asked first: a job whose
    market cannot recruit (Prolific's study AWAITING REVIEW: every place taken) stays paused, and
    `JobStateError` says why; nothing was sent to the market."""
    job = Job.objects.get(pk=job_id)
    if job.state != JobState.PAUSED:
        raise JobStateError(f"cannot resume job {job.pk}: it is {job.state}, not paused")
    held_back = control(job.market, Control.RESUME, job)
    if held_back:
        raise JobStateError(f"job {job.pk} stays paused: {held_back}")
    job = _move(job_id, [JobState.PAUSED], JobState.COLLECTING)
    return settle_job(job.pk)


def cancel_job(job_id: int) -> Job:
    """Cancel a job that is not finished: expire its HITs at the market, cancel the offers not yet
    made, and stop any study or HIT made meanwhile (a publish in flight), saying so on the job."""
    job = _move(job_id, [JobState.DRAFT, JobState.PAUSED, *JobState.open()], JobState.CANCELLED)
    expire_hits(job)
    cancel_offers(job)
    withdraw_unwanted(job)
    return Job.objects.get(pk=job_id)


def expire_hits(job: Job) -> int:
    """Stop the market offering the job's HITs (outside any transaction: expiring pays nobody)."""
    told: set[str] = set()
    for hit in job.hits.filter(expired=False).exclude(external_id="").order_by("position"):
        # A Prolific study carries every HIT of the job: stop it once.
        if hit.external_id not in told:
            control(job.market, Control.EXPIRE, hit)
            told.add(hit.external_id)
    return job.hits.filter(expired=False).update(expired=True)


def _move(job_id: int, allowed: list[str], target: str) -> Job:
    with transaction.atomic():
        job = Job.objects.select_for_update().get(pk=job_id)
        if job.state == target:
            return job
        if job.state not in allowed:
            raise JobStateError(f"cannot move job {job.pk} from {job.state} to {target}")
        job.state = target
        job.save(update_fields=["state", "updated"])
    return job


def request_publish(job: Job) -> None:
    """Publish in the background once the current transaction commits."""
    registered_task(PUBLISH_JOB_TASK).delay_on_commit(job.pk)  # type: ignore[attr-defined]  # Celery 5.4+


def request_sync(job: Job) -> None:
    registered_task(SYNC_JOB_TASK).delay_on_commit(job.pk)  # type: ignore[attr-defined]  # Celery 5.4+
