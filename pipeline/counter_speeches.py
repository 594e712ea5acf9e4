"""Counter-speech questions from crawled debates: an idebate point, with its own counterpoint and the
counterpoints of other points of the same debate and side as the candidates.

Orbach et al. (2020) draw the candidates from speeches on the same motion with the opposing stance;
every counterpoint to a point on one side argues the other side of the same motion, so the
counterpoints of one side's points are such a set, and which one answers which point is known by
construction. Read here, in the pipeline, because annotation may not import crawler.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import chain, zip_longest
from typing import Any

from crawler.models import Point

MIN_OTHERS, MAX_OTHERS = 2, 4  # 3 to 5 candidates, as in the paper


def _paragraphs(texts: Sequence[str]) -> str:
    return "\n\n".join(text.strip() for text in texts if text and text.strip())


def counter_speech_questions(claims: Sequence[int], limit: int, seed: int) -> list[dict[str, Any]]:
    """At most `limit` questions (the `questions` filter of a counter_speech job), taken in turn from
    each debate side so that one long debate does not fill the job."""
    points = (
        Point.objects.filter(current=True, debate__claim__cid__in=list(claims))
        .select_related("debate__claim")
        .order_by("debate__claim__cid", "debate_id", "side", "position")
    )
    sides: dict[tuple[int, str], list[Point]] = {}
    for point in points:
        if _paragraphs(point.counterpoint):
            sides.setdefault((point.debate_id, point.side), []).append(point)
    groups = [_side_questions(group, seed) for group in sides.values() if len(group) > MIN_OTHERS]
    interleaved = [q for q in chain.from_iterable(zip_longest(*groups)) if q is not None]
    return interleaved[: max(limit, 0)]


def _side_questions(points: list[Point], seed: int) -> list[dict[str, Any]]:
    questions = []
    for point in points:
        others = [other for other in points if other.pk != point.pk]
        # Seeded by what the site says, not database ids: the same crawl makes the same questions anywhere.
        rng = random.Random(f"{seed}-{point.debate.url}-{point.side}-{point.position}")
        chosen = rng.sample(others, k=min(MAX_OTHERS, len(others)))
        claim = point.debate.claim
        question: dict[str, Any] = {
            "key": f"c{claim.cid if claim else 0}-d{point.debate_id}-{point.side}{point.position}",
            "motion": point.debate.motion,
            "point": _paragraphs([point.headline, *point.body]),
            "candidates": [_paragraphs(p.counterpoint) for p in [point, *chosen]],
            "answer": 0,  # the true counterpoint; the task type shuffles the candidates it shows
        }
        if claim is not None:
            question["cid"] = claim.cid
        questions.append(question)
    return questions
