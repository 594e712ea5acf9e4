"""CSV bodies streamed row by row: a download holds every row of its query set, in memory a chunk at a
time, whatever its size. The csv module writes each row into a buffer that hands the text straight back.
Rows are plain values in the header's order (a query set's `values_list`), never model instances."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from django.http import StreamingHttpResponse

SEND_BYTES = 64 * 1024  # lines go out in pieces of about this size, not one write per row


class LineBuffer:
    """A file for `csv.writer` whose `write` returns the line it was given instead of storing it."""

    def write(self, text: str) -> str:
        return text


def cell(value: Any) -> Any:
    """A field as CSV text: nested values (counts, payloads, reasons) as JSON, never a Python repr."""
    if isinstance(value, dict | list):  # concrete types: an ABC check per cell is slow
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return value


def csv_lines(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> Iterator[bytes]:
    """The header, then one line per row, gathered into pieces of about SEND_BYTES."""
    writer = csv.writer(LineBuffer(), lineterminator="\n")
    piece: list[str] = [writer.writerow(header)]
    size = 0
    for row in rows:
        line = writer.writerow([cell(value) for value in row])
        piece.append(line)
        size += len(line)
        if size >= SEND_BYTES:
            yield "".join(piece).encode()
            piece, size = [], 0
    yield "".join(piece).encode()


def streamed_csv(
    header: Sequence[str], rows: Iterable[Sequence[Any]], filename: str
) -> StreamingHttpResponse:
    """A download of every row, sent as it is read."""
    response = StreamingHttpResponse(csv_lines(header, rows), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
