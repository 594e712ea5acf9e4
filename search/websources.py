"""Web search sources for step 2c: a search-API client configured by key, and an offline file.

Pure: standard library only. A source returns pages (url, title, text); `sentences()` splits them.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol


class WebSearchError(Exception):
    """A web search could not be made or its answer could not be read."""


@dataclass(frozen=True, slots=True)
class WebPage:
    url: str
    title: str
    text: str


@dataclass(frozen=True, slots=True)
class WebSentence:
    url: str
    text: str


class WebSearchSource(Protocol):
    def search(self, query: str, count: int = 10) -> list[WebPage]: ...


class BraveSearchSource:
    """Brave Search's web search API, authenticated by subscription token (WEB_SEARCH_API_KEY).

    Result snippets (`description` and `extra_snippets`) are the text that is split into sentences,
    so no result page is fetched.
    """

    endpoint = "https://api.search.brave.com/res/v1/web/search"

    def __init__(self, api_key: str, timeout: float = 15.0) -> None:
        if not api_key:
            raise WebSearchError("WEB_SEARCH_API_KEY is not set")
        self.api_key = api_key
        self.timeout = timeout

    def request(self, query: str, count: int) -> urllib.request.Request:
        params = urllib.parse.urlencode({"q": query, "count": min(count, 20), "extra_snippets": "true"})
        headers = {"Accept": "application/json", "X-Subscription-Token": self.api_key}
        return urllib.request.Request(f"{self.endpoint}?{params}", headers=headers)

    def search(self, query: str, count: int = 10) -> list[WebPage]:
        try:
            with urllib.request.urlopen(self.request(query, count), timeout=self.timeout) as response:
                body = json.load(response)
        except (urllib.error.URLError, TimeoutError, json.JSONDecodeError) as error:
            raise WebSearchError(f"web search for {query!r} failed: {error}") from error
        return parse_brave_response(body)


def parse_brave_response(body: dict) -> list[WebPage]:  # type: ignore[type-arg]
    pages = []
    for result in body.get("web", {}).get("results", []):
        snippets = [result.get("description", ""), *result.get("extra_snippets", [])]
        text = " ".join(_strip_tags(s) for s in snippets if s)
        pages.append(
            WebPage(url=result.get("url", ""), title=_strip_tags(result.get("title", "")), text=text)
        )
    return pages


class FileWebSource:
    """Pages from a JSON Lines file, for tests and offline runs.

    Each line is {"url": ..., "title": ..., "text": ...}, optionally with "query": a line with a
    query is returned only for that query (compared case-insensitively); lines without one are
    returned for every query.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lines: list[dict[str, str]] | None = None

    def _read(self) -> list[dict[str, str]]:
        if self._lines is None:
            try:
                text = self.path.read_text(encoding="utf-8")
                self._lines = [json.loads(line) for line in text.splitlines() if line.strip()]
            except (OSError, json.JSONDecodeError) as error:
                raise WebSearchError(f"cannot read web sentences from {self.path}: {error}") from error
        return self._lines

    def search(self, query: str, count: int = 10) -> list[WebPage]:
        """The file's pages for `query`, the `count` sharing most words with it first, as a search
        engine would rank them (a large offline file is useless if every query gets its first lines)."""
        wanted = query.strip().lower()
        words = set(_WORD.findall(wanted))
        scored = []
        for number, line in enumerate(self._read()):
            if "query" in line and line["query"].strip().lower() != wanted:
                continue
            page = WebPage(line.get("url", ""), line.get("title", ""), line.get("text", ""))
            overlap = len(words & set(_WORD.findall(f"{page.title} {page.text}".lower())))
            scored.append((-overlap, number, page))
        return [page for _, _, page in sorted(scored, key=lambda row: row[:2])[:count]]


_TAG = re.compile(r"<[^>]+>")
_WORD = re.compile(r"\w{3,}")
# A sentence ends at . ! or ? followed by space and an upper-case letter, digit or quote. Written by
# hand because the usual splitters need a model download (punkt) and snippets are short and clean.
_BOUNDARY = re.compile(r"(?<=[.!?])[\"”’)]?\s+(?=[\"“‘(]?[A-Z0-9])")
_ELLIPSIS = re.compile(r"\s*(\.\.\.|…)\s*")
MIN_SENTENCE_TOKENS = 5


def _strip_tags(text: str) -> str:
    return _TAG.sub("", text)


def split_sentences(text: str) -> list[str]:
    """Sentences of a snippet, dropping fragments under MIN_SENTENCE_TOKENS words."""
    parts = _BOUNDARY.split(_ELLIPSIS.sub(". ", _strip_tags(text)))
    sentences = [" ".join(p.split()).lstrip(". ") for p in parts]
    return [s for s in sentences if len(s.split()) >= MIN_SENTENCE_TOKENS]


def sentences(pages: list[WebPage]) -> list[WebSentence]:
    """Every distinct sentence of the pages, in order, with the page it came from."""
    seen: set[str] = set()
    out = []
    for page in pages:
        for sentence in split_sentences(page.text):
            key = sentence.lower()
            if key not in seen:
                seen.add(key)
                out.append(WebSentence(page.url, sentence))
    return out
