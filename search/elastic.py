"""The Elasticsearch 8 backend, through elasticsearch-dsl.

Index names are `<prefix>-<kind>`. Text is analysed with Elasticsearch's built-in `english`
analyzer (stemming and stop words), the counterpart of the embedded engine's `en_stem`. Queries are
`match` queries on the query's words only, so no query syntax is ever parsed: quotes, colons,
brackets, `c++`, `AND`, `*` are harmless. Request bodies are built by pure functions (tested by
contract in tests/search/test_elastic.py); run those tests against a live server with
`docker compose up elasticsearch` and ELASTICSEARCH_URL set (see tests/search/README.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from elasticsearch import Elasticsearch, NotFoundError
from elasticsearch.helpers import BulkIndexError, bulk
from elasticsearch_dsl import Document, Index, Integer, Keyword, Search, Text
from elasticsearch_dsl.query import Match

from search.base import Doc, Hit, Kind, SearchError, query_terms


class TextDocument(Document):
    """One searchable text: `id` is its public id (pid, eid, cid, or the web sentence's number)."""

    id = Integer(required=True)
    text = Text(analyzer="english")


class PerspectiveDocument(TextDocument):
    pass


class EvidenceDocument(TextDocument):
    pass


class ClaimDocument(TextDocument):
    pass


class WebSentenceDocument(TextDocument):
    url = Keyword()


DOCUMENTS: dict[Kind, type[TextDocument]] = {
    Kind.PERSPECTIVE: PerspectiveDocument,
    Kind.EVIDENCE: EvidenceDocument,
    Kind.CLAIM: ClaimDocument,
    Kind.WEB_SENTENCE: WebSentenceDocument,
}


def index_name(prefix: str, kind: Kind) -> str:
    return f"{prefix}-{kind}".replace("_", "-")


def index_definition(prefix: str, kind: Kind) -> Index:
    index = Index(index_name(prefix, kind))
    index.settings(number_of_shards=1, number_of_replicas=0)
    index.document(DOCUMENTS[kind])
    return index


def search_request(prefix: str, kind: Kind, query: str, k: int) -> Search | None:
    """The search for `query`'s words, best k by BM25; None when the query has no word."""
    words = query_terms(query)
    if not words or k <= 0:
        return None
    match = Match(text={"query": " ".join(words), "operator": "or"})
    return Search(index=index_name(prefix, kind)).query(match).source(["id"]).extra(size=k)


def bulk_actions(prefix: str, kind: Kind, docs: Iterable[Doc]) -> Iterator[dict[str, Any]]:
    """Bulk `index` actions keyed by public id, so re-indexing a document replaces it."""
    name = index_name(prefix, kind)
    for doc in docs:
        source = DOCUMENTS[kind](id=doc.id, text=doc.text).to_dict()
        yield {"_op_type": "index", "_index": name, "_id": str(doc.id), "_source": source}


def delete_actions(prefix: str, kind: Kind, ids: Iterable[int]) -> Iterator[dict[str, Any]]:
    name = index_name(prefix, kind)
    for doc_id in ids:
        yield {"_op_type": "delete", "_index": name, "_id": str(doc_id)}


def parse_hits(response: Mapping[str, Any]) -> list[Hit]:
    """Hits of an ES 8 search response body, best first."""
    if response.get("timed_out"):
        raise SearchError("Elasticsearch timed out")
    shards = response.get("_shards", {})
    if shards.get("failed"):
        raise SearchError(f"Elasticsearch shard failures: {shards.get('failures')}")
    hits = response.get("hits", {}).get("hits", [])
    return [Hit(int(hit["_source"]["id"]), float(hit["_score"] or 0.0)) for hit in hits]


class ElasticsearchBackend:
    def __init__(self, client: Elasticsearch, prefix: str = "stancework") -> None:
        self.client = client
        self.prefix = prefix

    @classmethod
    def from_url(cls, url: str, prefix: str) -> ElasticsearchBackend:
        return cls(Elasticsearch(url, request_timeout=30), prefix)

    def index(self, kind: Kind, docs: Iterable[Doc]) -> int:
        if not self.client.indices.exists(index=index_name(self.prefix, kind)):
            index_definition(self.prefix, kind).create(using=self.client)
        return self._bulk(bulk_actions(self.prefix, kind, docs))

    def delete(self, kind: Kind, ids: Iterable[int]) -> None:
        try:
            bulk(
                self.client, delete_actions(self.prefix, kind, ids), refresh="wait_for", raise_on_error=False
            )
        except NotFoundError:
            return  # no index yet: nothing to delete

    def clear(self, kind: Kind) -> None:
        self.client.indices.delete(index=index_name(self.prefix, kind), ignore_unavailable=True)
        index_definition(self.prefix, kind).create(using=self.client)

    def count(self, kind: Kind) -> int:
        try:
            return int(self.client.count(index=index_name(self.prefix, kind))["count"])
        except NotFoundError:
            return 0

    def search(self, kind: Kind, query: str, k: int = 10) -> list[Hit]:
        request = search_request(self.prefix, kind, query, k)
        if request is None:
            return []
        try:
            response = self.client.search(index=index_name(self.prefix, kind), body=request.to_dict())
        except NotFoundError:
            return []
        # The real client answers an ObjectApiResponse; a recorded answer is a plain dict.
        body: Any = response.body if hasattr(response, "body") else response
        return parse_hits(body)

    def _bulk(self, actions: Iterable[dict[str, Any]]) -> int:
        try:
            written, _ = bulk(self.client, actions, refresh="wait_for")
        except BulkIndexError as error:
            raise SearchError(f"{len(error.errors)} documents failed to index: {error.errors[:3]}") from error
        return int(written)
