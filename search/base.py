"""The one search interface every backend implements (pure: no Django, no engine imports).

An index holds one kind of text (perspectives, evidence, claims, web sentences) keyed by the
public id (pid, eid, cid) or, for web sentences, by a sentence number. Backends are chosen in
settings (`SEARCH_BACKEND`); the shared contract tests in tests/search run against each.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol


class Kind(StrEnum):
    PERSPECTIVE = "perspective"
    EVIDENCE = "evidence"
    CLAIM = "claim"
    WEB_SENTENCE = "web_sentence"


class SearchError(Exception):
    """A search backend could not do what was asked (not raised for odd query text)."""


class IndexBusyError(SearchError):
    """Another process holds the index's writer lock; the write can be retried."""


@dataclass(frozen=True, slots=True)
class Doc:
    id: int
    text: str


@dataclass(frozen=True, slots=True)
class Hit:
    id: int
    score: float


class SearchBackend(Protocol):
    def index(self, kind: Kind, docs: Iterable[Doc]) -> int:
        """Add or replace documents by id; returns how many were written."""

    def delete(self, kind: Kind, ids: Iterable[int]) -> None:
        """Remove documents by id; unknown ids are ignored."""

    def clear(self, kind: Kind) -> None:
        """Drop every document of a kind (and create the empty index)."""

    def count(self, kind: Kind) -> int: ...

    def search(self, kind: Kind, query: str, k: int = 10) -> list[Hit]:
        """Top k by BM25. Any query string is accepted: operators are never interpreted."""


# Words are runs of letters/digits in any script; everything else (quotes, colons, brackets,
# `+`, `*`) is a separator, which is what makes hostile queries harmless in every backend.
_WORD = re.compile(r"\w+", re.UNICODE)
# Long evidence paragraphs are queries too: past this many distinct words, terms add cost, not recall.
MAX_QUERY_TERMS = 256


def query_terms(text: str) -> list[str]:
    """The lower-cased words of a free-text query, in order, deduplicated, at most MAX_QUERY_TERMS."""
    seen: dict[str, None] = {}
    for match in _WORD.finditer(text.lower()):
        word = match.group().strip("_")
        if word:
            seen.setdefault(word, None)
        if len(seen) >= MAX_QUERY_TERMS:
            break
    return list(seen)
