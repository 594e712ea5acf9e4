"""A release of the imported PERSPECTRUM v1.0: verifies, keeps the original files, matches the paper."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from export.services import build_release, diff_releases
from export.splits import SplitPlan
from export.verify import verify_release

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def test_a_release_of_perspectrum_verifies_and_keeps_the_original_files(
    perspectrum_db: Path, releases_dir: Path
) -> None:
    release = build_release("1.0")

    assert verify_release(release.path) == []
    for name in ("perspective_pool_v1.0.json", "dataset_split_v1.0.json", "topic.json"):
        assert (release.path / name).read_bytes() == (perspectrum_db / name).read_bytes(), name
    table_2 = release.manifest["statistics"]["table_2"]
    assert table_2["perspectives"]["with_stances"] == 5095
    assert (table_2["perspectives"]["support"], table_2["perspectives"]["undermine"]) == (2627, 2468)
    assert table_2["perspectives"]["mean_cluster_size"] == 2.32
    assert table_2["claims"]["length_tokens"]["median"] == 8
    split = release.manifest["split"]
    assert split["grouping"] == "as stored" and split["counts"] == {"train": 541, "dev": 139, "test": 227}
    datasheet = (release.path / "datasheet.md").read_text()
    assert "PERSPECTRUM v1.0" in datasheet and "4896 evidence ids" in datasheet
    assert release.manifest["agreement"]["released_clusters_voter_counts"]["clusters"] == 5095


def test_resplitting_perspectrum_comes_within_half_a_point_of_60_15_25(
    perspectrum_db: Path, releases_dir: Path
) -> None:
    before = build_release("1.0")
    after = build_release("1.1", split_plan=SplitPlan(seed=0))

    split = after.manifest["split"]
    assert split["grouping"] == "primary-topic" and split["max_share_error"] < 0.005
    assert split["leakage"]["primary_topics_straddling"] == []
    assert json.loads((after.path / "dataset_split_v1.1.json").read_bytes()).keys() == set(
        json.loads((before.path / "dataset_split_v1.0.json").read_bytes())
    )
    changes = diff_releases(before, after)
    assert changes.split_moves and not changes.relabelled and not changes.claims_added
