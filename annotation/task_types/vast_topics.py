"""Topic phrases as VAST cleans them (Allaway & McKeown 2020, §3.1.2): lowercased words with punctuation
and stopwords removed, and whether two topics overlap lexically (§3.1.3). Pure module: no Django.

VAST used NLTK's stopword list and lemmatiser; NLTK's data is not installed here (and cannot be fetched
offline), so this is a short list of English function words and no lemmatising. Two topics that differ
only by a plural therefore count as lexically distinct here when VAST would not.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
# Function words only: articles, pronouns, auxiliaries, prepositions, conjunctions.
FUNCTION_WORDS = """a an the this that these those it its they them their there here he she his her we
    our us you your i me my is are was were be been being am do does did has have had having will would
    shall should can could may might must of in on at to for from by with about into over under than then
    as and or but nor not no so if because while also very too just such any all some each other more
    most own same only"""
STOPWORDS = frozenset(FUNCTION_WORDS.split())
# A topic list is typed one topic per line or separated by commas or semicolons.
TOPIC_SEPARATORS = re.compile(r"[,;\n]+")


def words(text: str) -> list[str]:
    """Lowercased words, punctuation and stopwords removed."""
    return [word for word in WORD.findall(text.lower()) if word not in STOPWORDS]


def topic_string(topic: str) -> str:
    """A topic as VAST's ``topic_str``: its words, joined by spaces."""
    return " ".join(words(topic))


def split_topic_list(text: str) -> list[str]:
    """The topics a worker typed, trimmed, in order, each once (compared by their words)."""
    seen: set[str] = set()
    topics = []
    for part in TOPIC_SEPARATORS.split(text):
        topic = " ".join(part.split())
        key = topic_string(topic)
        if topic and key not in seen:
            seen.add(key)
            topics.append(topic)
    return topics


def lexically_disjoint(topic: str, others: Iterable[str]) -> bool:
    """True when `topic` shares no (non-stop) word with any of `others` and has words of its own."""
    own = set(words(topic))
    return bool(own) and all(not own & set(words(other)) for other in others)
