"""Who is at a worker page. The one place that reads identity from a request.

- in-house annotators are logged in: their worker row is tied to their user;
- external crowds are named by the market's URL parameters, read by the job's provider
  (`Provider.identity_from_params`) and carried through our pages as they came;
- preview (`?preview=1`, or the market's preview) is nobody: the pages write nothing.

The crowd-market issue hardens the external case here (signed tokens) without touching the views.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.http import HttpRequest

from annotation.models import Job, Worker
from annotation.providers import get_provider
from annotation.providers.base import ExternalIdentity
from annotation.services import get_worker

INHOUSE = "inhouse"


class LoginRequiredError(PermissionError):
    """An in-house page visited by someone not logged in."""


@dataclass(frozen=True)
class Visitor:
    worker: Worker | None
    preview: bool = False
    external: ExternalIdentity | None = None
    carried: dict[str, str] = field(default_factory=dict)


def resolve_visitor(request: HttpRequest, job: Job) -> Visitor:
    """The visitor of a job's pages; creates the worker row on a first (non-preview) visit."""
    params = {**request.GET.dict(), **request.POST.dict()}
    if params.get("preview") == "1":
        return Visitor(worker=None, preview=True, carried={"preview": "1"})
    if job.provider != INHOUSE:
        external = get_provider(job.provider).identity_from_params(params)
        if external is not None:
            carried = dict(external.extra)
            if external.preview:
                return Visitor(worker=None, preview=True, external=external, carried=carried)
            return Visitor(
                worker=get_worker(job.provider, external.worker_id), external=external, carried=carried
            )
    if not request.user.is_authenticated:
        raise LoginRequiredError("log in to work on in-house jobs")
    if job.provider != INHOUSE:
        # Staff looking at a market job without the market's parameters see what workers would.
        return Visitor(worker=None, preview=True, carried={"preview": "1"})
    return Visitor(worker=get_worker(INHOUSE, f"user-{request.user.pk}", user=request.user))
