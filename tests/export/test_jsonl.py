"""The JSONL files load unchanged with pandas and with the Hugging Face `datasets` JSON loader."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from annotation.models import Job
from export.jsonl import annotation_record, dumps_lines, stance_records
from export.models import Release
from export.services import build_release
from export.splits import SplitPlan

pytestmark = pytest.mark.django_db


@pytest.fixture
def release(simulated_job: Job, releases_dir: Path) -> Release:
    return build_release("0.1", split_plan=SplitPlan(seed=2))


def jsonl_paths(release: Release) -> list[Path]:
    return sorted((release.path / "jsonl").glob("*.jsonl"))


def test_pandas_reads_every_jsonl_file_line_for_line(release: Release) -> None:
    for path in jsonl_paths(release):
        frame = pd.read_json(path, lines=True)
        assert len(frame) == len(path.read_bytes().splitlines()), path.name
    stance = pd.read_json(release.path / "jsonl" / "stance_train.jsonl", lines=True)
    assert set(stance["stance_label_3"]) <= {"SUPPORT", "UNDERMINE", "NOT_VALID", "NO_MAJORITY_LABEL"}
    assert all(isinstance(ids, list) and ids for ids in stance["perspective_ids"])


def test_the_datasets_json_loader_reads_the_splits_and_the_annotations(
    release: Release, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    datasets = pytest.importorskip("datasets")
    folder = release.path / "jsonl"
    splits = {name: str(folder / f"stance_{name}.jsonl") for name in ("train", "dev", "test")}
    splits = {name: path for name, path in splits.items() if Path(path).exists()}

    loaded = datasets.load_dataset("json", data_files=splits, cache_dir=str(tmp_path / "cache"))
    for name, path in splits.items():
        assert loaded[name].num_rows == len(Path(path).read_bytes().splitlines())
        assert loaded[name][0]["claim_id"] == json.loads(Path(path).read_bytes().splitlines()[0])["claim_id"]
    annotations = datasets.load_dataset(
        "json", data_files=str(folder / "annotations.jsonl"), cache_dir=str(tmp_path / "cache")
    )["train"]
    assert annotations.num_rows == Job.objects.get().responses.count()
    assert all(worker.startswith("w_") for worker in annotations["worker"])


def test_stance_records_put_each_claim_cluster_on_its_own_line_by_split() -> None:
    claims = [
        {
            "cId": 2,
            "text": "c",
            "source": "idebate",
            "topics": ["law"],
            "perspectives": [
                {
                    "pids": [5, 6],
                    "stance_label_3": "SUPPORT",
                    "stance_label_5": "SUPPORT",
                    "voter_counts": [2, 1, 0, 0, 0],
                    "evidence": [9],
                },
                {
                    "pids": [7],
                    "stance_label_3": "UNDERMINE",
                    "stance_label_5": "UNDERMINE",
                    "voter_counts": [0, 0, 0, 3, 0],
                    "evidence": [],
                },
            ],
        },
        {"cId": 3, "text": "d", "source": "procon", "topics": [], "perspectives": []},
    ]
    pool = [{"pId": p, "text": f"p{p}", "source": "idebate"} for p in (5, 6, 7)]

    records = stance_records(claims, pool, {"2": "dev"})

    assert list(records) == ["dev"]
    assert [r["perspectives"] for r in records["dev"]] == [["p5", "p6"], ["p7"]]
    assert [r["cluster_index"] for r in records["dev"]] == [0, 1]


def test_a_rich_answer_is_kept_as_a_json_string_so_columns_keep_one_type() -> None:
    row: dict[str, Any] = {"job_id": 1, "task_type": "topic_tagging", "item": "c1", "worker": "w_" + "0" * 20}
    record = annotation_record({**row, "value": {"topics": ["law", "gender"]}})
    assert record["value_json"] == '{"topics": ["law", "gender"]}'
    assert annotation_record(row)["value_json"] is None


def test_lines_are_utf8_with_sorted_keys_and_one_newline_each() -> None:
    data = dumps_lines([{"b": "é", "a": 1}, {"a": 2, "b": ""}])
    assert data == '{"a":1,"b":"é"}\n{"a":2,"b":""}\n'.encode()
