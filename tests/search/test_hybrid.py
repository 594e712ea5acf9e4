"""HybridSearch: the search interface over BM25 re-ranked by (fake) dense vectors."""

from __future__ import annotations

import pytest

from search.base import Doc, Kind
from search.embedded import EmbeddedBackend
from search.hybrid import HybridSearch
from search.ranking import HybridParams
from tests.search.conftest import PERSPECTIVES, WordEncoder

PLAIN = HybridParams(hub_k=0, smoothing=0, diversity="none")


@pytest.fixture
def lexical() -> EmbeddedBackend:
    backend = EmbeddedBackend(None)
    backend.index(Kind.PERSPECTIVE, PERSPECTIVES)
    return backend


def hybrid(lexical: EmbeddedBackend, docs: list[Doc], params: HybridParams = PLAIN, **kw) -> HybridSearch:  # type: ignore[no-untyped-def]
    return HybridSearch(lexical, WordEncoder(), lambda kind: docs, params, **kw)


def test_hits_come_from_the_whole_pool_not_only_bm25_matches(lexical: EmbeddedBackend) -> None:
    search = hybrid(lexical, PERSPECTIVES)
    hits = search.search(Kind.PERSPECTIVE, "zoos cruel", 7)
    assert hits[0].id == 5
    assert {h.id for h in hits} == {d.id for d in PERSPECTIVES}  # dense scores every document
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_an_empty_query_or_k_finds_nothing(lexical: EmbeddedBackend) -> None:
    search = hybrid(lexical, PERSPECTIVES)
    assert search.search(Kind.PERSPECTIVE, "  ", 5) == []
    assert search.search(Kind.PERSPECTIVE, "zoos", 0) == []


def test_writing_a_kind_rebuilds_its_vectors_on_the_next_search(lexical: EmbeddedBackend) -> None:
    docs = list(PERSPECTIVES)
    search = hybrid(lexical, docs)
    search.search(Kind.PERSPECTIVE, "zoos", 3)
    docs.append(Doc(8, "Circuses with wild animals should close"))
    search.index(Kind.PERSPECTIVE, docs[-1:])
    assert search.count(Kind.PERSPECTIVE) == 8
    assert search.search(Kind.PERSPECTIVE, "circuses wild animals", 1)[0].id == 8


def test_hub_correction_uses_the_reference_texts(lexical: EmbeddedBackend) -> None:
    # Every claim talks about children, so perspective 1 (children, diseases) is a hub and
    # perspective 3 (children, side effects) wins for a query matching both equally.
    claims = ["children children", "children diseases vaccination", "children protects deadly"]
    params = HybridParams(bm25_weight=0, hub_k=3, hub_weight=1.0, smoothing=0, diversity="none")
    corrected = hybrid(lexical, PERSPECTIVES, params, reference=lambda: claims)
    plain = hybrid(lexical, PERSPECTIVES, params)
    query = "vaccination protects children from deadly diseases side effects harmful vaccines can have"
    assert plain.search(Kind.PERSPECTIVE, query, 1)[0].id == 1
    assert corrected.search(Kind.PERSPECTIVE, query, 1)[0].id == 3


def test_deleting_and_clearing_reach_the_bm25_index(lexical: EmbeddedBackend) -> None:
    search = hybrid(lexical, PERSPECTIVES)
    search.delete(Kind.PERSPECTIVE, [1])
    assert lexical.count(Kind.PERSPECTIVE) == 6
    search.clear(Kind.PERSPECTIVE)
    assert lexical.count(Kind.PERSPECTIVE) == 0
