"""Sentence vectors kept on disk, keyed by a hash of the text (pure: numpy only).

Encoding the 11,112 PERSPECTRUM perspectives with MiniLM takes minutes on 2 cores, and the
candidate services re-rank against the whole pool on every run: a text already encoded once is
read back instead. No vector store library is used because all that is needed is a dict from
text hash to row, saved as one .npz per model.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from search.dense import Encoder


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class CachedEncoder:
    """An Encoder that asks `encoder` only for texts it has not seen, remembering vectors in `path`.

    Vectors found by a single-text call (a query) are kept in memory but not written: rewriting the
    store for each query would cost more than encoding it. Batch calls write the store once.
    """

    def __init__(self, encoder: Encoder, path: Path) -> None:
        self.encoder = encoder
        self.path = path
        self._vectors: dict[str, np.ndarray] | None = None

    def _store(self) -> dict[str, np.ndarray]:
        if self._vectors is None:
            self._vectors = {}
            if self.path.exists():
                with np.load(self.path) as saved:
                    self._vectors = dict(zip(saved["keys"].tolist(), saved["vectors"], strict=True))
        return self._vectors

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        store = self._store()
        keys = [text_key(t) for t in texts]
        missing = {key: text for key, text in zip(keys, texts, strict=True) if key not in store}
        if missing:
            fresh = self.encoder.encode(list(missing.values()))
            store.update(zip(missing, np.asarray(fresh, dtype=np.float32), strict=True))
            if len(texts) > 1:
                self.save()
        if not keys:
            return self.encoder.encode([])
        return np.stack([store[key] for key in keys]).astype(np.float32)

    def save(self) -> None:
        """Write the store atomically (a reader never sees half a file)."""
        store = self._store()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_name(self.path.name + ".partial.npz")
        vectors = np.stack(list(store.values())) if store else np.zeros((0, 0), dtype=np.float32)
        np.savez(partial, keys=np.array(list(store), dtype="U64"), vectors=vectors)
        os.replace(partial, self.path)
