"""A search backend that re-ranks another's BM25 hits with dense similarity (pure: no Django).

`HybridSearch` implements the SearchBackend interface, so the candidate functions in
search/candidates.py use it unchanged. Writes go to the BM25 backend; a kind's vectors are built
from `documents(kind)` on its first search and dropped when that kind is written to.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numpy as np

from search.base import Doc, Hit, Kind, SearchBackend
from search.dense import Encoder
from search.ranking import HybridIndex, HybridParams

# BM25 hits fused per query; below the dense pool's top few hundred BM25 adds nothing measurable.
BM25_CANDIDATES = 300


class HybridSearch:
    def __init__(
        self,
        lexical: SearchBackend,
        encoder: Encoder,
        documents: Callable[[Kind], Sequence[Doc]],
        params: HybridParams,
        reference: Callable[[], Sequence[str]] | None = None,
    ) -> None:
        """`reference` gives the texts of the reference queries for hub correction (the claims)."""
        self.lexical = lexical
        self.encoder = encoder
        self.documents = documents
        self.params = params
        self.reference = reference
        self._indexes: dict[Kind, HybridIndex] = {}

    def index(self, kind: Kind, docs: Iterable[Doc]) -> int:
        self._indexes.pop(kind, None)
        return self.lexical.index(kind, docs)

    def delete(self, kind: Kind, ids: Iterable[int]) -> None:
        self._indexes.pop(kind, None)
        self.lexical.delete(kind, ids)

    def clear(self, kind: Kind) -> None:
        self._indexes.pop(kind, None)
        self.lexical.clear(kind)

    def count(self, kind: Kind) -> int:
        return self.lexical.count(kind)

    def search(self, kind: Kind, query: str, k: int = 10) -> list[Hit]:
        """Top k by fused BM25 and dense relevance, diversified as `params` say."""
        index = self._index(kind)
        if k <= 0 or not query.strip() or not len(index.ids):
            return []
        vector = self.encoder.encode([query])[0]
        bm25 = {h.id: h.score for h in self.lexical.search(kind, query, BM25_CANDIDATES)}
        return [Hit(doc_id, score) for doc_id, score in index.rank(vector, bm25, k)]

    def _index(self, kind: Kind) -> HybridIndex:
        if kind not in self._indexes:
            docs = list(self.documents(kind))
            vectors = self.encoder.encode([d.text for d in docs])
            reference = self.encoder.encode(list(self.reference())) if self.reference else None
            if not docs:
                vectors = np.zeros((0, reference.shape[1] if reference is not None else 1), dtype=np.float32)
            self._indexes[kind] = HybridIndex([d.id for d in docs], vectors, reference, self.params)
        return self._indexes[kind]
