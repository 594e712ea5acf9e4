"""VAST's examples from crowd answers, in the released CSV's columns (Allaway & McKeown 2020, §3.1).
Pure module: no Django.

Three types come from the answers, each decided by majority vote (a tied top count gives no row):
Heur, the stance on the proposed topic; Corr, the stance on a corrected topic, voted over the
corrections to the same new topic; List, the topics a worker listed, each taking the stance that
worker gave. Synthetic neutral examples (type 4) follow §3.1.3: each Heur or Corr example, with
probability ``neutral_share``, adds the comment paired with another topic of the data that shares no
word with it nor with any topic proposed to or written by annotators for that comment.

Columns are those of the public release's README (``vast_train.csv``); see COLUMNS for what is left
empty and why.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from annotation.task_types.builtin_rules import CON, NEUTRAL, PRO
from annotation.task_types.vast_topics import lexically_disjoint, topic_string, words
from export.vast_quality import StanceAnswer

HEUR, CORR, LIST, SYNTHETIC_NEUTRAL = 1, 2, 3, 4
TYPE_NAMES = {
    HEUR: "heuristic topic",
    CORR: "corrected topic",
    LIST: "listed topic",
    SYNTHETIC_NEUTRAL: "synthetic neutral",
}


def describe_types(by_type: dict[int, int]) -> str:
    """Rows per VAST type with the type's name: "heuristic topic 3, corrected topic 3"."""
    return ", ".join(f"{TYPE_NAMES.get(kind, f'type {kind}')} {n}" for kind, n in sorted(by_type.items()))


LABEL_CODE = {CON: 0, PRO: 1, NEUTRAL: 2}
# The README's columns, in its order (plus `pos_text`), then `is_new_topic`, the vote counts behind the
# label and our `simulated` mark. `text` and `topic` are JSON lists (sentences of words; words).
# `arc_id` is the claim's cId (the debate the comment belongs to), `ori_id` the item's key, and `seen?`
# says whether the topic occurs among examples of training-split claims (empty while a claim has no
# split). Left empty: `author` (PERSPECTRUM records no comment author), `pos_text` (no POS tagger is
# installed), `change_lst`/`change_type` (sentiment-swap columns of vast_test-sentswap.csv only).
COLUMNS = (
    "author",
    "post",
    "ori_topic",
    "ori_id",
    "new_topic",
    "label",
    "type_idx",
    "new_id",
    "arc_id",
    "text",
    "pos_text",
    "text_s",
    "topic",
    "topic_str",
    "seen?",
    "contains_topic?",
    "change_lst",
    "change_type",
    "is_new_topic",
    "Pro",
    "Con",
    "Neutral",
    "simulated",
)
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


@dataclass(frozen=True)
class VastItem:
    """One (comment, proposed topic) item; `comment_key` is the same for every item of a comment."""

    item: int
    key: str
    comment_key: str
    comment: str
    topic: str
    arc_id: int
    split: str = ""


@dataclass(frozen=True)
class Example:
    item: VastItem
    topic: str
    label: str
    type_idx: int
    votes: Mapping[str, int]


def majority(sides: Iterable[str]) -> tuple[str, Counter[str]] | None:
    """The side most answers took and the counts, or None when the top count is tied or empty."""
    counts = Counter(sides)
    top = counts.most_common(2)
    if not top or (len(top) == 2 and top[0][1] == top[1][1]):
        return None
    return top[0][0], counts


def item_examples(item: VastItem, answers: Sequence[StanceAnswer]) -> list[Example]:
    """The Heur, Corr and List examples of one item from its (kept) workers' answers."""
    examples = []
    heur = majority(a.side for a in answers if not a.correction)
    if heur:
        examples.append(Example(item, item.topic, heur[0], HEUR, heur[1]))
    by_correction: dict[str, list[StanceAnswer]] = {}
    for a in answers:
        if a.correction:
            by_correction.setdefault(topic_string(a.correction), []).append(a)
    for group in by_correction.values():
        if corr := majority(a.side for a in group):
            examples.append(Example(item, group[0].correction, corr[0], CORR, corr[1]))
    taken = {topic_string(e.topic) for e in examples} | {topic_string(item.topic)}
    by_listed: dict[str, tuple[str, list[str]]] = {}
    for a in answers:
        for listed in a.topics:
            key = topic_string(listed)
            if key and key not in taken:
                by_listed.setdefault(key, (listed, []))[1].append(a.side)
    for listed, sides in by_listed.values():
        if found := majority(sides):
            examples.append(Example(item, listed, found[0], LIST, found[1]))
    return examples


def neutral_examples(
    examples: Sequence[Example],
    topics_by_comment: Mapping[str, set[str]],
    *,
    share: float,
    seed: int,
) -> list[Example]:
    """§3.1.3: per Heur or Corr example, with probability `share`, the comment with a sampled topic
    lexically disjoint from the example's and from every topic proposed to or by annotators for it."""
    rng = random.Random(seed)
    pool = sorted({e.topic for e in examples})
    added = []
    for example in examples:
        if example.type_idx not in (HEUR, CORR) or rng.random() >= share:
            continue
        avoid = {example.topic, *topics_by_comment.get(example.item.comment_key, set())}
        candidates = [topic for topic in pool if lexically_disjoint(topic, avoid)]
        if candidates:
            added.append(Example(example.item, rng.choice(candidates), NEUTRAL, SYNTHETIC_NEUTRAL, {}))
    return added


def sentences(text: str) -> list[list[str]]:
    return [found for sentence in SENTENCE_END.split(text) if (found := words(sentence))]


def seen_topics(examples: Sequence[Example]) -> set[str]:
    """Topic strings of examples whose claim is in the training split (VAST's few-shot topics)."""
    return {topic_string(e.topic) for e in examples if e.item.split == "train"}


def as_row(example: Example, new_id: int, seen: set[str], simulated: bool) -> dict[str, Any]:
    item, topic_str = example.item, topic_string(example.topic)
    text_s = " ".join(words(item.comment))
    votes = example.votes
    return {
        "author": "",
        "post": item.comment,
        "ori_topic": item.topic,
        "ori_id": item.key,
        "new_topic": example.topic,
        "label": LABEL_CODE[example.label],
        "type_idx": example.type_idx,
        "new_id": new_id,
        "arc_id": item.arc_id,
        "text": json.dumps(sentences(item.comment)),
        "pos_text": "",
        "text_s": text_s,
        "topic": json.dumps(words(example.topic)),
        "topic_str": topic_str,
        "seen?": (int(topic_str in seen) if item.split else ""),
        "contains_topic?": int(bool(topic_str) and topic_str in text_s),
        "change_lst": "",
        "change_type": "",
        "is_new_topic": int(topic_str != topic_string(item.topic)),
        # A synthetic neutral example had no votes: its counts are empty, not zero.
        "Pro": votes.get(PRO, 0) if votes else "",
        "Con": votes.get(CON, 0) if votes else "",
        "Neutral": votes.get(NEUTRAL, 0) if votes else "",
        "simulated": int(simulated),
    }


def vast_rows(
    items: Sequence[VastItem],
    answers: Sequence[StanceAnswer],
    *,
    excluded_workers: set[int],
    neutral_share: float = 0.5,
    seed: int = 0,
    simulated: bool = False,
) -> list[dict[str, Any]]:
    """Every example of the items, as rows in COLUMNS; answers of `excluded_workers` do not vote."""
    by_item: dict[int, list[StanceAnswer]] = {}
    topics_by_comment: dict[str, set[str]] = {}
    comment_of = {item.item: item.comment_key for item in items}
    for a in answers:
        provided = topics_by_comment.setdefault(comment_of.get(a.item, ""), set())
        provided.update(a.topics)
        provided.update([a.correction] if a.correction else [])
        if a.worker not in excluded_workers:
            by_item.setdefault(a.item, []).append(a)
    for item in items:
        topics_by_comment.setdefault(item.comment_key, set()).add(item.topic)
    examples = [e for item in items for e in item_examples(item, by_item.get(item.item, []))]
    examples += neutral_examples(examples, topics_by_comment, share=neutral_share, seed=seed)
    seen = seen_topics(examples)
    return [as_row(example, n, seen, simulated) for n, example in enumerate(examples, start=1)]
