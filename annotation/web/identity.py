"""Who is at a worker page. The one place that reads identity from a request.

- in-house annotators are logged in: their worker row is tied to their user;
- external crowds are named by the market's URL parameters, read by the job's market
  (`annotation.market_interface.base.external_identity`) and carried through our pages as they came.
  Those parameters are only claims, so every page served to a market worker carries a signed, expiring token
  (`annotation.web.page_tokens`) binding the market ids and the items shown, and every POST from
  a market worker must bring it back (`check_page_token`): no cookie is needed inside the iframe;
- preview (`?preview=1`, or the market's preview) is nobody: the pages write nothing. `?preview=1`
  shows a job's items, so it is for staff who may view jobs, and for the job's in-house team once it
  is published (`may_preview`); the market's own preview needs the market's ids of one of its HITs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.http import HttpRequest

from annotation.market_interface.base import (
    ExternalIdentity,
    MarketIds,
    WorkerIdentityError,
    external_identity,
)
from annotation.market_interface.registry import get_market
from annotation.models import Job, JobState, Qualification, Worker
from annotation.web.page_tokens import (
    TOKEN_FIELD,
    Grant,
    MissingTokenError,
    issue_token,
    verify_token,
)
from annotation.work import rows
from annotation.work.assignments import get_worker, new_worker
from annotation.work.people import is_open_to


class NotThisJobError(WorkerIdentityError):
    """Market ids of another study or HIT than this job's (a link taken from elsewhere)."""


class LoginRequiredError(PermissionError):
    """An in-house page visited by someone not logged in."""


@dataclass(frozen=True)
class Visitor:
    worker: Worker | None
    preview: bool = False
    external: ExternalIdentity | None = None
    ids: MarketIds | None = None  # the market's ids, checked (turkSubmitTo against the allowlist)
    carried: dict[str, str] = field(default_factory=dict)
    # The worker's qualification for the job's task type, read with their row in this request (None:
    # they have none), or "unread" (the pages that need it read it).
    qualification: Qualification | None | rows.Unread = "unread"


def resolve_visitor(request: HttpRequest, job: Job, known: Worker | None = None) -> Visitor:
    """The visitor of a job's pages; creates the worker row on a first (non-preview) visit.

    `known`: a worker row this request has read already (an assignment page's worker), used instead
    of reading it again when the visitor is that worker; any other visitor's row is looked up.

    Raises `WorkerIdentityError` for market parameters that cannot be trusted (some missing, an id
    off the market's alphabet, turkSubmitTo off the allowlist), `NotThisJobError` for ids of
    another study or HIT.
    """
    params = {**request.GET.dict(), **request.POST.dict()}
    if params.get("preview") == "1":
        return _previewer(request, job)
    market = get_market(job.market)
    if not market.capabilities.logged_in_workers:
        external = external_identity(market, params)
        if external is not None:
            ids = market.market_ids(params)
            if ids is None or not _names_hit_of(job, ids.hit_id):
                # Checked before any row is written: another study's ids create no worker here.
                raise NotThisJobError("these market ids belong to another study or HIT")
            carried = dict(external.extra)
            if external.preview:
                return Visitor(worker=None, preview=True, external=external, ids=ids, carried=carried)
            worker, found = _worker(job, external.worker_id, known)
            return Visitor(worker=worker, external=external, ids=ids, carried=carried, qualification=found)
    if not request.user.is_authenticated:
        raise LoginRequiredError("log in to work on in-house jobs")
    if not market.capabilities.logged_in_workers:
        # Staff looking at a market job without the market's parameters see what workers would.
        return _previewer(request, job)
    if not is_open_to(job, request.user):
        raise NotThisJobError("this job is for other teams")
    worker, found = _worker(job, f"user-{request.user.pk}", known, user=request.user)
    return Visitor(worker=worker, qualification=found)


def may_preview(user: Any, job: Job) -> bool:
    """Staff who may view jobs, or a member of the in-house job's team once the job is published."""
    if user.has_perm("annotation.view_job"):
        return True
    in_house = get_market(job.market).capabilities.logged_in_workers
    return in_house and job.state != JobState.DRAFT and is_open_to(job, user)


def _previewer(request: HttpRequest, job: Job) -> Visitor:
    """A preview visitor, for someone who may see the job's items (`may_preview`)."""
    if not request.user.is_authenticated:
        raise LoginRequiredError("log in to preview a job")
    if not may_preview(request.user, job):
        raise NotThisJobError("this job is not open to you")
    return Visitor(worker=None, preview=True, carried={"preview": "1"})


def _worker(
    job: Job, external_id: str, known: Worker | None, user: Any = None
) -> tuple[Worker, Qualification | None | rows.Unread]:
    """The visitor's worker row (created on a first visit) and, when read with it, their
    qualification for the job's task type."""
    if known is not None and (known.market, known.external_id) == (job.market, external_id):
        return known, "unread"
    read = rows.worker_and_qualification(job.market, external_id, job.task_type)
    if read is not None:
        return read
    created = new_worker(job.market, external_id, user=user)  # a first visit: no qualification yet
    if created is not None:
        return created, None
    return get_worker(job.market, external_id, user=user), "unread"  # created by a parallel request


# (job pk, job created, market HIT id) seen to name one of the job's HITs. A published HIT keeps its
# market id for life, so a yes stands; a no is asked again. Saves a query on every worker page.
_KNOWN_HITS: set[tuple[int, object, str]] = set()
_KNOWN_HITS_CAP = 10_000


def _names_hit_of(job: Job, hit_external_id: str) -> bool:
    key = (job.pk, job.created, hit_external_id)
    if key in _KNOWN_HITS:
        return True
    if not job.hits.filter(external_id=hit_external_id).exists():
        return False
    if len(_KNOWN_HITS) >= _KNOWN_HITS_CAP:
        _KNOWN_HITS.clear()
    _KNOWN_HITS.add(key)
    return True


def page_token(visitor: Visitor, job: Job, item_ids: Sequence[int] = ()) -> str:
    """The token for a page about to be served to a market worker; "" for in-house visitors and preview."""
    if visitor.ids is None or visitor.preview:
        return ""
    return issue_token(visitor.ids, job.pk, item_ids)


def check_page_token(
    request: HttpRequest, visitor: Visitor, job: Job, item_ids: Sequence[int] = ()
) -> Grant | None:
    """A market worker's POST must bring back a valid token for the same ids, job and items.

    In-house visitors need none (their session and Django's CSRF check cover them): returns None.
    """
    if visitor.ids is None:
        return None
    token = request.POST.get(TOKEN_FIELD, "")
    if not token:
        raise MissingTokenError("this page was not served by us to this worker (no page token)")
    return verify_token(token, visitor.ids, job.pk, item_ids)


def granted_identity(visitor: Visitor, grant: Grant | None) -> ExternalIdentity | None:
    """The market identity to hand back to the market: where to submit is the token's, not the request's."""
    if visitor.external is None or grant is None or not grant.ids.submit_to:
        return visitor.external
    extra = {**visitor.external.extra, "turkSubmitTo": grant.ids.submit_to}
    return dataclasses.replace(visitor.external, extra=extra)
