"""VAST's quality control over stance answers (Allaway & McKeown 2020, §3.1.2 and §3.2). Pure module.

Poor workers are found with MACE on the stance labels: a worker whose competence θ (the share of
answers MACE believes known rather than spammed) is below a threshold is poor, once they have given
enough answers for θ to say something. Agreement is
Krippendorff's α and the pairwise percentage agreement, computed, as in the paper, "only on the
annotated stance labels for the topic provided": corrections are left out.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np

from aggregation.agreement import krippendorff_alpha, rho
from aggregation.labels import LabelSet
from aggregation.mace import MACE
from aggregation.responses import Responses, ResponsesError
from annotation.task_types.builtin_rules import CON, NEUTRAL, PRO, VAST_5_TO_3

STANCE_3 = LabelSet("vast-stance-3", (CON, NEUTRAL, PRO))


@dataclass(frozen=True)
class StanceAnswer:
    """One worker's answer on one item: the 5-point stance and the correction ("" when none)."""

    item: int
    worker: int
    stance: str
    correction: str = ""
    topics: tuple[str, ...] = ()

    @property
    def side(self) -> str:
        """PRO, CON or NEUTRAL."""
        return VAST_5_TO_3[self.stance]


@dataclass(frozen=True)
class Agreement:
    """α and pairwise agreement over the items with two or more stance answers on the proposed topic."""

    items: int
    answers: int
    krippendorff_alpha: float | None
    percent_agreement: float | None


def on_proposed_topic(answers: Sequence[StanceAnswer]) -> list[StanceAnswer]:
    return [a for a in answers if not a.correction]


def worker_competence(answers: Sequence[StanceAnswer], *, seed: int = 0) -> dict[int, float]:
    """MACE's θ per worker, from the 3-way stance labels on the proposed topics; {} when no item has
    two such answers (MACE has nothing to compare)."""
    stance = on_proposed_topic(answers)
    try:
        responses = Responses.from_columns(
            [a.item for a in stance], [a.worker for a in stance], [a.side for a in stance], STANCE_3
        )
    except ResponsesError:
        return {}
    fitted = MACE(seed=seed).fit(responses)
    return {int(worker): float(theta) for worker, theta in fitted.reliability_by_worker().items()}


def poor_workers(
    answers: Sequence[StanceAnswer], competence: dict[int, float], min_competence: float, min_answers: int
) -> set[int]:
    """Workers whose θ is below `min_competence`, among those with at least `min_answers` stance answers
    on proposed topics: on fewer, θ is mostly MACE's prior, and would judge everyone of a tiny job."""
    answered = Counter(a.worker for a in on_proposed_topic(answers))
    return {w for w, theta in competence.items() if theta < min_competence and answered[w] >= min_answers}


def stance_agreement(answers: Sequence[StanceAnswer], excluded: Collection[int] = ()) -> Agreement:
    """Krippendorff's α (nominal) and mean pairwise agreement, leaving out `excluded` workers."""
    stance = [a for a in on_proposed_topic(answers) if a.worker not in excluded]
    items = sorted({a.item for a in stance})
    row = {item: index for index, item in enumerate(items)}
    counts = np.zeros((len(items), len(STANCE_3)), dtype=np.int64)
    for a in stance:
        counts[row[a.item], STANCE_3.code(a.side)] += 1
    rated = counts[counts.sum(axis=1) >= 2]
    if rated.shape[0] == 0:
        return Agreement(0, 0, None, None)
    alpha = krippendorff_alpha(rated)
    return Agreement(
        items=int(rated.shape[0]),
        answers=int(rated.sum()),
        krippendorff_alpha=None if math.isnan(alpha) else round(alpha, 4),
        percent_agreement=round(float(np.mean(rho(rated))), 4),
    )
