"""What the staff home page shows: first what needs a person now, then what happened lately.

Each section names the permission a person needs to see it (house style rule 18,
docs/design/house-style.md); a section they may not see is
left out, not shown empty. The home page reads every app, so it sits above them all (import-linter)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import AnonymousUser, PermissionsMixin
from django.db.models import Count

from aggregation.adjudication import adjudication_queue
from aggregation.models import AggregationRun, RunState
from annotation.ledger.models import LedgerEntry, RowState
from annotation.models import Job, JobState
from annotation.work.jobs import job_progress
from crawler.models import CrawlRun, RunStatus
from export.models import Release
from operations.models import Operation, OperationState
from pipeline.models import PipelineRun, StepRun, StepState

RECENT = 5
FAILED_SHOWN = 10
User = PermissionsMixin | AnonymousUser


@dataclass(frozen=True)
class Section:
    """One block of the home page: a title, the permission it needs, and its rows."""

    key: str
    title: str
    permission: str
    rows: list[Any] = field(default_factory=list)


def contested_jobs(user: User) -> list[dict[str, Any]]:
    """Jobs with items waiting for an expert, most waiting first."""
    waiting = adjudication_queue().order_by().values("job_id").annotate(n=Count("pk")).filter(n__gt=0)
    counts = {row["job_id"]: row["n"] for row in waiting}
    jobs = Job.objects.filter(pk__in=counts)
    return sorted(({"job": job, "waiting": counts[job.pk]} for job in jobs), key=lambda r: -r["waiting"])


def unclear_payments(user: User) -> list[LedgerEntry]:
    """Money calls whose outcome nobody knows yet: a person decides by reading the market."""
    return list(LedgerEntry.objects.filter(state=RowState.UNCLEAR).select_related("job")[:FAILED_SHOWN])


def failed_operations(user: User) -> list[dict[str, Any]]:
    """Background operations, pipeline steps and latest aggregations that failed, newest first (each
    kind only for those who may view it)."""
    rows: list[dict[str, Any]] = []
    if user.has_perm("operations.view_operation"):
        rows += [
            {"kind": "operation", "object": op, "when": op.finished_at or op.created, "reason": op.error}
            for op in Operation.objects.filter(state=OperationState.FAILED)[:FAILED_SHOWN]
        ]
    if user.has_perm("pipeline.view_pipelinerun"):
        steps = StepRun.objects.filter(state=StepState.FAILED).select_related("run")[:FAILED_SHOWN]
        rows += [
            {
                "kind": "pipeline step",
                "object": step,
                "when": step.finished or step.run.updated,
                "reason": step.message,
            }
            for step in steps
        ]
    if user.has_perm("crawler.view_crawlrun"):
        crawls = CrawlRun.objects.filter(status=RunStatus.FAILED).order_by("-created")[:FAILED_SHOWN]
        rows += [
            {"kind": "crawl", "object": run, "when": run.finished or run.created, "reason": run.message}
            for run in crawls
        ]
    if user.has_perm("aggregation.view_aggregationrun"):
        rows += [
            {"kind": "aggregation", "object": run, "when": run.created, "reason": run.error}
            for run in _latest_aggregations_failed()
        ]
    return sorted(rows, key=lambda row: row["when"], reverse=True)[:FAILED_SHOWN]


def _latest_aggregations_failed() -> list[AggregationRun]:
    """Each job's latest aggregation run, where that run failed (a later success settles it)."""
    failed = AggregationRun.objects.filter(state=RunState.FAILED).select_related("job").order_by("-created")
    latest: list[AggregationRun] = []
    for run in failed[: FAILED_SHOWN * 3]:
        later = AggregationRun.objects.filter(job_id=run.job_id, state=RunState.DONE, created__gt=run.created)
        if not later.exists() and all(seen.job_id != run.job_id for seen in latest):
            latest.append(run)
    return latest[:FAILED_SHOWN]


def running_crawls(user: User) -> list[CrawlRun]:
    return list(CrawlRun.objects.filter(status__in=RunStatus.active()).order_by("-created"))


def collecting_jobs(user: User) -> list[dict[str, Any]]:
    """Jobs handing out work (or paused), with their progress."""
    jobs = Job.objects.filter(state__in=[*JobState.open(), JobState.PAUSED]).order_by("-created")
    return [{"job": job, "progress": job_progress(job)} for job in jobs]


def recent_pipeline_runs(user: User) -> list[PipelineRun]:
    return list(PipelineRun.objects.prefetch_related("steps")[:RECENT])


def recent_jobs(user: User) -> list[Job]:
    return list(Job.objects.order_by("-created", "-pk")[: RECENT * 2])


def recent_crawls(user: User) -> list[CrawlRun]:
    return list(CrawlRun.objects.order_by("-created", "-pk")[:RECENT])


def recent_releases(user: User) -> list[Release]:
    return list(Release.objects.all()[:RECENT])


NEEDS_A_PERSON: list[tuple[str, str, str, Callable[[User], list[Any]]]] = [
    ("contested", "Contested items waiting for an expert", "aggregation.add_adjudication", contested_jobs),
    ("unclear", "Payments with an unclear outcome", "annotation.view_ledgerentry", unclear_payments),
    ("failed", "Failed operations", "", failed_operations),
    ("crawling", "Crawls running", "crawler.view_crawlrun", running_crawls),
    ("collecting", "Jobs collecting answers, or paused", "annotation.view_job", collecting_jobs),
]
RECENTLY: list[tuple[str, str, str, Callable[[User], list[Any]]]] = [
    ("pipeline_runs", "Recent pipeline runs", "pipeline.view_pipelinerun", recent_pipeline_runs),
    ("jobs", "Recent jobs", "annotation.view_job", recent_jobs),
    ("crawls", "Recent crawls", "crawler.view_crawlrun", recent_crawls),
    ("releases", "Recent releases", "export.view_release", recent_releases),
]


def sections_for(user: User, table: list[tuple[str, str, str, Callable[[User], list[Any]]]]) -> list[Section]:
    """The sections of `table` the user may see, with their rows read now."""
    return [
        Section(key, title, permission, rows(user))
        for key, title, permission, rows in table
        if not permission or user.has_perm(permission)
    ]
