"""Label models on crowds as hard as real ones (issue 29, item 1): a grid of class skew × workers per
item × spammers, every crowd with biased workers who favour one label.

Goal per cell: Dawid–Skene and MACE ≥ plain majority and ≥ crowd-kit 1.4.1's same model fed rows
sorted by worker and label (crowd-kit numbers workers in first-seen order but reads MACE's spam
strategies in sorted order; sorted input is the fair comparison). Each cell averages ``SEEDS``
crowds; majority's ties count as half right. Also printed: the always-majority-class baseline, and
each model's expected calibration error (ECE) over the grid. crowd-kit is a dev dependency: without
it the comparison says so and only the majority goal is judged.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from aggregation.calibration import accuracy, expected_calibration_error
from aggregation.dawid_skene import DawidSkene
from aggregation.label_models import FloatArray, IntArray, LabelModel, MajorityVote
from aggregation.labels import LabelSet
from aggregation.mace import MACE
from aggregation.responses import Responses
from aggregation.simulated_crowds import CrowdSpec, simulate_crowd

SKEWS = (0.5, 0.8, 0.95)
WORKERS_PER_ITEM = (3, 5, 8)
SPAM_SHARES = (0.0, 0.15, 0.3)
SEEDS = 1
ITEMS = 500
BINARY = LabelSet("bench-binary", ("frequent", "rare"))
OURS = ("majority_vote", "dawid_skene", "mace")

Scored = tuple[float, float]  # accuracy, ECE
Fitter = Callable[[IntArray, IntArray, IntArray], tuple[IntArray, FloatArray]]


def crowdkit_fitters() -> dict[str, Fitter] | None:
    try:
        import pandas as pd
        from crowdkit.aggregation import MACE as CrowdKitMACE
        from crowdkit.aggregation import DawidSkene as CrowdKitDawidSkene
    except ImportError:
        return None

    def fitter(make: Callable[[], Any]) -> Fitter:
        def fit(items: IntArray, workers: IntArray, labels: IntArray) -> tuple[IntArray, FloatArray]:
            frame = pd.DataFrame({"task": items, "worker": workers, "label": labels})
            model = make().fit(frame.sort_values(["worker", "label"], kind="stable"))
            probas = model.probas_.sort_index().reindex(columns=range(len(BINARY)), fill_value=0.0)
            decided = probas.to_numpy(dtype=np.float64)
            return np.asarray(decided.argmax(axis=1), dtype=np.intp), decided

        return fit

    return {
        "dawid_skene": fitter(lambda: CrowdKitDawidSkene(n_iter=100)),
        "mace": fitter(lambda: CrowdKitMACE(random_state=0)),
    }


def score_cell(
    spec: CrowdSpec, models: list[LabelModel], crowdkit: dict[str, Fitter] | None
) -> dict[str, Any]:
    """Mean accuracy per model (ours and crowd-kit's) over the cell's seeds, and the ECE inputs."""
    scores: dict[str, list[float]] = {}
    calibration: dict[str, list[tuple[FloatArray, IntArray, IntArray]]] = {}
    baseline = []
    for seed in range(SEEDS):
        crowd = simulate_crowd(
            CrowdSpec(spec.majority_share, spec.per_item, spec.spam_share, items=ITEMS, seed=seed)
        )
        baseline.append(crowd.majority_class_accuracy)
        items, workers, labels = crowd.first(spec.per_item)
        responses = Responses.from_codes(items, workers, labels, BINARY)
        truth = crowd.truth[responses.items.astype(np.intp)]
        for model in models:
            fitted = model.fit(responses)
            _record(scores, calibration, model.name, fitted.labels, fitted.probabilities, truth)
        for name, fit in (crowdkit or {}).items():
            decided, probabilities = fit(items, workers, labels)
            _record(scores, calibration, f"crowdkit_{name}", decided, probabilities, crowd.truth)
    means = {name: float(np.mean(values)) for name, values in scores.items()}
    return {"accuracy": means, "calibration": calibration, "always_majority": float(np.mean(baseline))}


def _record(
    scores: dict[str, list[float]],
    calibration: dict[str, list[tuple[FloatArray, IntArray, IntArray]]],
    name: str,
    decided: IntArray,
    probabilities: FloatArray,
    truth: IntArray,
) -> None:
    scores.setdefault(name, []).append(accuracy(decided, truth))
    calibration.setdefault(name, []).append((probabilities, decided, truth))


def cell_goals(scored: dict[str, float], with_crowdkit: bool) -> list[str]:
    """The goals a cell misses, e.g. ``mace < majority``."""
    missed = []
    for name in ("dawid_skene", "mace"):
        if scored[name] < scored["majority_vote"]:
            missed.append(f"{name} < majority")
        if with_crowdkit and scored[name] < scored[f"crowdkit_{name}"]:
            missed.append(f"{name} < crowd-kit")
    return missed


def main() -> None:
    models: list[LabelModel] = [MajorityVote(), DawidSkene(), MACE()]
    crowdkit = crowdkit_fitters()
    if crowdkit is None:
        print(
            "crowd grid crowd-kit: not installed (pip install -r requirements-dev.txt); majority goals only"
        )
    pooled: dict[str, list[tuple[FloatArray, IntArray, IntArray]]] = {}
    missed_cells = 0
    started = time.perf_counter()
    for skew in SKEWS:
        for per_item in WORKERS_PER_ITEM:
            for spam in SPAM_SHARES:
                spec = CrowdSpec(skew, per_item, spam)
                cell = score_cell(spec, models, crowdkit)
                for name, parts in cell["calibration"].items():
                    pooled.setdefault(name, []).extend(parts)
                missed = cell_goals(cell["accuracy"], crowdkit is not None)
                missed_cells += bool(missed)
                figures = " ".join(f"{name}={value:.3f}" for name, value in cell["accuracy"].items())
                verdict = "met" if not missed else "MISSED (" + ", ".join(missed) + ")"
                print(
                    f"crowd grid {spec.describe()} always_majority={cell['always_majority']:.3f} "
                    f"{figures} goal: {verdict}",
                    flush=True,
                )
    for name, parts in pooled.items():
        ece = np.mean([expected_calibration_error(p, d, t) for p, d, t in parts])
        print(f"crowd grid calibration {name}: mean ECE={ece:.3f}", flush=True)
    cells = len(SKEWS) * len(WORKERS_PER_ITEM) * len(SPAM_SHARES)
    print(
        f"crowd grid: {cells - missed_cells}/{cells} cells meet every goal "
        f"({time.perf_counter() - started:.0f} s)",
        flush=True,
    )


if __name__ == "__main__":
    main()
