"""CSV bodies streamed row by row: a download holds every row of its query set, in memory a chunk at a
time, whatever its size, written by the platform's one CSV writer (`config.csv_files`: no cell a
spreadsheet would run).
Rows are plain values in the header's order (a query set's `values_list`), never model instances."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from django.http import StreamingHttpResponse

from config.csv_files import csv_lines

SEND_BYTES = 64 * 1024  # lines go out in pieces of about this size, not one write per row


def csv_chunks(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> Iterator[bytes]:
    """The platform's CSV lines (`config.csv_files`), gathered into pieces of about SEND_BYTES."""
    piece: list[str] = []
    size = 0
    for line in csv_lines(header, rows):
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
    response = StreamingHttpResponse(csv_chunks(header, rows), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
