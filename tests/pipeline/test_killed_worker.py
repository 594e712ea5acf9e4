"""A lab's pipeline on a real Celery worker over Redis, on PostgreSQL: the worker is killed (SIGKILL)
mid-way, another starts, and the run, continued from the admin, completes with nothing lost or doubled.
The lab (its release slice, site and expert) is in conftest.py and lab.py.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis
from django.conf import settings
from django.db.models import Count
from django.test import Client

from aggregation.models import AggregationRun, RunState
from annotation.models import Job, JobState, Response
from corpus.models import ClusterMember
from crawler.local_site import LocalSite
from export.models import Release
from export.verify import verify_release
from pipeline import services
from pipeline.models import PipelineRun, StepState
from pipeline.tasks import run_pipeline_task
from rigs.processes import ProcessGroup
from tests.pipeline.lab import REPO, WAIT, Decided, import_release, lab_params, run_jobs

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

# A Celery worker on this test's own queue, which its follow-up tasks use too: other tests on the same
# Redis are left alone, and a message the killed worker held never reaches them.
WORKER_MAIN = (
    "import sys, django; django.setup(); from config.celery import app; "
    "app.conf.CELERY_TASK_DEFAULT_QUEUE = sys.argv[1]; "
    "app.worker_main(['worker', '--queues', sys.argv[1], '--pool', 'solo', '--hostname', sys.argv[2] + '@%h',"
    " '--without-mingle', '--without-gossip', '--loglevel', 'WARNING'])"
)


@pytest.fixture
def workers(lab_env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Workers]:
    queue = f"stancework-lifecycle-{uuid.uuid4().hex}"
    # The admin's "continue" sends the run to this test's queue.
    monkeypatch.setattr(run_pipeline_task, "queue", queue, raising=False)
    monkeypatch.setattr(run_pipeline_task, "_exec_options", None)  # Celery caches the options
    group = ProcessGroup(tmp_path, REPO)
    try:
        env = {**lab_env, "REDIS_URL": settings.REDIS_URL, "DJANGO_SETTINGS_MODULE": "config.settings"}
        yield Workers(group, queue, env)
    finally:
        group.stop()
        forget_queue(settings.REDIS_URL, queue)


def forget_queue(url: str, queue: str) -> None:
    """The test's queue gone from Redis, with the message the killed worker held unacknowledged (kombu
    would put it back into the queue once the visibility timeout passes, hours later)."""
    broker = redis.Redis.from_url(url, decode_responses=True)
    broker.delete(queue, f"_kombu.binding.{queue}")
    held: dict[str, str] = broker.hgetall("unacked")  # type: ignore[assignment]  # a sync client
    for tag, payload in held.items():
        if json.loads(payload)[2] == queue:  # [message, exchange, routing key]
            broker.hdel("unacked", tag)
            broker.zrem("unacked_index", tag)


@dataclass
class Workers:
    group: ProcessGroup
    queue: str
    env: dict[str, str]

    def start(self, name: str) -> None:
        self.group.start(name, [sys.executable, "-c", WORKER_MAIN, self.queue, name], self.env)

    def kill(self, name: str) -> None:
        """SIGKILL: no warm shutdown, no ack, no chance to finish the step it is in."""
        process = self.group.running.pop(name)
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(WAIT)


def work_of(job: Job) -> tuple[int, list[int]]:
    """A job's responses and aggregation runs: what must survive a worker's death unchanged."""
    runs = AggregationRun.objects.filter(job=job, state=RunState.DONE).order_by("pk")
    return job.responses.count(), list(runs.values_list("pk", flat=True))


def continue_run(expert: Client, run: PipelineRun) -> None:
    """The admin's action "Continue the selected runs (in the background)", as a person uses it."""
    response = expert.post(
        "/admin/pipeline/pipelinerun/", {"action": "continue_runs", "_selected_action": [run.pk]}
    )
    assert response.status_code == 302


def step_state(run: PipelineRun, name: str) -> str:
    return str(run.steps.get(name=name).state)


def doubled(run: PipelineRun) -> list[str]:
    """Whatever a step did twice: a second job of a kind, a job aggregated twice, a second cluster of a
    claim opening with the same perspective text, a second response of a worker to an item."""
    found = []
    jobs = Job.objects.values("task_type").annotate(n=Count("pk")).filter(n__gt=1)
    found += [f"{row['n']} {row['task_type']} jobs" for row in jobs]
    aggregated = AggregationRun.objects.filter(state=RunState.DONE).values("job").annotate(n=Count("pk"))
    found += [f"job {row['job']} aggregated {row['n']} times" for row in aggregated.filter(n__gt=1)]
    openings = (
        ClusterMember.objects.filter(position=0)
        .values("cluster__claim__cid", "perspective__text")
        .annotate(n=Count("pk"))
        .filter(n__gt=1)
    )
    found += [f"c{row['cluster__claim__cid']}: {row['n']} clusters of one perspective" for row in openings]
    responses = Response.objects.values("item", "worker").annotate(n=Count("pk")).filter(n__gt=1)
    found += [f"item {row['item']}: {row['n']} responses of one worker" for row in responses]
    return found


@pytest.mark.redis
def test_a_worker_killed_mid_pipeline_loses_and_doubles_nothing(
    lab_env: dict[str, str], site: LocalSite, expert: Client, release_slice: Path, workers: Workers
) -> None:
    import_release(release_slice)
    imported = Decided()
    imported.check("import")
    run = services.create_run("lab, worker killed", lab_params(site, "lab-w"))
    crawl_done(run)
    workers.start("worker1")
    continue_run(expert, run)
    wait_for(lambda: step_state(run, "evidence") == StepState.RUNNING, "the evidence step", workers.group)

    workers.kill("worker1")
    finished = {step.name: (step.finished, step.output) for step in run.steps.filter(state=StepState.DONE)}
    kept = {job.pk: work_of(job) for job in run_jobs(run) if job.state == JobState.COMPLETE}
    workers.start("worker2")
    continue_run(expert, run)
    wait_for(lambda: step_state(run, "release") == StepState.DONE, "the run's release", workers.group)

    assert set(run.steps.values_list("state", flat=True)) == {StepState.DONE}
    # What was done before the kill stays as it was: no step run twice, no response or aggregation lost.
    assert {s.name: (s.finished, s.output) for s in run.steps.filter(name__in=finished)} == finished
    assert {pk: work_of(Job.objects.get(pk=pk)) for pk in kept} == kept
    imported.check("the run")
    assert Job.objects.count() == len(run_jobs(run))  # no job left behind by the killed step
    assert doubled(run) == []
    release = Release.objects.get(version="lab-w")
    assert verify_release(release.path) == []


def wait_for(ready: Callable[[], bool], what: str, group: ProcessGroup | None = None) -> None:
    deadline = time.monotonic() + WAIT
    while not ready():
        if group is not None:
            group.assert_alive()
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {WAIT} s\n{group.logs() if group is not None else ''}")
        time.sleep(0.1)


def crawl_done(run: PipelineRun) -> None:
    """The crawl step, polled until its crawl process is done (the crawl never runs in a worker)."""
    wait_for(lambda: services.run_step(run.pk, "crawl").state == StepState.DONE, "the crawl")
