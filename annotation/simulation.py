"""A modelled crowd: workers with an accuracy, a label bias, and a share of spammers. Pure: no Django.

A diligent worker gives the known label with probability `accuracy`; otherwise a label drawn
from their bias. A spammer ignores the item and always draws from their bias. This is the
"one-coin" worker of Dawid–Skene style models, enough to exercise aggregation and gold checks.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any


class SimulationError(ValueError):
    """Crowd parameters that describe no crowd."""


@dataclass(frozen=True)
class CrowdParams:
    size: int = 30
    accuracy_low: float = 0.7
    accuracy_high: float = 0.95
    spammer_share: float = 0.1
    adversary_share: float = 0.0
    seed: int = 0

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> CrowdParams:
        known = {name: values[name] for name in cls.__dataclass_fields__ if name in values}
        params = cls(**known)
        params.validate()
        return params

    def validate(self) -> None:
        if self.size < 1:
            raise SimulationError("a simulated crowd needs at least one worker")
        if not 0 <= self.accuracy_low <= self.accuracy_high <= 1:
            raise SimulationError("accuracies must satisfy 0 ≤ low ≤ high ≤ 1")
        if not 0 <= self.spammer_share <= 1:
            raise SimulationError("the spammer share must be between 0 and 1")
        if not 0 <= self.adversary_share <= 1 - self.spammer_share:
            raise SimulationError("the adversary share must be between 0 and 1 minus the spammer share")


@dataclass(frozen=True)
class WorkerModel:
    name: str
    accuracy: float
    spammer: bool = False
    adversary: bool = False
    # Relative weights of the labels a worker falls back to; empty means uniform.
    bias: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> WorkerModel:
        return cls(
            name=str(values["name"]),
            accuracy=float(values["accuracy"]),
            spammer=bool(values.get("spammer", False)),
            adversary=bool(values.get("adversary", False)),
            bias={str(k): float(v) for k, v in dict(values.get("bias", {})).items()},
        )


def make_crowd(params: CrowdParams, labels: Sequence[str]) -> list[WorkerModel]:
    """`params.size` workers, `spammer_share` of them spammers and `adversary_share` adversaries, each
    with a random label bias."""
    params.validate()
    rng = random.Random(params.seed)
    # Spammers are drawn at random, not placed first, so no ordering of the crowd favours them.
    spammers = set(rng.sample(range(params.size), round(params.size * params.spammer_share)))
    # Adversaries are drawn after the spammers, among the others, so adding them changes no spammer.
    others = [index for index in range(params.size) if index not in spammers]
    adversaries = set(rng.sample(others, round(params.size * params.adversary_share))) if others else set()
    crowd = []
    for index in range(params.size):
        bias = {label: rng.random() + 0.1 for label in labels}
        crowd.append(
            WorkerModel(
                name=f"sim-{params.seed}-{index:04d}",
                accuracy=rng.uniform(params.accuracy_low, params.accuracy_high),
                spammer=index in spammers,
                adversary=index in adversaries,
                bias=bias,
            )
        )
    return crowd


def answer(worker: WorkerModel, known: str, labels: Sequence[str], rng: random.Random) -> str:
    """The label this worker gives to an item whose known label is `known`."""
    if not worker.spammer and rng.random() < worker.accuracy:
        believed = known
    else:
        believed = _biased(worker, labels, rng)
    if not worker.adversary:
        return believed
    return _biased(worker, [label for label in labels if label != believed] or list(labels), rng)


def _biased(worker: WorkerModel, labels: Sequence[str], rng: random.Random) -> str:
    weights = [worker.bias.get(label, 1.0) for label in labels]
    return rng.choices(list(labels), weights=weights, k=1)[0]


def answer_many(
    worker: WorkerModel, known: Sequence[str], labels: Sequence[str], rng: random.Random
) -> list[str]:
    """A multi-select answer (e.g. topics): a diligent worker ticks each known choice with
    probability `accuracy` and a wrong one rarely; a spammer ticks a couple at random."""
    if worker.spammer:
        return [label for label in labels if rng.random() < 2 / len(labels)]
    # Spread the worker's errors over all the wrong choices, so a long list is not over-ticked.
    slip = (1 - worker.accuracy) / max(len(labels), 1)
    return [label for label in labels if rng.random() < (worker.accuracy if label in known else slip)]
