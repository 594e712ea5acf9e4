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
