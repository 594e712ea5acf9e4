"""Candidate generation for the crowd steps (docs/design/construction.md, the steps): plain item lists, no
database.

Each function takes a search backend (or a web source) and plain (id, text) records, and returns
frozen dataclasses that an annotation job turns into items. `search/services.py` has the same
functions reading their input from the corpus. Every count is an argument with the paper's default.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from search.base import Doc, Hit, Kind, SearchBackend
from search.embedded import EmbeddedBackend
from search.websources import WebSearchSource, WebSentence, sentences


@dataclass(frozen=True, slots=True)
class Scored:
    id: int
    text: str
    score: float


@dataclass(frozen=True, slots=True)
class EvidenceCandidates:
    """Step 3: one evidence paragraph and the perspectives it may substantiate, best first."""

    evidence_id: int
    perspectives: tuple[Scored, ...]


@dataclass(frozen=True, slots=True)
class ParaphraseHints:
    """Step 2b: sentences similar to a perspective, shown to paraphrase writers as hints."""

    perspective_id: int
    hints: tuple[Scored, ...]


@dataclass(frozen=True, slots=True)
class WebCandidate:
    """Step 2c: a web sentence to annotate for stance toward `claim_id`, found via `perspective_id`."""

    claim_id: int
    perspective_id: int
    url: str
    text: str
    score: float


@dataclass(frozen=True, slots=True)
class ClaimPair:
    """Step 2d: two claims whose perspectives an expert compares; `first_id` < `second_id`."""

    first_id: int
    second_id: int
    score: float


def _scored(hits: Iterable[Hit], texts: dict[int, str]) -> tuple[Scored, ...]:
    return tuple(Scored(h.id, texts.get(h.id, ""), h.score) for h in hits)


def evidence_candidates(
    backend: SearchBackend,
    paragraphs: Iterable[Doc],
    perspective_texts: dict[int, str],
    k: int = 8,
) -> list[EvidenceCandidates]:
    """For each evidence paragraph (id = eid) its top k perspectives from the perspective index.

    `perspective_texts` maps pid → text for the items; perspectives absent from it (e.g. ones not
    retained in step 2a) are skipped, so the index may hold more than the candidates allowed.
    """
    out = []
    for paragraph in paragraphs:
        hits = backend.search(Kind.PERSPECTIVE, paragraph.text, k * 4)
        allowed = [h for h in hits if h.id in perspective_texts][:k]
        out.append(EvidenceCandidates(paragraph.id, _scored(allowed, perspective_texts)))
    return out


def paraphrase_hints(
    backend: SearchBackend,
    perspectives: Iterable[Doc],
    hint_texts: dict[int, str],
    k: int = 15,
    exclude: dict[int, set[int]] | None = None,
) -> list[ParaphraseHints]:
    """For each perspective (id = pid) up to k similar perspectives from the index as hints.

    The perspective itself never hints at itself; `exclude` maps a pid to more pids to leave out
    (its cluster, whose members are already paraphrases). `hint_texts` maps pid → text.
    """
    exclude = exclude or {}
    out = []
    for perspective in perspectives:
        banned = {perspective.id, *exclude.get(perspective.id, set())}
        hits = backend.search(Kind.PERSPECTIVE, perspective.text, k + len(banned))
        kept = [h for h in hits if h.id not in banned and h.id in hint_texts][:k]
        out.append(ParaphraseHints(perspective.id, _scored(kept, hint_texts)))
    return out


def web_candidates(
    source: WebSearchSource,
    claim: Doc,
    perspectives: Sequence[Doc],
    k: int = 10,
    results_per_query: int = 10,
) -> list[WebCandidate]:
    """Step 2c for one claim: search the web for "claim + perspective" for each perspective,
    split the results into sentences, and keep the k sentences most similar to that query (BM25
    over the pool of sentences found for it). A sentence is proposed once per claim.
    """
    seen: set[str] = set()
    out: list[WebCandidate] = []
    for perspective in perspectives:
        query = f"{claim.text} {perspective.text}"
        pool = sentences(source.search(query, results_per_query))
        taken = 0
        for sentence, score in rank_sentences(query, pool, len(pool)):
            key = sentence.text.lower()
            if taken == k:
                break
            if key in seen or key == perspective.text.lower():
                continue
            seen.add(key)
            taken += 1
            out.append(WebCandidate(claim.id, perspective.id, sentence.url, sentence.text, score))
    return out


def rank_sentences(query: str, pool: Sequence[WebSentence], k: int) -> list[tuple[WebSentence, float]]:
    """The k sentences of `pool` most similar to `query`, by BM25 in a throwaway in-memory index."""
    if not pool:
        return []
    index = EmbeddedBackend(None)
    index.index(Kind.WEB_SENTENCE, (Doc(i, s.text) for i, s in enumerate(pool)))
    return [(pool[h.id], h.score) for h in index.search(Kind.WEB_SENTENCE, query, k)]


def similar_claim_pairs(
    backend: SearchBackend, claims: Sequence[Doc], n: int = 350, per_claim: int = 20
) -> list[ClaimPair]:
    """The n most similar pairs of claims, by BM25 over the claim index.

    BM25 scores of different queries are not comparable, so a pair's score is the other claim's
    score divided by the query claim's score for itself (its best possible match), in [0, 1]
    roughly; a pair found from both sides keeps the higher.
    """
    ids = {c.id for c in claims}
    best: dict[tuple[int, int], float] = {}
    for claim in claims:
        hits = backend.search(Kind.CLAIM, claim.text, per_claim + 1)
        own = next((h.score for h in hits if h.id == claim.id), None) or max(
            (h.score for h in hits), default=0.0
        )
        if own <= 0:
            continue
        for hit in hits:
            if hit.id == claim.id or hit.id not in ids:
                continue
            key = (min(claim.id, hit.id), max(claim.id, hit.id))
            best[key] = max(best.get(key, 0.0), hit.score / own)
    ranked = sorted(best.items(), key=lambda item: (-item[1], item[0]))[:n]
    return [ClaimPair(a, b, round(score, 6)) for (a, b), score in ranked]
