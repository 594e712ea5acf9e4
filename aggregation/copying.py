"""PostgreSQL's binary COPY format for fixed-width columns, as numpy record arrays. Pure module.

A row of the format is a 16-bit field count, then per field a 32-bit length and the value in network
byte order. With fixed-width, non-null values every row has the same size, so a whole table is one
numpy record array: ten million (item, worker, label) rows are read, or a million outcomes written,
without a Python object per row.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

SIGNATURE = b"PGCOPY\n\xff\r\n\x00"
HEADER = SIGNATURE + struct.pack(">ii", 0, 0)  # no flags, no header extension
TRAILER = struct.pack(">h", -1)

# Column types by PostgreSQL name: the numpy spelling of their binary form.
TYPES = {"int2": ">i2", "int4": ">i4", "int8": ">i8", "float8": ">f8", "bool": "?"}


class CopyFormatError(ValueError):
    """Bytes that are not binary COPY of the expected fixed-width, non-null columns."""


def row_type(columns: Sequence[tuple[str, str]]) -> np.dtype:
    """The record type of one row of `columns` ((name, PostgreSQL type) pairs)."""
    fields: list[tuple[str, str]] = [("_fields", ">i2")]
    for name, kind in columns:
        fields += [(f"_{name}_size", ">i4"), (name, TYPES[kind])]
    return np.dtype(fields)


def encoded(columns: Sequence[tuple[str, str]], values: Mapping[str, npt.ArrayLike]) -> bytes:
    """The whole COPY … FROM STDIN (FORMAT binary) stream of these equal-length columns (no NULLs)."""
    kind = row_type(columns)
    lengths = {len(np.asarray(values[name])) for name, _ in columns}
    if len(lengths) != 1:
        raise CopyFormatError(f"columns differ in length: {sorted(lengths)}")
    rows = np.empty(lengths.pop(), dtype=kind)
    rows["_fields"] = len(columns)
    for name, _ in columns:
        rows[f"_{name}_size"] = kind[name].itemsize
        rows[name] = values[name]
    return HEADER + rows.tobytes() + TRAILER


def decoded(columns: Sequence[tuple[str, str]], data: bytes | bytearray | memoryview) -> np.ndarray:
    """The rows of a COPY … TO STDOUT (FORMAT binary) stream of these columns, as a record array."""
    view = memoryview(data)
    if bytes(view[: len(SIGNATURE)]) != SIGNATURE or len(view) < len(HEADER) + len(TRAILER):
        raise CopyFormatError("not a binary COPY stream")
    (extension,) = struct.unpack(">i", view[15:19])
    start, end = 19 + extension, len(view) - len(TRAILER)
    if bytes(view[end:]) != TRAILER:
        raise CopyFormatError("the stream does not end with the trailer")
    kind = row_type(columns)
    if (end - start) % kind.itemsize:
        raise CopyFormatError("rows of another width than the columns' (a NULL or a variable-width value)")
    rows = np.frombuffer(view, dtype=kind, offset=start, count=(end - start) // kind.itemsize)
    sizes_right = all((rows[f"_{name}_size"] == kind[name].itemsize).all() for name, _ in columns)
    if not (rows["_fields"] == len(columns)).all() or not sizes_right:
        raise CopyFormatError("rows of another shape than the columns' (a NULL or a variable-width value)")
    return rows


# Element types of arrays in the binary format: (PostgreSQL type OID, numpy spelling of the value).
ARRAY_ELEMENTS = {"int2": (21, ">i2"), "int4": (23, ">i4"), "int8": (20, ">i8"), "float8": (701, ">f8")}


def decoded_arrays(columns: Sequence[str], data: bytes | bytearray | memoryview) -> list[list[np.ndarray]]:
    """The rows of a binary COPY stream whose every column is a one-dimensional array without NULLs
    of the given element types (e.g. ``array_agg`` of each column): per row, one numpy array per column."""
    view = memoryview(data)
    if bytes(view[: len(SIGNATURE)]) != SIGNATURE or len(view) < len(HEADER) + len(TRAILER):
        raise CopyFormatError("not a binary COPY stream")
    (extension,) = struct.unpack_from(">i", view, 15)
    position = 19 + extension
    rows: list[list[np.ndarray]] = []
    while True:
        (fields,) = struct.unpack_from(">h", view, position)
        position += 2
        if fields == -1:
            return rows
        if fields != len(columns):
            raise CopyFormatError(f"a row of {fields} fields, not {len(columns)}")
        row = []
        for kind in columns:
            (size,) = struct.unpack_from(">i", view, position)
            row.append(_array(view[position + 4 : position + 4 + size], kind))
            position += 4 + size
        rows.append(row)


def _array(field: memoryview, kind: str) -> np.ndarray:
    oid, value = ARRAY_ELEMENTS[kind]
    if len(field) < 12:
        raise CopyFormatError("a NULL or truncated array")
    dimensions, has_nulls, element = struct.unpack_from(">iii", field, 0)
    if dimensions == 0:
        return np.array([], dtype=value)
    if dimensions != 1 or has_nulls or element != oid:
        raise CopyFormatError(f"not a one-dimensional {kind} array without NULLs")
    (length,) = struct.unpack_from(">i", field, 12)
    elements = np.frombuffer(field, dtype=[("size", ">i4"), ("value", value)], count=length, offset=20)
    if not (elements["size"] == np.dtype(value).itemsize).all():
        raise CopyFormatError(f"elements of another width than {kind}'s")
    return elements["value"]
