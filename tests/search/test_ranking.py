"""Hybrid ranking on small hand-made vectors: hub correction, smoothing, fusion, MMR."""

from __future__ import annotations

import numpy as np

from search.ranking import (
    Hubness,
    HybridIndex,
    HybridParams,
    best_first,
    mmr,
    nearest_neighbours,
    penalise_redundancy,
    ranked_ids,
)


def unit(*rows: list[float]) -> np.ndarray:
    m = np.array(rows, dtype=np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def test_hubness_is_the_mean_similarity_to_the_nearest_reference_queries() -> None:
    docs = unit([1, 0], [0, 1])
    refs = unit([1, 0], [1, 0.1], [0, 1])
    hub = Hubness(docs, refs, k=2).values()
    assert hub[0] > 0.99
    assert np.isclose(hub[1], (1.0 + refs[1, 1]) / 2, atol=1e-5)


def test_nearest_neighbours_exclude_the_document_itself() -> None:
    docs = unit([1, 0], [0.9, 0.1], [0, 1])
    assert nearest_neighbours(docs, 1)[:, 0].tolist() == [1, 0, 1]


def test_mmr_skips_a_near_duplicate_in_favour_of_a_new_document() -> None:
    docs = unit([1, 0, 0], [1, 0.01, 0], [0, 1, 0])
    relevance = np.array([0.9, 0.89, 0.7], dtype=np.float32)
    assert mmr(relevance, docs, k=2, lam=0.5, pool=3) == [0, 2]
    assert mmr(relevance, docs, k=2, lam=1.0, pool=3) == [0, 1]


def test_hub_correction_demotes_a_document_close_to_every_claim() -> None:
    docs = unit([1, 1, 1], [1, 0.2, 0])
    claims = unit([1, 1, 0.9], [0.9, 1, 1], [1, 0.9, 1], [0, 0, 1])  # three claims crowd around doc 10
    query = unit([1, 0.5, 0.5])[0]
    plain = HybridIndex([10, 20], docs, None, HybridParams(bm25_weight=0, hub_k=0, smoothing=0))
    corrected = HybridIndex([10, 20], docs, claims, HybridParams(bm25_weight=0, hub_k=3, smoothing=0))
    assert ranked_ids(plain.rank(query, {}, 2, diverse=False)) == [10, 20]
    assert ranked_ids(corrected.rank(query, {}, 2, diverse=False)) == [20, 10]


def test_bm25_scores_are_fused_by_public_id() -> None:
    docs = unit([1, 0], [0.95, 0.05])
    query = unit([1, 0])[0]
    index = HybridIndex([10, 20], docs, None, HybridParams(bm25_weight=0.5, hub_k=0, smoothing=0))
    assert ranked_ids(index.rank(query, {}, 2, diverse=False)) == [10, 20]
    assert ranked_ids(index.rank(query, {20: 7.0, 999: 9.0}, 2, diverse=False)) == [20, 10]


def test_hubness_can_leave_the_query_out_of_the_reference_queries() -> None:
    docs = unit([1, 0], [0, 1])
    refs = unit([1, 0], [1, 0.5], [0, 1])
    hubs = Hubness(docs, refs, k=1)
    assert np.isclose(hubs.values()[0], 1.0)
    assert np.isclose(hubs.values(exclude=0)[0], refs[1] @ docs[0], atol=1e-6)
    assert np.isclose(hubs.values(exclude=0)[1], 1.0)  # the left-out query was not its nearest


def test_leaving_out_the_only_reference_leaves_no_hubness() -> None:
    hubs = Hubness(unit([1, 0]), unit([1, 0]), k=1)
    assert hubs.values(exclude=0).tolist() == [0.0]


def test_redundancy_penalty_skips_a_paraphrase_but_not_a_merely_related_document() -> None:
    docs = unit([1, 0, 0], [1, 0.05, 0], [1, 1, 0])  # 1 paraphrases 0; 2 is related (cosine 0.71)
    relevance = np.array([0.9, 0.89, 0.7], dtype=np.float32)
    assert penalise_redundancy(relevance, docs, k=2, cosine=0.8, penalty=2.0, pool=3) == [0, 2]
    related = unit([1, 0, 0], [1, 1, 0], [0, 0, 1])
    assert penalise_redundancy(relevance, related, k=2, cosine=0.8, penalty=2.0, pool=3) == [0, 1]


def test_zscore_fusion_ranks_by_both_signals() -> None:
    docs = unit([1, 0], [0.9, 0.1], [0, 1])
    query = unit([1, 0])[0]
    params = HybridParams(bm25_weight=0.5, normalisation="zscore", hub_k=0, smoothing=0, diversity="none")
    index = HybridIndex([10, 20, 30], docs, None, params)
    assert ranked_ids(index.rank(query, {20: 5.0}, 2)) == [20, 10]


def test_rank_returns_the_fused_relevance_of_each_pick() -> None:
    docs = unit([1, 0], [0, 1])
    index = HybridIndex([10, 20], docs, None, HybridParams(bm25_weight=0, hub_k=0, smoothing=0))
    ranked = index.rank(unit([1, 0])[0], {}, 2)
    assert ranked_ids(ranked) == [10, 20]
    assert np.isclose(ranked[0][1], 1.0) and np.isclose(ranked[1][1], 0.0, atol=1e-6)


def test_best_first_is_the_head_of_a_full_sort() -> None:
    scores = np.random.default_rng(7).normal(size=500).astype(np.float32)
    full = np.argsort(-scores)
    for n in (1, 15, 150, 499, 500, 900):
        assert best_first(scores, n).tolist() == full[:n].tolist()


def test_a_ranking_given_its_cosines_is_the_ranking_that_computes_them() -> None:
    rng = np.random.default_rng(3)
    docs, claims = unit(*rng.normal(size=(300, 8)).tolist()), unit(*rng.normal(size=(20, 8)).tolist())
    index = HybridIndex(list(range(1000, 1300)), docs, claims, HybridParams(hub_k=1, neighbours=5))
    bm25 = {1003: 4.0, 1010: 2.5, 1200: 1.0}
    for params in (
        HybridParams(),
        HybridParams(diversity="none", smoothing=0.0),
        HybridParams(bm25_weight=0.2),
    ):
        setting = index.with_params(params)
        for i in (0, 7):
            plain = ranked_ids(setting.rank(claims[i], bm25, 15, exclude_reference=i))
            given = ranked_ids(
                setting.rank(claims[i], bm25, 15, exclude_reference=i, cosines=docs @ claims[i])
            )
            assert given == plain and len(plain) == 15
    wrong = ranked_ids(index.rank(claims[0], {}, 15, cosines=docs @ claims[1]))
    assert wrong == ranked_ids(index.rank(claims[1], {}, 15))  # the cosines given are the ones used
