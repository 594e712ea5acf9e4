"""Where the search backends meet the corpus: backend choice, index sync and rebuild, candidates.

The candidate functions here read the corpus and call search/candidates.py; the annotation app
turns what they return into job items.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Sequence
from functools import cache
from pathlib import Path

from django.conf import settings

from config.progress import QUIET, Progress
from corpus.models import Claim, Evidence, Perspective, PerspectiveCluster, Split, Status
from corpus.services import cluster_contents
from operations.queueing import registered_task
from search import candidates, dense, finetune
from search.base import Doc, Kind, SearchBackend
from search.embeddings import CachedEncoder
from search.finetune import TUNED_MODEL, is_trained
from search.hybrid import HybridSearch
from search.ranking import HybridParams
from search.websources import BraveSearchSource, FileWebSource, WebSearchSource

logger = logging.getLogger(__name__)

# The task that syncs an index (search/tasks.py registers it under this name).
SYNC_INDEX_TASK = "search.tasks.sync_index_task"

# "best": the MiniLM fine-tuned here (`manage.py train_ranker`) if trained, else the packaged MiniLM,
# else BM25 alone when the dense extra is not installed. "hybrid": the packaged MiniLM always.
RANKINGS = ("bm25", "hybrid", "best")
# Per candidate step, how hybrid ranking is set up (see search/ranking.py for the figures).
# Evidence: the measured best, diversity included, so one paragraph's candidates span clusters.
EVIDENCE_RANKING = HybridParams()
# Paraphrase hints: near-duplicates of the perspective are exactly the useful hints, so no diversity.
PARAPHRASE_RANKING = HybridParams(diversity="none")
# Claim pairs: claims are their own reference set, so hub correction would only count each claim
# as its own hub; and the near-duplicate pairs are the ones wanted, so no diversity either.
CLAIM_PAIR_RANKING = HybridParams(bm25_weight=0.1, hub_k=0, smoothing=0, diversity="none")


# The kinds kept in step with the corpus (web sentences live in an index only until they are ingested).
INDEXED_KINDS = (Kind.PERSPECTIVE, Kind.EVIDENCE, Kind.CLAIM)


class SearchConfigError(ValueError):
    """SEARCH_BACKEND, SEARCH_RANKING or WEB_SEARCH_SOURCE names something that does not exist."""


@cache
def get_backend() -> SearchBackend:
    """The backend named by SEARCH_BACKEND (one per process: opening indexes is not free)."""
    name = settings.SEARCH_BACKEND
    if name == "embedded":
        from search.embedded import EmbeddedBackend

        return EmbeddedBackend(settings.SEARCH_INDEX_DIR)
    if name == "elasticsearch":
        from search.elastic import ElasticsearchBackend

        return ElasticsearchBackend.from_url(settings.ELASTICSEARCH_URL, settings.SEARCH_INDEX_PREFIX)
    raise SearchConfigError(f"SEARCH_BACKEND={name!r}: use 'embedded' or 'elasticsearch'")


def tuned_model_dir() -> Path:
    """Where `train_ranker` keeps the MiniLM fine-tuned on the corpus's train-split claims."""
    return Path(settings.SEARCH_INDEX_DIR) / "models" / TUNED_MODEL


@cache
def get_encoder(tuned: bool = False) -> dense.Encoder:
    """The sentence encoder, vectors cached on disk (DenseUnavailableError if no extra).

    The fine-tuned model keeps its vectors inside its own folder, so retraining drops them.
    """
    if tuned:
        folder = tuned_model_dir()
        return CachedEncoder(dense.load_encoder(folder), folder / "embeddings.npz")
    return CachedEncoder(
        dense.load_encoder(), settings.SEARCH_INDEX_DIR / "embeddings" / f"{dense.PACKAGED}.npz"
    )


def _dense_ranking() -> tuple[dense.Encoder, str] | None:
    """The encoder SEARCH_RANKING asks for and its name, or None to rank by BM25 alone."""
    name = settings.SEARCH_RANKING
    if name not in RANKINGS:
        raise SearchConfigError(f"SEARCH_RANKING={name!r}: use one of {', '.join(RANKINGS)}")
    if name == "bm25":
        return None
    tuned = name == "best" and is_trained(tuned_model_dir())
    try:
        encoder = get_encoder(tuned)
    except dense.DenseUnavailableError as error:
        if name == "hybrid":
            logger.warning("SEARCH_RANKING=hybrid, ranking by BM25 instead: %s", error)
        return None
    return encoder, f"hybrid:{TUNED_MODEL if tuned else dense.PACKAGED}"


def ranking_name() -> str:
    """What candidates are ranked by now, as releases record it: 'bm25' or 'hybrid:<model>'."""
    found = _dense_ranking()
    return "bm25" if found is None else found[1]


def ranking_backend(params: HybridParams, hub_reference: bool = True) -> SearchBackend:
    """The backend candidate generation searches with, as SEARCH_RANKING says.

    BM25 is the index backend itself. A dense ranking re-ranks its hits with dense similarity over
    the corpus (claims as hub reference queries when `hub_reference`); without the dense extra it
    falls back to BM25 ('hybrid' warns: it was asked for by name), so a pipeline does not stop for a
    missing optional wheel.
    """
    backend = get_backend()
    found = _dense_ranking()
    if found is None:
        return backend
    reference = _claim_texts if hub_reference else None
    return HybridSearch(backend, found[0], corpus_documents, params, reference)


def _claim_texts() -> list[str]:
    return [doc.text for doc in corpus_documents(Kind.CLAIM)]


def get_web_source() -> WebSearchSource:
    """The web source named by WEB_SEARCH_SOURCE: 'brave' (with WEB_SEARCH_API_KEY) or a file path."""
    name = settings.WEB_SEARCH_SOURCE
    if name == "brave":
        return BraveSearchSource(settings.WEB_SEARCH_API_KEY)
    if name:
        from pathlib import Path

        return FileWebSource(Path(name))
    raise SearchConfigError("WEB_SEARCH_SOURCE is not set: 'brave' or the path of a sentences file")


def corpus_documents(kind: Kind, ids: Iterable[int] | None = None) -> list[Doc]:
    """The corpus texts of a kind (all, or those with the given public ids) as index documents."""
    if kind == Kind.PERSPECTIVE:
        rows = Perspective.objects.all()
        field = "pid"
    elif kind == Kind.EVIDENCE:
        rows = Evidence.objects.filter(text_missing=False)  # type: ignore[assignment]
        field = "eid"
    elif kind == Kind.CLAIM:
        rows = Claim.objects.filter(text_missing=False)  # type: ignore[assignment]
        field = "cid"
    else:
        return []  # web sentences live in the index only until they become perspectives
    if ids is not None:
        rows = rows.filter(**{f"{field}__in": list(ids)})
    return [Doc(public_id, text) for public_id, text in rows.values_list(field, "text") if text]


def rebuild_index(kinds: Sequence[Kind] = INDEXED_KINDS, progress: Progress = QUIET) -> dict[Kind, int]:
    """Empty and refill each kind's index from the corpus; returns the documents written per kind."""
    backend = get_backend()
    written = {}
    for kind in kinds:
        with progress.stage(f"index {kind}", unit="documents") as done:
            backend.clear(kind)
            written[kind] = backend.index(kind, corpus_documents(kind))
            done(written[kind])
    return written


def sync_index(kind: Kind, ids: Sequence[int]) -> None:
    """Make the index agree with the corpus for these ids: re-index those that exist, drop the rest."""
    docs = corpus_documents(kind, ids)
    backend = get_backend()
    if docs:
        backend.index(kind, docs)
    missing = set(ids) - {d.id for d in docs}
    if missing:
        backend.delete(kind, sorted(missing))


# Ids saved in the current thread, waiting for the transaction to commit. Every save registers an
# on_commit flush, but only the first flush finds anything: one task per kind per transaction.
_pending = threading.local()


def schedule_sync(kind: Kind, public_id: int) -> None:
    """Queue an index sync for one saved or deleted object, sent after the transaction commits."""
    from django.db import transaction

    if not settings.SEARCH_SYNC:
        return
    queued: dict[Kind, set[int]] = getattr(_pending, "ids", None) or {}
    _pending.ids = queued
    queued.setdefault(kind, set()).add(public_id)
    transaction.on_commit(_flush_pending)


def _flush_pending() -> None:
    queued: dict[Kind, set[int]] = getattr(_pending, "ids", None) or {}
    _pending.ids = {}
    for kind, ids in queued.items():
        registered_task(SYNC_INDEX_TASK).delay(str(kind), sorted(ids))


def _released_perspectives() -> dict[int, str]:
    """pid → text of perspectives in a kept or adjudicated cluster (step 3 indexes these)."""
    rows = Perspective.objects.filter(clusters__status__in=Status.released()).distinct()
    return dict(rows.values_list("pid", "text"))


def evidence_verification_candidates(
    eids: Sequence[int] | None = None, k: int = 8
) -> list[candidates.EvidenceCandidates]:
    """Step 3: for each evidence paragraph (all with text, or `eids`) its top k retained perspectives."""
    paragraphs = corpus_documents(Kind.EVIDENCE, eids)
    backend = ranking_backend(EVIDENCE_RANKING)
    return candidates.evidence_candidates(backend, paragraphs, _released_perspectives(), k)


def paraphrase_hint_candidates(pids: Sequence[int], k: int = 15) -> list[candidates.ParaphraseHints]:
    """Step 2b: up to k hint sentences for each perspective, leaving out its own cluster."""
    cluster_members: dict[int, set[int]] = {}
    for cluster in PerspectiveCluster.objects.filter(perspectives__pid__in=pids).prefetch_related(
        "perspectives"
    ):
        members = {p.pid for p in cluster.perspectives.all()}
        for pid in members & set(pids):
            cluster_members.setdefault(pid, set()).update(members)
    hint_texts = dict(Perspective.objects.filter(quality_flag="").values_list("pid", "text"))
    docs = corpus_documents(Kind.PERSPECTIVE, pids)
    backend = ranking_backend(PARAPHRASE_RANKING)
    return candidates.paraphrase_hints(backend, docs, hint_texts, k, cluster_members)


def web_perspective_candidates(
    cid: int, k: int = 10, source: WebSearchSource | None = None
) -> list[candidates.WebCandidate]:
    """Step 2c for one claim: web sentences for "claim + perspective" over its retained perspectives."""
    claim = Claim.objects.get(cid=cid)
    originals = (
        Perspective.objects.filter(
            memberships__position=0,
            memberships__cluster__claim=claim,
            memberships__cluster__status__in=Status.released(),
        )
        .distinct()
        .values_list("pid", "text")
    )
    perspectives = [Doc(pid, text) for pid, text in originals]
    return candidates.web_candidates(source or get_web_source(), Doc(claim.cid, claim.text), perspectives, k)


def similar_claim_pair_candidates(n: int = 350) -> list[candidates.ClaimPair]:
    """Step 2d: the n most similar pairs among claims with text."""
    claims = corpus_documents(Kind.CLAIM)
    backend = ranking_backend(CLAIM_PAIR_RANKING, hub_reference=False)
    return candidates.similar_claim_pairs(backend, claims, n)


def ranker_training_claims() -> list[tuple[str, list[str]]]:
    """(claim text, its released perspectives' texts) for every train-split claim, by claim text.

    Only train-split claims are read, so the dev and test claims a release reports on stay unseen.
    """
    clusters = PerspectiveCluster.objects.filter(
        claim__split=Split.TRAIN, status__in=Status.released()
    ).select_related("claim")
    members, _ = cluster_contents(clusters)
    wanted = {pid for pids in members.values() for pid in pids}
    text = dict(Perspective.objects.filter(pid__in=wanted).values_list("pid", "text"))
    by_claim: dict[str, list[str]] = {}
    for cluster in clusters.order_by("claim__cid", "position"):
        by_claim.setdefault(cluster.claim.text, []).extend(text[pid] for pid in members.get(cluster.pk, []))
    return sorted((claim, texts) for claim, texts in by_claim.items() if texts)


def train_ranker(*, epochs: int = 1, seed: int = 0) -> finetune.Training:
    """Fine-tune the packaged MiniLM on `ranker_training_claims()`; SEARCH_RANKING=best then uses it."""
    claims = ranker_training_claims()
    if not claims:
        raise SearchConfigError("no train-split claim has released perspectives: split the claims first")
    training = finetune.fine_tune(claims, tuned_model_dir(), epochs=epochs, seed=seed)
    get_encoder.cache_clear()
    dense.forget(tuned_model_dir())
    return training
