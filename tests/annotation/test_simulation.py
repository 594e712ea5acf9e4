from __future__ import annotations

import random

import pytest

from annotation.simulation import (
    CrowdParams,
    SimulationError,
    WorkerModel,
    answer,
    answer_many,
    make_crowd,
)

LABELS = ["A", "B", "C"]


def test_make_crowd_has_the_asked_share_of_spammers_and_accuracies_in_range() -> None:
    crowd = make_crowd(CrowdParams(size=20, accuracy_low=0.6, accuracy_high=0.8, spammer_share=0.25), LABELS)

    assert sum(worker.spammer for worker in crowd) == 5
    assert all(0.6 <= worker.accuracy <= 0.8 for worker in crowd)
    assert len({worker.name for worker in crowd}) == 20


def test_a_diligent_worker_is_right_about_as_often_as_their_accuracy() -> None:
    worker, rng = WorkerModel("w", accuracy=0.8), random.Random(0)

    right = sum(answer(worker, "A", LABELS, rng) == "A" for _ in range(5000)) / 5000

    # Wrong draws can land on the right label too: expect 0.8 + 0.2 / 3.
    assert right == pytest.approx(0.8 + 0.2 / 3, abs=0.02)


def test_a_spammer_ignores_the_item_and_follows_their_bias() -> None:
    worker, rng = (
        WorkerModel("s", accuracy=1.0, spammer=True, bias={"A": 0.0, "B": 1.0, "C": 0.0}),
        random.Random(0),
    )

    assert {answer(worker, "A", LABELS, rng) for _ in range(50)} == {"B"}


def test_a_perfect_worker_ticks_exactly_the_known_topics() -> None:
    assert answer_many(WorkerModel("w", accuracy=1.0), ["B"], LABELS, random.Random(0)) == ["B"]


def test_crowd_params_refuse_impossible_accuracies() -> None:
    with pytest.raises(SimulationError):
        CrowdParams.from_mapping({"accuracy_low": 0.9, "accuracy_high": 0.5})
