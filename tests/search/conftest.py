"""Search test fixtures: every index lives under tmp_path, never under var/."""

from __future__ import annotations

import os
import zlib
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from search import services
from search.base import Doc, SearchBackend, query_terms
from search.embedded import EmbeddedBackend

FIXTURES = Path(__file__).resolve().parent / "fixtures"

PERSPECTIVES = [
    Doc(1, "Vaccination protects children from deadly diseases"),
    Doc(2, "Compulsory vaccination violates parents' freedom of choice"),
    Doc(3, "Vaccines can have harmful side effects for some children"),
    Doc(4, "Zoos protect endangered animal species from extinction"),
    Doc(5, "Keeping animals in zoos is cruel and unnatural"),
    Doc(6, "C++ programmers earn more than Python programmers"),
    Doc(7, "Ökologische Landwirtschaft schützt die Böden"),
]


@pytest.fixture
def search_settings(settings, tmp_path: Path) -> Iterator[Path]:  # type: ignore[no-untyped-def]
    settings.SEARCH_BACKEND = "embedded"
    settings.SEARCH_INDEX_DIR = tmp_path / "search"
    services.get_backend.cache_clear()
    services.get_encoder.cache_clear()
    yield tmp_path / "search"
    services.get_backend.cache_clear()
    services.get_encoder.cache_clear()


def _elasticsearch_backend() -> SearchBackend:
    url = os.environ.get("ELASTICSEARCH_URL", "")
    if not url:
        pytest.skip(
            "Elasticsearch contract tests against a server need ELASTICSEARCH_URL (docker compose up)"
        )
    from search.elastic import ElasticsearchBackend

    return ElasticsearchBackend.from_url(url, "stancework-test")


@pytest.fixture(params=["embedded-disk", "embedded-memory", "elasticsearch"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> SearchBackend:
    """Every backend, for the shared contract suite; Elasticsearch only with a server."""
    if request.param == "elasticsearch":
        return _elasticsearch_backend()
    return EmbeddedBackend(tmp_path / "index" if request.param == "embedded-disk" else None)


class WordEncoder:
    """A fake sentence encoder for tests: a normalised bag of hashed words, counting the texts it encodes.

    Texts sharing words get similar vectors, which is all the hybrid ranking code needs to be
    exercised without torch.
    """

    DIMENSIONS = 64

    def __init__(self) -> None:
        self.encoded: list[str] = []

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.encoded.extend(texts)
        out = np.zeros((len(texts), self.DIMENSIONS), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in query_terms(text):
                out[row, zlib.crc32(word.encode()) % self.DIMENSIONS] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms > 0, norms, 1.0)
