"""PostgreSQL's binary COPY format for fixed-width columns, as numpy record arrays. Pure module.

A row of the format is a 16-bit field count, then per field a 32-bit length and the value in network
byte order. With fixed-width, non-null values every row has the same size, so a whole table is one
numpy record array: ten million (item, worker, label) rows are read, or a million outcomes written,
without a Python object per row.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator, Mapping, Sequence

import numpy as np
import numpy.typing as npt

SIGNATURE = b"PGCOPY\n\xff\r\n\x00"
HEADER = SIGNATURE + struct.pack(">ii", 0, 0)  # no flags, no header extension
TRAILER = struct.pack(">h", -1)

# Column types by PostgreSQL name: the numpy spelling of their binary form.
TYPES = {"int2": ">i2", "int4": ">i4", "int8": ">i8", "float8": ">f8", "bool": "?"}


class CopyFormatError(ValueError):
    """Bytes that are not binary COPY of the expected fixed-width, non-null columns."""


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


# Rows with text or JSON columns, whose width varies: each such column holds one of a few values (a
# label, a list of reasons), so a row's varying part is one of a few combinations of them. A JSON
# column's text may end in spaces (jsonb stores no whitespace), so every combination is padded there to
# one width: every row then has the same width, and a million rows are one numpy record array, in
# the order given (an index fills in key order: rows out of order cost PostgreSQL twice as much).


def fixed_records(
    columns: Sequence[tuple[str, str]], values: Mapping[str, npt.ArrayLike], fields: int
) -> np.ndarray:
    """The rows' fixed-width columns (``TYPES``, or ``int4[]``: a matrix, one array per row, no NULLs;
    a scalar is every row's value), each row headed by its count of ``fields``, as a record array."""
    lengths = {len(np.asarray(values[name])) for name, _ in columns if np.ndim(values[name])}
    if len(lengths) != 1:  # numpy would repeat a column of one value down the rows
        raise CopyFormatError(f"columns differ in length: {sorted(lengths)}")
    kinds: list[tuple[str, str] | tuple[str, str, tuple[int]]] = [("_fields", ">i2")]
    for name, kind in columns:
        if kind == "int4[]":
            length = np.shape(values[name])[1]
            # Its size, then the array's header (dimensions, NULLs, element type, length, lower bound)
            # and each element's size and value.
            kinds.append((name, ">i4", (6 + 2 * length,)))
        else:
            kinds += [(f"_{name}_size", ">i4"), (name, TYPES[kind])]
    records = np.empty(lengths.pop(), dtype=kinds)
    records["_fields"] = fields
    for name, kind in columns:
        if kind == "int4[]":
            matrix = np.asarray(values[name])
            array = records[name]
            array[:, 0] = 4 * (5 + 2 * matrix.shape[1])
            array[:, 1:6] = (1, 0, ARRAY_ELEMENTS["int4"][0], matrix.shape[1], 1)
            array[:, 6::2], array[:, 7::2] = 4, matrix
        else:
            records[f"_{name}_size"], records[name] = records.dtype[name].itemsize, values[name]
    return records


def choices(
    columns: Sequence[tuple[Sequence[bytes | None], npt.ArrayLike]], padded: int
) -> tuple[list[bytes], npt.NDArray[np.intp]]:
    """Columns each given as (its values in binary form, None for NULL; each row's index among them):
    the combinations the rows hold, each as its fields' bytes, all of one width (the ``padded``
    column is jsonb: its text ends in as many spaces as that takes), and each row's combination."""
    key = np.zeros(len(np.asarray(columns[0][1])), dtype=np.int64)
    for vocabulary, codes in columns:
        key = key * len(vocabulary) + np.asarray(codes, dtype=np.int64)
    if int(np.prod([len(vocabulary) for vocabulary, _ in columns], dtype=np.float64)) <= 1 << 24:
        present = np.flatnonzero(np.bincount(key))  # a table over the keys' range: no sort
        number = np.zeros(len(present) and int(present[-1]) + 1, dtype=np.intp)
        number[present] = np.arange(len(present))
        combinations, rows = present, number[key]
    else:
        combinations, rows = np.unique(key, return_inverse=True)
    chosen = []
    for combination in combinations.tolist():
        values = []
        for vocabulary, _ in reversed(columns):
            combination, code = divmod(combination, len(vocabulary))
            values.append(vocabulary[code])
        chosen.append(values[::-1])
    return _padded(chosen, padded), rows.astype(np.intp)


def _padded(chosen: list[list[bytes | None]], padded: int) -> list[bytes]:
    if any(values[padded] is None or not values[padded].startswith(b"\x01") for values in chosen):  # type: ignore[union-attr]
        raise CopyFormatError("only a jsonb column without NULLs can be padded")
    width = max((sum(len(value or b"") for value in values) for values in chosen), default=0)
    tails = []
    for values in chosen:
        values[padded] = values[padded] + b" " * (width - sum(len(value or b"") for value in values))  # type: ignore[operator]
        tails.append(b"".join(_field(value) for value in values))
    return tails


def _field(value: bytes | None) -> bytes:
    return struct.pack(">i", -1) if value is None else struct.pack(">i", len(value)) + value


def encoded_rows(
    records: np.ndarray, tails: Sequence[bytes], combination: npt.ArrayLike, rows: int = 1 << 16
) -> Iterator[bytes]:
    """The rows of the binary format (no header or trailer), ``rows`` at a time: each record (see
    fixed_records), then its row's ``combination`` of ``tails`` (see choices: all of one width)."""
    width = len(tails[0]) if tails else 0
    if any(len(tail) != width for tail in tails):
        raise CopyFormatError("combinations of different widths")
    fixed = records.view(f"V{records.dtype.itemsize}")
    table = np.array(tails, dtype=f"V{max(width, 1)}")
    codes, kind = np.asarray(combination, dtype=np.intp), [("fixed", fixed.dtype), ("tail", table.dtype)]
    for start in range(0, len(records), rows):
        block = np.empty(min(rows, len(records) - start), dtype=kind)
        block["fixed"] = fixed[start : start + rows]
        block["tail"] = table[codes[start : start + rows]]
        yield block.tobytes() if width else block["fixed"].tobytes()


def text(value: str) -> bytes:
    """A text (or varchar) value in the binary format; a jsonb value is ``b"\\x01"`` and its text."""
    return value.encode()
