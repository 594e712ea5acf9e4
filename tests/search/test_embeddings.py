"""The on-disk vector cache: a text is encoded once, across processes."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from search.embeddings import CachedEncoder
from tests.search.conftest import WordEncoder


def test_a_text_is_encoded_once_and_read_back_by_a_new_cache(tmp_path: Path) -> None:
    path = tmp_path / "vectors.npz"
    first = WordEncoder()
    vectors = CachedEncoder(first, path).encode(["zoos are cruel", "vaccines save lives"])
    second = WordEncoder()
    again = CachedEncoder(second, path).encode(["vaccines save lives", "zoos are cruel", "museums"])
    assert first.encoded == ["zoos are cruel", "vaccines save lives"]
    assert second.encoded == ["museums"]
    assert np.allclose(again[:2], vectors[::-1])


def test_a_single_query_is_not_written_to_disk(tmp_path: Path) -> None:
    path = tmp_path / "vectors.npz"
    cache = CachedEncoder(WordEncoder(), path)
    cache.encode(["one query"])
    assert not path.exists()
    encoder = WordEncoder()
    cache.encoder = encoder
    cache.encode(["one query"])
    assert encoder.encoded == []  # remembered in memory all the same


def test_repeated_texts_in_one_batch_are_encoded_once(tmp_path: Path) -> None:
    encoder = WordEncoder()
    vectors = CachedEncoder(encoder, tmp_path / "v.npz").encode(["same", "same"])
    assert encoder.encoded == ["same"]
    assert vectors.shape == (2, WordEncoder.DIMENSIONS)
