"""ArguAna's extraction of the idebate fixture pages (the corpus authors', 2018), read as the expected
answer: the parser's tests compare page by page, the crawler benchmark counts match rates."""

from __future__ import annotations

from pathlib import Path

Point = tuple[str, str, list[str], list[str]]


def expected_debate(folder: Path) -> tuple[str, list[Point]]:
    """(motion, [(side, headline, body paragraphs, counterpoint paragraphs)]) from ArguAna's files."""
    points = []
    for side in ("pro", "con"):
        numbers = (
            sorted({f.name[3:5] for f in (folder / side).glob("*.txt")}) if (folder / side).is_dir() else []
        )
        for number in numbers:
            headline, *body = (folder / side / f"{side}{number}a-point.txt").read_text().split("\n\n")
            counter_file = folder / side / f"{side}{number}b-counter.txt"
            counter = counter_file.read_text().split("\n\n") if counter_file.exists() else []
            points.append((side, headline, [p for p in body if p.strip()], [p for p in counter if p.strip()]))
    return (folder / "thesis.txt").read_text(), points
