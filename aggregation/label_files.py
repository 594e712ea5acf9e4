"""Checks every labels file (`aggregate_labels`, `replay_labels`) passes before its labels count.
Pure module: no Django.

- Lines are UTF-8 text of at most MAX_LINE_BYTES: a decode error or a longer line names its line.
- A worker labels an item once: repeated (worker, item) rows are refused with their lines, unless the
  caller keeps the first or the last of each (`--duplicates first|last`). Counted twice, one worker
  repeated five times would outvote two others.
- Messages quote at most QUOTED characters of what the file holds.
- One item, or items with blank names, are allowed but worth a warning.
"""

from __future__ import annotations

import codecs
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

MAX_LINE_BYTES = 1 << 20  # a line of item, worker and label; a megabyte is far past any real one
QUOTED = 40
LINES_LISTED = 10
BLOCK = 1 << 20
DUPLICATES = ("refuse", "first", "last")
# The `--duplicates` option of every command that reads a labels file.
DUPLICATES_OPTION: dict[str, Any] = {
    "choices": list(DUPLICATES[1:]),
    "default": DUPLICATES[0],
    "help": "keep the first or the last label of a worker who labelled an item more than once "
    "(default: refuse the file, naming the lines)",
}


class LabelFileError(ValueError):
    """A labels file that cannot be read: missing columns, unknown labels, no rows."""


def quoted(value: object) -> str:
    """`value` for a message: its repr, cut to QUOTED characters."""
    text = str(value)
    return repr(text) if len(text) <= QUOTED else repr(text[:QUOTED]) + f"… ({len(text)} characters)"


def check_lines(path: Path | str) -> None:
    """Every line UTF-8 and at most MAX_LINE_BYTES long, read in blocks (never a whole line at once)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    line, current = 1, 0
    with Path(path).open("rb") as handle:
        while block := handle.read(BLOCK):
            pieces = block.split(b"\n")
            lengths = [current + len(pieces[0]), *map(len, pieces[1:])]
            too_long = next((n for n, length in enumerate(lengths) if length > MAX_LINE_BYTES), None)
            if too_long is not None:
                raise LabelFileError(f"line {line + too_long} is longer than {MAX_LINE_BYTES:,} bytes")
            try:
                decoder.decode(block)
            except UnicodeDecodeError as error:
                bad = line + block[: max(error.start, 0)].count(b"\n")
                raise LabelFileError(f"line {bad} is not UTF-8 text ({error.reason})") from None
            line += len(pieces) - 1
            current = lengths[-1]


def kept_rows(
    item_codes: npt.NDArray[np.integer], worker_codes: npt.NDArray[np.integer], duplicates: str
) -> npt.NDArray[np.bool_] | None:
    """Which rows count (None: all); a LabelFileError naming the lines of repeated (worker, item) rows
    unless `duplicates` is "first" or "last". Row r is on line r + 2 (after the header)."""
    if duplicates not in DUPLICATES:
        raise LabelFileError(f"duplicates is one of {', '.join(DUPLICATES)}, not {quoted(duplicates)}")
    keys = pd.Series(item_codes.astype(np.int64) * (int(worker_codes.max(initial=0)) + 1) + worker_codes)
    repeated = keys.duplicated(keep=False).to_numpy()
    if not repeated.any():
        return None
    if duplicates == "refuse":
        lines = np.flatnonzero(repeated) + 2
        listed = ", ".join(map(str, lines[:LINES_LISTED])) + (", …" if len(lines) > LINES_LISTED else "")
        raise LabelFileError(
            f"{len(lines)} rows give a (worker, item) pair a label more than once, lines {listed}: "
            "a worker's label counts once; keep one with --duplicates first or --duplicates last"
        )
    return ~keys.duplicated(keep=duplicates).to_numpy()


def warnings_about(item_names: list[str]) -> list[str]:
    """What is allowed but probably a mistake: a single item, items with blank names."""
    found = []
    if len(item_names) == 1:
        found.append(
            f"the file holds one item ({quoted(item_names[0])}): agreement over one item says little"
        )
    blank = sum(1 for name in item_names if not str(name).strip())
    if blank:
        found.append(f"{blank} item(s) have a blank name")
    return found
