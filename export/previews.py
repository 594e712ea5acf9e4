"""What a release file holds, shown on the page without downloading it: its first records and how many
there are. JSON lists and objects, JSON Lines, CSV and text each have their own idea of a record."""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any

FIRST = 10  # records shown
TEXT_LINES = 40  # lines shown of a text file


@dataclass(frozen=True)
class Preview:
    noun: str  # what a record is: "record", "row", "entry", "line"
    total: int
    shown: list[str]  # each record as a person reads it (pretty JSON, a CSV row, a line)
    header: list[str] | None = None  # a CSV file's columns


def preview_file(path: Path) -> Preview:
    """The first records of a release file and how many it holds."""
    if path.suffix == ".jsonl":
        return _json_lines(path)
    if path.suffix == ".json":
        return _json(json.loads(path.read_text()))
    if path.suffix == ".csv":
        return _csv(path)
    with path.open(errors="replace") as lines:
        text = [line.rstrip("\n") for line in lines]
    return Preview("line", len(text), text[:TEXT_LINES])


def _pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def _json_lines(path: Path) -> Preview:
    with path.open() as lines:
        total, shown = 0, list[str]()
        for line in lines:
            if line.strip():
                total += 1
                if len(shown) < FIRST:
                    shown.append(_pretty(json.loads(line)))
    return Preview("record", total, shown)


def _json(value: Any) -> Preview:
    if isinstance(value, list):
        return Preview("record", len(value), [_pretty(item) for item in value[:FIRST]])
    if isinstance(value, dict):
        first = islice(value.items(), FIRST)
        return Preview("entry", len(value), [_pretty({key: item}) for key, item in first])
    return Preview("value", 1, [_pretty(value)])


def _csv(path: Path) -> Preview:
    with path.open(newline="") as rows:
        reader = csv.reader(rows)
        header = next(reader, [])
        total, shown = 0, list[str]()
        for row in reader:
            total += 1
            if len(shown) < FIRST:
                shown.append(", ".join(row))
    return Preview("row", total, shown, header)
