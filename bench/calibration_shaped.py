"""How far the label models' posteriors can be trusted on a crowd shaped like the real one (issue 46,
item 3): "simulated crowds are kinder than real ones: measure calibration on data shaped like the real".

PERSPECTRUM's release keeps, for each perspective cluster, the real crowd's ``voter_counts`` over the
5-way stance scale, but not who gave each vote. The shaped crowd keeps each item's own ambiguity:
every cluster with at least ``MIN_VOTES`` votes is an item, and ``PER_ITEM`` workers drawn from a pool
of ``POOL`` answer it by sampling from that item's vote shares, collapsed to 3 labels as the project
collapses the 5-way scale (paper §4.1). The truth is the release's ``stance_label_3``; a cluster whose
label is not the plurality of its own collapsed counts (a stance-flipped copy whose counts were
reversed) is left out. Items differ in difficulty here and the workers do not, which is the opposite
of what Dawid–Skene and MACE assume (class-conditional confusion per worker, items alike).

Two shaped crowds. "as counted" answers from each cluster's shares as counted; but the release keeps
only clusters that passed its agreement filter, with 3 votes on most, and 97% of the kept ones are
unanimous, so a 3–0 cluster's workers never err and that crowd is easier than any real one. "drawn"
answers from shares drawn per item and seed from Dirichlet(counts + ``PRIOR_VOTES`` vote spread as all
the votes are): the shares a cluster's three votes leave possible, so a 3–0 cluster is mostly, not
always, answered one way. The drawn crowd's figures depend on that prior (Dawid–Skene's ECE 0.030 at
half a vote, 0.055 at one, 0.077 at two; seeds 0–4).

Printed per crowd and label model, averaged over ``SEEDS``: the ECE of the posteriors as they are and
once calibrated (isotonic, cross-fitted over the items, as a job's gold items calibrate them:
aggregation.machines.calibrating), and, of the items whose posterior is at least 0.95, their share,
mean posterior and accuracy. For contrast, the same on the benchmarks' simulated crowd of the same
balance and redundancy (50/50, ``PER_ITEM`` workers, 10% spammers), whose workers follow the models'
own assumptions.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
from django.conf import settings

from aggregation.calibration import calibration_error
from aggregation.dawid_skene import DawidSkene
from aggregation.label_models import FloatArray, IntArray, LabelModel, MajorityVote
from aggregation.labels import NO_MAJORITY, LabelSet
from aggregation.mace import MACE
from aggregation.machines.calibrating import calibrate
from aggregation.responses import Responses
from aggregation.simulated_crowds import CrowdSpec, simulate_crowd
from annotation.task_types.builtin_rules import STANCE_3_LABELS, STANCE_5_LABELS, STANCE_5_TO_3
from corpus.perspectrum import read_release

MIN_VOTES = 3  # a cluster with 2 votes is either unanimous or a tie the release leaves undecided
PER_ITEM = 5
POOL = 16  # as the simulated crowds' (aggregation.simulated_crowds.CrowdSpec)
SEEDS = range(5)
SURE = 0.95
PRIOR_VOTES = 1.0  # the "drawn" crowd's Dirichlet prior: one vote, spread as all the votes are
STANCE = LabelSet("stance-3", STANCE_3_LABELS)
BINARY = LabelSet("bench-binary", ("frequent", "rare"))
Crowd = tuple[Responses, IntArray]  # the answers, and each item's truth in the answers' item order


def shaped_items(claims: list[dict[str, Any]]) -> tuple[FloatArray, IntArray]:
    """Each kept cluster's 3-way vote counts (items × 3) and its release label's code."""
    collapse = np.zeros((len(STANCE_5_LABELS), len(STANCE_3_LABELS)))
    for fine, label in enumerate(STANCE_5_LABELS):
        collapse[fine, STANCE_3_LABELS.index(STANCE_5_TO_3[label])] = 1.0
    clusters = [cluster for claim in claims for cluster in claim["perspectives"]]
    counts = np.array([cluster["voter_counts"] for cluster in clusters], dtype=np.float64) @ collapse
    truth = np.array(
        [
            STANCE_3_LABELS.index(c["stance_label_3"]) if c["stance_label_3"] in STANCE_3_LABELS else -1
            for c in clusters
        ]
    )
    top = counts.max(axis=1, keepdims=True)
    plurality = np.where((counts == top).sum(axis=1) == 1, counts.argmax(axis=1), -2)
    kept = (counts.sum(axis=1) >= MIN_VOTES) & (plurality == truth)
    return counts[kept], truth[kept]


def shaped_crowd(counts: FloatArray, truth: IntArray, seed: int, prior: float = 0.0) -> Crowd:
    """``PER_ITEM`` distinct workers of the pool per item, each answering from the item's vote shares:
    as counted (``prior`` 0), or drawn from Dirichlet(counts + ``prior`` votes spread as all the votes
    are), the shares a cluster's few votes leave possible."""
    rng = np.random.default_rng(seed)
    if prior > 0:
        drawn = rng.gamma(counts + prior * counts.sum(axis=0) / counts.sum())
        shares = drawn / drawn.sum(axis=1, keepdims=True)
    else:
        shares = counts / counts.sum(axis=1, keepdims=True)
    n_items = len(shares)
    workers = np.argsort(rng.random((n_items, POOL)), axis=1)[:, :PER_ITEM]
    draws = rng.random((n_items, PER_ITEM, 1))
    labels = (draws > np.cumsum(shares, axis=1)[:, None, :]).sum(axis=2)
    labels = np.minimum(labels, len(STANCE_3_LABELS) - 1)  # a share summing to 0.9999… never overflows
    items = np.repeat(np.arange(n_items), PER_ITEM)
    responses = Responses.from_codes(items, workers.ravel(), labels.ravel(), STANCE)
    return responses, truth[responses.items.astype(np.intp)]


def simulated_crowd(n_items: int, seed: int) -> Crowd:
    """The benchmarks' simulated crowd of the same balance and redundancy."""
    crowd = simulate_crowd(CrowdSpec(0.5, PER_ITEM, 0.1, items=n_items, seed=seed))
    items, workers, labels = crowd.first(PER_ITEM)
    responses = Responses.from_codes(items, workers, labels, BINARY)
    return responses, crowd.truth[responses.items.astype(np.intp)]


def scores(model: LabelModel, crowd: Crowd, seed: int) -> dict[str, float]:
    """One model on one crowd: ECE as it is and once calibrated (cross-fitted), and the sure items'
    share, mean posterior and accuracy."""
    responses, truth = crowd
    fitted = model.fit(responses)
    confidence = fitted.probabilities.max(axis=1)
    right = np.where(fitted.labels == NO_MAJORITY, 0.5, (fitted.labels == truth).astype(np.float64))
    sure = confidence >= SURE
    return {
        "ece": calibration_error(confidence, right),
        "calibrated": calibrate(confidence, right, seed=seed).ece,
        "accuracy": float(right.mean()),
        "sure_share": float(sure.mean()),
        "sure_posterior": float(confidence[sure].mean()) if sure.any() else float("nan"),
        "sure_accuracy": float(right[sure].mean()) if sure.any() else float("nan"),
    }


def measure(counts: FloatArray, truth: IntArray, seeds: range = SEEDS) -> dict[str, dict[str, float]]:
    """Per "crowd model" (crowd: as counted, drawn or simulated), each figure's mean over the seeds."""
    models: list[LabelModel] = [MajorityVote(), DawidSkene(), MACE()]
    figures: dict[str, list[dict[str, float]]] = {}
    for seed in seeds:
        crowds = {
            "as counted": shaped_crowd(counts, truth, seed),
            "drawn": shaped_crowd(counts, truth, seed, PRIOR_VOTES),
            "simulated": simulated_crowd(len(truth), seed),
        }
        for name, crowd in crowds.items():
            for model in models:
                figures.setdefault(f"{name} {model.name}", []).append(scores(model, crowd, seed))
    return {
        key: {figure: float(np.mean([run[figure] for run in runs])) for figure in runs[0]}
        for key, runs in figures.items()
    }


def line(key: str, figures: dict[str, float]) -> str:
    return (
        f"calibration {key}: ECE={figures['ece']:.3f} calibrated={figures['calibrated']:.3f} "
        f"accuracy={figures['accuracy']:.3f}; posterior >= {SURE}: {figures['sure_share']:.0%} of items, "
        f"mean posterior {figures['sure_posterior']:.3f}, right {figures['sure_accuracy']:.3f}"
    )


def main() -> None:
    started = time.perf_counter()
    counts, truth = shaped_items(read_release(Path(settings.PERSPECTRUM_DIR)).claims)
    print(
        f"calibration: {len(truth)} PERSPECTRUM clusters with >= {MIN_VOTES} votes, {PER_ITEM} workers "
        f"per item from a pool of {POOL}, {len(SEEDS)} seeds; as counted / drawn = resampled from each "
        f"cluster's votes (drawn: Dirichlet, prior {PRIOR_VOTES:g} vote), simulated = 50/50, 10% spammers",
        flush=True,
    )
    for key, figures in measure(counts, truth).items():
        print(line(key, figures), flush=True)
    print(f"calibration: {time.perf_counter() - started:.1f} s", flush=True)


if __name__ == "__main__":
    main()
