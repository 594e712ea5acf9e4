"""`replay_labels --machine-scores` (issue 46): a machine's routing checked on labels collected elsewhere,
and the same figures as `bench machines` from the bench's own CSV files."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from bench import machines as bench

LABELS = ",".join(bench.LABELS)


@pytest.fixture(scope="module")
def seed_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return bench.write_seed(0, tmp_path_factory.mktemp("seed0"))


def replay(files: dict[str, Path], machine: Path, *extra: str) -> str:
    out = StringIO()
    call_command(
        "replay_labels",
        str(files["labels"]),
        "--labels",
        LABELS,
        "--policy",
        "fixed",
        "--max-workers",
        "5",
        "--out",
        str(files["labels"].with_name("out.csv")),
        "--machine-scores",
        str(machine),
        *extra,
        stdout=out,
    )
    return out.getvalue()


@pytest.mark.parametrize("machine", ["good", "chance"])
def test_the_command_gives_the_bench_figures_from_its_csv(seed_files: dict[str, Path], machine: str) -> None:
    figures = bench.one_seed(0)[machine, 0.10]
    printed = replay(
        seed_files,
        seed_files[machine],
        "--gold",
        str(seed_files["gold"]),
        "--target-error",
        "0.10",
        "--confidence",
        "0.95",
        "--calibration-items",
        str(bench.CALIBRATION_ITEMS),
        "--seed",
        "0",
    )
    assert figures.describe() in printed
    assert (figures.routing.threshold is None) == (machine == "chance")


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ("item,label\ni0,support\n", "header must be item,label,score"),
        ("item,label,score\ni0,agree,0.9\n", "line 2: needs a label among"),
        ("item,label,score\ni0,support,1.5\n", "line 2: needs a label among"),
        ("item,label,score\ni0,support,high\n", "line 2"),
        ("item,label,score\ni0,support,0.9\ni0,support,0.8\n", "one row per item"),
        ("item,label,score\nnowhere,support,0.9\n", "'nowhere' has a machine score but no crowd label"),
    ],
)
def test_a_bad_scores_file_is_a_clear_error(
    seed_files: dict[str, Path], tmp_path: Path, rows: str, message: str
) -> None:
    with pytest.raises(CommandError, match=message):
        replay(seed_files, write(tmp_path / "scores.csv", rows))


def test_a_confidence_given_as_delta_is_refused(seed_files: dict[str, Path]) -> None:
    with pytest.raises(CommandError, match="the chance the bound holds"):
        replay(seed_files, seed_files["good"], "--confidence", "0.05")


def test_more_calibration_items_than_items_is_a_clear_error(seed_files: dict[str, Path]) -> None:
    with pytest.raises(CommandError, match="fewer than 5000"):
        replay(seed_files, seed_files["good"], "--calibration-items", "5000")


def test_with_gold_the_label_models_calibration_is_measured_as_it_is_and_once_fitted(
    seed_files: dict[str, Path],
) -> None:
    printed = replay(seed_files, seed_files["good"], "--gold", str(seed_files["gold"]))
    line = next(line for line in printed.splitlines() if "posteriors on" in line)
    assert line.startswith("dawid_skene posteriors on 5000 gold items: ECE=")
    raw, calibrated = (float(part.split("=")[1].strip(",")) for part in line.split() if "ECE=" in part)
    # On a simulated crowd Dawid–Skene's posteriors are already close to calibrated; on real crowds
    # they are not, which is why the fitted figure is printed beside the raw one.
    assert 0 < raw < 0.03 and 0 < calibrated < 0.03
