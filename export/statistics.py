"""Release statistics shaped like the PERSPECTRUM paper's Table 2 (summary) and Table 4 (per site, per
step). Pure: computed from the release's own records, so anyone can recompute them from the files.

Tokens are words and punctuation marks (``\\w+|[^\\w\\s]``), as common tokenisers count them; the paper
does not name its tokeniser. On the v1.0 files this gives claims 9.1 tokens on average (paper: 8.9),
median 8 (8), perspectives 12.2 (11.9); the stance counts (5,095 / 2,627 / 2,468) and the mean
cluster size (2.3) match the paper exactly.
"""

from __future__ import annotations

import re
import statistics as stats
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

TOKEN = re.compile(r"\w+|[^\w\s]")
SITES = ("idebate", "procon", "debatewise")
# The release's `source` of perspectives that do not come from a debate site (corpus.services).
PARAPHRASE_SOURCES = frozenset({"paraphrase"})
WEB_SOURCES = frozenset({"google", "web"})


def tokens(text: str) -> int:
    return len(TOKEN.findall(text))


def _lengths(texts: Iterable[str]) -> dict[str, float | int | None]:
    counts = [tokens(text) for text in texts]
    if not counts:
        return {"mean": None, "median": None, "max": None, "min": None}
    return {
        "mean": round(stats.fmean(counts), 2),
        "median": stats.median(counts),
        "max": max(counts),
        "min": min(counts),
    }


def perspective_kind(source: str) -> str:
    if source in PARAPHRASE_SOURCES:
        return "paraphrase"
    if source in WEB_SOURCES:
        return "web"
    return "debate_site"


def table_2(
    claims: Sequence[Mapping[str, Any]],
    pool: Sequence[Mapping[str, Any]],
    evidence: Sequence[Mapping[str, Any]],
    evidence_referenced: int = 0,
) -> dict[str, Any]:
    """The paper's Table 2: claims, perspectives by step, stances, cluster size, evidence."""
    clusters = [cluster for claim in claims for cluster in claim["perspectives"]]
    stances = Counter(cluster["stance_label_3"] for cluster in clusters)
    kinds = Counter(perspective_kind(p["source"]) for p in pool)
    return {
        "claims": {"count": len(claims), "length_tokens": _lengths(c["text"] for c in claims)},
        "perspectives": {
            "count": len(pool),
            "debate_websites_step_1": kinds["debate_site"],
            "paraphrases_step_2b": kinds["paraphrase"],
            "web_step_2c": kinds["web"],
            "with_stances": len(clusters),
            "support": stances["SUPPORT"],
            "undermine": stances["UNDERMINE"],
            "other_labels": len(clusters) - stances["SUPPORT"] - stances["UNDERMINE"],
            "mean_cluster_size": round(stats.fmean(len(c["pids"]) for c in clusters), 2)
            if clusters
            else None,
            "length_tokens": _lengths(p["text"] for p in pool),
        },
        "evidence": {
            "count": len(evidence),
            # Ids that clusters cite; more than `count` when texts are missing (PERSPECTRUM v1.0).
            "referenced_ids": evidence_referenced,
            "length_tokens": _lengths(e["text"] for e in evidence),
        },
    }


def table_4(
    claims: Sequence[Mapping[str, Any]],
    pool: Sequence[Mapping[str, Any]],
    evidence: Sequence[Mapping[str, Any]],
    crawled: Mapping[str, Mapping[str, int]] | None = None,
) -> dict[str, Any]:
    """The paper's Table 4: per site after step 1 and after step 2a, then steps 2b and 2c.

    "After step 1" counts what this release holds from each site (or, given `crawled`, what the
    platform crawled: site → {"claims", "perspectives", "evidence"}); "after step 2a" counts claims
    with at least one released cluster and the clusters whose original perspective came from the site.
    """
    sites = sorted({c["source"] for c in claims} | set(crawled or {}), key=_site_order)
    after_1 = {
        site: dict(crawled[site]) if crawled and site in crawled else _held_from(site, claims, pool, evidence)
        for site in sites
    }
    source_of = {p["pId"]: p["source"] for p in pool}
    after_2a = {site: _released_from(site, claims, source_of) for site in sites}
    kinds = Counter(perspective_kind(p["source"]) for p in pool)
    return {
        "after_step_1": {**after_1, "total": _total(after_1.values())},
        "after_step_2a": {**after_2a, "total": _total(after_2a.values())},
        "step_2b_paraphrases": kinds["paraphrase"],
        "step_2c_web_perspectives": kinds["web"],
    }


def _held_from(
    site: str,
    claims: Sequence[Mapping[str, Any]],
    pool: Sequence[Mapping[str, Any]],
    evidence: Sequence[Mapping[str, Any]],
) -> dict[str, int]:
    """What the release holds from `site` (Table 4 after step 1, when the crawl's counts are not given)."""
    return {
        "claims": sum(1 for c in claims if c["source"] == site),
        "perspectives": sum(1 for p in pool if p["source"] == site),
        "evidence": sum(1 for e in evidence if e["source"] == site),
    }


def _released_from(
    site: str, claims: Sequence[Mapping[str, Any]], source_of: Mapping[int, str]
) -> dict[str, int]:
    """Table 4 after step 2a: the site's claims with a released cluster, and the released clusters whose
    original perspective came from the site."""
    return {
        "claims": sum(1 for c in claims if c["source"] == site and c["perspectives"]),
        "perspectives": sum(
            1
            for c in claims
            for cluster in c["perspectives"]
            if cluster["pids"] and source_of.get(cluster["pids"][0]) == site
        ),
    }


def _site_order(site: str) -> tuple[int, str]:
    return (SITES.index(site) if site in SITES else len(SITES), site)


def _total(rows: Iterable[Mapping[str, int]]) -> dict[str, int]:
    total: Counter[str] = Counter()
    for row in rows:
        total.update(row)
    return dict(sorted(total.items()))


def release_statistics(
    claims: Sequence[Mapping[str, Any]],
    pool: Sequence[Mapping[str, Any]],
    evidence: Sequence[Mapping[str, Any]],
    split: Mapping[str, str],
    crawled: Mapping[str, Mapping[str, int]] | None = None,
) -> dict[str, Any]:
    """Tables 2 and 4 plus the split sizes and topic counts."""
    referenced = {eid for c in claims for cluster in c["perspectives"] for eid in cluster["evidence"]}
    topic_counts = Counter(slug for c in claims for slug in c["topics"])
    return {
        "tokenizer": TOKEN.pattern,
        "table_2": table_2(claims, pool, evidence, len(referenced)),
        "table_4": table_4(claims, pool, evidence, crawled),
        "split": dict(sorted(Counter(split.values()).items())),
        "topics": dict(sorted(topic_counts.items())),
        "claims_without_topics": sum(1 for c in claims if not c["topics"]),
    }
