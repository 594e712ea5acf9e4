"""Label models on crowds as hard as real ones (issue 29, item 1): a grid of class skew × workers per
item × spammers, every crowd with biased workers who favour one label.

Goal per cell: Dawid–Skene and MACE ≥ plain majority and ≥ crowd-kit 1.4.1's same model fed rows
sorted by worker and label (crowd-kit numbers workers in first-seen order but reads MACE's spam
strategies in sorted order; sorted input is the fair comparison). Each cell averages ``SEEDS``
crowds; majority's ties count as half right. Also printed: the always-majority-class baseline, and
each model's expected calibration error (ECE) over the grid. crowd-kit is a dev dependency: without
it the comparison says so and only the majority goal is judged. crowd-kit's figures are cached
(``CACHE``) per crowd, so the grid takes seconds after its first run.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import numpy as np

from aggregation.calibration import accuracy, expected_calibration_error
from aggregation.dawid_skene import DawidSkene
from aggregation.label_models import FloatArray, IntArray, LabelModel, MajorityVote
from aggregation.labels import LabelSet
from aggregation.mace import MACE
from aggregation.responses import Responses
from aggregation.simulated_crowds import Crowd, CrowdSpec, simulate_crowd

SKEWS = (0.5, 0.8, 0.95)
WORKERS_PER_ITEM = (3, 5, 8)
SPAM_SHARES = (0.0, 0.15, 0.3)
SEEDS = 1
ITEMS = 500
BINARY = LabelSet("bench-binary", ("frequent", "rare"))
# crowd-kit's figures on each crowd, keyed by its version and a digest of the crowd's labels: its
# MACE takes tens of seconds per crowd on a shared machine, and its answer cannot change unless the
# crowd or crowd-kit does. Delete the file to fit them all afresh.
CACHE = Path(__file__).with_name("crowd_grid_crowdkit.json")
try:
    CROWDKIT_VERSION = version("crowd-kit")
except PackageNotFoundError:
    CROWDKIT_VERSION = "missing"

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
    spec: CrowdSpec, models: list[LabelModel], crowdkit: dict[str, Fitter] | None, cache: dict[str, Any]
) -> dict[str, Any]:
    """Per model (ours and crowd-kit's): mean accuracy and ECE over the cell's seeds."""
    scores: dict[str, list[tuple[float, float]]] = {}
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
            scores.setdefault(model.name, []).append(_scored(fitted.labels, fitted.probabilities, truth))
        if crowdkit is not None:
            theirs = _crowdkit_scores(crowdkit, cache, f"{spec.describe()} seed={seed}", crowd)
            for name, scored in theirs.items():
                scores.setdefault(f"crowdkit_{name}", []).append((scored[0], scored[1]))
    means = {name: tuple(np.mean(values, axis=0).tolist()) for name, values in scores.items()}
    return {"scores": means, "always_majority": float(np.mean(baseline))}


def _scored(decided: IntArray, probabilities: FloatArray, truth: IntArray) -> tuple[float, float]:
    return accuracy(decided, truth), expected_calibration_error(probabilities, decided, truth)


def _crowdkit_scores(
    crowdkit: dict[str, Fitter], cache: dict[str, Any], cell: str, crowd: Crowd
) -> dict[str, list[float]]:
    """crowd-kit's (accuracy, ECE) per model on this crowd: from the cache when the same crowd-kit
    version has already seen exactly these labels, else fitted (seconds per crowd) and cached."""
    items, workers, labels = crowd.first(crowd.answer_workers.shape[1])
    digest = hashlib.sha256(np.stack([items, workers, labels, np.resize(crowd.truth, len(items))]).tobytes())
    key = f"{cell} crowd-kit={CROWDKIT_VERSION} labels={digest.hexdigest()[:16]}"
    if key not in cache:
        cache[key] = {
            name: list(_scored(*fit(items, workers, labels), crowd.truth)) for name, fit in crowdkit.items()
        }
    return dict(cache[key])


def load_cache() -> dict[str, Any]:
    return json.loads(CACHE.read_text()) if CACHE.is_file() else {}


def save_cache(cache: dict[str, Any]) -> None:
    CACHE.write_text(json.dumps(cache, indent=1, sort_keys=True) + "\n")


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
    cache = load_cache()
    pooled: dict[str, list[float]] = {}
    missed_cells = 0
    started = time.perf_counter()
    for skew in SKEWS:
        for per_item in WORKERS_PER_ITEM:
            for spam in SPAM_SHARES:
                spec = CrowdSpec(skew, per_item, spam)
                cell = score_cell(spec, models, crowdkit, cache)
                scored = {name: value[0] for name, value in cell["scores"].items()}
                for name, value in cell["scores"].items():
                    pooled.setdefault(name, []).append(value[1])
                missed = cell_goals(scored, crowdkit is not None)
                missed_cells += bool(missed)
                figures = " ".join(f"{name}={value:.3f}" for name, value in scored.items())
                verdict = "met" if not missed else "MISSED (" + ", ".join(missed) + ")"
                print(
                    f"crowd grid {spec.describe()} always_majority={cell['always_majority']:.3f} "
                    f"{figures} goal: {verdict}",
                    flush=True,
                )
        if crowdkit is not None:
            save_cache(cache)  # after each skew: an interrupted run keeps what it fitted
    for name, values in pooled.items():
        print(f"crowd grid calibration {name}: mean ECE={np.mean(values):.3f}", flush=True)
    cells = len(SKEWS) * len(WORKERS_PER_ITEM) * len(SPAM_SHARES)
    print(
        f"crowd grid: {cells - missed_cells}/{cells} cells meet every goal "
        f"({time.perf_counter() - started:.0f} s)",
        flush=True,
    )


if __name__ == "__main__":
    main()
