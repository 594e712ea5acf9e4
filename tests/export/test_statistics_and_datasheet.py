"""Statistics shaped like the paper's Tables 2 and 4, the datasheet's known issues, the zip's determinism."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from corpus.models import Claim
from export.archive import EPOCH, write_zip, zip_date
from export.datasheet import known_issues
from export.models import Release
from export.statistics import release_statistics, tokens


def cluster(
    pids: list[int], label: str, votes: list[int], evidence: list[int] | None = None
) -> dict[str, Any]:
    return {
        "pids": pids,
        "stance_label_3": label,
        "stance_label_5": label,
        "voter_counts": votes,
        "evidence": evidence or [],
    }


CLAIMS = [
    {
        "cId": 1,
        "text": "Animals should have lawful rights.",
        "source": "idebate",
        "topics": ["law"],
        "perspectives": [
            cluster([10, 12], "SUPPORT", [3, 0, 0, 0, 0], [7]),
            cluster([11], "UNDERMINE", [3, 0, 0, 0, 0]),
        ],
    },
    {"cId": 2, "text": "Ban boxing", "source": "procon", "topics": [], "perspectives": []},
]
POOL = [
    {"pId": 10, "text": "They feel pain.", "source": "idebate"},
    {"pId": 11, "text": "Rights need duties.", "source": "idebate"},
    {"pId": 12, "text": "They feel pain.", "source": "paraphrase"},
    {"pId": 13, "text": "A web sentence", "source": "google"},
]


def test_tokens_count_words_and_punctuation() -> None:
    assert tokens("Animals should have lawful rights.") == 6
    assert tokens("Don't") == 3


def test_table_2_counts_perspectives_by_step_and_stance() -> None:
    table = release_statistics(CLAIMS, POOL, [], {"1": "train", "2": "test"})["table_2"]
    assert table["claims"]["count"] == 2
    assert table["claims"]["length_tokens"] == {"mean": 4.0, "median": 4.0, "max": 6, "min": 2}
    perspectives = table["perspectives"]
    assert (perspectives["debate_websites_step_1"], perspectives["paraphrases_step_2b"]) == (2, 1)
    assert perspectives["web_step_2c"] == 1
    assert (perspectives["with_stances"], perspectives["support"], perspectives["undermine"]) == (2, 1, 1)
    assert perspectives["mean_cluster_size"] == 1.5
    assert table["evidence"] == {
        "count": 0,
        "referenced_ids": 1,
        "length_tokens": {"mean": None, "median": None, "max": None, "min": None},
    }


def test_table_4_counts_each_site_after_steps_1_and_2a() -> None:
    table = release_statistics(CLAIMS, POOL, [], {})["table_4"]
    assert table["after_step_1"]["idebate"] == {"claims": 1, "perspectives": 2, "evidence": 0}
    assert table["after_step_1"]["procon"] == {"claims": 1, "perspectives": 0, "evidence": 0}
    assert table["after_step_2a"]["idebate"] == {"claims": 1, "perspectives": 2}
    assert table["after_step_2a"]["procon"] == {"claims": 0, "perspectives": 0}
    assert table["after_step_2a"]["total"] == {"claims": 1, "perspectives": 2}
    assert (table["step_2b_paraphrases"], table["step_2c_web_perspectives"]) == (1, 1)


def test_known_issues_are_counted_from_the_records() -> None:
    split = {
        "grouping": "primary-topic",
        "leakage": {"topic_sharing_pairs": 9, "topic_sharing_pairs_across_splits": 2},
    }
    issues = known_issues(CLAIMS, POOL, evidence_missing=1, split=split, simulated=True)
    text = "\n".join(issues)
    assert issues[0].startswith("Contains labels from a SIMULATED crowd")
    assert "1 clusters have a 3-way label that contradicts their voter counts" in text
    assert "1 claims hold different pIds with identical text (e.g. claims 1)" in text
    assert "1 evidence ids cited by clusters have no text" in text
    assert "1 claims have no topic" in text and "1 claims have no released perspective cluster" in text
    assert "2 of 9 claim pairs that share a topic fall in different splits" in text


def test_a_clean_release_has_no_known_issues() -> None:
    clean = [{**CLAIMS[0], "perspectives": [cluster([10], "SUPPORT", [3, 0, 0, 0, 0])]}]
    assert known_issues(clean, POOL, 0, {}, simulated=False) == []


def test_zip_dates_come_from_the_state_not_the_clock() -> None:
    assert zip_date("2026-03-04T05:06:07.123+00:00") == (2026, 3, 4, 5, 6, 7)
    assert zip_date(None) == EPOCH


def test_identical_directories_zip_to_identical_bytes(tmp_path: Path) -> None:
    for name in ("a", "b"):
        (tmp_path / name / "jsonl").mkdir(parents=True)
        (tmp_path / name / "manifest.json").write_text("{}")
        (tmp_path / name / "jsonl" / "x.jsonl").write_text('{"a":1}\n')
        write_zip(tmp_path / name, tmp_path / f"{name}.zip", "top", "2026-01-01T00:00:00")
    assert (tmp_path / "a.zip").read_bytes() == (tmp_path / "b.zip").read_bytes()


@pytest.mark.django_db
def test_the_build_command_splits_and_records_a_release(
    small_corpus: list[Claim], releases_dir: Path
) -> None:
    out = StringIO()
    err = StringIO()
    call_command("build_release", "--version", "2.0", "--split-seed", "5", stdout=out, stderr=err)
    release = Release.objects.get(version="2.0")
    stages = [line.split(":")[0] for line in err.getvalue().splitlines()]
    assert stages == ["split the claims", "write the release files", "zip and hash the files"]
    assert f"zip and hash the files: {len(release.files)} files in " in err.getvalue()
    said = out.getvalue()
    assert f"Release 2.0 written to {release.path}: {len(release.files)} files" in said
    counts = release.manifest["split"]["counts"]
    assert f"train {counts['train']} (" in said and "{" not in said
    assert release.manifest["split"]["seed"] == 5
    assert not Claim.objects.filter(split="").exists()
    with pytest.raises(CommandError, match="exists"):
        call_command("build_release", "--version", "2.0", stdout=StringIO())


@pytest.mark.django_db
def test_the_split_command_reports_the_split(small_corpus: list[Claim]) -> None:
    out = StringIO()
    call_command("split_claims", "--seed", "1", "--ratios", "0.5", "0.25", "0.25", stdout=out)
    report = json.loads(out.getvalue())
    assert report["claims"] == 10 and report["ratios"] == {"train": 0.5, "dev": 0.25, "test": 0.25}
    with pytest.raises(CommandError, match="add up to 1"):
        call_command("split_claims", "--ratios", "0.5", "0.5", "0.5", stdout=StringIO())
