"""`manage.py replay_labels` (issue 29, item 3): labels from elsewhere replayed under a policy."""

from __future__ import annotations

import csv
from io import StringIO
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from django.core.management import CommandError, call_command

from aggregation.adaptive import AdaptivePolicy, fixed_rounds, run_rounds
from aggregation.calibration import accuracy
from aggregation.dawid_skene import DawidSkene
from aggregation.labels import LabelSet
from aggregation.replaying import REPLAY_OUTPUT
from aggregation.responses import Responses
from aggregation.simulated_crowds import Crowd, CrowdSpec, long_format, simulate_crowd

BINARY = LabelSet("binary", ("no", "yes"))


@pytest.fixture(scope="module")
def crowd() -> Crowd:
    return simulate_crowd(CrowdSpec(0.8, 5, 0.1, items=500, pool=16, seed=5))


def write_labels(crowd: Crowd, path: Path, shuffle: bool = False) -> Path:
    rows = [
        (
            f"i{item}",
            f"w{crowd.answer_workers[item, slot]}",
            BINARY.labels[crowd.answer_labels[item, slot]],
            slot * len(crowd.truth) + item,
        )
        for slot in range(5)
        for item in range(len(crowd.truth))
    ]
    if shuffle:
        rows = [rows[i] for i in np.random.default_rng(0).permutation(len(rows))]
    with path.open("w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["item", "worker", "label", "time"])
        writer.writerows(rows)
    return path


def write_gold(crowd: Crowd, path: Path) -> Path:
    pd.DataFrame(
        {"item": [f"i{i}" for i in range(len(crowd.truth))], "label": [BINARY.labels[t] for t in crowd.truth]}
    ).to_csv(path, index=False)
    return path


def replay(*args: str) -> str:
    out = StringIO()
    call_command("replay_labels", *args, stdout=out)
    return out.getvalue()


def direct(crowd: Crowd) -> tuple[float, int, float]:
    """The same policy run on the crowd in memory: adaptive accuracy, labels, fixed 5 accuracy."""

    def respond(used):
        return Responses.from_codes(*long_format(crowd, used), BINARY, require_overlap=False)

    available = np.full(len(crowd.truth), 5)
    played = run_rounds(available, respond, DawidSkene(), AdaptivePolicy(2, 5, 0.95))
    fixed = DawidSkene().fit(respond(fixed_rounds(available, 5)))
    return (
        accuracy(played.fitted.labels, crowd.truth),
        int(played.used.sum()),
        accuracy(fixed.labels, crowd.truth),
    )


def test_replay_reproduces_the_in_memory_figures_side_by_side(crowd, tmp_path):
    printed = replay(
        str(write_labels(crowd, tmp_path / "labels.csv")),
        "--labels",
        "no,yes",
        "--gold",
        str(write_gold(crowd, tmp_path / "gold.csv")),
        "--out",
        str(tmp_path / "out.csv"),
    )
    adaptive, used, fixed = direct(crowd)
    assert f"adaptive: {used} labels used of 2500" in printed
    assert f"fixed: accuracy={fixed:.4f} on 500 gold items, labels used=2500" in printed
    assert f"adaptive: accuracy={adaptive:.4f} on 500 gold items, labels used={used}" in printed


def test_the_output_has_aggregate_labels_columns_and_the_labels_each_item_used(crowd, tmp_path):
    replay(
        str(write_labels(crowd, tmp_path / "labels.csv")),
        "--labels",
        "no,yes",
        "--out",
        str(tmp_path / "out.csv"),
    )
    table = pd.read_csv(tmp_path / "out.csv")
    assert list(table.columns) == REPLAY_OUTPUT
    assert table["labels_used"].between(2, 5).all() and table["labels_used"].sum() == direct(crowd)[1]


def test_arrival_order_is_the_time_column_not_the_file_order(crowd, tmp_path):
    in_order = replay(
        str(write_labels(crowd, tmp_path / "a.csv")),
        "--labels",
        "no,yes",
        "--out",
        str(tmp_path / "a_out.csv"),
    )
    shuffled = replay(
        str(write_labels(crowd, tmp_path / "b.csv", shuffle=True)),
        "--labels",
        "no,yes",
        "--out",
        str(tmp_path / "b_out.csv"),
    )
    assert in_order.split(" ->")[0] == shuffled.split(" ->")[0]


def test_without_a_time_column_the_file_order_is_the_arrival_order(tmp_path):
    rows = "item,worker,label\nx,w1,no\nx,w2,no\nx,w3,yes\nx,w4,yes\ny,w1,yes\ny,w2,yes\n"
    (tmp_path / "l.csv").write_text(rows)
    replay(
        str(tmp_path / "l.csv"),
        "--labels",
        "no,yes",
        "--min-workers",
        "2",
        "--max-workers",
        "4",
        "--stop-posterior",
        "0.5",
        "--out",
        str(tmp_path / "o.csv"),
    )
    used = dict(pd.read_csv(tmp_path / "o.csv")[["item", "labels_used"]].itertuples(index=False))
    assert used == {"x": 2, "y": 2}  # x's two "yes" never arrive: the policy stopped before asking


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("item,worker\nx,w1\n", "header"),
        ("item,worker,label\nx,w1,maybe\n", "not among"),
        ("item,worker,label,time\nx,w1,no,soon\n", "neither a number nor a date"),
    ],
)
def test_a_bad_file_is_refused_with_the_reason(tmp_path, content, message):
    (tmp_path / "l.csv").write_text(content)
    with pytest.raises(CommandError, match=message):
        replay(str(tmp_path / "l.csv"), "--labels", "no,yes", "--out", str(tmp_path / "o.csv"))


def test_impossible_policy_numbers_are_refused(crowd, tmp_path):
    with pytest.raises(CommandError, match="max_workers"):
        replay(
            str(write_labels(crowd, tmp_path / "l.csv")),
            "--labels",
            "no,yes",
            "--min-workers",
            "4",
            "--max-workers",
            "3",
            "--out",
            str(tmp_path / "o.csv"),
        )
