"""Simulated machine annotators of known quality and calibration, for `bench machines`. Pure module:
no Django; seeded, so a machine's labels are reproducible. Every machine here is simulated.

Each item gets the machine's chance of being right, drawn from a Beta distribution (models are sure
of some items and lost on others); the machine is right with that chance, else gives one of the other
labels at random. The score it reports is that chance, bent by ``overconfidence`` (score = chance ^
(1 / overconfidence)): 1 is a calibrated machine, above 1 one whose 0.9 is right far less often. A
chance-level machine labels at random and reports scores that mean nothing.

Hard items are hard for everybody: on items marked ``hard`` (in the bench, those where the crowd
disagrees among itself, which hold nearly all of the crowd's own mistakes) the machine's chance of being
right is pulled half way towards a guess, and a calibrated machine's score falls with it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from aggregation.label_models import FloatArray, IntArray


@dataclass(frozen=True)
class MachineSpec:
    """A machine's skill (Beta(a, b) over items of its chance of being right) and calibration."""

    name: str
    skill_a: float
    skill_b: float
    overconfidence: float = 1.0
    chance_level: bool = False


MACHINES = (
    MachineSpec("good", 9.0, 1.0),
    MachineSpec("mediocre", 3.0, 1.5),
    MachineSpec("overconfident", 3.0, 1.5, overconfidence=4.0),
    MachineSpec("chance", 1.0, 1.0, chance_level=True),
)


@dataclass(frozen=True)
class MachineLabels:
    labels: IntArray  # per item
    scores: FloatArray  # per item, in [0, 1]


HARD_PULL = 0.5


def simulate_machine(
    spec: MachineSpec, truth: IntArray, n_labels: int, seed: int, hard: npt.NDArray[np.bool_] | None = None
) -> MachineLabels:
    """The machine's label and score for each item of ``truth`` (``hard``: items hard for everybody)."""
    rng = np.random.default_rng([seed, sum(map(ord, spec.name))])
    n = len(truth)
    if spec.chance_level:
        scores = rng.uniform(1.0 / n_labels, 1.0, size=n)
        return MachineLabels(rng.integers(0, n_labels, size=n).astype(np.intp), scores)
    chance = rng.beta(spec.skill_a, spec.skill_b, size=n)
    if hard is not None:
        guess = 1.0 / n_labels
        chance = np.where(hard, guess + HARD_PULL * (chance - guess), chance)
    right = rng.random(n) < chance
    other = (truth + rng.integers(1, n_labels, size=n)) % n_labels
    labels = np.where(right, truth, other).astype(np.intp)
    return MachineLabels(labels, chance ** (1.0 / spec.overconfidence))
