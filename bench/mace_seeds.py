"""MACE against crowd-kit's on the bench's 4,000-item crowd over many seeds of its generator.

The crowd-kit test (tests/aggregation/test_label_models.py) compares the two MACEs on one seed
(``bench.aggregation.SEED``); there crowd-kit's is ahead by 14 items in 4,000. This says whether that
is the model or the seed: per seed, ours, crowd-kit 1.4.1's MACE fed rows sorted by worker and label,
and the accuracy of deciding with the crowd's true parameters (the ceiling), then the paired mean
difference and its standard error. Goal: ours ≥ crowd-kit's on average over the seeds (within two
standard errors counts as within noise). crowd-kit's figures are cached per seed (``CACHE``, keyed by
its version and a digest of the labels; ten to forty seconds a seed here); it is fitted only with
``--fit-crowdkit``, else the seeds without a figure are left out and the line says so.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from aggregation.labels import LabelSet
from aggregation.mace import MACE
from aggregation.responses import Responses
from bench.aggregation import SEED, SimulatedLabels, crowdkit_frame, simulated_crowd
from bench.crowd_grid import CROWDKIT_VERSION

SEEDS = (SEED, *range(20))
LABELS = LabelSet("bench-3", ("a", "b", "c"))
CACHE = Path(__file__).with_name("mace_seeds_crowdkit.json")


def crowd(seed: int) -> SimulatedLabels:
    """The crowd of the crowd-kit test: 4,000 items, 5 of 100 workers each, 3 labels, 20% spammers."""
    return simulated_crowd(4_000, 5, 100, 3, seed=seed)


def crowdkit_accuracy(labels: SimulatedLabels, cache: dict[str, float], fit: bool) -> float | None:
    """crowd-kit's MACE accuracy on these labels: cached, fitted (with ``fit``), or None."""
    digest = hashlib.sha256(np.stack([labels.items, labels.workers, labels.labels]).tobytes())
    key = f"crowd-kit={CROWDKIT_VERSION} labels={digest.hexdigest()[:16]}"
    if key not in cache:
        if not fit:
            return None
        from crowdkit.aggregation import MACE as CrowdKitMACE

        frame = crowdkit_frame(labels.items, labels.workers, labels.labels)
        predicted = CrowdKitMACE(random_state=0).fit_predict(frame).sort_index()
        right = predicted.to_numpy(dtype=np.int64) == labels.truth[predicted.index.to_numpy()]
        cache[key] = float(np.mean(right))
    return cache[key]


def seed_line(seed: int, cache: dict[str, float], fit: bool) -> tuple[str, float | None]:
    labels = crowd(seed)
    responses = Responses.from_codes(labels.items, labels.workers, labels.labels, LABELS)
    ours = float(np.mean(MACE().fit(responses).labels == labels.truth))
    theirs = crowdkit_accuracy(labels, cache, fit)
    figures = f"ours={ours:.4f} crowdkit={'not fitted' if theirs is None else f'{theirs:.4f}'}"
    line = f"mace seeds seed={seed} {figures} true_parameters={labels.true_parameter_accuracy():.4f}"
    return line, None if theirs is None else ours - theirs


def verdict(differences: list[float]) -> str:
    if len(differences) < 2:
        return "mace seeds: too few seeds with crowd-kit figures (run with --fit-crowdkit)"
    gaps = np.asarray(differences)
    mean, error = float(gaps.mean()), float(gaps.std(ddof=1) / np.sqrt(len(gaps)))
    goal = "met" if mean >= 0 else "met within noise" if -mean <= 2 * error else "MISSED"
    return (
        f"mace seeds: ours - crowd-kit over {len(gaps)} seeds: mean {mean:+.5f} (SE {error:.5f}), "
        f"ours >= on {int((gaps >= 0).sum())}, worst {gaps.min():+.4f}; goal mean >= 0: {goal}"
    )


def main(options: list[str] | None = None) -> None:
    """``--fit-crowdkit``: fit crowd-kit on the seeds it has no cached figure for, and cache them."""
    fit = "--fit-crowdkit" in (options or [])
    cache: dict[str, float] = json.loads(CACHE.read_text()) if CACHE.is_file() else {}
    differences = []
    for seed in SEEDS:
        line, difference = seed_line(seed, cache, fit)
        print(line, flush=True)
        if difference is not None:
            differences.append(difference)
        if fit:
            CACHE.write_text(json.dumps(cache, indent=1, sort_keys=True) + "\n")
    print(verdict(differences), flush=True)


if __name__ == "__main__":
    main()
