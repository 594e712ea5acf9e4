"""The one CSV writer. Every CSV the platform writes — API downloads, MTurk batch results,
counter-speech and VAST exports, label outputs — goes through `csv_lines` (files through `write_csv`).

A spreadsheet runs a text cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return as a
formula (OWASP, "CSV Injection"), so such a cell is written with a single quote in front: the
spreadsheet shows the text and runs nothing. Numbers stay numbers. Files are written whole
(`config.whole_files`).
"""

from __future__ import annotations

import csv
import json
import numbers
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from config.whole_files import whole_file

# OWASP's list, and the full-width forms some spreadsheets also read as formula signs.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")
LINE_END = "\r\n"  # RFC 4180; it also makes the csv module quote a cell holding a lone carriage return


def csv_cell(value: Any, float_format: str | None = None) -> Any:
    """A value as a CSV cell: nested values as JSON (never a Python repr), no cell a formula."""
    kind = type(value)
    if kind is str:
        return "'" + value if value.startswith(FORMULA_STARTS) else value
    if value is None:
        return ""
    if kind is not bool and isinstance(value, numbers.Number):
        if isinstance(value, float) and value != value:  # NaN: an empty cell, as pandas writes it
            return ""
        return float_format % value if float_format and isinstance(value, float) else value
    if isinstance(value, dict | list):
        value = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return csv_cell(str(value))


def csv_row(values: Iterable[Any], float_format: str | None = None) -> list[Any]:
    return [csv_cell(value, float_format) for value in values]


class _Echo:
    """A file for `csv.writer` whose `write` hands back the line it was given instead of storing it."""

    def write(self, text: str) -> str:
        return text


def csv_lines(
    header: Sequence[str], rows: Iterable[Sequence[Any]], float_format: str | None = None
) -> Iterator[str]:
    """The header's line, then one line per row, as they are read (a download streams them)."""
    writer = csv.writer(_Echo(), lineterminator=LINE_END)
    yield writer.writerow(csv_row(header))
    for row in rows:
        yield writer.writerow(csv_row(row, float_format))


def write_csv(
    path: Path | str, header: Sequence[str], rows: Iterable[Sequence[Any]], float_format: str | None = None
) -> int:
    """Write the header and rows to `path`, whole; returns the rows written."""
    lines = -1  # the header is no row
    with whole_file(path, "w", encoding="utf-8", newline="") as handle:
        for line in csv_lines(header, rows, float_format):
            handle.write(line)
            lines += 1
    return lines


def write_frame(
    path: Path | str, frame: Any, columns: Sequence[str] | None = None, float_format: str | None = None
) -> int:
    """Write a pandas DataFrame's `columns` (all by default) through `write_csv`, without its index."""
    chosen = list(frame.columns if columns is None else columns)
    return write_csv(path, chosen, frame[chosen].itertuples(index=False, name=None), float_format)
