"""Sentence boundaries that abbreviations do not fake. Pure.

A period ends a sentence only when the word it closes is not an abbreviation: "Prop. 215",
"the U.S. Senate", "Dr. King", "Jan. 5" and initials ("J. Smith") run on. A trained splitter (punkt)
would need a model download; the debate sites' prose is regular enough for a list of abbreviations.
"""

from __future__ import annotations

import re

# A candidate boundary: ., ! or ? (with any closing quotes or brackets), space, then a capital,
# digit or opening quote.
CANDIDATE = re.compile(r"(?<=[.!?])[\"”’)\]]*\s+(?=[\"“‘(\[]?[A-Z0-9])")
ABBREVIATION_WORDS = """
    prop props no nos vs v st mt ft dr mr mrs ms messrs prof rev hon gov sen sens rep reps pres
    gen col lt sgt capt cmdr adm maj cpl jr sr inc co corp ltd llc dept univ assn natl intl
    jan feb mar apr jun jul aug sep sept oct nov dec
    approx est fig figs vol vols ch art sec secs para p pp ed eds cf al etc ca viz
"""
ABBREVIATIONS = frozenset(ABBREVIATION_WORDS.split())
# "U.S.", "e.g.", "Ph.D.", "J.": letters each followed by a period.
INITIALS = re.compile(r"(?:[A-Za-z]\.){1,4}[A-Za-z]?")
OPENING = "([{\"“‘'"


def _closes_abbreviation(text_before: str) -> bool:
    """Whether the period at the end of `text_before` belongs to an abbreviation."""
    if not text_before.endswith("."):
        return False
    word = text_before.rsplit(None, 1)[-1].lstrip(OPENING)
    if INITIALS.fullmatch(word):
        return True
    return word[:-1].lower() in ABBREVIATIONS


def split_sentences(text: str) -> list[str]:
    """The sentences of `text`, split only at real boundaries."""
    sentences: list[str] = []
    start = 0
    for match in CANDIDATE.finditer(text):
        end = match.start()
        # The closing quotes/brackets matched after the mark belong to the sentence they close.
        closing = len(match.group(0)) - len(match.group(0).lstrip('"”’)]'))
        if _closes_abbreviation(text[start:end]):
            continue
        sentences.append(text[start : end + closing].strip())
        start = match.end()
    sentences.append(text[start:].strip())
    return [s for s in sentences if s]


def first_sentence(text: str) -> str:
    """The first real sentence of `text` (all of it when it has no boundary)."""
    sentences = split_sentences(text)
    return sentences[0] if sentences else ""
