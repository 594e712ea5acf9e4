"""The Elasticsearch backend by contract: mappings, request bodies, recorded ES 8 responses."""

from __future__ import annotations

import json
from typing import Any

import pytest

from search.base import Doc, Hit, Kind, SearchError
from search.elastic import (
    ElasticsearchBackend,
    bulk_actions,
    delete_actions,
    index_definition,
    index_name,
    parse_hits,
    search_request,
)
from tests.search.conftest import FIXTURES
from tests.search.test_backend_contract import HOSTILE


def recorded(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / name).read_text())


class RecordingClient:
    """Stands in for the Elasticsearch server: records each search and answers a recorded body."""

    def __init__(self, answer: dict[str, Any]) -> None:
        self.answer = answer
        self.calls: list[dict[str, Any]] = []

    def search(self, **kwargs: Any) -> dict[str, Any]:
        self.calls.append(kwargs)
        return self.answer


@pytest.mark.parametrize("kind", list(Kind))
def test_every_index_maps_id_as_integer_and_text_with_the_english_analyzer(kind: Kind) -> None:
    body = index_definition("stancework", kind).to_dict()
    properties = body["mappings"]["properties"]
    assert properties["id"] == {"type": "integer"}
    assert properties["text"] == {"type": "text", "analyzer": "english"}
    assert body["settings"] == {"number_of_shards": 1, "number_of_replicas": 0}


def test_web_sentences_also_keep_their_url_as_a_keyword() -> None:
    properties = index_definition("stancework", Kind.WEB_SENTENCE).to_dict()["mappings"]["properties"]
    assert properties["url"] == {"type": "keyword"}


def test_index_names_carry_the_prefix_and_no_underscore() -> None:
    assert index_name("stancework", Kind.PERSPECTIVE) == "stancework-perspective"
    assert index_name("stage", Kind.WEB_SENTENCE) == "stage-web-sentence"


def test_search_body_is_a_match_query_on_the_words_only() -> None:
    request = search_request("stancework", Kind.PERSPECTIVE, 'Should "vaccination" be compulsory?', 15)
    assert request is not None
    assert request.to_dict() == {
        "query": {"match": {"text": {"query": "should vaccination be compulsory", "operator": "or"}}},
        "_source": ["id"],
        "size": 15,
    }


def test_search_targets_the_kinds_index() -> None:
    request = search_request("stancework", Kind.EVIDENCE, "zoos", 8)
    assert request is not None
    assert request._index == ["stancework-evidence"]


@pytest.mark.parametrize("query", HOSTILE)
def test_hostile_queries_build_a_plain_match_or_no_request(query: str) -> None:
    request = search_request("stancework", Kind.PERSPECTIVE, query, 5)
    if request is None:
        return
    words = request.to_dict()["query"]["match"]["text"]["query"]
    assert all(ch.isalnum() or ch in " _" for ch in words)


def test_bulk_actions_index_by_public_id() -> None:
    actions = list(bulk_actions("stancework", Kind.PERSPECTIVE, [Doc(7, "Zoos are cruel")]))
    assert actions == [
        {
            "_op_type": "index",
            "_index": "stancework-perspective",
            "_id": "7",
            "_source": {"id": 7, "text": "Zoos are cruel"},
        }
    ]


def test_delete_actions_name_the_ids() -> None:
    actions = list(delete_actions("stancework", Kind.CLAIM, [3, 4]))
    assert [a["_id"] for a in actions] == ["3", "4"]
    assert {a["_op_type"] for a in actions} == {"delete"}
    assert {a["_index"] for a in actions} == {"stancework-claim"}


def test_recorded_response_parses_to_hits_best_first() -> None:
    hits = parse_hits(recorded("es_search_response.json"))
    assert hits == [Hit(2, 2.0794415), Hit(1, 0.9808292), Hit(3, 0.5753642)]


def test_recorded_empty_response_parses_to_no_hits() -> None:
    assert parse_hits(recorded("es_empty_response.json")) == []


def test_shard_failure_is_a_search_error() -> None:
    with pytest.raises(SearchError, match="shard failures"):
        parse_hits(recorded("es_shard_failure_response.json"))


def test_backend_sends_the_request_body_and_parses_the_answer() -> None:
    client = RecordingClient(recorded("es_search_response.json"))
    backend = ElasticsearchBackend(client, "stancework")  # type: ignore[arg-type]
    hits = backend.search(Kind.PERSPECTIVE, "vaccination: compulsory?", 3)
    assert [h.id for h in hits] == [2, 1, 3]
    assert client.calls == [
        {
            "index": "stancework-perspective",
            "body": {
                "query": {"match": {"text": {"query": "vaccination compulsory", "operator": "or"}}},
                "_source": ["id"],
                "size": 3,
            },
        }
    ]


def test_backend_sends_nothing_for_a_query_without_words() -> None:
    client = RecordingClient(recorded("es_search_response.json"))
    backend = ElasticsearchBackend(client, "stancework")  # type: ignore[arg-type]
    assert backend.search(Kind.PERSPECTIVE, '"" : ()', 3) == []
    assert client.calls == []
