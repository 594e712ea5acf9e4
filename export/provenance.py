"""What the database knows about how the corpus was made, in the release's terms: the state's time,
the code version, the crawls, the crowd jobs with their pay, workers and agreement, and every response
with the worker as a keyed pseudonym. Read-only.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import subprocess
from collections import Counter
from importlib import metadata
from typing import Any

import numpy as np
from django.conf import settings
from django.db.models import Count, Max, QuerySet

from aggregation.adjudication import sample_accuracy
from aggregation.agreement import dataset_agreement, worker_agreement_with_majority
from aggregation.declared import categorical_rule, categorical_rules
from aggregation.models import RUN_FIGURES, Adjudication, AggregationRun, RunState, WorkerQuality
from aggregation.responses import Responses, ResponsesError
from aggregation.rules import AgreementRule, apply_rule_to_counts
from annotation.ledger.payments import job_payments
from annotation.market_interface.registry import get_market
from annotation.models import Assignment, AssignmentState, Item, Job, Response, ResponseOrigin
from annotation.task_types import builtin_rules, get_task_type
from annotation.work.pseudonyms import pseudonym
from annotation.work.records import pseudonym_key
from corpus.models import Claim, Evidence, Perspective, PerspectiveCluster, Status
from crawler.models import CrawlRun, Debate

# Released clusters carry the stance task type's voter counts.
STANCE_RULE = AgreementRule.declared(builtin_rules.STANCE_RULE)
LIBRARIES = ("numpy", "krippendorff", "scipy", "jsonschema", "Django")


def release_key(version: str) -> bytes:
    """The per-release pseudonym key: derived from the platform's key and the version.

    Derived rather than random so that two builds of the same state are byte-identical, and per
    release so that pseudonyms cannot be joined across releases by anyone without the platform key.
    """
    return hmac.new(pseudonym_key(), f"stancework release {version}".encode(), hashlib.sha256).digest()


def code_version() -> str:
    """`STANCEWORK_CODE_VERSION` when set (deployments without .git), else the checkout's commit."""
    configured = getattr(settings, "STANCEWORK_CODE_VERSION", "")
    if configured:
        return str(configured)
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=settings.BASE_DIR, capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return done.stdout.strip() if done.returncode == 0 else "unknown"


def state_time() -> str | None:
    """The latest change to anything a release is made of: the one time a release may carry."""
    latest = [
        Claim.objects.aggregate(t=Max("updated"))["t"],
        Perspective.objects.aggregate(t=Max("updated"))["t"],
        Evidence.objects.aggregate(t=Max("updated"))["t"],
        PerspectiveCluster.objects.aggregate(t=Max("updated"))["t"],
        Job.objects.aggregate(t=Max("updated"))["t"],
        Response.objects.aggregate(t=Max("created"))["t"],
        AggregationRun.objects.aggregate(t=Max("created"))["t"],
        Adjudication.objects.aggregate(t=Max("decided_at"))["t"],
    ]
    known = [t for t in latest if t is not None]
    return max(known).isoformat() if known else None


def library_versions() -> dict[str, str]:
    return {name: metadata.version(name) for name in LIBRARIES}


def _number(value: float | None, digits: int = 6) -> float | None:
    """JSON has no NaN: an undefined figure is null."""
    return None if value is None or math.isnan(value) else round(float(value), digits)


def crawl_record() -> dict[str, Any]:
    runs = [
        {
            "id": run.pk,
            "site": run.site,
            "mode": run.mode,
            "archive_from": run.archive_from,
            "archive_to": run.archive_to,
            "status": run.status,
            "pages": run.pages,
            "items": run.items,
            "drops": run.drops,
        }
        for run in CrawlRun.objects.order_by("pk")
    ]
    crawled = Claim.objects.filter(text_missing=False, debates__isnull=False).distinct().count()
    total = Claim.objects.filter(text_missing=False).count()
    return {
        "runs": runs,
        "debates_by_site": dict(
            sorted(Counter(Debate.objects.values_list("site", flat=True)).items())  # type: ignore[arg-type]
        ),
        "claims_with_crawl_record": crawled,
        "claims_without_crawl_record": total - crawled,
    }


def annotation_rows(key: bytes, *, machine_labels: bool = True) -> list[dict[str, Any]]:
    """Every response, ordered by job, item and pseudonym; workers only as pseudonyms under `key`.
    A machine's label names its model and prompt version; without `machine_labels` it is left out."""
    responses = Response.objects.select_related(
        "job", "item", "worker__machine", "item__claim", "item__perspective", "item__evidence"
    ).order_by("job_id", "item__key", "pk")
    if not machine_labels:
        responses = responses.exclude(origin=ResponseOrigin.MACHINE)
    rows = [_response_row(response, key) for response in responses]
    rows += expert_rows(key)
    rows.sort(key=lambda row: (row["job_id"], row["item"], row["origin"], row["worker"]))
    return rows


def _response_row(response: Response, key: bytes) -> dict[str, Any]:
    machine = getattr(response.worker, "machine", None) if response.origin == ResponseOrigin.MACHINE else None
    return {
        **_item_fields(response.job, response.item),
        "worker": pseudonym(response.worker.market, response.worker.external_id, key),
        "label": response.label,
        "value": response.value,
        "gold": response.is_gold,
        "simulated": response.simulated,
        "origin": response.origin,
        "model": machine.model_name if machine else None,
        "prompt_version": (machine.prompt_version or None) if machine else None,
    }


def contributing_jobs() -> QuerySet[Job]:
    """The jobs a release is made from: those with at least one response (a draft or a job nobody
    worked on gave the release nothing)."""
    return Job.objects.filter(pk__in=Response.objects.values("job_id")).order_by("pk")


def expert_rows(key: bytes) -> list[dict[str, Any]]:
    """Each expert's latest decision on an item, as a label of origin "expert"; the expert only as a
    keyed pseudonym of their account."""
    latest: dict[tuple[int, int | None], Adjudication] = {}
    for decision in Adjudication.objects.select_related(
        "outcome__item__claim", "outcome__item__perspective", "outcome__item__evidence", "job"
    ).order_by("decided_at", "pk"):
        latest[(decision.outcome_id, decision.decided_by_id)] = decision
    return [_expert_row(decision, key) for decision in latest.values()]


def _item_fields(job: Job, item: Item) -> dict[str, Any]:
    """What a release line says of the labelled item: its job, task, key, and corpus ids."""
    return {
        "job_id": job.pk,
        "task_type": job.task_type,
        "item": item.key,
        "claim_id": item.claim.cid if item.claim else None,
        "perspective_id": item.perspective.pid if item.perspective else None,
        "evidence_id": item.evidence.eid if item.evidence else None,
    }


def _expert_row(decision: Adjudication, key: bytes) -> dict[str, Any]:
    return {
        **_item_fields(decision.job, decision.outcome.item),
        "worker": pseudonym("expert", str(decision.decided_by_id), key),
        "label": decision.new_label,
        "value": None,
        "gold": False,
        "simulated": False,
        "origin": "expert",
        "model": None,
        "prompt_version": None,
    }


def label_orders() -> dict[str, list[str]]:
    """The answer labels, in their order, of each released task type whose answers are one label each
    (the label distributions' columns); multi-label and free-text tasks have none."""
    names = Job.objects.order_by().values_list("task_type", flat=True).distinct()
    return {
        name: [value for value, _ in get_task_type(name).labels]
        for name in sorted(names)
        if categorical_rule(name) is not None and get_task_type(name).labels
    }


def jobs_record(key: bytes) -> list[dict[str, Any]]:
    """Per contributing job: what it asked, of whom, what it paid, and how much the workers agreed."""
    return [_job(job, key) for job in contributing_jobs()]


def _job(job: Job, key: bytes) -> dict[str, Any]:
    done = Assignment.objects.filter(job=job, state__in=AssignmentState.done())
    responses = Response.objects.filter(job=job)
    simulated = get_market(job.market).simulated or responses.filter(simulated=True).exists()
    return {
        "id": job.pk,
        "name": job.name,
        "task_type": job.task_type,
        "market": job.market,
        "simulated": simulated,
        "state": job.state,
        "params": job.params,
        "filters": job.filters,
        "workers_per_item": job.workers_per_item,
        "reward_per_hit": str(job.reward),
        "items": job.items.count(),
        "hits": job.hits.count(),
        "assignments_done": done.count(),
        "responses": responses.count(),
        "workers": responses.aggregate(n=Count("worker", distinct=True))["n"],
        "pay": job_payments(job).as_dict(),
        "agreement": job_agreement(job, key),
    }


def job_agreement(job: Job, key: bytes) -> dict[str, Any] | None:
    """ρ, Fleiss' κ, Krippendorff's α and per-worker agreement for a job with categorical answers."""
    rule = categorical_rule(job.task_type)
    if rule is None:
        return None  # free-text or multi-label answers (paraphrase writing, topics): no label agreement
    rows = list(
        Response.objects.filter(job=job, is_gold=False)
        .order_by("item_id", "worker_id")
        .values_list("item_id", "worker__market", "worker__external_id", "label")
    )
    if not rows:
        return {"rule": rule.as_dict(), "responses": 0, "note": "no responses yet"}
    items = [row[0] for row in rows]
    workers = [pseudonym(market, external, key) for _, market, external, _ in rows]
    try:
        responses = Responses.from_columns(
            items, workers, [row[3] for row in rows], rule.answer_set, require_overlap=False
        )
    except ResponsesError as error:
        return {"rule": rule.as_dict(), "responses": len(rows), "note": str(error)}
    return {"rule": rule.as_dict(), **count_agreement(responses.counts(), rule), **_workers(responses)}


def count_agreement(counts: Any, rule: AgreementRule) -> dict[str, Any]:
    """Agreement figures of an (items × answer labels) count matrix under `rule`."""
    matrix = np.asarray(counts, dtype=np.int64)
    decided = rule.collapse.counts(matrix) if rule.collapse is not None else matrix
    rated = int(np.count_nonzero(decided.sum(axis=1) >= 2))
    outcome = apply_rule_to_counts(np.arange(len(matrix)), matrix, rule)
    figures: dict[str, Any] = {"items": len(matrix), "items_with_two_ratings": rated, **outcome.summary()}
    if rated:
        agreement = dataset_agreement(decided)
        figures["mean_rho"] = _number(agreement.mean_rho)
        figures["fleiss_kappa"] = _number(agreement.fleiss_kappa)
        figures["krippendorff_alpha"] = _number(agreement.krippendorff_alpha)
    return figures


def _workers(responses: Responses) -> dict[str, Any]:
    agreement = worker_agreement_with_majority(responses)
    answered = responses.responses_per_worker()
    return {
        "workers": [
            {
                "worker": str(worker),
                "responses": int(answered[i]),
                "agreement_with_majority": _number(agreement[i]),
            }
            for i, worker in enumerate(responses.workers.tolist())
        ]
    }


def cluster_agreement() -> dict[str, Any]:
    """Agreement over the released clusters' stored voter counts (e.g. an imported release's)."""
    counts = [
        votes
        for votes in PerspectiveCluster.objects.filter(status__in=Status.released())
        .order_by("claim__cid", "position")
        .values_list("voter_counts", flat=True)
        if isinstance(votes, list) and len(votes) == len(STANCE_RULE.answer_set) and sum(votes) > 0
    ]
    if not counts:
        return {"clusters": 0}
    return {"clusters": len(counts), "rule": STANCE_RULE.as_dict(), **count_agreement(counts, STANCE_RULE)}


def agreement_record(jobs: list[dict[str, Any]], key: bytes) -> dict[str, Any]:
    return {
        "label_models": worker_quality(key),
        "library_versions": library_versions(),
        "label_maps": {"stance-5 to stance-3": builtin_rules.STANCE_5_TO_3},
        "released_clusters_voter_counts": cluster_agreement(),
        "jobs": [{"job_id": job["id"], **job["agreement"]} for job in jobs if job["agreement"]],
        "aggregation_runs": aggregation_runs(),
        "adjudication_samples": adjudication_samples(),
    }


def aggregation_runs() -> list[dict[str, Any]]:
    """Every completed aggregation run: its rule and policy, label model, figures, library versions."""
    fields = (
        "pk",
        "job_id",
        "task_type",
        "rule",
        "policy",
        "label_model",
        *RUN_FIGURES,
        "versions",
    )
    return [
        {
            **{
                ("id" if name == "pk" else name): value
                for name, value in row.items()
                if not isinstance(value, float)
            },
            **{name: _number(value) for name, value in row.items() if isinstance(value, float)},
        }
        for row in AggregationRun.objects.filter(state=RunState.DONE).order_by("pk").values(*fields)
    ]


def adjudication_samples() -> list[dict[str, Any]]:
    """Per job with a sample: the crowd's label against the expert's (the paper's 94% / 87.7%)."""
    found = []
    for job in Job.objects.filter(item_outcomes__sampled=True).distinct().order_by("pk"):
        figures = sample_accuracy(job)
        found.append(
            {
                "job_id": job.pk,
                "sampled": figures.sampled,
                "adjudicated": figures.adjudicated,
                "crowd_agrees": figures.agreeing,
                "accuracy": _number(figures.accuracy),
            }
        )
    return found


def worker_quality(key: bytes) -> list[dict[str, Any]]:
    """The label model's reliability and the agreement of every worker, per run, as pseudonyms."""
    rows = WorkerQuality.objects.filter(run__state=RunState.DONE).select_related("worker", "run")
    found = [
        {
            "run_id": quality.run_id,
            "job_id": quality.job_id,
            "label_model": quality.run.label_model,
            "worker": pseudonym(quality.worker.market, quality.worker.external_id, key),
            "responses": quality.responses,
            "agreement_with_majority": _number(quality.agreement),
            "reliability": _number(quality.reliability),
            "gold_answered": quality.gold_answered,
            "gold_correct": quality.gold_correct,
            "flagged": quality.flagged,
        }
        for quality in rows
    ]
    return sorted(found, key=lambda row: (row["run_id"], row["worker"]))


def rules_record() -> dict[str, Any]:
    applied = (
        PerspectiveCluster.objects.exclude(rule="")
        .values("rule")
        .annotate(clusters=Count("pk"))
        .order_by("rule")
    )
    return {
        "defaults": {task: rule.as_dict() for task, rule in sorted(categorical_rules().items())},
        "released_statuses": sorted(Status.released()),
        "applied": [{"rule": row["rule"], "clusters": row["clusters"]} for row in applied],
    }
