"""Candidate generation turned into crowd jobs (docs/design/construction.md, steps 2a–3; issue 7's
candidates).

Retrieval (search/) proposes; these services create the annotation jobs that `publish_job` and
`sync_job` then run. Each returns None when there is nothing to annotate.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from django.db import transaction
from django.db.models import Max

from annotation.market_interface.registry import is_simulated
from annotation.models import Job
from annotation.task_types import get_task_type
from annotation.task_types.counter_speech import doubling_bonus_cap
from annotation.work.job_errors import NoItemsError
from annotation.work.jobs import create_job
from corpus.models import (
    SIDE_OF,
    Claim,
    ClusterMember,
    Evidence,
    Origin,
    Perspective,
    PerspectiveCluster,
    Stance3,
    Status,
)
from corpus.provenance import Writer
from corpus.services import allocate_ids
from pipeline.counter_speeches import counter_speech_questions
from search import services as search
from search.candidates import WebCandidate
from search.websources import FileWebSource, WebSearchSource

WEB_SOURCE = "web"


def _create(
    task_type: str,
    filters: dict[str, Any],
    params: dict[str, Any],
    name: str,
    extra: dict[str, Any] | None = None,
) -> Job | None:
    job_params: dict[str, Any] = {"seed": params.get("crowd", {}).get("seed", 0), **(extra or {})}
    if is_simulated(params["market"]):
        job_params["crowd"] = dict(params.get("crowd", {}))
    try:
        return create_job(task_type, filters, market=params["market"], params=job_params, name=name)
    except NoItemsError:
        return None


def kept_originals(claims: Sequence[int]) -> list[int]:
    """pIds of the original perspectives of the claims' kept (or adjudicated) clusters."""
    return list(
        ClusterMember.objects.filter(
            position=0, cluster__claim__cid__in=claims, cluster__status__in=Status.released()
        )
        .order_by("perspective__pid")
        .values_list("perspective__pid", flat=True)
        .distinct()
    )


def stance_job(
    claims: Sequence[int],
    params: dict[str, Any],
    status: str,
    name: str = "stance verification",
    machine: dict[str, Any] | None = None,
) -> Job | None:
    """Step 2a: every `status` claim–perspective pair of the claims; with `machine` (a job's machine
    plan), a machine beside the crowd."""
    extra = dict(params.get("stance_redundancy") or {})
    if machine:
        extra["machine"] = dict(machine)
    filters = {"claims": list(claims), "status": status}
    return _create("stance", filters, params, name, extra)


def paraphrase_writing_job(claims: Sequence[int], params: dict[str, Any]) -> Job | None:
    """Step 2b: paraphrases of each kept perspective, with up to `hints` retrieved hint sentences."""
    pids = kept_originals(claims)
    if not pids:
        return None
    search.rebuild_index()
    hints = {
        str(found.perspective_id): [hint.text for hint in found.hints]
        for found in search.paraphrase_hint_candidates(pids, k=int(params["hints"]))
    }
    filters = {
        "claims": list(claims),
        "status": Status.released(),
        "hints": hints,
        "candidates_ranked_by": search.ranking_name(),
    }
    return _create("paraphrase_writing", filters, params, "paraphrase writing")


def paraphrase_verification_job(claims: Sequence[int], params: dict[str, Any]) -> Job | None:
    """Step 2b: same/different for each candidate paraphrase of the claims' kept perspectives."""
    filters = {"claims": list(claims), "status": Status.released()}
    return _create("paraphrase_verification", filters, params, "paraphrase verification")


def web_perspective_job(
    claims: Sequence[int], params: dict[str, Any], source: WebSearchSource | None = None
) -> Job | None:
    """Step 2c: web sentences like "claim + perspective" become candidate perspectives, then a stance job."""
    source = source or web_source(params)
    added = 0
    for cid in claims:
        found = search.web_perspective_candidates(cid, k=int(params["web_sentences"]), source=source)
        added += add_web_candidates(cid, found)
    if (
        not added
        and not PerspectiveCluster.objects.filter(
            claim__cid__in=claims, status=Status.CANDIDATE, members__perspective__origin=Origin.WEB
        ).exists()
    ):
        return None
    # A stance job, named for its step: the job lists call it what a researcher ran.
    return stance_job(claims, params, Status.CANDIDATE, "web perspectives: stance of web sentences")


def web_source(params: dict[str, Any]) -> WebSearchSource:
    path = params.get("web_source_file")
    return FileWebSource(Path(path)) if path else search.get_web_source()


def add_web_candidates(cid: int, found: Sequence[Any]) -> int:
    """One candidate cluster per new web sentence. Its crawled side is the side of the perspective
    that found it, a hint (used only as the simulated crowd's answer and for the gold check)."""
    claim = Claim.objects.get(cid=cid)
    present, side = _heads(claim)
    fresh = [candidate for candidate in found if candidate.text not in present]
    stamp = Writer.process("web search candidates").fields()
    with transaction.atomic():
        ids = allocate_ids(Perspective, len(fresh))
        last = PerspectiveCluster.objects.filter(claim=claim).aggregate(top=Max("position"))["top"]
        first = 0 if last is None else last + 1
        for position, (candidate, pid) in enumerate(zip(fresh, ids, strict=True), start=first):
            _add_web_cluster(claim, candidate, pid, position, side.get(candidate.perspective_id, ""), stamp)
    return len(fresh)


def _heads(claim: Claim) -> tuple[set[str], dict[int, str]]:
    """The texts heading the claim's clusters, and the side each head's cluster takes (by pid)."""
    heads = ClusterMember.objects.filter(cluster__claim=claim, position=0)
    present = set(heads.values_list("perspective__text", flat=True))
    side = {
        pid: SIDE_OF.get(Stance3(stance), "") if stance else ""
        for pid, stance in heads.values_list("perspective__pid", "cluster__stance_3")
    }
    return present, side


def _add_web_cluster(
    claim: Claim, candidate: WebCandidate, pid: int, position: int, side: str, stamp: dict[str, Any]
) -> None:
    """The web sentence as a web perspective, alone in a candidate cluster at `position`."""
    perspective = Perspective.objects.create(
        pid=pid,
        text=candidate.text,
        origin=Origin.WEB,
        source=WEB_SOURCE,
        source_url=candidate.url[:2000],
        **stamp,
    )
    cluster = PerspectiveCluster.objects.create(
        claim=claim,
        position=position,
        status=Status.CANDIDATE,
        source_side=side,
        rule=f"web candidate for p{candidate.perspective_id} (score {candidate.score:.2f})",
        **stamp,
    )
    ClusterMember.objects.create(cluster=cluster, perspective=perspective, position=0, **stamp)


def evidence_job(claims: Sequence[int], params: dict[str, Any]) -> Job | None:
    """Step 3: each evidence paragraph of the claims × its top retrieved kept perspectives."""
    eids = list(
        Evidence.objects.filter(clusters__claim__cid__in=claims, text_missing=False)
        .values_list("eid", flat=True)
        .distinct()
    )
    if not eids:
        return None
    search.rebuild_index()
    candidates = {
        str(found.evidence_id): [scored.id for scored in found.perspectives]
        for found in search.evidence_verification_candidates(eids, k=int(params["evidence_candidates"]))
    }
    filters = {
        "claims": list(claims),
        "status": Status.released(),
        "candidates": candidates,
        "candidates_ranked_by": search.ranking_name(),
    }
    return _create("evidence_verification", filters, params, "evidence verification")


def topic_job(claims: Sequence[int], params: dict[str, Any]) -> Job | None:
    return _create("topic_tagging", {"claims": list(claims)}, params, "topic tagging")


def vast_job(claims: Sequence[int], params: dict[str, Any]) -> Job | None:
    """VAST topic + stance: kept perspectives and their evidence of the first `vast_claims` claims
    that have a topic (the topics step's), that topic proposed to the workers."""
    tagged = Claim.objects.filter(cid__in=claims, claim_topics__isnull=False).distinct().order_by("cid")
    chosen = list(tagged.values_list("cid", flat=True)[: int(params["vast_claims"])])
    if not chosen:
        return None
    filters = {"claims": chosen, "status": Status.released()}
    return _create("vast_stance", filters, params, "VAST topic + stance")


def counter_speech_job(claims: Sequence[int], params: dict[str, Any]) -> Job | None:
    """Counter-speech selection over the claims' crawled points (at most `counter_speech_questions`),
    with a bonus cap that lets every correct answer double its pay."""
    seed = int(params.get("crowd", {}).get("seed", 0))
    questions = counter_speech_questions(claims, int(params["counter_speech_questions"]), seed)
    if not questions:
        return None
    cap = doubling_bonus_cap(len(questions), get_task_type("counter_speech").params())
    extra = {"bonus_cap": str(cap)}
    return _create("counter_speech", {"questions": questions}, params, "counter-speech selection", extra)


def similar_claim_pairs(params: dict[str, Any]) -> list[dict[str, Any]]:
    """Step 2d: the most similar claim pairs, for the expert's side-by-side view."""
    search.rebuild_index()
    return [
        {"first": pair.first_id, "second": pair.second_id, "score": round(pair.score, 4)}
        for pair in search.similar_claim_pair_candidates(int(params["similar_claim_pairs"]))
    ]
