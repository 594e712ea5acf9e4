"""The contract every search backend keeps (run against each by the `backend` fixture)."""

from __future__ import annotations

import pytest

from search.base import Doc, Kind, SearchBackend
from tests.search.conftest import PERSPECTIVES

HOSTILE = [
    "",
    "   ",
    '"',
    '"unbalanced quote',
    "text:vaccination",
    "id:1",
    "(zoos AND [animals",
    "{}[]()<>",
    "c++",
    "AND",
    "NOT",
    "OR OR OR",
    "vaccination AND NOT zoos",
    "*",
    "zoo*",
    "?",
    "~2",
    "^3",
    "\\",
    "/regex/",
    "a:b:c",
    "+-!&|",
    "ökologische Böden",
    "疫苗 接种",
    "🙂 vaccination 🙂",
    "\x00\x01",
    "_",
    "x" * 5000,
]


@pytest.fixture
def filled(backend: SearchBackend) -> SearchBackend:
    backend.clear(Kind.PERSPECTIVE)
    backend.index(Kind.PERSPECTIVE, PERSPECTIVES)
    return backend


def test_search_ranks_matching_documents_first(filled: SearchBackend) -> None:
    hits = filled.search(Kind.PERSPECTIVE, "Should vaccination be compulsory?", 3)
    assert hits[0].id == 2
    assert {h.id for h in hits} <= {1, 2, 3}


def test_search_stems_english_words(filled: SearchBackend) -> None:
    assert {h.id for h in filled.search(Kind.PERSPECTIVE, "zoo", 5)} == {4, 5}


def test_search_returns_at_most_k_hits_best_first(filled: SearchBackend) -> None:
    hits = filled.search(Kind.PERSPECTIVE, "children vaccination vaccines animals", 2)
    assert len(hits) == 2
    assert hits[0].score >= hits[1].score


def test_indexing_an_id_again_replaces_its_text(filled: SearchBackend) -> None:
    filled.index(Kind.PERSPECTIVE, [Doc(4, "Museums preserve cultural heritage")])
    assert filled.count(Kind.PERSPECTIVE) == len(PERSPECTIVES)
    assert 4 not in {h.id for h in filled.search(Kind.PERSPECTIVE, "zoos endangered", 10)}
    assert [h.id for h in filled.search(Kind.PERSPECTIVE, "museums heritage", 10)] == [4]


def test_delete_removes_documents_and_ignores_unknown_ids(filled: SearchBackend) -> None:
    filled.delete(Kind.PERSPECTIVE, [5, 999])
    assert filled.count(Kind.PERSPECTIVE) == len(PERSPECTIVES) - 1
    assert 5 not in {h.id for h in filled.search(Kind.PERSPECTIVE, "zoos animals cruel", 10)}


def test_clear_empties_one_kind_only(filled: SearchBackend) -> None:
    filled.clear(Kind.CLAIM)
    filled.index(Kind.CLAIM, [Doc(10, "Zoos should be banned")])
    filled.clear(Kind.PERSPECTIVE)
    assert filled.count(Kind.PERSPECTIVE) == 0
    assert filled.search(Kind.PERSPECTIVE, "zoos", 5) == []
    assert [h.id for h in filled.search(Kind.CLAIM, "zoos", 5)] == [10]


def test_searching_an_index_never_written_finds_nothing(backend: SearchBackend) -> None:
    backend.clear(Kind.WEB_SENTENCE)
    assert backend.search(Kind.WEB_SENTENCE, "anything", 5) == []


@pytest.mark.parametrize("query", HOSTILE)
def test_hostile_queries_never_raise(filled: SearchBackend, query: str) -> None:
    hits = filled.search(Kind.PERSPECTIVE, query, 5)
    assert all(h.id in {d.id for d in PERSPECTIVES} for h in hits)


def test_operator_words_are_searched_as_words(filled: SearchBackend) -> None:
    # "c++" and "NOT" are not syntax: the C++ perspective is found by its word "c".
    assert filled.search(Kind.PERSPECTIVE, "c++ NOT python", 3)[0].id == 6


def test_unicode_words_are_found(filled: SearchBackend) -> None:
    assert [h.id for h in filled.search(Kind.PERSPECTIVE, "Böden", 3)] == [7]


def test_empty_query_and_zero_k_find_nothing(filled: SearchBackend) -> None:
    assert filled.search(Kind.PERSPECTIVE, "", 5) == []
    assert filled.search(Kind.PERSPECTIVE, "vaccination", 0) == []
