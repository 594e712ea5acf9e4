"""Topic-disjoint train/dev/test splits of claims. Pure: no Django.

The paper's rule is that claims sharing a topic never straddle splits. Taken literally over every
topic a claim carries, the rule cannot be met on PERSPECTRUM: politics, society and world tie the
topic graph together, so 786 of its 907 claims form one connected component (dropping the 13 most
frequent topics still leaves a component of 188). So the unit of splitting is a *group* of claims,
and how groups are formed is a choice recorded with every split:

- ``Grouping.PRIMARY_TOPIC`` (the default): claims are grouped by their first-listed topic (the
  order annotators gave, ``ClaimTopic.position``). No two claims with the same primary topic
  straddle splits; claims may still share a secondary topic across splits, and the split report
  counts how many claim pairs do.
- ``Grouping.ALL_TOPICS``: groups are the connected components of the claim–topic graph, the
  literal rule. On a well-connected corpus one split takes the giant component and the ratios are
  far off; the report says by how much.

In both, a claim with no topic shares no topic with anyone, so it is a group of its own; these
singletons are what lets the sizes come close to the targets.

Groups are assigned to splits by a seeded search: each trial shuffles the groups and hands each to
the split furthest below its target; the trial closest to the targets wins (ties: the earliest).
The same claims, topics, ratios and seed always give the same split.

A split can also *extend* an earlier one (``fixed``): claims that already have a split keep it, so a
claim released in test never moves to train in a later release. A new claim whose group already holds
fixed claims joins that group's (majority) split; the other groups are filled toward the targets,
counting the fixed claims.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

SPLITS = ("train", "dev", "test")


class SplitPlanError(ValueError):
    """Split ratios or parameters that cannot describe a split."""


class Grouping(StrEnum):
    PRIMARY_TOPIC = "primary-topic"
    ALL_TOPICS = "all-topics"


@dataclass(frozen=True)
class SplitPlan:
    """How to split: target ratios for train/dev/test, the grouping, the seed, the search effort."""

    ratios: tuple[float, float, float] = (0.60, 0.15, 0.25)
    seed: int = 0
    grouping: Grouping = Grouping.PRIMARY_TOPIC
    trials: int = 200

    def __post_init__(self) -> None:
        if len(self.ratios) != len(SPLITS) or any(r < 0 for r in self.ratios):
            raise SplitPlanError(f"ratios must be three non-negative numbers, not {self.ratios}")
        if abs(sum(self.ratios) - 1.0) > 1e-6:
            raise SplitPlanError(f"ratios must add up to 1, not {sum(self.ratios):g}")
        if self.trials < 1:
            raise SplitPlanError("trials must be at least 1")

    def as_dict(self) -> dict[str, Any]:
        return {
            "ratios": dict(zip(SPLITS, self.ratios, strict=True)),
            "seed": self.seed,
            "grouping": str(self.grouping),
            "trials": self.trials,
        }


DEFAULT_PLAN = SplitPlan()


@dataclass(frozen=True)
class SplitResult:
    plan: SplitPlan
    assignment: dict[int, str]
    groups: list[list[int]] = field(repr=False)

    def report(self, topics: Mapping[int, Sequence[str]]) -> dict[str, Any]:
        """Sizes, achieved ratios and how well topics are kept apart, for the manifest."""
        return {**self.plan.as_dict(), **split_report(self.assignment, topics, self.plan.ratios)}


def topic_groups(topics: Mapping[int, Sequence[str]], grouping: Grouping) -> list[list[int]]:
    """Claim ids grouped so that a group must not straddle splits; each group sorted, groups by first id."""
    parent: dict[Any, Any] = {}

    def root(node: Any) -> Any:
        parent.setdefault(node, node)
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for cid, slugs in topics.items():
        linked = slugs[:1] if grouping is Grouping.PRIMARY_TOPIC else slugs
        claim = root(("claim", cid))
        for slug in linked:
            parent[claim] = root(("topic", slug))
            claim = root(("claim", cid))
    members: dict[Any, list[int]] = {}
    for cid in sorted(topics):
        members.setdefault(root(("claim", cid)), []).append(cid)
    return sorted(members.values(), key=lambda group: group[0])


def split_claims(
    topics: Mapping[int, Sequence[str]],
    plan: SplitPlan = DEFAULT_PLAN,
    fixed: Mapping[int, str] | None = None,
) -> SplitResult:
    """Assign every claim in `topics` (cid → topic slugs in annotator order) to train, dev or test;
    claims in `fixed` (cid → split) keep theirs."""
    fixed = {cid: split for cid, split in (fixed or {}).items() if cid in topics}
    unknown = set(fixed.values()) - set(SPLITS)
    if unknown:
        raise SplitPlanError(f"fixed splits must be one of {SPLITS}, not {sorted(unknown)}")
    groups = topic_groups(topics, plan.grouping)
    total = sum(len(group) for group in groups)
    targets = [ratio * total for ratio in plan.ratios]
    shared = _shared_pairs(groups, topics)
    pinned = _pinned_groups(groups, fixed)
    start = [0.0] * len(SPLITS)
    for index, split in pinned.items():
        for cid in groups[index]:
            start[SPLITS.index(fixed.get(cid, SPLITS[split]))] += 1
    rng = random.Random(plan.seed)
    best: list[int] | None = None
    best_score = (float("inf"), float("inf"))
    for _ in range(plan.trials):
        order = [index for index in range(len(groups)) if index not in pinned]
        rng.shuffle(order)
        # Big groups first so the singletons can even out what they leave; the shuffle decides
        # among groups of equal size, and which split a group lands in.
        order.sort(key=lambda index: -len(groups[index]))
        chosen = _fill(order, groups, targets, rng, start, pinned)
        # Closest to the targets first; among equally close, fewest topic-sharing pairs across splits.
        score = (round(_error(chosen, groups, targets), 6), _crossing(chosen, shared))
        if score < best_score:
            best, best_score = chosen, score
    assert best is not None  # trials >= 1
    assignment = {
        cid: fixed.get(cid, SPLITS[best[index]]) for index, group in enumerate(groups) for cid in group
    }
    return SplitResult(plan=plan, assignment=dict(sorted(assignment.items())), groups=groups)


def _pinned_groups(groups: list[list[int]], fixed: Mapping[int, str]) -> dict[int, int]:
    """Group index → the split its fixed claims mostly hold (ties: train before dev before test)."""
    pinned = {}
    for index, group in enumerate(groups):
        held = [SPLITS.index(fixed[cid]) for cid in group if cid in fixed]
        if held:
            pinned[index] = min(set(held), key=lambda split: (-held.count(split), split))
    return pinned


def _fill(
    order: list[int],
    groups: list[list[int]],
    targets: list[float],
    rng: random.Random,
    start: list[float] | None = None,
    pinned: Mapping[int, int] | None = None,
) -> list[int]:
    sizes = list(start) if start is not None else [0.0] * len(targets)
    chosen = [0] * len(groups)
    for index, split in (pinned or {}).items():
        chosen[index] = split
    for index in order:
        size = len(groups[index])
        # The split whose target is missed least after taking this group; random among near-equals.
        costs = [abs(sizes[k] + size - targets[k]) - abs(sizes[k] - targets[k]) for k in range(len(targets))]
        low = min(costs)
        candidates = [k for k, cost in enumerate(costs) if cost - low < 1e-9]
        k = candidates[0] if len(candidates) == 1 else rng.choice(candidates)
        chosen[index] = k
        sizes[k] += size
    return chosen


def _shared_pairs(groups: list[list[int]], topics: Mapping[int, Sequence[str]]) -> dict[tuple[int, int], int]:
    """For each pair of groups (by index), how many claim pairs between them share a topic."""
    topical = [index for index, group in enumerate(groups) if any(topics.get(cid) for cid in group)]
    counts: dict[tuple[int, int], int] = {}
    for position, g in enumerate(topical):
        for h in topical[position + 1 :]:
            pairs = sum(
                1 for a in groups[g] for b in groups[h] if set(topics.get(a, ())) & set(topics.get(b, ()))
            )
            if pairs:
                counts[(g, h)] = pairs
    return counts


def _crossing(chosen: list[int], shared: Mapping[tuple[int, int], int]) -> int:
    return sum(pairs for (g, h), pairs in shared.items() if chosen[g] != chosen[h])


def _error(chosen: list[int], groups: list[list[int]], targets: list[float]) -> float:
    sizes = [0] * len(targets)
    for index, group in enumerate(groups):
        sizes[chosen[index]] += len(group)
    return sum(abs(size - target) for size, target in zip(sizes, targets, strict=True))


def split_report(
    assignment: Mapping[int, str], topics: Mapping[int, Sequence[str]], ratios: Sequence[float] | None = None
) -> dict[str, Any]:
    """Sizes, shares, and topic leakage of any split (ours or a stored one such as PERSPECTRUM's)."""
    total = len(assignment)
    counts = {name: sum(1 for s in assignment.values() if s == name) for name in SPLITS}
    report: dict[str, Any] = {
        "claims": total,
        "counts": counts,
        "shares": {name: round(counts[name] / total, 4) if total else 0.0 for name in SPLITS},
    }
    if ratios is not None:
        report["max_share_error"] = round(
            max(abs(report["shares"][name] - ratio) for name, ratio in zip(SPLITS, ratios, strict=True)), 4
        )
    report["leakage"] = topic_leakage(assignment, topics)
    return report


def topic_leakage(assignment: Mapping[int, str], topics: Mapping[int, Sequence[str]]) -> dict[str, Any]:
    """How far topics straddle splits: per rule, the topics and the claim pairs that cross."""
    primary_spread: dict[str, set[str]] = {}
    any_spread: dict[str, set[str]] = {}
    for cid, split in assignment.items():
        slugs = list(topics.get(cid, ()))
        for slug in slugs[:1]:
            primary_spread.setdefault(slug, set()).add(split)
        for slug in slugs:
            any_spread.setdefault(slug, set()).add(split)
    sharing, crossing = _pairs(assignment, topics)
    return {
        "primary_topics_straddling": sorted(t for t, s in primary_spread.items() if len(s) > 1),
        "topics_straddling": sorted(t for t, s in any_spread.items() if len(s) > 1),
        "topic_sharing_pairs": sharing,
        "topic_sharing_pairs_across_splits": crossing,
    }


def _pairs(assignment: Mapping[int, str], topics: Mapping[int, Sequence[str]]) -> tuple[int, int]:
    """Claim pairs sharing a topic, and those of them in different splits (bitsets: 907² pairs is slow)."""
    order = sorted(assignment)
    by_topic: dict[str, int] = {}
    by_split: dict[str, int] = {}
    for index, cid in enumerate(order):
        for slug in topics.get(cid, ()):
            by_topic[slug] = by_topic.get(slug, 0) | (1 << index)
        by_split[assignment[cid]] = by_split.get(assignment[cid], 0) | (1 << index)
    sharing = crossing = 0
    for index, cid in enumerate(order):
        neighbours = 0
        for slug in topics.get(cid, ()):
            neighbours |= by_topic[slug]
        later = neighbours >> (index + 1) << (index + 1)  # each pair once
        sharing += later.bit_count()
        crossing += (later & ~by_split[assignment[cid]]).bit_count()
    return sharing, crossing
