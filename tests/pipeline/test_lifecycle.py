"""A lab's whole project, as it really goes, on PostgreSQL: nothing already decided is ever lost.

import (a slice of PERSPECTRUM) → crawl (saved idebate pages served from 127.0.0.1) → the pipeline with
the simulated crowd → adjudicate by hand and in bulk → merge and split clusters → release v1; then
`make run` again (migrate, setup_demo) → re-import → re-crawl (one point reworded) → re-aggregate →
release v2. After every step, each released fact of the corpus before it (a claim–perspective pair with
its labels, an evidence link) must still hold unless a person removed it; v1 → v2 differs by exactly what
a person and the site changed.

The second test runs the pipeline on a real Celery worker over Redis, kills it (SIGKILL) mid-way,
starts another, and the run completes with nothing lost or doubled.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import redis
from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection
from django.db.models import Count
from django.test import Client

from aggregation.models import Adjudication, AggregationRun, ItemOutcome, RunState
from aggregation.services import aggregate_job, has_aggregation
from annotation.models import Job, JobState, Response
from corpus.models import (
    Claim,
    ClusterEvidence,
    ClusterMember,
    Perspective,
    PerspectiveCluster,
    Status,
)
from corpus.perspectrum import CLAIMS, POOL, SPLIT, TOPIC, file_names
from corpus.services import import_perspectrum
from crawler.local_site import LocalSite
from crawler.parsing import parse_debate
from export.models import Release
from export.services import build_release, diff_releases, perspectrum_records
from export.verify import verify_release
from pipeline import services
from pipeline.demo import DEMO_NAME
from pipeline.models import PipelineRun, StepState
from pipeline.tasks import run_pipeline_task
from rigs.databases import with_database
from rigs.processes import ProcessGroup
from tests.conftest import PERSPECTRUM

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

REPO = Path(__file__).resolve().parents[2]
IMPORTED_CLAIMS = 20  # the release's first claims by cId: enough clusters to merge and split
CRAWLED_PAGES = (  # saved idebate debates with points, served as the lab's site
    "business-economic-policy-economy-general-house-believes-national-minimum-wage",
    "team-sports-house-would-introduce-goal-line-technology-football",
)
WAIT = 180  # seconds: a bound on any one wait (a crawl, a pipeline run), far above what it takes

Fact = tuple[Any, ...]


# --- the lab's material ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def release_slice(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """PERSPECTRUM v1.0's first IMPORTED_CLAIMS claims with the perspectives they use: a valid release."""
    names = file_names("1.0")
    claims = sorted(json.loads((PERSPECTRUM / names[CLAIMS]).read_text()), key=lambda c: c["cId"])
    chosen = claims[:IMPORTED_CLAIMS]
    cids = {claim["cId"] for claim in chosen}
    pids = {pid for claim in chosen for cluster in claim["perspectives"] for pid in cluster["pids"]}
    pool = [p for p in json.loads((PERSPECTRUM / names[POOL]).read_text()) if p["pId"] in pids]
    split = {k: v for k, v in json.loads((PERSPECTRUM / names[SPLIT]).read_text()).items() if int(k) in cids}
    topics = [t for t in json.loads((PERSPECTRUM / names[TOPIC]).read_text()) if t["claim_id"] in cids]
    out = tmp_path_factory.mktemp("perspectrum-slice")
    for kind, records in {CLAIMS: chosen, POOL: pool, SPLIT: split, TOPIC: topics}.items():
        (out / names[kind]).write_text(json.dumps(records))
    return out


@pytest.fixture(scope="module")
def site_pages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pages = tmp_path_factory.mktemp("idebate-pages")
    for stem in CRAWLED_PAGES:
        shutil.copy(Path(settings.SHARED_FIXTURES_DIR) / "idebate" / "pages" / f"{stem}.html", pages)
    return pages


@pytest.fixture
def site(site_pages: Path) -> Iterator[LocalSite]:
    with LocalSite.idebate(site_pages).serve() as serving:
        yield serving


@pytest.fixture
def lab_env(db: None, release_slice: Path, monkeypatch: pytest.MonkeyPatch, settings: Any) -> dict[str, str]:
    """The environment `make run`, the crawl and the workers see: this test's database, no delays."""
    url = with_database(os.environ["DATABASE_URL"], connection.settings_dict["NAME"])
    key = "lifecycle-tests-pseudonym-key-0123456789"
    settings.WORKER_PSEUDONYM_KEY = key
    settings.PERSPECTRUM_DIR = release_slice
    for name, value in {
        "DATABASE_URL": url,  # the crawl process inherits the pipeline's environment
        "REDIS_URL": "",  # `make run` and the crawl as a lab runs them (workers get Redis back)
        "PERSPECTRUM_DIR": str(release_slice),
        "WORKER_PSEUDONYM_KEY": key,
        "CRAWLER_DOWNLOAD_DELAY_MS": "0",
        "CRAWLER_AUTOTHROTTLE": "0",
        "CRAWLER_PROGRESS_SECONDS": "1",
        "LOG_LEVEL": "WARNING",
    }.items():
        monkeypatch.setenv(name, value)
    return dict(os.environ)


@pytest.fixture
def expert_user(db: None) -> User:
    return User.objects.create_superuser("lab-expert", "expert@lab.example", "-")


@pytest.fixture
def expert(expert_user: User) -> Client:
    client = Client()
    client.force_login(expert_user)
    return client


# --- what is decided ---------------------------------------------------------------------------------


def facts_of(claims: list[dict[str, Any]]) -> set[Fact]:
    """The released facts of PERSPECTRUM claim records: each (claim, perspective) pair with its labels,
    and each evidence link, per perspective of the cluster holding it."""
    facts: set[Fact] = set()
    for claim in claims:
        for cluster in claim["perspectives"]:
            for pid in cluster["pids"]:
                facts.add(("pair", claim["cId"], pid, cluster["stance_label_3"], cluster["stance_label_5"]))
                facts |= {("link", claim["cId"], pid, eid) for eid in cluster["evidence"]}
    return facts


def corpus_facts() -> set[Fact]:
    return facts_of(perspectrum_records()[CLAIMS])


def release_facts(release: Release) -> set[Fact]:
    return facts_of(json.loads((release.path / file_names(release.version)[CLAIMS]).read_text()))


def cluster_facts(outcome: ItemOutcome, kinds: tuple[str, ...] = ("pair", "link")) -> set[Fact]:
    """The released facts of the item's cluster, as they are now."""
    cluster = outcome.item.cluster
    assert cluster is not None
    pids = set(cluster.members.values_list("perspective__pid", flat=True))
    return {f for f in corpus_facts() if f[0] in kinds and f[1] == cluster.claim.cid and f[2] in pids}


def mergeable_clusters(among: set[int]) -> tuple[Claim, list[int]]:
    """An imported claim's first two released clusters with the same labels (equivalent perspectives)."""
    for claim in Claim.objects.filter(cid__in=among).order_by("cid"):
        by_labels: dict[tuple[str, str], list[int]] = {}
        for cluster in claim.clusters.filter(status__in=Status.released()).order_by("position"):
            by_labels.setdefault((cluster.stance_3, cluster.stance_5), []).append(cluster.pk)
        for pks in by_labels.values():
            if len(pks) > 1:
                return claim, pks[:2]
    raise AssertionError("no imported claim has two clusters with the same labels")


def splittable_cluster(among: set[int], exclude: list[int]) -> tuple[PerspectiveCluster, Perspective]:
    """A released cluster of an imported claim with evidence and several members; its last member."""
    clusters = PerspectiveCluster.objects.filter(
        claim__cid__in=among, status__in=Status.released(), evidence__isnull=False
    ).exclude(pk__in=exclude)
    for cluster in clusters.distinct().order_by("claim__cid", "position"):
        members = list(cluster.members.order_by("position").select_related("perspective"))
        if len(members) > 1:
            return cluster, members[-1].perspective
    raise AssertionError("no imported cluster with evidence has two members")


def unsupported_outcome(job: Job, among: set[int]) -> ItemOutcome:
    """An evidence item the crowd did not support whose perspective is in a released cluster of one of
    the claims `among` (cIds)."""
    released = PerspectiveCluster.objects.filter(claim__cid__in=among, status__in=Status.released())
    perspectives = released.values_list("members__perspective", flat=True)
    outcomes = ItemOutcome.objects.filter(job=job, item__is_gold=False, item__perspective__in=perspectives)
    found = outcomes.exclude(label="SUPPORTED").select_related("item").order_by("pk").first()
    assert found is not None, f"job {job.pk}: every paragraph on claims {sorted(among)} is supported"
    return found


def supported_outcome(job: Job, among: set[int]) -> ItemOutcome:
    """An evidence item the crowd supported and linked to a released cluster, on no claim the expert
    merges or splits later (of the claims `among`: a person's merge or split may bring a link back)."""
    claim, merged = mergeable_clusters(among)
    source, _ = splittable_cluster(among, exclude=merged)
    avoided = {claim.pk, source.claim_id}
    outcomes = ItemOutcome.objects.filter(job=job, item__is_gold=False, label="SUPPORTED", adjudications=None)
    for outcome in outcomes.select_related("item").order_by("pk"):
        clusters = list(
            PerspectiveCluster.objects.filter(
                members__perspective=outcome.item.perspective_id, evidence=outcome.item.evidence_id
            ).select_related("claim")
        )
        if any(c.claim_id in avoided for c in clusters):
            continue
        if any(c.status in Status.released() for c in clusters):
            return outcome
    raise AssertionError(f"job {job.pk}: no supported paragraph on a released cluster")


def crawled_claims(imported: set[int]) -> set[int]:
    return set(Claim.objects.exclude(cid__in=imported).values_list("cid", flat=True))


def waiting_outcome(job: Job, among: set[int]) -> ItemOutcome:
    """The first non-gold outcome of the job no expert decided yet whose cluster is released and of one
    of the claims `among` (cIds)."""
    outcomes = ItemOutcome.objects.filter(
        job=job, item__is_gold=False, adjudications__isnull=True,
        item__cluster__status__in=Status.released(), item__cluster__claim__cid__in=among,
    )  # fmt: skip
    found = outcomes.select_related("item").order_by("pk").first()
    assert found is not None, f"job {job.pk}: no released, undecided item among claims {sorted(among)}"
    return found


@dataclass
class Decided:
    """What the lab has decided so far; `check` after each step: nothing of it is lost."""

    facts: set[Fact] = field(default_factory=set)
    removed_by_people: set[Fact] = field(default_factory=set)  # on purpose, since the last check
    rejected_by_people: set[Fact] = field(default_factory=set)  # links a person took out: never back

    def check(self, step: str) -> set[Fact]:
        now = corpus_facts()
        lost = self.facts - self.removed_by_people - now
        assert not lost, f"{step} lost {len(lost)} decided facts, e.g. {sorted(lost)[:8]}"
        back = self.rejected_by_people & now
        assert not back, f"{step} added back {len(back)} links a person removed, e.g. {sorted(back)[:8]}"
        self.facts, self.removed_by_people = now, set()
        return now


# --- the steps ---------------------------------------------------------------------------------------


def run_to_the_end(run: PipelineRun) -> None:
    """Run the pipeline, polling the crawl (a process of its own) as `make run` does, bounded."""
    deadline = time.monotonic() + WAIT
    steps = services.run_all(run.pk)
    while steps[-1].state == StepState.WAITING and time.monotonic() < deadline:
        time.sleep(0.5)
        steps = services.run_all(run.pk)
    assert [s.state for s in steps][-1] == StepState.DONE, [(s.name, s.state, s.message) for s in steps]


def lab_params(site: LocalSite, version: str) -> dict[str, Any]:
    return {
        "crawl": {"start_urls": [f"{site.url}/debatabase/all"]},
        "crowd": {"size": 9, "spammer_share": 0.2, "seed": 3},
        "adjudication_sample": 6,
        "similar_claim_pairs": 5,
        "counter_speech_questions": 4,
        "vast_claims": 1,
        "version": version,
    }


def make_run(env: dict[str, str], timeout: float = WAIT) -> str:
    """`make run` again, but its server: migrate, then setup_demo, each its own process as make runs them."""
    output = ""
    for args in (["migrate", "--noinput", "-v0"], ["setup_demo", "--url", "http://127.0.0.1:8000"]):
        done = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout, check=False,
        )  # fmt: skip
        assert done.returncode == 0, f"{args[0]}: {done.stdout[-2000:]}\n{done.stderr[-3000:]}"
        output += done.stdout
    return output


def revise_a_point(site: LocalSite) -> str:
    """The site rewords one point between two crawls, as debate sites do; the new headline."""
    href = f"/debatabase/theme/{CRAWLED_PAGES[-1]}"
    headline = parse_debate("idebate", site.routes[href], site.url + href).points[0].headline
    revised = f"{headline}, and soon"
    site.routes[href] = site.routes[href].replace(headline.encode(), revised.encode(), 1)
    return revised


def crawl_again(site: LocalSite, env: dict[str, str]) -> None:
    """The site crawled afresh (not from the HTTP cache), in its own process as every crawl."""
    done = subprocess.run(
        [sys.executable, "manage.py", "crawl", "idebate", "--start-url", f"{site.url}/debatabase/all"],
        cwd=REPO, env={**env, "CRAWLER_HTTPCACHE": "0"}, capture_output=True, text=True, timeout=WAIT,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]


def run_jobs(run: PipelineRun) -> list[Job]:
    return list(Job.objects.filter(pipeline_steps__run=run).distinct().order_by("pk"))


def job_of(run: PipelineRun, task_type: str) -> Job:
    return next(job for job in run_jobs(run) if job.task_type == task_type)


def adjudicate_by_hand(expert: Client, outcome: ItemOutcome, label: str) -> dict[str, Any]:
    response = expert.post(
        f"/aggregation/jobs/{outcome.job_id}/adjudicate/{outcome.pk}/",
        {"label": label, "note": "by hand", "item": outcome.item.key},
    )
    assert response.status_code == 200, response.content
    return response.json()


def flip(label: str) -> str:
    """The other side: what an expert who disagrees with the crowd answers."""
    return "UNDERMINE" if label in ("SUPPORT", "MILDLY_SUPPORT") else "SUPPORT"


def import_release(directory: Path) -> set[int]:
    """Import the release; the cIds it brought."""
    import_perspectrum(directory)
    imported = set(Claim.objects.values_list("cid", flat=True))
    assert len(imported) == IMPORTED_CLAIMS
    return imported


def adjudicate(expert: Client, run: PipelineRun, imported: set[int], decided: Decided) -> None:
    """By hand: overrule the crowd on a crawled pair it kept, and link a crawled paragraph to a perspective
    of an imported claim; then in bulk: accept the label model's label where it is confident."""
    stance, evidence = job_of(run, "stance"), job_of(run, "evidence_verification")
    outcome = waiting_outcome(stance, crawled_claims(imported))
    decided.removed_by_people |= cluster_facts(outcome, kinds=("pair",))
    adjudicate_by_hand(expert, outcome, flip(outcome.fine_label))
    linked = unsupported_outcome(evidence, imported)
    adjudicate_by_hand(expert, linked, "SUPPORTED")
    before = corpus_facts()
    adjudicate_by_hand(expert, supported_outcome(evidence, imported), "NOT_SUPPORTED")
    unlinked = before - corpus_facts()
    assert unlinked and {fact[0] for fact in unlinked} == {"link"}, unlinked
    decided.removed_by_people |= unlinked
    decided.rejected_by_people |= unlinked
    response = expert.post(f"/aggregation/jobs/{stance.pk}/adjudicate/accept-model/", {"threshold": "0.5"})
    assert response.status_code == 302
    links = ClusterEvidence.objects.filter(cluster__claim__cid__in=imported, evidence=linked.item.evidence_id)
    assert links.filter(cluster__members__perspective=linked.item.perspective_id).exists()


def merge_and_split(expert: Client, imported: set[int], decided: Decided) -> None:
    """Merge two equivalent clusters of an imported claim; split a perspective off another one (it leaves
    the cluster's evidence behind)."""
    claim, merged = mergeable_clusters(imported)
    response = expert.post(
        f"/aggregation/claims/{claim.cid}/clusters/", {"action": "merge", "clusters": merged}
    )
    assert response.status_code == 302 and not PerspectiveCluster.objects.filter(pk=merged[1]).exists()
    source, moving = splittable_cluster(imported, exclude=merged)
    eids = source.evidence.values_list("eid", flat=True)
    decided.removed_by_people |= {("link", source.claim.cid, moving.pid, eid) for eid in eids}
    response = expert.post(
        f"/aggregation/claims/{source.claim.cid}/clusters/",
        {"action": "split", "cluster": source.pk, "perspectives": [moving.pk]},
    )
    assert response.status_code == 302 and not source.members.filter(perspective=moving).exists()


def aggregate_again(run: PipelineRun, user: User) -> None:
    """Every aggregated job of the run again, as a person asks from its dashboard."""
    for job in run_jobs(run):
        if job.state == JobState.COMPLETE and has_aggregation(job.task_type):
            aggregate_job(job.pk, user=user)


def reject_a_pair(expert: Client, run: PipelineRun, imported: set[int], decided: Decided) -> set[Fact]:
    """What a person changes after v1: a crawled pair the crowd kept is not valid after all. The facts
    that go with it."""
    outcome = waiting_outcome(job_of(run, "stance"), crawled_claims(imported))
    intended = cluster_facts(outcome)
    decided.removed_by_people |= intended
    assert adjudicate_by_hand(expert, outcome, "NOT_VALID")["status"] == Status.REJECTED
    return intended


# --- the test ----------------------------------------------------------------------------------------


def test_a_labs_project_never_loses_a_decision(
    lab_env: dict[str, str], site: LocalSite, expert: Client, expert_user: User, release_slice: Path
) -> None:
    decided = Decided()
    imported = import_release(release_slice)
    decided.check("import")
    run = services.create_run(DEMO_NAME, lab_params(site, "lab-0"))  # the run `make run` continues
    run_to_the_end(run)
    decided.check("crawl and the pipeline")
    adjudicate(expert, run, imported, decided)
    decided.check("adjudication by hand and in bulk")
    merge_and_split(expert, imported, decided)
    decided.check("merge and split")
    v1 = build_release("lab-1")
    assert release_facts(v1) == decided.check("release v1")
    adjudications = Adjudication.objects.count()

    make_run(lab_env)
    decided.check("make run again")
    report = import_perspectrum(release_slice)
    assert not report.changed and not [line for line in report.lines() if "conflict" in line], report.lines()
    decided.check("re-import of the same release")
    revised = revise_a_point(site)
    crawl_again(site, lab_env)
    decided.check("re-crawl of the site, one point reworded")
    (new_pid,) = Perspective.objects.filter(text=revised).values_list("pid", flat=True)
    aggregate_again(run, expert_user)
    decided.check("re-aggregation")
    intended = reject_a_pair(expert, run, imported, decided)
    decided.check("a person's change after v1")
    v2 = build_release("lab-2")

    lost = release_facts(v1) - intended - release_facts(v2)
    assert not lost, f"v2 lost {len(lost)} facts of v1, e.g. {sorted(lost)[:8]}"
    assert Adjudication.objects.count() == adjudications + 1
    changes = diff_releases(v1, v2)
    removed = sorted({(fact[1], fact[2]) for fact in intended if fact[0] == "pair"})
    # Exactly what changed since v1: the person's rejection and the reworded point, a new candidate.
    assert {name: n for name, n in changes.counts().items() if n} == {
        "pairs_removed": len(removed), "perspectives_added": 1,
    }  # fmt: skip
    assert changes.pairs_removed == removed and changes.perspectives_added == [new_pid]


# --- the worker killed mid-way ---------------------------------------------------------------------

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
