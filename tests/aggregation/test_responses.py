from typing import Any

import numpy as np
import pytest

from aggregation import responses as coding
from aggregation.responses import (
    ColumnLengthError,
    NoItemsError,
    Responses,
    SingleRaterError,
    UnknownLabelError,
)
from tests.aggregation.builtin_rules import STANCE_3, STANCE_5


def test_counts_follow_the_label_sets_order():
    responses = Responses.from_rows(
        [(7, "w1", "UNDERMINE"), (7, "w2", "MILDLY_SUPPORT"), (7, "w3", "UNDERMINE"), (9, "w1", "NOT_VALID")],
        STANCE_5,
    )
    assert responses.items.tolist() == [7, 9]
    assert responses.counts().tolist() == [[0, 1, 0, 2, 0], [0, 0, 0, 0, 1]]


def test_no_responses_is_refused():
    with pytest.raises(NoItemsError):
        Responses.from_columns([], [], [], STANCE_3)


def test_a_single_rater_per_item_is_refused():
    with pytest.raises(SingleRaterError):
        Responses.from_rows([("a", "w1", "SUPPORT"), ("b", "w2", "SUPPORT")], STANCE_3)


def test_single_raters_are_allowed_when_overlap_is_not_required():
    responses = Responses.from_columns(
        ["a", "b"], ["w1", "w2"], ["SUPPORT", "SUPPORT"], STANCE_3, require_overlap=False
    )
    assert responses.n_items == 2


def test_unknown_labels_are_named_in_the_error():
    with pytest.raises(UnknownLabelError, match="MILDLY_SUPPORT"):
        Responses.from_rows([("a", "w1", "SUPPORT"), ("a", "w2", "MILDLY_SUPPORT")], STANCE_3)


def test_codes_outside_the_label_set_are_refused():
    with pytest.raises(UnknownLabelError):
        Responses.from_codes([1, 1], [1, 2], [0, 3], STANCE_3)


def test_columns_of_different_lengths_are_refused():
    with pytest.raises(ColumnLengthError):
        Responses.from_columns([1, 1], [1], ["SUPPORT", "SUPPORT"], STANCE_3)


def test_a_worker_answering_twice_counts_twice():
    responses = Responses.from_codes(np.array([1, 1, 1]), np.array([5, 5, 6]), np.array([0, 0, 1]), STANCE_3)
    assert responses.counts().tolist() == [[2, 1, 0]]
    assert responses.responses_per_worker().tolist() == [2, 1]


@pytest.mark.parametrize(
    "values",
    [
        [3, -2, 7, 3, 0, -2],  # narrow, negative too: by the table
        np.array([2**40 + 5, 2**40, 2**40 + 5], dtype=np.int64),  # narrow, far from 0
        np.array([9, 1, 9], dtype=np.uint16),
        [1, 2**40, 1],  # wider than the rows and 2^20: sorted instead
        np.random.default_rng(3).integers(1, 5000, 100_000).astype(np.int32),
    ],
)
def test_integer_ids_are_coded_as_sorting_codes_them(values: Any) -> None:
    uniques, inverse = coding._encode(values)
    expected_uniques, expected_inverse = np.unique(np.asarray(values), return_inverse=True)
    assert uniques.dtype == expected_uniques.dtype and inverse.dtype == np.intp
    assert uniques.tolist() == expected_uniques.tolist() and inverse.tolist() == expected_inverse.tolist()
