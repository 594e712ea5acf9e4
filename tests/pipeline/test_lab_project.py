"""A lab's whole project, as it really goes, on PostgreSQL: nothing already decided is ever lost.

import (a slice of PERSPECTRUM) → crawl (saved idebate pages served from 127.0.0.1) → the pipeline with
the simulated crowd → adjudicate by hand and in bulk → merge and split clusters → release v1; then
`make run` again (migrate, setup_demo) → re-import → re-crawl (one point reworded) → re-aggregate →
release v2. After every step, each released fact of the corpus before it (a claim–perspective pair with
its labels, an evidence link) must still hold unless a person removed it; v1 → v2 differs by exactly what
a person and the site changed. The lab (its release slice, site and expert) is in conftest.py and lab.py.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from aggregation.models import Adjudication, ItemOutcome
from aggregation.services import aggregate_job, has_aggregation
from annotation.models import Job, JobState
from corpus.models import Claim, ClusterEvidence, Perspective, PerspectiveCluster, Status
from corpus.services import import_perspectrum
from crawler.local_site import LocalSite
from crawler.parsing import parse_debate
from export.services import build_release, diff_releases
from pipeline import services
from pipeline.demo import DEMO_NAME
from pipeline.models import PipelineRun, StepState
from tests.pipeline.lab import (
    CRAWLED_PAGES,
    REPO,
    WAIT,
    Decided,
    Fact,
    corpus_facts,
    import_release,
    lab_params,
    release_facts,
    run_jobs,
)

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


# --- what the lab decides on -------------------------------------------------------------------------


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


# --- the steps ---------------------------------------------------------------------------------------


def run_to_the_end(run: PipelineRun) -> None:
    """Run the pipeline, polling the crawl (a process of its own) as `make run` does, bounded."""
    deadline = time.monotonic() + WAIT
    steps = services.run_all(run.pk)
    while steps[-1].state == StepState.WAITING and time.monotonic() < deadline:
        time.sleep(0.5)
        steps = services.run_all(run.pk)
    assert [s.state for s in steps][-1] == StepState.DONE, [(s.name, s.state, s.message) for s in steps]


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
