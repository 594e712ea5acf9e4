"""Worker pages: queue → instructions → qualification quiz → task → next. Thin: services do the work.

The four job pages are `@worker_page`s: market workers reach them inside MTurk's iframe (or from
Prolific) with the market's parameters, get a signed page token with every page, and must bring it
back with every POST (`annotation.web.identity`). In-house annotators use the same pages logged in.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import urlencode

from django.contrib.auth import login
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import User
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.functional import SimpleLazyObject
from django.views.decorators.http import require_http_methods, require_POST

from accounts import invitations
from annotation.market_interface.base import WorkerIdentityError
from annotation.market_interface.registry import get_market, market_names
from annotation.models import Assignment, AssignmentState, Job, JobState, Qualification, Worker
from annotation.quality.writing_records import free_text_names, record_writing
from annotation.task_types import get_task_type
from annotation.web import fragments
from annotation.web.forms import HitForm, QuizForm
from annotation.web.framing import worker_page
from annotation.web.identity import (
    LoginRequiredError,
    NotThisJobError,
    Visitor,
    check_page_token,
    granted_identity,
    page_token,
    resolve_visitor,
)
from annotation.web.page_tokens import ExpiredTokenError, Grant
from annotation.work import people, rows
from annotation.work.assignments import (
    AssignmentStateError,
    IdentityConflictError,
    NotQualifiedError,
    NoWorkError,
    has_work_left,
    item_ids_of,
    items_of,
    market_hit,
    next_assignment,
)
from annotation.work.people import visible_jobs
from annotation.work.quiz import can_retry_quiz, grade_quiz, qualification, quiz_pass_mark, quiz_terms
from annotation.work.submitting import submit_assignment


def _job(pk: int) -> Job:
    """The job's row, read afresh (its state decides what its pages offer), or a 404."""
    found = rows.job(pk)
    if found is None:
        raise Http404("no such job")
    return found


def _qualification(visitor: Visitor, worker: Worker, job: Job) -> Qualification | None:
    """The worker's qualification for the job's task type: as read with their row, else read now."""
    if visitor.qualification == "unread":
        return qualification(worker, job.task_type)
    return visitor.qualification


def _url(name: str, pk: int, visitor: Visitor) -> str:
    query = urlencode(visitor.carried)
    return reverse(f"annotation:{name}", args=[pk]) + (f"?{query}" if query else "")


def _visitor(request: HttpRequest, job: Job, known: Worker | None = None) -> Visitor | HttpResponse:
    try:
        return resolve_visitor(request, job, known)
    except LoginRequiredError:
        return redirect_to_login(request.get_full_path(), reverse("annotation:login"))
    except NotThisJobError as error:
        return _message(request, job, "Not this job", f"Nothing was saved: {error}.", status=403)
    except WorkerIdentityError as error:
        return _message(request, job, "This link is not valid", str(error), status=400)


def _message(request: HttpRequest, job: Job | None, title: str, text: str, status: int = 200) -> HttpResponse:
    return render(
        request, "annotation/message.html", {"job": job, "title": title, "text": text}, status=status
    )


def _checked(
    request: HttpRequest, visitor: Visitor, job: Job, item_ids: Sequence[int] = ()
) -> Grant | HttpResponse | None:
    """The POST's page token verified (a Grant; None for in-house visitors), or the refusal to show."""
    try:
        return check_page_token(request, visitor, job, item_ids)
    except ExpiredTokenError:
        text = "This page is too old to submit. Reload the task from the market and try again."
        return _message(request, job, "Page expired", text, status=403)
    except WorkerIdentityError as error:
        return _message(request, job, "Not accepted", f"Nothing was saved: {error}.", status=403)


def _page(request: HttpRequest, job: Job, page: str, context: dict[str, Any]) -> HttpResponse:
    """Render the job's task-type template inside one of the page layouts."""
    task_type = get_task_type(job.task_type)
    context = {"job": job, "task_type": task_type, "page_template": f"annotation/{page}.html", **context}
    response = render(request, task_type.template, context)
    policy = task_type.content_security_policy(job)
    if policy:
        response["Content-Security-Policy"] = policy
    return response


def queue(request: HttpRequest) -> HttpResponse:
    """In-house annotators' list of open jobs."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path(), reverse("annotation:login"))
    markets = [name for name in market_names() if get_market(name).capabilities.logged_in_workers]
    jobs = (
        visible_jobs(request.user).filter(market__in=markets, state__in=JobState.open()).order_by("created")
    )
    return render(request, "annotation/queue.html", {"rows": people.queue_rows(request.user, jobs)})


def my_work(request: HttpRequest) -> HttpResponse:
    """An annotator's own work: assignments, items done, time spent and gold accuracy, job by job."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path(), reverse("annotation:login"))
    rows = [(job, row, get_task_type(job.task_type).name) for job, row in people.my_work(request.user)]
    return render(request, "annotation/my_work.html", {"rows": rows})


@worker_page
def job_home(request: HttpRequest, pk: int) -> HttpResponse:
    """Instructions, and what the visitor can do next: preview, take the quiz, or start work."""
    job = _job(pk)
    visitor = _visitor(request, job)
    if isinstance(visitor, HttpResponse):
        return visitor
    if visitor.preview or visitor.worker is None:
        return preview(request, job, visitor)
    found = _qualification(visitor, visitor.worker, job)
    context = {
        "visitor": visitor,
        "qualification": found,
        "can_quiz": can_retry_quiz(visitor.worker, job, found),
        "quiz_terms": quiz_terms(job),
        "quiz_url": _url("quiz", job.pk, visitor),
        "start_url": _url("start", job.pk, visitor),
        "blocked": visitor.worker.blocked,
        "page_token": page_token(visitor, job),
    }
    return _page(request, job, "job", context)


def preview(request: HttpRequest, job: Job, visitor: Visitor) -> HttpResponse:
    """The instructions and the first HIT, read-only. Writes nothing."""
    first = job.hits.order_by("position").first()
    items = first.ordered_items() if first else []
    form = HitForm(get_task_type(job.task_type), items)
    return _page(request, job, "preview", {"visitor": visitor, "form": form, "rows": form.rows()})


@worker_page
@require_http_methods(["GET", "POST"])
def quiz(request: HttpRequest, pk: int) -> HttpResponse:
    job = _job(pk)
    visitor = _visitor(request, job)
    if isinstance(visitor, HttpResponse):
        return visitor
    if visitor.worker is None:
        return _message(request, job, "Preview", "Accept the task to take the qualification quiz.")
    task_type = get_task_type(job.task_type)
    form = QuizForm(task_type.quiz, request.POST if request.method == "POST" else None)
    if request.method == "POST":
        grant = _checked(request, visitor, job)
        if isinstance(grant, HttpResponse):
            return grant
        if form.is_valid():  # graded under the qualification's lock, which also refuses a retry
            return _graded(request, job, visitor, grade_quiz(visitor.worker, job, form.answers()))
    if not can_retry_quiz(visitor.worker, job, _qualification(visitor, visitor.worker, job)):
        return HttpResponseRedirect(_url("job", job.pk, visitor))
    # The questions before any answer are the task type's, the same on every worker's page.
    shared = fragments.read(fragments.quiz_key(task_type.slug) if not form.is_bound else "")
    context = {"job": job, "task_type": task_type, "form": form, "visitor": visitor, "shared_quiz": shared}
    context["quiz_terms"] = quiz_terms(job)
    return render(request, "annotation/quiz.html", {**context, "page_token": page_token(visitor, job)})


def _graded(request: HttpRequest, job: Job, visitor: Visitor, result: Qualification) -> HttpResponse:
    """On to the job page with a pass; else the refusal, with the worker's score."""
    if result.passed:
        return HttpResponseRedirect(_url("job", job.pk, visitor))
    return _message(
        request,
        job,
        "Qualification not passed",
        f"You answered {result.score:.0%} of the worked examples correctly; "
        f"this task needs {quiz_pass_mark(job):.0%}. "
        "We cannot offer you this work. Thank you for your time.",
        status=403,
    )


@worker_page
@require_POST
def start(request: HttpRequest, pk: int) -> HttpResponse:
    """Hand the worker their next HIT (or their open one) and send them to it."""
    job = _job(pk)
    visitor = _visitor(request, job)
    if isinstance(visitor, HttpResponse):
        return visitor
    if visitor.worker is None:
        return _message(request, job, "Preview", "Accept the task to start working.", status=403)
    grant = _checked(request, visitor, job)
    if isinstance(grant, HttpResponse):
        return grant
    ids = visitor.ids
    hit = None
    if ids is not None and get_market(job.market).capabilities.worker_takes_hit:
        # An MTurk worker accepted one particular HIT: that one is theirs, no other.
        hit = market_hit(job, ids.hit_id)
        if hit is None:
            return _message(request, job, "No such HIT", "This HIT is not part of this job.", status=404)
    try:
        assignment = next_assignment(
            job,
            visitor.worker,
            hit=hit,
            external_id=ids.assignment_id if ids else "",
            fresh=True,
            found=visitor.qualification,
        )
    except NoWorkError as error:
        refused = (NotQualifiedError, IdentityConflictError)
        status = 403 if isinstance(error, refused) else 200
        return _message(request, job, "No work for you here", str(error), status=status)
    return HttpResponseRedirect(_url("assignment", assignment.pk, visitor))


@worker_page
@require_http_methods(["GET", "POST"])
def assignment_page(request: HttpRequest, pk: int) -> HttpResponse:
    """The HIT's items; on POST, save them all in one transaction (a second POST stores nothing new)."""
    assignment = rows.assignment(pk)  # with its job, HIT and worker
    if assignment is None:
        raise Http404("no such assignment")
    job = assignment.job
    visitor = _visitor(request, job, known=assignment.worker)
    if isinstance(visitor, HttpResponse):
        return visitor
    if visitor.worker is None or visitor.worker.pk != assignment.worker_id:
        raise Http404("no such assignment for you")
    if visitor.ids is not None and visitor.ids.assignment_id != assignment.external_id:
        raise Http404("no such assignment for you")
    if assignment.state in AssignmentState.done():
        return _after_submit(request, assignment, visitor, None)
    if assignment.state != AssignmentState.ACCEPTED:
        return _message(request, job, "Closed", f"This assignment was {assignment.state}.", status=409)
    if request.method == "GET":
        return _task_page(request, visitor, assignment, None)
    items = items_of(assignment)
    item_ids = [item.pk for item in items]
    form = HitForm(get_task_type(job.task_type), items, request.POST)
    grant = _checked(request, visitor, job, item_ids)
    if isinstance(grant, HttpResponse):
        return grant
    if not form.is_valid():
        return _task_page(request, visitor, assignment, form)
    try:
        submit_assignment(assignment.pk, form.answers(), items, read=assignment)
    except AssignmentStateError as error:
        return _message(request, job, "Not saved", str(error), status=409)
    record_writing(assignment, free_text_names(form.task_type, job, form.names, items), request.POST)
    return _after_submit(request, assignment, visitor, grant)


def _task_page(
    request: HttpRequest, visitor: Visitor, assignment: Assignment, answered: HitForm | None
) -> HttpResponse:
    """The HIT's items to answer: fresh (their markup shared by every worker of the HIT: once it is
    stored, only the items' ids are read, for the page token), or as `answered` with what is missing
    marked."""
    job = assignment.job
    shared = fragments.read("" if answered is not None else fragments.items_key(job, assignment.hit_id))
    form: Any = answered
    if form is None and shared.markup is not None:
        # The stored markup stands in for the items: built only if the page asks for more of them.
        form = SimpleLazyObject(lambda: HitForm(get_task_type(job.task_type), items_of(assignment)))
        item_ids = item_ids_of(assignment)
    else:
        form = form or HitForm(get_task_type(job.task_type), items_of(assignment))
        item_ids = [item.pk for item in form.items]
    context = {
        "visitor": visitor,
        "assignment": assignment,
        "form": form,
        "errors": answered.errors if answered is not None else None,
        "rows": lambda: form.rows(),
        "shared_items": shared,
        "page_token": page_token(visitor, job, item_ids),
    }
    return _page(request, job, "task", context)


def _after_submit(
    request: HttpRequest, assignment: Assignment, visitor: Visitor, grant: Grant | None
) -> HttpResponse:
    """Saved already; now send the worker back to the market (MTurk by POST, Prolific by redirect)."""
    market = get_market(assignment.job.market)
    try:
        handoff = market.after_submit(assignment, granted_identity(visitor, grant))
    except WorkerIdentityError as error:
        return _message(request, assignment.job, "Saved", f"Your work is saved, but {error}.", status=400)
    if handoff is not None and handoff.fields:
        return render(request, "annotation/external_submit.html", {"handoff": handoff, "job": assignment.job})
    if handoff is not None:
        return HttpResponseRedirect(handoff.url)
    assignment.refresh_from_db()  # the submit saved its time on a copy of its own
    more = visitor.worker is not None and has_work_left(assignment.job, visitor.worker)
    return render(
        request,
        "annotation/submitted.html",
        {
            "job": assignment.job,
            "assignment": assignment,
            "start_url": _url("start", assignment.job_id, visitor) if more else "",
        },
    )


@require_http_methods(["GET", "POST"])
def join_team(request: HttpRequest, token: str) -> HttpResponse:
    """An invitation link: set a username and password, join the team, and land on the queue."""
    try:
        invitation = invitations.open_invitation(token)
    except invitations.InvitationError as error:
        return _message(request, None, "This invitation cannot be used", str(error), status=400)
    form: UserCreationForm[User] = UserCreationForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            user = invitations.accept(token, form.cleaned_data["username"], form.cleaned_data["password1"])
        except invitations.InvitationError as error:
            return _message(request, None, "This invitation cannot be used", str(error), status=400)
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect("annotation:queue")
    return render(request, "annotation/join.html", {"form": form, "team": invitation.team})
