"""Retrieval benchmark on the PERSPECTRUM release, read straight from its JSON files (no database).

Each claim is a query over the whole perspective pool. Per claim: recall of its gold perspectives
(every member of its clusters) and cluster recall (share of its clusters with a member retrieved)
at k = 15, 50, 100, averaged over claims. `evlinked_recall@8/@60` is the recall of the claim's
evidence-linked perspectives (members of clusters that cite evidence) at 8 and 60: the issue's
"evidence as query" protocol cannot run because evidence_pool_v1.0.json, the evidence text, is
not in the release. One line per backend and ranking; the dense lines need requirements-dense.txt
and `--dense` (vectors are cached under var/search/embeddings, or SEARCH_EMBEDDING_CACHE). Dense
qps excludes encoding the query (the claims are encoded in one batch). `test_cluster_recall@15`
is over the release's test-split claims only: the ranking parameters were chosen on all claims.

    python -m bench.search [--dense]
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from search.base import Doc, Kind, query_terms
from search.embedded import EmbeddedBackend
from search.ranking import HybridIndex, HybridParams

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
    test: list[bool]  # the claim is in the release's test split (parameters were tuned on all claims)


def load_release(directory: Path = RELEASE) -> Release:
    claims = json.loads((directory / "perspectrum_with_answers_v1.0.json").read_text())
    pool = json.loads((directory / "perspective_pool_v1.0.json").read_text())
    split = json.loads((directory / "dataset_split_v1.0.json").read_text())
    return Release(
        pool=[Doc(p["pId"], p["text"]) for p in pool],
        claims=[c["text"] for c in claims],
        clusters=[[set(cl["pids"]) for cl in c["perspectives"]] for c in claims],
        evidence_linked=[
            {p for cl in c["perspectives"] if cl["evidence"] for p in cl["pids"]} for c in claims
        ],
        test=[split.get(str(c["cId"])) == "test" for c in claims],
    )


def score_rankings(release: Release, rankings: Sequence[Sequence[int]]) -> dict[str, float]:
    sums: dict[str, float] = {}
    counted: dict[str, int] = {}

    def add(name: str, value: float) -> None:
        sums[name] = sums.get(name, 0.0) + value
        counted[name] = counted.get(name, 0) + 1

    rows = zip(release.clusters, release.evidence_linked, release.test, rankings, strict=True)
    for clusters, linked, test, ranking in rows:
        gold = set().union(*clusters)
        if test:
            top15 = set(ranking[:15])
            add("test_cluster_recall@15", sum(bool(c & top15) for c in clusters) / len(clusters))
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
        "test_cluster_recall@15",
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


EMBEDDINGS = Path(
    os.environ.get(
        "SEARCH_EMBEDDING_CACHE", Path(__file__).resolve().parents[1] / "var" / "search" / "embeddings"
    )
)


def dense_configs() -> dict[str, tuple[HybridParams, bool]]:
    """Every configuration measured, each as (params, whether the query claim is left out of the hub)."""
    plain = HybridParams(bm25_weight=0, hub_k=0, smoothing=0, diversity="none")
    fused = replace(plain, bm25_weight=0.1)
    hub = replace(fused, hub_k=1, hub_weight=0.5)
    smooth = HybridParams(diversity="none")
    return {
        "embedded-dense": (plain, True),
        "embedded-hybrid": (fused, True),
        "embedded-hybrid-bm25-0.2": (replace(fused, bm25_weight=0.2), True),
        "embedded-hybrid-zscore": (replace(fused, normalisation="zscore"), True),
        "embedded-hybrid-hub-leaky": (hub, False),
        "embedded-hybrid-hub": (hub, True),
        "embedded-hybrid-hub-smooth": (smooth, True),
        "embedded-hybrid-hub-smooth-mmr": (replace(smooth, diversity="mmr"), True),
        # A penalty this large removes anything above the threshold: near-duplicates collapsed.
        "embedded-hybrid-hub-smooth-collapse": (
            replace(smooth, diversity="redundancy", redundancy_cosine=0.825, redundancy_penalty=1e3),
            True,
        ),
        "embedded-hybrid-best": (HybridParams(), True),
        "embedded-hybrid-best-zscore": (HybridParams(normalisation="zscore"), True),
    }


def bench_dense(release: Release, bm25: EmbeddedBackend) -> None:
    from search.dense import DenseUnavailableError, MiniLMEncoder
    from search.embeddings import CachedEncoder

    try:
        encoder = CachedEncoder(MiniLMEncoder(threads=os.cpu_count()), EMBEDDINGS / "all-MiniLM-L6-v2.npz")
    except DenseUnavailableError as error:
        print(f"retrieval embedded-dense skipped: {error}")
        return
    start = time.perf_counter()
    vectors = encoder.encode([d.text for d in release.pool])
    claim_vectors = encoder.encode(release.claims)
    encode_s = time.perf_counter() - start
    lexical = [{h.id: h.score for h in bm25.search(Kind.PERSPECTIVE, q, CANDIDATES)} for q in release.claims]
    ids = [d.id for d in release.pool]
    for name, (params, honest) in dense_configs().items():
        start = time.perf_counter()
        # Hub correction uses the corpus's claims as reference queries, less the query claim itself.
        index = HybridIndex(ids, vectors, claim_vectors, params)
        index_s = encode_s + time.perf_counter() - start
        start = time.perf_counter()
        rankings = [
            index.rank(claim_vectors[i], lexical[i], max(KS), exclude_reference=i if honest else None)
            for i in range(len(release.claims))
        ]
        report(
            name, score_rankings(release, rankings), index_s, len(rankings) / (time.perf_counter() - start)
        )


def main(argv: Sequence[str] = ()) -> None:
    release = load_release()
    bench_fts5(release)
    backend = bench_tantivy(release)
    bench_elasticsearch(release)
    # The dense lines take minutes on 2 cores the first time (encoding), so `make bench` skips them.
    if "--dense" in argv or os.environ.get("BENCH_DENSE", "") in {"1", "true", "yes"}:
        bench_dense(release, backend)
    else:
        print("retrieval embedded-dense skipped: run `python -m bench.search --dense` (or BENCH_DENSE=1)")
    print("retrieval evidence-as-query recall@8/@60 not computable: evidence_pool_v1.0.json is absent")


if __name__ == "__main__":
    main(sys.argv[1:])
