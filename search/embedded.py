"""The embedded backend: BM25 with English stemming, in-process, no server.

Engine choice: SQLite FTS5 (porter unicode61) and tantivy (en_stem) both rank by BM25 with the same
recall on the PERSPECTRUM release (its 907 claims as queries), and tantivy answers a query an order of
magnitude faster (`python -m bench search` prints both engines' figures), which matters for step 3
where every evidence paragraph (thousands, each a long query) is a query.
FTS5 would need no extra wheel, but its OR-query over many terms is the slow path. So tantivy.

Tantivy allows one writer per index directory: a second writer raises IndexBusyError, which the
sync task retries. Readers reload after every commit.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from pathlib import Path

import tantivy

from search.base import Doc, Hit, IndexBusyError, Kind, SearchError, query_terms

# The writer's memory budget; tantivy's floor is 15 MB per thread.
WRITER_HEAP_BYTES = 50_000_000


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_integer_field("id", stored=True, indexed=True, fast=True)
    builder.add_text_field("text", stored=False, tokenizer_name="en_stem")
    return builder.build()


def build_query_string(text: str) -> str:
    """A tantivy query string matching any word of `text`, with no operator left to interpret.

    Each word is quoted so that AND/OR/NOT, `field:`, `*` and brackets are plain words; the field's
    own analyzer (stemming) still applies inside the quotes.
    """
    return " ".join(f'"{term}"' for term in query_terms(text))


class EmbeddedBackend:
    """Tantivy indexes, one per kind, on disk under `directory` (or in memory when it is None)."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory
        self._schema = _schema()
        self._indexes: dict[Kind, tantivy.Index] = {}

    def _index(self, kind: Kind) -> tantivy.Index:
        if kind not in self._indexes:
            self._indexes[kind] = self._open(kind)
        return self._indexes[kind]

    def _open(self, kind: Kind) -> tantivy.Index:
        if self.directory is None:
            return tantivy.Index(self._schema)
        path = self.directory / str(kind)
        path.mkdir(parents=True, exist_ok=True)
        return tantivy.Index(self._schema, path=str(path), reuse=True)

    def _writer(self, kind: Kind) -> tantivy.IndexWriter:
        try:
            return self._index(kind).writer(heap_size=WRITER_HEAP_BYTES, num_threads=1)
        except ValueError as error:  # tantivy reports a held lock as ValueError
            raise IndexBusyError(f"the {kind} index is being written by another process: {error}") from None

    def index(self, kind: Kind, docs: Iterable[Doc]) -> int:
        writer = self._writer(kind)
        written = 0
        for doc in docs:
            writer.delete_documents_by_term("id", doc.id)
            writer.add_document(tantivy.Document(id=doc.id, text=doc.text))
            written += 1
        self._commit(kind, writer)
        return written

    def delete(self, kind: Kind, ids: Iterable[int]) -> None:
        writer = self._writer(kind)
        for doc_id in ids:
            writer.delete_documents_by_term("id", doc_id)
        self._commit(kind, writer)

    def clear(self, kind: Kind) -> None:
        self._indexes.pop(kind, None)
        if self.directory is not None:
            shutil.rmtree(self.directory / str(kind), ignore_errors=True)
        self._index(kind)

    def count(self, kind: Kind) -> int:
        return int(self._index(kind).searcher().num_docs)

    def search(self, kind: Kind, query: str, k: int = 10) -> list[Hit]:
        query_string = build_query_string(query)
        if not query_string or k <= 0:
            return []
        index = self._index(kind)
        try:
            parsed = index.parse_query(query_string, ["text"])
        except ValueError as error:
            # Quoted words cannot be operators, so this means a bug here, not a hostile query.
            raise SearchError(f"tantivy rejected {query_string!r}: {error}") from error
        searcher = index.searcher()
        return [
            Hit(searcher.doc(address)["id"][0], float(score))
            for score, address in searcher.search(parsed, k).hits
        ]

    def _commit(self, kind: Kind, writer: tantivy.IndexWriter) -> None:
        writer.commit()
        writer.wait_merging_threads()
        self._index(kind).reload()
