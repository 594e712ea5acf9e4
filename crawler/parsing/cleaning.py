"""Evidence cleaning and the headline filter, as the PERSPECTRUM crawler did them
(docs/design/construction.md, the debate sites).

Pure functions over strings. Sentences come from `sentences.split_sentences`, which does not cut at
abbreviations ("Prop. 215", "U.S."), so a short-sentence filter never drops half a sentence.
"""

from __future__ import annotations

import re

from crawler.parsing.sentences import split_sentences

MARKER = re.compile(r"\[\s*(?:\d{1,3}|[ivxlc]{1,6}|\.\.\.|…)\s*\]", re.I)
# A footnote number glued to the end of a word or quote: "revenue1." or "costs 1," after a <sup>.
GLUED_NUMBER = re.compile(r"(?<=[a-z%.,)”\"’'])\d{1,2}(?=[\s.,;:)]|$)")
URL = re.compile(r"(?:https?://|www\.)\S+", re.I)
REFERENCE_START = re.compile(
    r"^\s*(?:\[\s*(?:\d{1,3}|[ivxlc]{1,6})\s*\]|\(\s*\d{1,3}\s*\)|\d{1,3}\s*\.?\s*(?=[A-Z“\"‘'h])|\d{1,3}\s*$)",
    re.I,
)
# Footnotes that share the paragraph's last line break ("…productivity1. 1 USA Today, 15 Jul 11, …").
TRAILING_NOTES = re.compile(r"(?<=[.!?”\"’)\]\d])\s+((?:\[\s*\d{1,3}\s*\]|\d{1,2})\s*[A-Z“\"‘][^\n]*)$")
SOURCE_HINT = re.compile(r"https?://|www\.|accessed|retrieved|\b(?:1[89]|20)\d\d\b|\bp\.?\s?\d", re.I)
TOKEN = re.compile(r"\w+(?:['’]\w+)*")
SPACE_BEFORE_PUNCT = re.compile(r"\s+([.,;:!?)])")
SPACE = re.compile(r"\s+")


def tokens(text: str) -> list[str]:
    return TOKEN.findall(text.lower())


def is_reference_line(line: str) -> bool:
    """A footnote or bibliography line: starts with a note marker and cites a source."""
    line = line.strip()
    if not line:
        return False
    if URL.match(line):
        return True
    return bool(REFERENCE_START.match(line)) and (bool(SOURCE_HINT.search(line)) or len(tokens(line)) <= 25)


def split_notes(paragraph: str) -> tuple[str, str]:
    """(text, trailing footnotes) of a paragraph whose notes follow its last sentence on the same line."""
    match = TRAILING_NOTES.search(paragraph)
    if match and is_reference_line(match.group(1)):
        return paragraph[: match.start()].rstrip(), match.group(1)
    return paragraph, ""


def reference_lines(paragraphs: list[str]) -> list[str]:
    """Footnote and bibliography lines: whole reference paragraphs and notes trailing a paragraph."""
    found = []
    for paragraph in paragraphs:
        if is_reference_line(paragraph):
            found.append(paragraph)
        else:
            notes = split_notes(paragraph)[1]
            if notes:
                found.append(notes)
    return found


def clean_evidence(paragraphs: list[str], min_tokens: int = 6) -> str:
    """A point's body as evidence: no reference lines, note markers or URLs, no sentence under `min_tokens`.

    Paragraphs stay separated by a blank line. Returns "" when nothing is left.
    """
    kept_paragraphs: list[str] = []
    for paragraph in paragraphs:
        if is_reference_line(paragraph):
            continue
        paragraph = split_notes(paragraph)[0]
        kept = [
            cleaned
            for sentence in split_sentences(paragraph)
            if not is_reference_line(sentence)
            for cleaned in [_clean_sentence(sentence)]
            if len(tokens(cleaned)) >= min_tokens
        ]
        if kept:
            kept_paragraphs.append(" ".join(kept))
    return "\n\n".join(kept_paragraphs)


def _clean_sentence(sentence: str) -> str:
    sentence = URL.sub(" ", sentence)
    sentence = MARKER.sub(" ", sentence)
    sentence = GLUED_NUMBER.sub("", sentence)
    sentence = SPACE.sub(" ", sentence).strip()
    return SPACE_BEFORE_PUNCT.sub(r"\1", sentence)


def headline_flag(headline: str, body: list[str], max_tokens: int = 3, overlap: float = 0.8) -> str:
    """Why a headline is not a perspective of its own ("" when it is).

    Flags headlines of `max_tokens` tokens or fewer, and headlines whose tokens mostly (share ≥
    `overlap`) repeat the opening of the body — debatewise often titles a point with its first words.
    """
    words = tokens(headline)
    if len(words) <= max_tokens:
        return f"headline has {len(words)} tokens (≤ {max_tokens})"
    opening = tokens(" ".join(body))[: len(words) + 3]
    if not opening:
        return ""
    repeated = sum(1 for word in words if word in opening) / len(words)
    if repeated >= overlap:
        return f"headline repeats the body's opening ({repeated:.0%} of its tokens)"
    return ""


def point_flag(headline: str, body: list[str], check_headline: bool) -> str:
    """A point's quality flag: no headline at all, or (where the site needs it) `headline_flag`."""
    if not headline:
        return "point has no headline"
    return headline_flag(headline, body) if check_headline else ""
