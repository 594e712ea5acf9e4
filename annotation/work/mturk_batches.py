"""MTurk templates and batches: import a layout template with its batch CSV as a draft job, and write
the job's answers as MTurk's batch-results CSV. CSV is read and written with pandas.

Batch results have one row per assignment and item (MTurk's one row per assignment, as a template
job shows one CSV row per HIT): MTurk's HIT and assignment columns, `Input.<column>` for the row,
`Answer.<field>` for the answer, and `Stancework.Simulated`. `WorkerId` is the worker's keyed
pseudonym, never their id on a market.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd
from django.db import transaction

from annotation.models import Assignment, AssignmentState, Job, MTurkBatch, MTurkTemplate, Response
from annotation.task_types.base import TaskTypeError
from annotation.task_types.mturk_layout import LayoutError, answer_column_names, answer_columns, parse_layout
from annotation.task_types.mturk_template import batch_of
from annotation.work.job_errors import JobError
from annotation.work.jobs import create_job
from annotation.work.pseudonyms import PseudonymKeyError
from annotation.work.records import worker_pseudonym
from config.csv_files import write_frame
from config.whole_files import WriteError

MAX_ROWS = 100_000
MAX_TEMPLATE_BYTES = 1_000_000
HIT_COLUMNS = [
    "HITId",
    "HITTypeId",
    "Title",
    "Description",
    "Keywords",
    "Reward",
    "CreationTime",
    "MaxAssignments",
    "RequesterAnnotation",
    "AssignmentDurationInSeconds",
    "AutoApprovalDelayInSeconds",
    "Expiration",
    "NumberOfSimilarHITs",
    "LifetimeInSeconds",
]
ASSIGNMENT_COLUMNS = [
    "AssignmentId",
    "WorkerId",
    "AssignmentStatus",
    "AcceptTime",
    "SubmitTime",
    "AutoApprovalTime",
    "ApprovalTime",
    "RejectionTime",
    "RequesterFeedback",
    "WorkTimeInSeconds",
    "LifetimeApprovalRate",
    "Last30DaysApprovalRate",
    "Last7DaysApprovalRate",
]
TRAILING_COLUMNS = ["Approve", "Reject", "Stancework.Simulated"]
STATUS = {
    AssignmentState.SUBMITTED: "Submitted",
    AssignmentState.APPROVED: "Approved",
    AssignmentState.REJECTED: "Rejected",
}


class MTurkBatchError(ValueError):
    """A template or batch CSV that cannot be imported, or a job that is no MTurk template job."""


def read_batch_csv(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    """The batch's columns in order and its rows, every value as the text it was (no NaN, no numbers)."""
    options: dict[str, Any] = {"dtype": str, "keep_default_na": False, "encoding": "utf-8-sig"}
    try:
        # The header read as a row first: pandas would rename a repeated column rather than say so.
        columns = [str(c) for c in pd.read_csv(path, header=None, nrows=1, **options).iloc[0]]
        frame = pd.read_csv(path, **options)
    except (OSError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as error:
        raise MTurkBatchError(f"{path} is not a readable CSV: {error}") from error
    if any(not column.strip() for column in columns):
        raise MTurkBatchError(f"{path}: every column needs a name in the header row")
    if len(set(columns)) != len(columns):
        raise MTurkBatchError(f"{path}: column names repeat")
    frame.columns = pd.Index(columns)
    if frame.empty:
        raise MTurkBatchError(f"{path} has a header but no rows")
    if len(frame) > MAX_ROWS:
        raise MTurkBatchError(f"{path} has {len(frame)} rows; at most {MAX_ROWS} are imported at once")
    return columns, frame.to_dict(orient="records")


def read_template(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise MTurkBatchError(f"cannot read the template {path}: {error}") from error
    if len(raw) > MAX_TEMPLATE_BYTES:
        raise MTurkBatchError(f"the template {path} is over {MAX_TEMPLATE_BYTES} bytes")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise MTurkBatchError(f"the template {path} is not UTF-8: {error}") from error


def import_mturk_template(
    template_path: Path,
    batch_path: Path,
    name: str,
    *,
    trusted: bool = False,
    market: str = "inhouse",
    params: Mapping[str, Any] | None = None,
    created_by: Any = None,
) -> Job:
    """Store the template (or reuse the same one under `name`) and its batch; a draft job, one item a row."""
    source = read_template(template_path)
    columns, rows = read_batch_csv(batch_path)
    try:
        layout = parse_layout(source)
    except LayoutError as error:
        raise MTurkBatchError(f"the template {template_path}: {error}") from error
    missing = [variable for variable in layout.variables if variable not in columns]
    if missing:
        raise MTurkBatchError(
            f"the template reads ${{{missing[0]}}}, but the batch has no such column {missing}"
        )
    with transaction.atomic():
        template = _stored_template(name, source, trusted, created_by)
        batch = MTurkBatch.objects.create(
            template=template, source_name=batch_path.name, columns=columns, rows=rows
        )
        try:
            job = create_job(
                "mturk_template",
                {"mturk_batch": batch.pk},
                market=market,
                params=params,
                name=f"{name}: {batch_path.name}",
                created_by=created_by,
            )
        except (JobError, TaskTypeError) as error:
            raise MTurkBatchError(str(error)) from error
    return job


def _stored_template(name: str, source: str, trusted: bool, created_by: Any) -> MTurkTemplate:
    if not name.strip() or len(name) > 200:
        raise MTurkBatchError("a template needs a name of 1-200 characters")
    template, created = MTurkTemplate.objects.get_or_create(
        name=name, defaults={"source": source, "trusted": trusted, "created_by": created_by}
    )
    if not created and template.source != source:
        raise MTurkBatchError(f"a different template is already stored as {name!r}; choose another name")
    if not created and trusted and not template.trusted:
        template.trusted = True
        template.save(update_fields=["trusted"])
    return template


def batch_results(job: Job) -> pd.DataFrame:
    """The job's answers as MTurk's batch-results table: one row per assignment and item."""
    if job.task_type != "mturk_template":
        raise MTurkBatchError(f"job {job.pk} is a {job.task_type} job, not an MTurk template job")
    try:
        batch = batch_of(job)
    except TaskTypeError as error:
        raise MTurkBatchError(str(error)) from error
    fields = parse_layout(batch.template.source).fields
    inputs = [f"Input.{column}" for column in batch.columns]
    answers = [f"Answer.{column}" for column in answer_column_names(fields)]
    responses = (
        Response.objects.filter(job=job, assignment__state__in=AssignmentState.done())
        .select_related("item", "assignment", "assignment__hit", "assignment__worker")
        .order_by("assignment__hit__position", "assignment__accepted_at", "item_id")
    )
    rows = []
    for response in responses:
        if response.assignment is None:  # a machine's label: never part of a market's batch
            continue
        row = {**_hit_columns(job, response.assignment), **_assignment_columns(response.assignment)}
        row.update(
            {f"Input.{c}": str(response.item.payload.get("row", {}).get(c, "")) for c in batch.columns}
        )
        value = response.value if isinstance(response.value, dict) else {}
        for each in fields:
            row.update({f"Answer.{k}": v for k, v in answer_columns(each, value.get(each.name)).items()})
        row.update(
            {"Approve": "", "Reject": "", "Stancework.Simulated": "true" if response.simulated else "false"}
        )
        rows.append(row)
    return pd.DataFrame(rows, columns=HIT_COLUMNS + ASSIGNMENT_COLUMNS + inputs + answers + TRAILING_COLUMNS)


def export_mturk_batch(job_id: int, out: Path) -> int:
    """Write job `job_id`'s batch results to `out`; returns the rows written."""
    job = Job.objects.filter(pk=job_id).first()
    if job is None:
        raise MTurkBatchError(f"no job {job_id}")
    try:
        return write_frame(out, batch_results(job))
    except WriteError as error:
        raise MTurkBatchError(str(error)) from error
    except PseudonymKeyError as error:
        raise MTurkBatchError(f"cannot write {out}: {error}") from error


def _mturk_time(moment: datetime | None) -> str:
    """MTurk's own format, in UTC: `Wed Nov 25 21:01:35 UTC 2026`."""
    if moment is None:
        return ""
    return moment.astimezone(UTC).strftime("%a %b %d %H:%M:%S UTC %Y")


def _hit_columns(job: Job, assignment: Assignment) -> dict[str, str]:
    hit, params = assignment.hit, job.params
    return {
        "HITId": hit.external_id or f"sw-hit-{hit.pk}",
        "HITTypeId": f"sw-job-{job.pk}",
        "Title": str(params.get("title") or job.name),
        "Description": str(params.get("description") or ""),
        "Keywords": str(params.get("keywords") or ""),
        "Reward": f"${hit.reward}",
        "CreationTime": _mturk_time(hit.published_at or job.created),
        "MaxAssignments": str(hit.assignments_wanted),
        "RequesterAnnotation": f"stancework job {job.pk}",
        "AssignmentDurationInSeconds": str(params.get("assignment_seconds") or ""),
        "AutoApprovalDelayInSeconds": "",
        "Expiration": "",
        "NumberOfSimilarHITs": "",
        "LifetimeInSeconds": str(params.get("lifetime_seconds") or ""),
    }


def _assignment_columns(assignment: Assignment) -> dict[str, str]:
    reviewed = _mturk_time(assignment.reviewed_at)
    seconds = assignment.work_seconds
    if seconds is None and assignment.submitted_at is not None:
        seconds = (assignment.submitted_at - assignment.accepted_at).total_seconds()
    return {
        "AssignmentId": assignment.external_id or f"sw-assignment-{assignment.pk}",
        "WorkerId": worker_pseudonym(assignment.worker),
        "AssignmentStatus": STATUS.get(AssignmentState(assignment.state), str(assignment.state)),
        "AcceptTime": _mturk_time(assignment.accepted_at),
        "SubmitTime": _mturk_time(assignment.submitted_at),
        "AutoApprovalTime": "",
        "ApprovalTime": reviewed if assignment.state == AssignmentState.APPROVED else "",
        "RejectionTime": reviewed if assignment.state == AssignmentState.REJECTED else "",
        "RequesterFeedback": assignment.feedback,
        "WorkTimeInSeconds": "" if seconds is None else str(round(seconds)),
        "LifetimeApprovalRate": "",
        "Last30DaysApprovalRate": "",
        "Last7DaysApprovalRate": "",
    }
