"""A small platform in every state a page can show, for the tests that read every page: a crawled
debate (a saved idebate page), stance, VAST and topic-tagging jobs done by the simulated crowd and
aggregated, adjudications, in-house jobs in draft and published, a team whose invitations two people
used, people with passwords, roles, permissions and an API token, a crawl run with Scrapy's
statistics, a pipeline run, an operation, two releases and an audit trail of each kind of event the
tutorial and the demo leave (with figures in its details)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib.auth.models import Group, Permission, User
from django.utils import timezone
from rest_framework.authtoken.models import Token

from accounts import audit
from accounts.invitations import accept, create_invitations, token
from accounts.models import AuditEvent, Team
from aggregation import services
from aggregation.adjudication import adjudicate
from aggregation.models import ItemOutcome
from annotation.models import Job
from annotation.work.jobs import create_job, publish_job, sync_job
from corpus.models import Perspective, Status
from crawler import services as crawls
from crawler.models import Debate
from export.services import build_release
from operations.services import start_operation
from pipeline.models import PipelineRun, StepRun
from tests.annotation.factories import crawled_counter_speech_questions, make_corpus, tag

CROWD: dict[str, Any] = {"size": 5, "spammer_share": 0.2, "seed": 3}


def simulated(task_type: str, filters: dict[str, Any]) -> Job:
    """A job of `task_type` over `filters`, done by the simulated crowd and aggregated."""
    job = create_job(task_type, filters, market="simulated", params={"crowd": CROWD})
    publish_job(job.pk)
    job = sync_job(job.pk)
    services.aggregate_job(job.pk)
    return job


def jobs() -> list[Job]:
    claims = make_corpus(claims=3, perspectives=3, status=Status.KEPT)
    tag(claims[0], "health and medicine", "economy")
    tag(claims[1], "education")
    # The corpus's own words, shown as they are: an adjective that is also a Python name.
    Perspective.objects.filter(pk=claims[0].clusters.first().members.first().perspective_id).update(
        text="I don't think there is any one True Meaning of Christmas"
    )
    cids = [claim.cid for claim in claims]
    made = [simulated(kind, {"claims": cids}) for kind in ("stance", "vast_stance", "topic_tagging")]
    contested = ItemOutcome.objects.filter(job=made[0]).order_by("pk").first()
    assert contested is not None
    adjudicate(contested.pk, "MILDLY_SUPPORT", user=None, note="read twice")
    return made


def people(admin: User) -> Team:
    """A team, its invitations (two used: two people with passwords), a researcher with a role and a
    permission of their own, and the API token the README's curl block makes."""
    team = Team.objects.create(name="first-corpus")
    links = create_invitations(team, 3, timedelta(days=7), by=admin)
    for invitation, name in zip(links, ["ada", "bo"], strict=False):
        accept(token(invitation), name, "a-long-test-password-9")
    researcher = User.objects.create_user("rita", password="a-long-test-password-9", is_staff=True)
    researcher.groups.add(Group.objects.get(name="researcher"))
    researcher.user_permissions.add(Permission.objects.get(codename="spend_money"))
    Token.objects.create(user=admin)
    return team


def in_house(team: Team) -> None:
    """A draft in-house job, and one published to the team that no one has answered yet (as the
    tutorial's and the README's curl block's are)."""
    create_job("stance", {"limit": 2}, market="inhouse")
    collecting = create_job("stance", {"limit": 2}, market="inhouse")
    collecting.teams.add(team)
    publish_job(collecting.pk)


def crawl() -> None:
    """A finished crawl of a saved debate page, with the statistics Scrapy leaves."""
    crawled_counter_speech_questions()
    # A bibliography as crawled pages give one: URLs whose query holds a slug.
    link = "http://copy.law.cam.ac.uk/cam/tools/request/showRepresentation?id=representation_uk_1710"
    Debate.objects.update(bibliography=[f"[1] Statute of Anne, London (1710). {link}", "[2] Green, 2005."])
    run = crawls.create_run("idebate", limit=10)
    started = timezone.now()
    run.status, run.started, run.finished = "finished", started, started + timedelta(seconds=22.45)
    run.stats = {
        "start_time": started.isoformat(),
        "finish_time": run.finished.isoformat(),
        "finish_reason": "finished",
        "elapsed_time_seconds": 22.451234,
        "downloader/response_count": 53,
        "log_count/WARNING": 2,
        "memusage/max": 123456789,
    }
    run.save()
    audit.record(None, AuditEvent.Action.CRAWL, f"crawl {run.pk} of idebate", archive="", limit=10)


def trail(job: Job) -> None:
    """Audit events with figures, lists and codes in their details, as the code writes them."""
    audit.record(
        None,
        AuditEvent.Action.WORKER_STOPPED,
        f"job {job.pk}",
        worker="w_e432ea2c5fa9b3acddee",
        bar=0.7,
        accuracy=0.333333333333,
        interval=[0.1234567, 0.5432109],
        evidence=[
            {"item": "c1-p2", "answer": "MILDLY_SUPPORT", "gold": True, "right": False, "by": "dawid_skene"}
        ],
    )
    audit.record(None, AuditEvent.Action.ACCEPTED_MODEL, f"job {job.pk}", threshold=0.95, items=12)
    operation = start_operation("annotation.publish_jobs", "Publish", {"job_ids": [job.pk]}, total=1)
    audit.record(None, AuditEvent.Action.PUBLISHED, "Publish", operation=operation.pk, job_ids=[job.pk])


def pipeline(made: list[Job]) -> None:
    run = PipelineRun.objects.create(
        name="demo", params={"market": "simulated", "claims": [1, 2]}, simulated=True
    )
    for position, (name, job) in enumerate(zip(["stance", "vast", "topics"], made, strict=True)):
        step = StepRun.objects.create(
            run=run, name=name, position=position, state="done", output={"job": job.pk}
        )
        step.jobs.add(job)


def build_site(admin: User) -> list[Job]:
    made = jobs()
    in_house(people(admin))
    crawl()
    trail(made[0])
    pipeline(made)
    build_release("1.0", notes="the first")
    build_release("1.1", notes="the second")
    return made
