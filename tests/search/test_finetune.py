"""The fine-tuned model's training.json: what it was trained on decides whether a benchmark reuses it."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import pytest

from bench import search as bench_search
from search.finetune import TRAINING_FILE, planned_training, trained_as

CLAIMS = [("Animals have rights.", ["They feel pain.", "Rights need duties."]), ("Tax sugar.", ["It works."])]


def saved_as_trained(folder: Path, claims: list[tuple[str, list[str]]], **settings: int) -> None:
    folder.mkdir(parents=True)
    (folder / TRAINING_FILE).write_text(json.dumps(asdict(planned_training(claims, **settings))))


def test_a_model_trained_on_the_same_claims_and_settings_matches(tmp_path: Path) -> None:
    saved_as_trained(tmp_path / "model", CLAIMS)
    assert trained_as(tmp_path / "model") == planned_training(CLAIMS)


@pytest.mark.parametrize(
    ("claims", "settings"),
    [
        ([("Animals have rights.", ["They feel pain."]), ("Tax sugar.", ["It works."])], {}),
        ([(c, [p.upper() for p in ps]) for c, ps in CLAIMS], {}),
        (CLAIMS, {"epochs": 2}),
        (CLAIMS, {"seed": 1}),
    ],
)
def test_other_claims_or_settings_do_not_match(
    tmp_path: Path, claims: list[tuple[str, list[str]]], settings: dict[str, int]
) -> None:
    saved_as_trained(tmp_path / "model", claims, **settings)
    assert trained_as(tmp_path / "model") != planned_training(CLAIMS)


def test_a_folder_without_a_readable_training_file_has_no_training(tmp_path: Path) -> None:
    assert trained_as(tmp_path) is None
    (tmp_path / TRAINING_FILE).write_text("{not json")
    assert trained_as(tmp_path) is None


def release_of(claims: list[tuple[str, list[str]]]) -> bench_search.Release:
    pool = [text for _, texts in claims for text in texts]
    docs = [bench_search.Doc(n, text) for n, text in enumerate(pool)]
    clusters = [[{pool.index(text)} for text in texts] for _, texts in claims]
    return bench_search.Release(docs, [c for c, _ in claims], clusters, [set()] * len(claims), ["train"] * 2)


def test_the_benchmark_reuses_a_matching_model_and_skips_without_one_unless_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(bench_search, "TUNED_MODEL", tmp_path / "model")
    release = release_of(CLAIMS)
    assert not bench_search.tuned_model_ready(release, fine_tune=False)
    assert "--fine-tune" in capsys.readouterr().out
    saved_as_trained(tmp_path / "model", bench_search.train_claims(release))
    assert bench_search.tuned_model_ready(release, fine_tune=False)
    assert "reusing" in capsys.readouterr().out
