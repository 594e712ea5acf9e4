"""Candidate generation for steps 2b, 2c, 2d and 3 over a real embedded index."""

from __future__ import annotations

import pytest

from search.base import Doc, Kind
from search.candidates import (
    evidence_candidates,
    paraphrase_hints,
    rank_sentences,
    similar_claim_pairs,
    web_candidates,
)
from search.embedded import EmbeddedBackend
from search.websources import FileWebSource, WebSentence
from tests.search.conftest import FIXTURES, PERSPECTIVES

TEXTS = {d.id: d.text for d in PERSPECTIVES}


@pytest.fixture
def index() -> EmbeddedBackend:
    backend = EmbeddedBackend(None)
    backend.index(Kind.PERSPECTIVE, PERSPECTIVES)
    backend.index(
        Kind.CLAIM,
        [
            Doc(1, "Vaccination must be made compulsory"),
            Doc(2, "Vaccination should be compulsory for all children"),
            Doc(3, "Zoos should be banned"),
            Doc(4, "Zoos should be abolished"),
            Doc(5, "Social media does more harm than good"),
        ],
    )
    return backend


def test_each_paragraph_gets_its_top_k_perspectives(index: EmbeddedBackend) -> None:
    paragraphs = [
        Doc(10, "Vaccines prevent deadly diseases in children; vaccination saves lives every year."),
        Doc(11, "Animals kept in zoos suffer; captivity is cruel and unnatural for wild species."),
    ]
    items = evidence_candidates(index, paragraphs, TEXTS, k=2)
    assert [i.evidence_id for i in items] == [10, 11]
    assert [len(i.perspectives) for i in items] == [2, 2]
    assert items[0].perspectives[0].id == 1
    assert items[1].perspectives[0].id == 5
    assert items[1].perspectives[0].text == TEXTS[5]


def test_paragraph_candidates_are_only_allowed_perspectives(index: EmbeddedBackend) -> None:
    allowed = {3: TEXTS[3]}
    items = evidence_candidates(index, [Doc(10, "vaccination children diseases")], allowed, k=8)
    assert [p.id for p in items[0].perspectives] == [3]


def test_hints_never_include_the_perspective_or_its_cluster(index: EmbeddedBackend) -> None:
    items = paraphrase_hints(index, [PERSPECTIVES[0]], TEXTS, k=15, exclude={1: {3}})
    ids = [h.id for h in items[0].hints]
    assert 1 not in ids and 3 not in ids
    assert 2 in ids


def test_hints_stop_at_k(index: EmbeddedBackend) -> None:
    items = paraphrase_hints(index, [Doc(1, "vaccination children zoos animals programmers")], TEXTS, k=2)
    assert len(items[0].hints) == 2


def test_rank_sentences_keeps_the_most_similar_first() -> None:
    pool = [
        WebSentence("u", "Zoos breed animals"),
        WebSentence("u", "Vaccines protect children from measles"),
    ]
    ranked = rank_sentences("vaccination protects children", pool, 1)
    assert [s.text for s, _ in ranked] == ["Vaccines protect children from measles"]


def test_web_candidates_are_the_sentences_most_similar_to_claim_plus_perspective() -> None:
    source = FileWebSource(FIXTURES / "web_pages.jsonl")
    claim = Doc(499, "Vaccination must be made compulsory")
    items = web_candidates(
        source, claim, [Doc(3695, "Vaccination protects children from deadly diseases")], k=2
    )
    assert [(i.claim_id, i.perspective_id) for i in items] == [(499, 3695), (499, 3695)]
    assert items[0].text == "Vaccination protects children from measles and other deadly diseases."
    assert items[0].url == "https://example.org/a"
    assert all("some other query" not in i.text for i in items)
    assert "Short one." not in {i.text for i in items}


def test_web_candidates_propose_each_sentence_once_per_claim() -> None:
    source = FileWebSource(FIXTURES / "web_pages.jsonl")
    claim = Doc(499, "Vaccination must be made compulsory")
    perspectives = [Doc(1, "Vaccination protects children"), Doc(2, "Vaccination protects babies")]
    items = web_candidates(source, claim, perspectives, k=10)
    texts = [i.text for i in items]
    # Four distinct vaccination sentences; the zoo sentence shares no word with either query.
    assert len(texts) == len(set(texts)) == 4
    assert not any(t.startswith("Zoos") for t in texts)


def test_similar_claim_pairs_rank_near_duplicates_first(index: EmbeddedBackend) -> None:
    claims = [
        Doc(1, "Vaccination must be made compulsory"),
        Doc(2, "Vaccination should be compulsory for all children"),
        Doc(3, "Zoos should be banned"),
        Doc(4, "Zoos should be abolished"),
        Doc(5, "Social media does more harm than good"),
    ]
    pairs = similar_claim_pairs(index, claims, n=2)
    assert {(p.first_id, p.second_id) for p in pairs} == {(1, 2), (3, 4)}
    assert all(p.first_id < p.second_id for p in pairs)
    assert pairs[0].score >= pairs[1].score


def test_similar_claim_pairs_stop_at_n(index: EmbeddedBackend) -> None:
    claims = [
        Doc(i, t)
        for i, t in [
            (1, "Vaccination compulsory"),
            (2, "Vaccination compulsory children"),
            (3, "Zoos banned"),
        ]
    ]
    assert len(similar_claim_pairs(index, claims, n=1)) == 1
