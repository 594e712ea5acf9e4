import itertools
from fractions import Fraction

import krippendorff
import numpy as np
import pytest

from aggregation.agreement import (
    _majority_of_the_others,
    dataset_agreement,
    fleiss_kappa,
    krippendorff_alpha,
    majority,
    rho,
    worker_agreement_with_majority,
)
from aggregation.labels import NO_MAJORITY
from aggregation.responses import Responses, SingleRaterError
from tests.aggregation.builtin_rules import STANCE_3
from tests.aggregation.published import FLEISS_1971, FLEISS_TEXTBOOK_10


def exact_fleiss_kappa(table: list[list[int]]) -> Fraction:
    """Fleiss' formula in exact arithmetic, written out independently of the module under test."""
    n = sum(table[0])
    total = n * len(table)
    p_items = [Fraction(sum(c * c for c in row) - n, n * (n - 1)) for row in table]
    p_bar = sum(p_items, Fraction(0)) / len(table)
    p_e = sum((Fraction(sum(col), total) ** 2 for col in zip(*table, strict=True)), Fraction(0))
    return (p_bar - p_e) / (1 - p_e)


def test_rho_is_one_when_all_raters_agree():
    assert rho([[3, 0, 0], [0, 0, 5]]).tolist() == [1.0, 1.0]


def test_rho_is_zero_when_no_two_raters_agree():
    assert rho([[1, 1, 1], [1, 0, 1]]).tolist() == [0.0, 0.0]


def test_rho_counts_agreeing_pairs_among_all_pairs():
    # 2–1: one agreeing pair of three; 3–1: three of six.
    np.testing.assert_allclose(rho([[2, 1, 0], [3, 1, 0]]), [1 / 3, 1 / 2])


def test_rho_of_an_even_spread_with_repeats_is_not_zero():
    # The paper's "uniform ⇒ ρ = 0" holds only for n_j ≤ 1: two raters on each of three labels share pairs.
    assert rho([[2, 2, 2]])[0] == pytest.approx(6 / 30)


def test_rho_is_undefined_below_two_ratings():
    assert np.isnan(rho([[1, 0, 0], [0, 0, 0]])).all()


def test_majority_names_the_plurality_label():
    assert majority([[2, 1, 0], [0, 1, 3], [1, 2, 1]]).tolist() == [0, 2, 1]


def test_majority_ties_give_no_majority():
    assert majority([[1, 1, 0], [2, 2, 1], [0, 0, 0]]).tolist() == [NO_MAJORITY] * 3


def test_fleiss_kappa_reproduces_fleiss_1971():
    assert fleiss_kappa(FLEISS_1971) == pytest.approx(float(exact_fleiss_kappa(FLEISS_1971)), abs=1e-12)
    assert round(fleiss_kappa(FLEISS_1971), 3) == 0.430  # the value Fleiss reports


def test_fleiss_kappa_reproduces_the_textbook_ten_subject_example():
    assert fleiss_kappa(FLEISS_TEXTBOOK_10) == pytest.approx(float(exact_fleiss_kappa(FLEISS_TEXTBOOK_10)))
    assert round(fleiss_kappa(FLEISS_TEXTBOOK_10), 3) == 0.210


def test_fleiss_kappa_refuses_data_without_two_ratings_on_an_item():
    with pytest.raises(SingleRaterError):
        fleiss_kappa([[1, 0], [0, 1]])


def test_krippendorff_alpha_matches_the_package_on_raw_reliability_data():
    # Same Fleiss table, handed to the package as a raters × items matrix with missing cells.
    table = np.array(FLEISS_1971)
    reliability = np.full((6, len(table)), np.nan)
    for item, row in enumerate(table):
        values = np.repeat(np.arange(5), row)
        reliability[: len(values), item] = values
    expected = krippendorff.alpha(reliability_data=reliability, level_of_measurement="nominal")
    assert krippendorff_alpha(FLEISS_1971) == pytest.approx(expected)


def test_krippendorff_alpha_is_close_to_fleiss_kappa_on_many_ratings():
    # α corrects for sample size, so on 180 ratings it sits a little above κ.
    alpha, kappa = krippendorff_alpha(FLEISS_1971), fleiss_kappa(FLEISS_1971)
    assert kappa < alpha < kappa + 0.01


def test_workers_agreement_with_the_others_majority():
    rows = [
        ("a", "w1", "SUPPORT"), ("a", "w2", "SUPPORT"), ("a", "w3", "UNDERMINE"),
        ("b", "w1", "UNDERMINE"), ("b", "w2", "UNDERMINE"), ("b", "w3", "UNDERMINE"),
    ]  # fmt: skip
    responses = Responses.from_rows(rows, STANCE_3)
    # w3 on item a faces a SUPPORT majority of the others; w1 and w2 on a face a 1–1 tie (not counted).
    assert worker_agreement_with_majority(responses).tolist() == [1.0, 1.0, 0.5]


def test_own_vote_can_be_counted_in_the_majority_when_asked():
    rows = [("a", "w1", "SUPPORT"), ("a", "w2", "SUPPORT"), ("a", "w3", "UNDERMINE")]
    responses = Responses.from_rows(rows, STANCE_3)
    assert worker_agreement_with_majority(responses, exclude_self=False).tolist() == [1.0, 1.0, 0.0]


def test_dataset_agreement_reports_kappa_alpha_and_mean_rho_over_rated_items():
    report = dataset_agreement([*FLEISS_1971, [0, 0, 1, 0, 0]])  # the single-rating item is left out
    assert (report.items, report.ratings) == (30, 180)
    assert report.fleiss_kappa == pytest.approx(fleiss_kappa(FLEISS_1971))
    assert report.krippendorff_alpha == pytest.approx(krippendorff_alpha(FLEISS_1971))
    assert report.mean_rho == pytest.approx(float(np.mean(rho(FLEISS_1971))))


def test_the_majority_of_the_others_is_each_labels_majority_with_one_vote_fewer() -> None:
    # Every count matrix of up to four labels and counts 0–3 (ties, empty rows, a lone label), against
    # the definition: the majority of the counts with one vote fewer for that label.
    compared = []
    for labels in range(1, 5):
        counts = np.array(list(itertools.product(range(4), repeat=labels)), dtype=np.int64)
        others = _majority_of_the_others(counts)
        for label in range(labels):
            less = counts.copy()
            less[:, label] -= 1
            given = counts[:, label] > 0  # only a label someone gave is looked up
            assert (others[given, label] == majority(less)[given]).all(), (labels, label)
            compared.append(label)
    assert len(compared) == 1 + 2 + 3 + 4  # each label of each width
