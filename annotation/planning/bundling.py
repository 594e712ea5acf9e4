"""Bundle items into HITs and mix in gold items. Pure: no Django.

Every design of docs/design/construction.md bundles whole groups: 10 claims with all their perspectives
(group = claim),
15 perspectives (group = perspective), 24 candidates (group = candidate), 20 paragraphs × 8
candidates (group = paragraph), 10 claims (group = claim). So one rule serves them all.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")


class BundlingError(ValueError):
    """Bundling parameters that cannot produce HITs."""


@dataclass(frozen=True)
class Grouped:
    """An item and the group it must share a HIT with."""

    item: Hashable
    group: Hashable


def bundle(items: Sequence[Grouped], groups_per_hit: int) -> list[list[Hashable]]:
    """Split items into HITs of `groups_per_hit` whole groups, keeping first-seen order."""
    if groups_per_hit < 1:
        raise BundlingError(f"groups per HIT must be at least 1, not {groups_per_hit}")
    groups: dict[Hashable, list[Hashable]] = {}
    for entry in items:
        groups.setdefault(entry.group, []).append(entry.item)
    ordered = list(groups.values())
    return [
        [item for group in ordered[start : start + groups_per_hit] for item in group]
        for start in range(0, len(ordered), groups_per_hit)
    ]


def mix_gold(hits: Sequence[Sequence[T]], gold: Sequence[T], per_hit: int, seed: int) -> list[list[T]]:
    """Insert `per_hit` gold items at random places in each HIT, spreading the gold pool evenly.

    Gold items are drawn round-robin from a seeded shuffle so each is reused as little as possible:
    a worker can take a HIT only if they have seen none of its items, so a gold item repeated in
    many HITs limits how many HITs one worker can do.
    """
    if per_hit < 0:
        raise BundlingError(f"gold items per HIT cannot be negative ({per_hit})")
    if per_hit == 0 or not hits:
        return [list(hit) for hit in hits]
    if len(gold) < per_hit:
        raise BundlingError(
            f"{per_hit} gold items per HIT need at least {per_hit} gold items, not {len(gold)}"
        )
    rng = random.Random(seed)
    pool = list(gold)
    rng.shuffle(pool)
    mixed: list[list[T]] = []
    cursor = 0
    for hit in hits:
        chosen: list[T] = []
        while len(chosen) < per_hit:
            candidate = pool[cursor % len(pool)]
            cursor += 1
            if candidate not in chosen:
                chosen.append(candidate)
        merged = list(hit)
        for entry in chosen:
            merged.insert(rng.randint(0, len(merged)), entry)
        mixed.append(merged)
    return mixed
