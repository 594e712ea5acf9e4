"""Binary COPY of fixed-width columns: what is encoded decodes to the same values, and anything else
is refused rather than misread."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from aggregation.copying import HEADER, TRAILER, CopyFormatError, decoded, encoded

COLUMNS = (("item", "int8"), ("label", "int2"), ("share", "float8"), ("kept", "bool"))


def test_encoded_columns_decode_to_the_same_values() -> None:
    values = {
        "item": np.array([1, 2**40, 3]),
        "label": np.array([-1, 0, 4]),
        "share": np.array([0.5, np.nan, 1.0]),
        "kept": np.array([True, False, True]),
    }
    rows = decoded(COLUMNS, encoded(COLUMNS, values))
    assert rows["item"].tolist() == [1, 2**40, 3] and rows["label"].tolist() == [-1, 0, 4]
    assert rows["kept"].tolist() == [True, False, True]
    np.testing.assert_array_equal(rows["share"], values["share"])


def test_a_row_written_by_hand_in_the_documented_layout_is_read() -> None:
    row = struct.pack(">hiqihidi?", 4, 8, 7, 2, 3, 8, 0.25, 1, True)
    rows = decoded(COLUMNS, HEADER + row + TRAILER)
    assert (rows["item"][0], rows["label"][0], rows["share"][0], rows["kept"][0]) == (7, 3, 0.25, True)


def test_a_null_is_refused() -> None:
    row = struct.pack(">hiqihiii?", 4, 8, 7, 2, 3, -1, 0, 1, True)  # share NULL; padded to the width
    with pytest.raises(CopyFormatError):
        decoded(COLUMNS, HEADER + row + TRAILER)


def test_columns_of_different_lengths_and_foreign_bytes_are_refused() -> None:
    with pytest.raises(CopyFormatError, match="length"):
        encoded(COLUMNS, {"item": [1], "label": [1, 2], "share": [0.0], "kept": [True]})
    with pytest.raises(CopyFormatError, match="not a binary COPY"):
        decoded(COLUMNS, b"item,label\n1,2\n")
