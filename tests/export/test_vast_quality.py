"""MACE's poor workers and Krippendorff's α over VAST stance answers on the proposed topic."""

from __future__ import annotations

import random

import pytest

from export.vast_quality import StanceAnswer, poor_workers, stance_agreement, worker_competence

SIDES = ("PRO", "CON", "NEUTRAL")


def crowd_answers(items: int = 40, seed: int = 1) -> list[StanceAnswer]:
    """Workers 1–3 give each item's true side; worker 4 answers at random."""
    rng = random.Random(seed)
    answers = []
    for item in range(items):
        truth = rng.choice(SIDES)
        answers += [StanceAnswer(item, worker, truth) for worker in (1, 2, 3)]
        answers.append(StanceAnswer(item, 4, rng.choice(SIDES)))
    return answers


def test_mace_rates_the_random_worker_as_the_only_poor_one() -> None:
    answers = crowd_answers()
    competence = worker_competence(answers)
    assert set(competence) == {1, 2, 3, 4}
    assert poor_workers(answers, competence, 0.5, min_answers=3) == {4}


def test_a_worker_with_too_few_stance_answers_is_not_judged() -> None:
    answers = crowd_answers(items=2)
    competence = {1: 0.9, 2: 0.9, 3: 0.9, 4: 0.1}
    assert poor_workers(answers, competence, 0.5, min_answers=3) == set()
    assert poor_workers(answers, competence, 0.5, min_answers=2) == {4}


def test_corrections_are_left_out_of_mace_and_of_agreement() -> None:
    answers = [StanceAnswer(1, 1, "PRO"), StanceAnswer(1, 2, "CON", correction="homework")]
    assert worker_competence(answers) == {}  # a single stance answer per item: nothing to compare
    assert stance_agreement(answers).items == 0


def test_alpha_is_one_for_full_agreement() -> None:
    agree = [StanceAnswer(item, worker, SIDES[item % 3]) for item in range(6) for worker in (1, 2)]
    assert stance_agreement(agree).krippendorff_alpha == 1.0
    assert stance_agreement(agree).percent_agreement == 1.0


def test_alpha_and_pairwise_agreement_by_hand_on_four_items() -> None:
    """Two raters: (P, P), (P, P), (C, C), (P, C). Coincidences o_PP = 4, o_CC = 2, o_PC = o_CP = 1, so
    n_P = 5, n_C = 3, n = 8; D_o = 2/8 and D_e = 2·5·3/(8·7) = 30/56, α = 1 − D_o/D_e = 8/15.
    Pairwise agreement: three of the four items agree."""
    pairs = [("PRO", "PRO"), ("PRO", "PRO"), ("CON", "CON"), ("PRO", "CON")]
    answers = [StanceAnswer(i, w, pair[w - 1]) for i, pair in enumerate(pairs) for w in (1, 2)]
    figures = stance_agreement(answers)
    assert figures.krippendorff_alpha == round(8 / 15, 4)
    assert figures.percent_agreement == 0.75


def test_raters_who_always_disagree_have_a_negative_alpha() -> None:
    """Four items (P, C): D_o = 1 and D_e = 2·4·4/(8·7) = 4/7, so α = 1 − 7/4 = −0.75."""
    clash = [StanceAnswer(i, 1, "PRO") for i in range(4)] + [StanceAnswer(i, 2, "CON") for i in range(4)]
    figures = stance_agreement(clash)
    assert figures.krippendorff_alpha == -0.75 and figures.percent_agreement == 0.0


def test_leaving_out_a_worker_removes_their_answers_from_agreement() -> None:
    answers = crowd_answers(items=10)
    with_all, without = stance_agreement(answers), stance_agreement(answers, {4})
    assert with_all.answers == 40 and without.answers == 30
    assert without.krippendorff_alpha == pytest.approx(1.0)
