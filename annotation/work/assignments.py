"""The worker's side: identity rows, whether a worker may work, and handing out assignments and their
items. The quiz is annotation/work/quiz.py, saving a submission annotation/work/submitting.py."""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from annotation.market_interface.registry import get_market
from annotation.models import (
    Assignment,
    AssignmentState,
    Hit,
    HitItem,
    Item,
    Job,
    JobState,
    Qualification,
    Worker,
    WorkerItem,
    WorkerItemReason,
)
from annotation.quality import services as quality
from annotation.task_types import get_task_type
from annotation.work import rows
from annotation.work.quiz import qualification
from annotation.work.settling import settle_job

# How many open HITs to try, in order, before telling a worker there is nothing for them.
CANDIDATE_HITS = 50


class NoWorkError(RuntimeError):
    """There is no work for this worker in this job; the message says why, for the worker to read."""


class NotQualifiedError(NoWorkError):
    """The worker has not passed (or has failed) the task type's qualification quiz."""


class AnswerError(ValueError):
    """A submission that does not answer exactly the assignment's items."""


class IdentityConflictError(NoWorkError):
    """The ids a visitor brings name an assignment that is bound to somebody, or to other ids."""


class AssignmentStateError(RuntimeError):
    """A submission for an assignment that can no longer take one (returned or expired)."""


def get_worker(
    market: str, external_id: str, *, simulated: bool = False, model: Any = None, user: Any = None
) -> Worker:
    worker, _ = Worker.objects.get_or_create(
        market=market,
        external_id=external_id,
        defaults={"simulated": simulated, "model": dict(model or {}), "user": user},
    )
    return worker


def new_worker(market: str, external_id: str, *, user: Any = None) -> Worker | None:
    """The worker's row created, for a caller that has just found none (no second read); None when a
    parallel request created it first (the constraint refuses a second row)."""
    try:
        with transaction.atomic():
            return Worker.objects.create(market=market, external_id=external_id, user=user)
    except IntegrityError:
        return None


def check_can_work(
    job: Job,
    worker: Worker,
    *,
    fresh: bool = False,
    found: Qualification | None | rows.Unread = "unread",
) -> None:
    """Raise NoWorkError with a reason the worker can read, or return when they may work.

    `fresh`: the caller read both rows in this very request (a page), so they are not read again;
    `found`: the worker's qualification for the job's task type, when read with them (None: none)."""
    if not fresh:
        worker.refresh_from_db(fields=["blocked"])
    if worker.blocked:
        raise NoWorkError("Your account can no longer take work here.")
    if not fresh:
        # Read the state afresh: a crowd loop may hold the job from before a pause.
        job.refresh_from_db(fields=["state"])
    if job.state not in JobState.open():
        raise NoWorkError("This job is not taking work at the moment.")
    if quality.policy_of(job).stop_workers and (stop := quality.stop_in_force(job, worker)) is not None:
        raise NoWorkError(quality.stop_message(stop))
    if not get_task_type(job.task_type).quiz:
        return  # nothing to qualify on (an imported MTurk template)
    if found == "unread":
        found = qualification(worker, job.task_type)
    if found is None:
        raise NotQualifiedError("Please take the qualification quiz first.")
    if not found.passed:
        raise NotQualifiedError(
            f"You did not pass the qualification quiz for {get_task_type(job.task_type).name} "
            f"({found.score:.0%} right), so we cannot offer you this work. Thank you for your time."
        )


def next_assignment(
    job: Job,
    worker: Worker,
    *,
    hit: Hit | None = None,
    external_id: str = "",
    fresh: bool = False,
    found: Qualification | None | rows.Unread = "unread",
) -> Assignment:
    """The worker's open assignment in the job, or a new one on a HIT with none of the items they saw.

    The database decides: an assignment holds a row per item in `WorkerItem` (unique per item and
    worker), a worker holds at most one open assignment per job, a market's assignment id names one
    assignment, bound to its worker on first sight, and a HIT's slots are counted under a row lock.
    `fresh`: the job and the worker were read in this request, `found` their qualification with them
    (see `check_can_work`).
    """
    bound, held = _bound_and_open(job, worker, external_id)
    if bound is not None and bound.worker_id != worker.pk:
        raise IdentityConflictError("This assignment belongs to somebody else.")
    if bound is not None:
        return bound  # the worker reloaded the page, or came back
    check_can_work(job, worker, fresh=fresh, found=found)
    open_one = _checked_open(held, hit, external_id)
    if open_one is not None:
        return open_one
    confirmed = not get_market(job.market).capabilities.confirms_work
    for pk in _open_hits(job, worker, hit, CANDIDATE_HITS):
        try:
            assignment = _take(job, worker, pk, external_id, confirmed=confirmed)
        except _AlreadyOpenError:
            break  # a parallel request of this worker won: theirs is the answer, below
        if assignment is not None:
            if job.state == JobState.PUBLISHED:  # a start moves nothing else (collecting on the first)
                settle_job(job.pk)
            return assignment
    open_one = _open_assignment(job, worker, hit, external_id)
    if open_one is not None:
        return open_one
    raise NoWorkError("There is no more work for you in this job. Thank you!")


def _open_hits(job: Job, worker: Worker, hit: Hit | None, limit: int) -> list[int]:
    """The ids of the job's HITs (only `hit`, when given) with a free slot and none of the items the
    worker has seen, in order; at most `limit`.

    Written out: the ORM spent more CPU building and compiling this query (an exclusion by subquery and
    a filtered count) on every start than the start's other queries together, and several times what
    running it costs. The HITs the worker has seen an item of are read once (a hashed subplan), looked up
    by the worker's own items (HITs of other jobs among them match no HIT of this one), an array the
    planner can only probe the index with. Joined to the job's items instead, it walked every item of
    the job on each start (an index probe per item), or every HIT's items, whenever the tables had no
    statistics yet: a new database, a job just created, autovacuum off. The HITs are walked in order
    only until `limit` have a free slot."""
    holding, params = _holding_sql("a")
    seen = f"SELECT wi.item_id FROM {WorkerItem._meta.db_table} wi WHERE wi.worker_id = %(worker)s"
    # ANY(ARRAY(…)) is PostgreSQL's; SQLite (the embedded default) probes its index for IN as it is.
    among_seen = f"= ANY(ARRAY({seen}))" if connection.vendor == "postgresql" else f"IN ({seen})"
    sql = (
        f"SELECT h.id FROM {Hit._meta.db_table} h WHERE h.job_id = %(job)s AND h.expired = %(no)s"
        + (" AND h.id = %(hit)s" if hit is not None else "")
        + f" AND h.id NOT IN (SELECT hi.hit_id FROM {HitItem._meta.db_table} hi"
        f" WHERE hi.item_id {among_seen})"
        f" AND (SELECT COUNT(*) FROM {Assignment._meta.db_table} a WHERE a.hit_id = h.id AND {holding})"
        " < h.assignments_wanted ORDER BY h.position LIMIT %(limit)s"
    )
    params.update(job=job.pk, no=False, hit=hit.pk if hit else None, worker=worker.pk, limit=limit)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [pk for (pk,) in cursor.fetchall()]


def has_work_left(job: Job, worker: Worker) -> bool:
    """Whether asking for the next HIT would give the worker one (so a page offers "Next HIT" only then)."""
    try:
        check_can_work(job, worker)
    except NoWorkError:
        return False
    return _holds_open(job, worker) or bool(_open_hits(job, worker, None, limit=1))


def _holds_open(job: Job, worker: Worker) -> bool:
    """Whether the worker holds an open assignment in the job. Written out: the ORM took more CPU to
    build this read than it takes to run."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT 1 FROM {Assignment._meta.db_table} WHERE job_id = %s AND worker_id = %s AND state = %s"
            " LIMIT 1",
            [job.pk, worker.pk, AssignmentState.ACCEPTED],
        )
        return cursor.fetchone() is not None


def _bound_and_open(
    job: Job, worker: Worker, external_id: str
) -> tuple[Assignment | None, Assignment | None]:
    """In one query: the job's assignment the market's id names, and the worker's open one."""
    # Unordered: at most two rows, picked below. Written out (rows.select): the ORM took more CPU to
    # build this read than it takes to run.
    matches: list[dict[str, Any]] = [
        {"job_id": job.pk, "worker_id": worker.pk, "state": AssignmentState.ACCEPTED}
    ]
    if external_id:
        matches.append({"job_id": job.pk, "external_id": external_id})
    found = rows.select(Assignment, *matches, limit=3)
    bound = next((a for a in found if external_id and a.external_id == external_id), None)
    open_one = next(
        (a for a in found if a.worker_id == worker.pk and a.state == AssignmentState.ACCEPTED), None
    )
    return bound, open_one


def _open_assignment(job: Job, worker: Worker, hit: Hit | None, external_id: str) -> Assignment | None:
    open_one = job.assignments.filter(worker=worker, state=AssignmentState.ACCEPTED).order_by("pk").first()
    return _checked_open(open_one, hit, external_id)


def _checked_open(open_one: Assignment | None, hit: Hit | None, external_id: str) -> Assignment | None:
    """The worker's open assignment, refused when it is not the HIT or the market id they came for."""
    if open_one is None:
        return None
    if hit is not None and open_one.hit_id != hit.pk:
        raise IdentityConflictError("Finish or return the HIT you already hold in this job first.")
    if external_id and open_one.external_id != external_id:
        # Never re-labelled: the ids in a URL are claims, and this assignment is bound to its own.
        raise IdentityConflictError("You already hold this work under another assignment.")
    return open_one


def _holding_sql(alias: str) -> tuple[str, dict[str, int | str | None]]:
    """Assignments (rows named `alias`) that hold a HIT's slot: open ones, and finished work unless the
    market disowns it (market work submitted but not confirmed holds no slot, so made-up ids cannot
    fill a HIT). SQL, and its named parameters."""
    holding = AssignmentState.holding()
    states = ", ".join(f"%(holding{n})s" for n in range(len(holding)))
    params: dict[str, int | str | None] = {f"holding{n}": state for n, state in enumerate(holding)}
    params["open"] = AssignmentState.ACCEPTED
    return f"({alias}.state = %(open)s OR ({alias}.confirmed AND {alias}.state IN ({states})))", params


class _AlreadyOpenError(Exception):
    """The worker took an assignment in a parallel request: no other HIT is to be tried."""


def _take(job: Job, worker: Worker, hit_pk: int, external_id: str, *, confirmed: bool) -> Assignment | None:
    """A new assignment of the worker on the HIT, when it has a free slot; None when it has none, is gone,
    or another request gave the worker the HIT or one of its items first. Each lock is taken by a statement
    of its own, so the next one reads what the lock's last holder committed. The two reads of
    assignments are written out: the ORM took more CPU to build them than they take to run."""
    holding, params = _holding_sql("a")
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            # One start at a time per worker: the lock orders them, the constraint would refuse a second.
            rows.lock(Worker, worker.pk)
            if _holds_open(job, worker):
                raise _AlreadyOpenError
            found = rows.select(Hit, {"id": hit_pk}, lock=True)
            if not found:
                return None  # deleted since it was found to have a free slot
            hit = found[0]
            cursor.execute(
                f"SELECT COUNT(*) FROM {Assignment._meta.db_table} a WHERE a.hit_id = %(hit)s AND {holding}",
                {**params, "hit": hit.pk},
            )
            if cursor.fetchone()[0] >= hit.assignments_wanted:
                return None
            assignment = Assignment.objects.create(
                job=job,
                hit=hit,
                worker=worker,
                external_id=external_id,
                simulated=worker.simulated,
                accepted_at=timezone.now(),
                confirmed=confirmed,
            )
            held = _hold_items(hit, worker, assignment)
            if quality.policy_of(job).adaptive:
                quality.add_gold(assignment, held)
            return assignment
    except IntegrityError:
        # Another request gave this worker the HIT, one of its items, or an open assignment first.
        return None


def _hold_items(hit: Hit, worker: Worker, assignment: Assignment) -> int:
    """A WorkerItem row per item of the HIT, in one INSERT … SELECT (no round trip for the item ids,
    no model object per item): the unique (item, worker) constraint refuses an item seen before. How
    many items the HIT has (the rows inserted)."""
    rows, hit_items = WorkerItem._meta.db_table, HitItem._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {rows} (item_id, worker_id, assignment_id, reason) "
            f"SELECT item_id, %s, %s, %s FROM {hit_items} WHERE hit_id = %s ORDER BY position",
            [worker.pk, assignment.pk, WorkerItemReason.ASSIGNED.value, hit.pk],
        )
        return int(cursor.rowcount)


def market_hit(job: Job, hit_external_id: str) -> Hit | None:
    """The job's HIT the market names (MTurk's hitId); None when the job has no such HIT."""
    return job.hits.filter(external_id=hit_external_id).first() if hit_external_id else None


def items_of(assignment: Assignment) -> list[Item]:
    """The assignment's items in their places, each with the assignment's job: the HIT's, and the gold
    an adaptive schedule added for this worker among them."""
    items = rows.hit_items(assignment.hit_id, assignment.job)
    if not quality.policy_of(assignment.job).adaptive:
        return items
    return quality.with_gold(assignment, items, quality.gold_of(assignment))


def item_ids_of(assignment: Assignment) -> list[int]:
    """The ids of the assignment's items in their places (no item row read)."""
    ids = rows.hit_item_ids(assignment.hit_id)
    if not quality.policy_of(assignment.job).adaptive:
        return ids
    return quality.with_gold(assignment, ids, quality.gold_ids_of(assignment))
