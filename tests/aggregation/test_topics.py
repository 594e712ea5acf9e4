import json
from pathlib import Path

import pytest

from aggregation.responses import UnknownLabelError
from aggregation.rules import Comparison
from aggregation.topics import TopicRule, assign_topics, topic_label_set

TOPICS = topic_label_set(["politics", "economy", "health_and_medicine", "law"])


def tags(rows: list[tuple[int, str, str]]) -> dict[int, list[str]]:
    items, workers, topics = zip(*rows, strict=True)
    return assign_topics(list(items), list(workers), list(topics), TOPICS)


def test_with_two_workers_a_topic_needs_both():
    rows = [(1, "a", "politics"), (1, "b", "politics"), (1, "a", "law"), (2, "a", "economy"), (2, "b", "law")]
    assert tags(rows) == {1: ["politics"], 2: []}


def test_a_repeated_tag_counts_once():
    rows = [(1, "a", "law"), (1, "a", "law"), (1, "b", "politics"), (1, "c", "politics")]
    assert tags(rows) == {1: ["politics"]}


def test_topics_are_ordered_by_agreement_then_by_the_list():
    rows = [(1, w, "law") for w in "abc"] + [(1, w, "politics") for w in "ab"]
    rows += [(1, w, "economy") for w in "bc"]
    assert tags(rows) == {1: ["law", "politics", "economy"]}


def test_raters_who_tagged_nothing_still_count_when_given():
    rows = [(1, "a", "law"), (1, "b", "law")]
    assert assign_topics([1, 1], ["a", "b"], ["law", "law"], TOPICS, raters={1: 5}) == {1: []}
    assert tags(rows) == {1: ["law"]}


def test_the_share_and_comparison_are_arguments():
    rows = [(1, "a", "law"), (1, "b", "economy")]
    items, workers, topics = zip(*rows, strict=True)
    half = TopicRule(min_share=0.5, comparison=Comparison.AT_LEAST)
    assert assign_topics(list(items), list(workers), list(topics), TOPICS, half) == {1: ["economy", "law"]}


def test_a_topic_outside_the_list_is_refused():
    with pytest.raises(UnknownLabelError, match="astrology"):
        tags([(1, "a", "astrology"), (1, "b", "law")])


def test_the_release_uses_eighteen_topics(perspectrum_dir: Path):
    claims = json.loads((perspectrum_dir / "topic.json").read_text())
    slugs = sorted({slug for claim in claims for slug in claim["topics"]})
    assert len(topic_label_set(slugs)) == 18
