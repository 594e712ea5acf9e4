"""Binary COPY: rows encoded field by field as the format defines them, and arrays read back, where
anything else is refused rather than misread."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from aggregation.copying import (
    HEADER,
    TRAILER,
    CopyFormatError,
    choices,
    decoded_arrays,
    encoded_rows,
    fixed_records,
)


def int8_array(values: list[int]) -> bytes:
    header = struct.pack(">iiiii", 1, 0, 20, len(values), 1)
    return header + b"".join(struct.pack(">iq", 8, v) for v in values)


def test_rows_of_arrays_decode_to_one_numpy_array_per_column() -> None:
    first, second = int8_array([1, 2, 3]), int8_array([-4])
    row = struct.pack(">hi", 2, len(first)) + first + struct.pack(">i", len(second)) + second
    empty = struct.pack(">iii", 0, 0, 20)
    rows = decoded_arrays(
        ("int8", "int8"),
        HEADER + row + struct.pack(">hi", 2, 12) + empty + struct.pack(">i", 12) + empty + TRAILER,
    )
    assert [[column.tolist() for column in r] for r in rows] == [[[1, 2, 3], [-4]], [[], []]]


def test_an_array_of_another_type_or_a_null_is_refused() -> None:
    array = int8_array([1])
    with pytest.raises(CopyFormatError, match="int2"):
        decoded_arrays(("int2",), HEADER + struct.pack(">hi", 1, len(array)) + array + TRAILER)
    with pytest.raises(CopyFormatError, match="NULL"):
        decoded_arrays(("int8",), HEADER + struct.pack(">hi", 1, -1) + TRAILER)


def fields_of(stream: bytes) -> list[list[bytes | None]]:
    """Each row's fields as bytes (None: NULL), read by the format's definition, field by field."""
    assert stream.startswith(HEADER) and stream.endswith(TRAILER)
    position, rows = len(HEADER), []
    while position < len(stream) - len(TRAILER):
        (count,), position = struct.unpack_from(">h", stream, position), position + 2
        row: list[bytes | None] = []
        for _ in range(count):
            (size,), position = struct.unpack_from(">i", stream, position), position + 4
            row.append(None if size < 0 else stream[position : position + size])
            position += max(size, 0)
        rows.append(row)
    assert position == len(stream) - len(TRAILER)
    return rows


def test_fixed_columns_are_each_rows_values_in_network_order() -> None:
    columns = (("item", "int8"), ("label", "int2"), ("share", "float8"), ("kept", "bool"))
    values = {"item": [1, 2**40], "label": [-1, 4], "share": [0.5, np.nan], "kept": [True, False]}
    rows = fields_of(HEADER + fixed_records(columns, values, 4).tobytes() + TRAILER)

    assert rows[0] == [struct.pack(">q", 1), struct.pack(">h", -1), struct.pack(">d", 0.5), b"\x01"]
    assert rows[1][:2] == [struct.pack(">q", 2**40), struct.pack(">h", 4)] and rows[1][3] == b"\x00"
    assert np.isnan(struct.unpack(">d", rows[1][2])[0])
    with pytest.raises(CopyFormatError, match="length"):
        fixed_records(columns, {**values, "label": [1]}, 4)


def test_rows_of_fixed_columns_arrays_and_chosen_texts_hold_each_rows_values_in_order() -> None:
    columns = (("item", "int8"), ("counts", "int4[]"), ("share", "float8"))
    values = {"item": np.array([5, 6, 7]), "counts": np.array([[1, 2], [0, 3], [4, 0]]), "share": 0.5}
    fixed = fixed_records(columns, values, 5)
    jsons = [b"\x01[]", b'\x01["gold"]']
    tails, combination = choices([(jsons, [0, 1, 0]), ([b"yes", b"no", None], [1, 0, 2])], padded=0)
    rows = fields_of(HEADER + b"".join(encoded_rows(fixed, tails, combination, rows=2)) + TRAILER)

    assert [struct.unpack(">q", row[0])[0] for row in rows] == [5, 6, 7]
    array = struct.pack(">iiiiiiiii", 1, 0, 23, 2, 1, 4, 0, 4, 3)  # one dimension of int4: 0, 3
    assert rows[1][1:] == [array, struct.pack(">d", 0.5), b'\x01["gold"]', b"yes"]
    # Every row of one width: the JSON text padded with spaces (which jsonb drops).
    assert [row[3:] for row in rows[::2]] == [[b"\x01[]" + b" " * 7, b"no"], [b"\x01[]" + b" " * 9, None]]
    assert len({len(tail) for tail in tails}) == 1


def test_only_a_json_column_is_padded() -> None:
    with pytest.raises(CopyFormatError, match="jsonb"):
        choices([([b"yes", b"no"], [0, 1])], padded=0)
