from __future__ import annotations

import pytest

from annotation.planning.bundling import BundlingError, Grouped, bundle, mix_gold


def test_bundle_keeps_whole_groups_together() -> None:
    items = [Grouped(n, f"claim{n // 3}") for n in range(9)]  # three claims of three perspectives

    hits = bundle(items, groups_per_hit=2)

    assert hits == [[0, 1, 2, 3, 4, 5], [6, 7, 8]]


def test_bundle_refuses_empty_hits() -> None:
    with pytest.raises(BundlingError):
        bundle([Grouped(1, "a")], groups_per_hit=0)


def test_mix_gold_adds_the_asked_number_of_distinct_gold_items_to_each_hit() -> None:
    hits = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]

    mixed = mix_gold(hits, gold=[100, 101, 102], per_hit=2, seed=1)

    assert len(mixed) == len(hits)
    for original, hit in zip(hits, mixed, strict=True):
        gold = [entry for entry in hit if entry >= 100]
        assert len(gold) == len(set(gold)) == 2
        assert [entry for entry in hit if entry < 100] == original


def test_mix_gold_spreads_the_pool_evenly() -> None:
    mixed = mix_gold([[n] for n in range(6)], gold=[100, 101, 102], per_hit=1, seed=3)

    uses = [sum(hit.count(gold) for hit in mixed) for gold in (100, 101, 102)]
    assert uses == [2, 2, 2]


def test_mix_gold_needs_enough_gold() -> None:
    with pytest.raises(BundlingError):
        mix_gold([[1]], gold=[100], per_hit=2, seed=0)
