"""Multi-label answers (topic tagging): each worker tags an item with any number of labels from a
fixed list (e.g. topics); a label is kept for an item when its share of the item's raters passes a
threshold (majority by default).

Multi-label, so ties do not arise per label; an item may end with no label.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from aggregation.labels import LabelSet
from aggregation.responses import Responses
from aggregation.rules import Comparison
from annotation.task_types.rules import MultiLabelRule


@dataclass(frozen=True)
class TopicRule:
    """Keep a topic when (raters who tagged it) / (raters of the claim) passes ``min_share``.

    The default, share > 0.5, is a strict majority: with the paper's two workers per claim, both.
    """

    min_share: float = 0.5
    comparison: Comparison = Comparison.ABOVE
    name: str = "topics"

    def describe(self) -> str:
        return f"{self.name}: share of raters {self.comparison} {self.min_share:g}"

    @classmethod
    def declared(cls, rule: MultiLabelRule, min_share: float) -> TopicRule:
        """The rule a task type declares, with the policy's share."""
        return cls(min_share=min_share, comparison=Comparison(rule.comparison), name=rule.name)


TOPIC_RULE = TopicRule()


def topic_label_set(slugs: Sequence[str]) -> LabelSet:
    """The fixed topic list (e.g. the 18 slugs of the release's ``topic.json``) as a label set."""
    return LabelSet("topics", tuple(slugs))


def assign_topics(
    items: npt.ArrayLike,
    workers: npt.ArrayLike,
    topics: npt.ArrayLike,
    topic_set: LabelSet,
    rule: TopicRule = TOPIC_RULE,
    *,
    raters: Mapping[Any, int] | None = None,
) -> dict[Any, list[str]]:
    """Topics kept per claim, most agreed first (then in the list's order).

    Rows are (claim, worker, topic) tags; a repeated tag counts once. A worker who tagged nothing
    leaves no row, so pass ``raters`` (claim → number of workers who did it) when that can happen;
    otherwise a claim's raters are the distinct workers seen tagging it.
    """
    responses = Responses.from_columns(items, workers, topics, topic_set, require_overlap=False)
    unique = np.unique(
        np.stack([responses.item_index, responses.worker_index, responses.label], axis=1), axis=0
    )
    item_index, worker_index, label = unique[:, 0], unique[:, 1], unique[:, 2]
    n_topics = len(topic_set)
    counts = np.bincount(item_index * n_topics + label, minlength=responses.n_items * n_topics)
    counts = counts.reshape(responses.n_items, n_topics)
    seen = np.bincount(np.unique(item_index * responses.n_workers + worker_index) // responses.n_workers)
    seen = np.pad(seen, (0, responses.n_items - len(seen)))
    if raters is not None:
        listed = zip(responses.items.tolist(), seen.tolist(), strict=True)
        seen = np.array([raters.get(item, n) for item, n in listed])
    shares = counts / np.maximum(seen, 1)[:, None]
    kept = rule.comparison.passes(shares, rule.min_share)
    result: dict[Any, list[str]] = {}
    for i, item in enumerate(responses.items.tolist()):
        chosen = np.flatnonzero(kept[i])
        order = sorted(chosen.tolist(), key=lambda code: (-shares[i, code], code))
        result[item] = [topic_set.labels[code] for code in order]
    return result
