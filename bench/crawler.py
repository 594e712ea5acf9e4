"""Crawler benchmark: parse 1,000 saved pages (the 49 idebate fixtures repeated), target ≤ 10 s,
and the per-field match rate against the corpus authors' extraction (ArguAna) of those pages.

Run: `python -m bench.crawler` (or `make bench`). Prints one line per figure.
"""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

from rigs.arguana import expected_debate

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(os.environ.get("STANCEWORK_FIXTURES_DIR", REPO.parent / "shared" / "fixtures")) / "idebate"
PAGES = 1000
TARGET_SECONDS = 10.0


def _strict(text: str) -> str:
    """White space collapsed, the only normalisation the issue names."""
    return re.sub(r"\s+", " ", text.replace("&amp;", "&")).strip()


def _loose(text: str) -> str:
    """White space removed: ArguAna put a space at every tag boundary, we do not."""
    return re.sub(r"\s+", "", text.replace("&amp;", "&"))


def match_rates(norm: object) -> dict[str, float]:
    # The site parser itself, not the dispatcher: pages without points still have a motion to compare.
    from crawler.parsing.idebate import parse_debate

    assert callable(norm)
    hits = {"motion": 0, "headline": 0, "body": 0, "counterpoint": 0}
    totals = dict.fromkeys(hits, 0)
    for folder in sorted((FIXTURES / "expected").iterdir()):
        motion, points = expected_debate(folder)
        record = parse_debate((FIXTURES / "pages" / f"{folder.name}.html").read_bytes(), "x")
        got = [(p.side, p.headline, p.body, p.counterpoint) for p in record.points]
        got_motion = record.motion
        totals["motion"] += 1
        hits["motion"] += norm(got_motion) == norm(motion)
        for index, (side, headline, body, counter) in enumerate(points):
            mine = got[index] if index < len(got) else ("", "", [], [])
            for field, theirs, ours in (
                ("headline", headline, mine[1]),
                ("body", body, mine[2]),
                ("counterpoint", counter, mine[3]),
            ):
                totals[field] += 1
                if isinstance(theirs, list):
                    hits[field] += [norm(p) for p in theirs] == [norm(p) for p in ours] and side == mine[0]
                else:
                    hits[field] += norm(theirs) == norm(ours) and side == mine[0]
    return {field: hits[field] / totals[field] for field in hits}


def parse_speed(pages: int = PAGES) -> tuple[float, float, int]:
    from crawler.parsing import BadPageError, parse_debate

    bodies = [p.read_bytes() for p in sorted((FIXTURES / "pages").glob("*.html"))]
    debates = 0
    start, cpu = time.perf_counter(), time.process_time()
    for index in range(pages):
        try:
            parse_debate("idebate", bodies[index % len(bodies)], "x")
            debates += 1
        except BadPageError:
            pass
    return time.perf_counter() - start, time.process_time() - cpu, debates


def main() -> None:
    sys.path.insert(0, str(REPO))
    seconds, cpu, debates = parse_speed()
    verdict = "ok" if seconds <= TARGET_SECONDS else "OVER TARGET"
    print(
        f"crawler.parse_1000_pages_seconds {seconds:.2f} "
        f"(target ≤ {TARGET_SECONDS:.0f} s, {verdict}; {debates} debates)"
    )
    # CPU time as well: on a shared machine wall time also counts other processes' load.
    print(f"crawler.parse_1000_pages_cpu_seconds {cpu:.2f}")
    for label, norm in (("whitespace_removed", _loose), ("whitespace_collapsed", _strict)):
        for field, rate in match_rates(norm).items():
            print(f"crawler.match_rate.{label}.{field} {rate:.3f}")


if __name__ == "__main__":
    main()
