"""Retrieval benchmark on the PERSPECTRUM release, read straight from its JSON files (no database).

Each claim is a query over the whole perspective pool. Per claim: recall of its gold perspectives
(every member of its clusters) and cluster recall (share of its clusters with a member retrieved)
at k = 15, 50, 100, averaged over claims. `evlinked_recall@8/@60` is the recall of the claim's
evidence-linked perspectives (members of clusters that cite evidence) at 8 and 60: the issue's
"evidence as query" protocol cannot run because evidence_pool_v1.0.json, the evidence text, is
not in the release. One line per backend and ranking; the dense lines need requirements-dense.txt.

    python -m bench.search [--quick]
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from search.base import Doc, Kind, query_terms
from search.embedded import EmbeddedBackend

RELEASE = Path(
    os.environ.get("PERSPECTRUM_DIR", Path(__file__).resolve().parents[2] / "shared" / "perspectrum")
)
KS = (15, 50, 100)
CANDIDATES = 300


@dataclass
class Release:
    pool: list[Doc]
    claims: list[str]
    clusters: list[list[set[int]]]
    evidence_linked: list[set[int]]


def load_release(directory: Path = RELEASE) -> Release:
    claims = json.loads((directory / "perspectrum_with_answers_v1.0.json").read_text())
    pool = json.loads((directory / "perspective_pool_v1.0.json").read_text())
    return Release(
        pool=[Doc(p["pId"], p["text"]) for p in pool],
        claims=[c["text"] for c in claims],
        clusters=[[set(cl["pids"]) for cl in c["perspectives"]] for c in claims],
        evidence_linked=[
            {p for cl in c["perspectives"] if cl["evidence"] for p in cl["pids"]} for c in claims
        ],
    )


def score_rankings(release: Release, rankings: Sequence[Sequence[int]]) -> dict[str, float]:
    sums: dict[str, float] = {}
    counted: dict[str, int] = {}

    def add(name: str, value: float) -> None:
        sums[name] = sums.get(name, 0.0) + value
        counted[name] = counted.get(name, 0) + 1

    for clusters, linked, ranking in zip(release.clusters, release.evidence_linked, rankings, strict=True):
        gold = set().union(*clusters)
        for k in KS:
            top = set(ranking[:k])
            add(f"recall@{k}", len(gold & top) / len(gold))
            add(f"cluster_recall@{k}", sum(bool(c & top) for c in clusters) / len(clusters))
        for k in (8, 60):
            if linked:
                add(f"evlinked_recall@{k}", len(linked & set(ranking[:k])) / len(linked))
    return {name: sums[name] / counted[name] for name in sums}


def report(name: str, metrics: dict[str, float], index_s: float, qps: float) -> None:
    order = [f"{m}@{k}" for k in KS for m in ("recall", "cluster_recall")] + [
        "evlinked_recall@8",
        "evlinked_recall@60",
    ]
    figures = " ".join(f"{key}={metrics[key]:.3f}" for key in order)
    print(f"retrieval {name} {figures} index_s={index_s:.2f} qps={qps:.0f}", flush=True)


def timed_queries(queries: Sequence[str], run: Callable[[str], list[int]]) -> tuple[list[list[int]], float]:
    start = time.perf_counter()
    rankings = [run(q) for q in queries]
    return rankings, len(queries) / (time.perf_counter() - start)


def bench_fts5(release: Release) -> None:
    """SQLite FTS5, measured for the engine choice in search/embedded.py."""
    start = time.perf_counter()
    con = sqlite3.connect(":memory:")
    con.execute("CREATE VIRTUAL TABLE pool USING fts5(text, tokenize='porter unicode61')")
    con.executemany("INSERT INTO pool(rowid, text) VALUES (?, ?)", [(d.id, d.text) for d in release.pool])
    index_s = time.perf_counter() - start
    sql = "SELECT rowid FROM pool WHERE pool MATCH ? ORDER BY bm25(pool) LIMIT ?"

    def run(query: str) -> list[int]:
        match = " OR ".join(f'"{t}"' for t in query_terms(query))
        return [row[0] for row in con.execute(sql, (match, max(KS)))] if match else []

    rankings, qps = timed_queries(release.claims, run)
    report("fts5-bm25", score_rankings(release, rankings), index_s, qps)


def bench_tantivy(release: Release) -> EmbeddedBackend:
    backend = EmbeddedBackend(None)
    start = time.perf_counter()
    backend.index(Kind.PERSPECTIVE, release.pool)
    index_s = time.perf_counter() - start
    rankings, qps = timed_queries(
        release.claims, lambda q: [h.id for h in backend.search(Kind.PERSPECTIVE, q, max(KS))]
    )
    report("embedded-bm25", score_rankings(release, rankings), index_s, qps)
    return backend


def bench_elasticsearch(release: Release) -> None:
    url = os.environ.get("ELASTICSEARCH_URL", "")
    if not url:
        print("retrieval elasticsearch-bm25 skipped: set ELASTICSEARCH_URL to a running Elasticsearch 8")
        return
    from search.elastic import ElasticsearchBackend

    backend = ElasticsearchBackend.from_url(url, "stancework-bench")
    start = time.perf_counter()
    backend.clear(Kind.PERSPECTIVE)
    backend.index(Kind.PERSPECTIVE, release.pool)
    index_s = time.perf_counter() - start
    rankings, qps = timed_queries(
        release.claims, lambda q: [h.id for h in backend.search(Kind.PERSPECTIVE, q, max(KS))]
    )
    report("elasticsearch-bm25", score_rankings(release, rankings), index_s, qps)


def bench_dense(release: Release, bm25: EmbeddedBackend) -> None:
    from search.dense import DenseUnavailableError, MiniLMEncoder
    from search.ranking import HybridIndex, HybridParams

    try:
        encoder = MiniLMEncoder(threads=os.cpu_count())
    except DenseUnavailableError as error:
        print(f"retrieval embedded-dense skipped: {error}")
        return
    start = time.perf_counter()
    vectors = encoder.encode([d.text for d in release.pool])
    encode_s = time.perf_counter() - start
    ids = [d.id for d in release.pool]
    configs = {
        "embedded-dense": (HybridParams(bm25_weight=0, hub_k=0, smoothing=0), False),
        "embedded-hybrid": (HybridParams(bm25_weight=0.2, hub_k=0, smoothing=0), False),
        "embedded-hybrid-hub-mmr": (HybridParams(), True),
    }
    for name, (params, diverse) in configs.items():
        start = time.perf_counter()
        # Hub correction uses the corpus's claims as reference queries (the claims index).
        claim_vectors = encoder.encode(release.claims) if params.hub_k else None
        index = HybridIndex(ids, vectors, claim_vectors, params)
        index_s = encode_s + time.perf_counter() - start
        rankings, qps = timed_queries(release.claims, _hybrid_query(encoder, index, bm25, params, diverse))
        report(name, score_rankings(release, rankings), index_s, qps)


def _hybrid_query(encoder, index, bm25: EmbeddedBackend, params, diverse: bool) -> Callable[[str], list[int]]:  # type: ignore[no-untyped-def]
    def run(query: str) -> list[int]:
        vector = encoder.encode([query])[0]
        lexical = (
            {h.id: h.score for h in bm25.search(Kind.PERSPECTIVE, query, CANDIDATES)}
            if params.bm25_weight
            else {}
        )
        return index.rank(vector, lexical, max(KS), diverse=diverse)

    return run


def main(argv: Sequence[str] = ()) -> None:
    release = load_release()
    bench_fts5(release)
    backend = bench_tantivy(release)
    bench_elasticsearch(release)
    if "--no-dense" not in argv:
        bench_dense(release, backend)
    print("retrieval evidence-as-query recall@8/@60 not computable: evidence_pool_v1.0.json is absent")


if __name__ == "__main__":
    main(sys.argv[1:])
