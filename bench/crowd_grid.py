"""Label models on crowds as hard as real ones (issue 29, item 1): a grid of class skew × workers per
item × spammers, every crowd with biased workers who favour one label.

Goal per cell: Dawid–Skene and MACE ≥ plain majority and ≥ crowd-kit 1.4.1's same model fed rows
sorted by worker and label (crowd-kit numbers workers in first-seen order but reads MACE's spam
strategies in sorted order; sorted input is the fair comparison); MACE also ≥ always answering
the majority class on skewed cells. Each cell averages ``SEEDS`` crowds of ``ITEMS`` items (majority's
ties count as half right), and each goal is judged against two standard errors of the difference:
"met", "met within noise" (short by less), or "MISSED". Also printed: each model's expected
calibration error (ECE) over the grid, and ``true_parameters``, the accuracy of deciding with the
crowd's true confusion matrices and prevalence: the ceiling no label model can pass on average.

Why ten seeds: where a model can only overrule a 2–1 vote (3 workers per item, no spammers), the
items it overrules are near-ties that share one set of estimated parameters, so a few crowds say
little. On seeds 0–2 of 50/50, 3 workers, 0% spammers, even the true parameters decide exactly as
majority does (0.877 both) and Dawid–Skene is 0.010 below; over 12 seeds the true parameters gain
0.008 on majority and Dawid–Skene 0.002. crowd-kit is a dev dependency: without it the comparison
says so and only the other goals are judged. Its figures are cached (``CACHE``) per crowd, on the
same ten seeds as ours (5–10 s per crowd on a quiet machine, a minute on a busy one): its ECE and
which items it got right, so that it is compared item by item like majority. With only its
accuracy on three seeds, the unpaired standard error (2 SE 0.023–0.028 on 1,500 items) left every
gap under 0.01 "within noise"; paired on 5,000 items, 2 SE is 0.004–0.007 in the 3-worker 50/50
cells. It is fitted only with ``--fit-crowdkit``, else judged on the seeds it has figures for, and
each line says which. ``--seeds=FIRST-LAST`` judges other seeds of the same generator (crowd-kit's
figures are cached for 10–19 too): a change made while looking at the grid's ten must hold there.
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

from aggregation.calibration import expected_calibration_error
from aggregation.dawid_skene import DawidSkene
from aggregation.label_models import FloatArray, IntArray, LabelModel, MajorityVote
from aggregation.labels import NO_MAJORITY, LabelSet
from aggregation.mace import MACE
from aggregation.responses import Responses
from aggregation.simulated_crowds import Crowd, CrowdSpec, simulate_crowd
from bench.aggregation import crowdkit_frame

SKEWS = (0.5, 0.8, 0.95)
WORKERS_PER_ITEM = (3, 5, 8)
SPAM_SHARES = (0.0, 0.15, 0.3)
SEEDS = range(10)  # the grid's own; ``--seeds=FIRST-LAST`` judges others, held out from any tuning
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

Scored = tuple[FloatArray, float]  # per item right (1 or 0), ECE
Fitter = Callable[[IntArray, IntArray, IntArray], tuple[IntArray, FloatArray]]


def crowdkit_fitters() -> dict[str, Fitter] | None:
    try:
        from crowdkit.aggregation import MACE as CrowdKitMACE
        from crowdkit.aggregation import DawidSkene as CrowdKitDawidSkene
    except ImportError:
        return None

    def fitter(make: Callable[[], Any]) -> Fitter:
        def fit(items: IntArray, workers: IntArray, labels: IntArray) -> tuple[IntArray, FloatArray]:
            model = make().fit(crowdkit_frame(items, workers, labels))
            probas = model.probas_.sort_index().reindex(columns=range(len(BINARY)), fill_value=0.0)
            decided = probas.to_numpy(dtype=np.float64)
            return np.asarray(decided.argmax(axis=1), dtype=np.intp), decided

        return fit

    return {
        "dawid_skene": fitter(lambda: CrowdKitDawidSkene(n_iter=100)),
        "mace": fitter(lambda: CrowdKitMACE(random_state=0)),
    }


def score_cell(
    spec: CrowdSpec,
    models: list[LabelModel],
    crowdkit: dict[str, Fitter] | None,
    cache: dict[str, Any],
    fit_crowdkit: bool = False,
    seeds: range = SEEDS,
) -> dict[str, Any]:
    """Per model, per seed: which items it got right (1, ½ for an undecided item, 0) and its ECE;
    crowd-kit's the same, per seed it has in the cache (or fits it, with ``fit_crowdkit``)."""
    right: dict[str, list[FloatArray]] = {"always_majority": [], "true_parameters": []}
    ece: dict[str, list[float]] = {}
    theirs: dict[str, dict[int, Scored]] = {}
    for position, seed in enumerate(seeds):
        crowd = simulate_crowd(
            CrowdSpec(spec.majority_share, spec.per_item, spec.spam_share, items=ITEMS, seed=seed)
        )
        items, workers, labels = crowd.first(spec.per_item)
        responses = Responses.from_codes(items, workers, labels, BINARY)
        truth = crowd.truth[responses.items.astype(np.intp)]
        right["always_majority"].append((truth == np.bincount(crowd.truth).argmax()).astype(np.float64))
        best = crowd.true_posteriors(items, workers, labels)[responses.items.astype(np.intp)]
        right["true_parameters"].append(_right(best.argmax(axis=1), truth))
        for model in models:
            fitted = model.fit(responses)
            right.setdefault(model.name, []).append(_right(fitted.labels, truth))
            ece.setdefault(model.name, []).append(
                expected_calibration_error(fitted.probabilities, fitted.labels, truth)
            )
        if crowdkit is not None:
            cell = f"{spec.describe()} seed={seed}"
            for name, scored in _crowdkit_scores(crowdkit, cache, cell, crowd, fit_crowdkit).items():
                theirs.setdefault(f"crowdkit_{name}", {})[position] = scored
    return {"right": right, "ece": ece, "crowdkit": theirs, "seeds": list(seeds)}


def _right(decided: IntArray, truth: IntArray) -> FloatArray:
    return np.where(decided == NO_MAJORITY, 0.5, (decided == truth).astype(np.float64))


def _crowdkit_scores(
    crowdkit: dict[str, Fitter], cache: dict[str, Any], cell: str, crowd: Crowd, fit_crowdkit: bool
) -> dict[str, Scored]:
    """crowd-kit's items right and ECE per model on this crowd: from the cache when the same
    crowd-kit version has already seen exactly these labels, else fitted (seconds to a minute per
    crowd, with the machine's load) and cached, or, with ``fit_crowdkit`` off, left out."""
    items, workers, labels = crowd.first(crowd.answer_workers.shape[1])
    digest = hashlib.sha256(np.stack([items, workers, labels, np.resize(crowd.truth, len(items))]).tobytes())
    key = f"{cell} crowd-kit={CROWDKIT_VERSION} labels={digest.hexdigest()[:16]}"
    if key not in cache:
        if not fit_crowdkit:
            return {}
        fits = {name: fit(items, workers, labels) for name, fit in crowdkit.items()}
        cache[key] = {
            name: _cached(decided, probabilities, crowd.truth)
            for name, (decided, probabilities) in fits.items()
        }
    return {name: _uncached(entry, len(crowd.truth)) for name, entry in cache[key].items()}


def _cached(decided: IntArray, probabilities: FloatArray, truth: IntArray) -> dict[str, Any]:
    """What the cache keeps of one fit: its ECE and, packed into hex, which items it got right (so
    that ours and crowd-kit's are compared item by item, not only by their means)."""
    right = np.packbits(_right(decided, truth).astype(np.uint8))
    return {"ece": expected_calibration_error(probabilities, decided, truth), "right": right.tobytes().hex()}


def _uncached(entry: dict[str, Any], n_items: int) -> Scored:
    packed = np.frombuffer(bytes.fromhex(entry["right"]), dtype=np.uint8)
    return np.unpackbits(packed)[:n_items].astype(np.float64), float(entry["ece"])


def load_cache() -> dict[str, Any]:
    return json.loads(CACHE.read_text()) if CACHE.is_file() else {}


def save_cache(cache: dict[str, Any]) -> None:
    CACHE.write_text(json.dumps(cache, indent=1, sort_keys=True) + "\n")


def cell_goals(spec: CrowdSpec, cell: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The goals a cell misses beyond noise, and those it misses by less than two standard errors.

    Every comparison is paired (the same items): the standard error of the mean of the per-item
    difference, against crowd-kit on the seeds it has figures for."""
    right, theirs = cell["right"], cell["crowdkit"]
    missed: list[str] = []
    noise: list[str] = []
    for name in ("dawid_skene", "mace"):
        ours = right[name]
        others = [("majority", right["majority_vote"])]
        if name == "mace" and spec.majority_share > 0.5:
            others.append(("always-majority", right["always_majority"]))
        for other, their_right in others:
            difference = np.concatenate(ours) - np.concatenate(their_right)
            _judge(f"{name} < {other}", difference.mean(), _error(difference), missed, noise)
        scored = theirs.get(f"crowdkit_{name}", {})
        if scored:
            difference = np.concatenate([ours[seed] - value[0] for seed, value in scored.items()])
            _judge(f"{name} < crowd-kit", difference.mean(), _error(difference), missed, noise)
    return missed, noise


def _error(difference: FloatArray) -> float:
    return float(difference.std(ddof=1) / np.sqrt(len(difference)))


def _judge(goal: str, margin: float, error: float, missed: list[str], noise: list[str]) -> None:
    if margin >= 0:
        return
    (noise if -margin <= 2 * error else missed).append(f"{goal} by {-margin:.3f}, 2 SE {2 * error:.3f}")


def cell_line(spec: CrowdSpec, cell: dict[str, Any]) -> tuple[str, str]:
    """The cell's printed line and its verdict: "met", "noise" or "missed"."""
    accuracies = {name: float(np.concatenate(values).mean()) for name, values in cell["right"].items()}
    figures = " ".join(f"{name}={value:.3f}" for name, value in accuracies.items())
    for name, scored in cell["crowdkit"].items():
        ours = name.removeprefix("crowdkit_")
        theirs = np.mean([value[0].mean() for value in scored.values()])
        same = np.mean([cell["right"][ours][position].mean() for position in scored])
        figures += f" {name}={theirs:.3f}"
        if len(scored) < len(cell["seeds"]):  # not yet fitted on every seed
            fitted = ",".join(str(cell["seeds"][position]) for position in scored)
            figures += f" (seeds {fitted}; {ours} there {same:.3f})"
    missed, noise = cell_goals(spec, cell)
    if missed:
        verdict, text = "missed", "MISSED (" + "; ".join(missed + noise) + ")"
    elif noise:
        verdict, text = "noise", "met within noise (" + "; ".join(noise) + ")"
    else:
        verdict, text = "met", "met"
    return f"crowd grid {spec.describe()} {figures} goal: {text}", verdict


def seeds_option(options: list[str]) -> range:
    """The seeds of ``--seeds=FIRST-LAST`` (both included), else the grid's own."""
    for option in options:
        if option.startswith("--seeds="):
            first, _, last = option.removeprefix("--seeds=").partition("-")
            if not (first.isdigit() and last.isdigit() and int(first) <= int(last)):
                raise SystemExit(f"--seeds takes FIRST-LAST, e.g. --seeds=10-19, not {option!r}")
            return range(int(first), int(last) + 1)
    return SEEDS


def main(options: list[str] | None = None) -> None:
    """``--fit-crowdkit``: fit crowd-kit on the crowds it has no cached figures for, and cache them;
    ``--seeds=FIRST-LAST``: judge those seeds instead of the grid's own."""
    fit_crowdkit = "--fit-crowdkit" in (options or [])
    seeds = seeds_option(options or [])
    crowdkit = crowdkit_fitters()
    if crowdkit is None:
        print(
            "crowd grid crowd-kit: not installed (pip install -r requirements-dev.txt); majority goals only"
        )
    started = time.perf_counter()
    print(
        f"crowd grid: {len(seeds)} seeds ({seeds.start}–{seeds.stop - 1}) × {ITEMS} items per cell; "
        "mean accuracy per model",
        flush=True,
    )
    ece, verdicts = judge_grid(crowdkit, fit_crowdkit, seeds)
    for name, values in ece.items():
        print(f"crowd grid calibration {name}: mean ECE={np.mean(values):.3f}", flush=True)
    cells = len(SKEWS) * len(WORKERS_PER_ITEM) * len(SPAM_SHARES)
    print(
        f"crowd grid: {verdicts['met']}/{cells} cells meet every goal, {verdicts['noise']} more within "
        f"two standard errors, {verdicts['missed']} missed ({time.perf_counter() - started:.0f} s)",
        flush=True,
    )


def judge_grid(
    crowdkit: dict[str, Fitter] | None, fit_crowdkit: bool, seeds: range
) -> tuple[dict[str, list[float]], dict[str, int]]:
    """Every cell scored and printed as it is judged: (each model's ECE values, the verdicts' counts)."""
    models: list[LabelModel] = [MajorityVote(), DawidSkene(), MACE()]
    cache = load_cache()
    ece: dict[str, list[float]] = {}
    verdicts: dict[str, int] = {"met": 0, "noise": 0, "missed": 0}
    for skew in SKEWS:
        for per_item in WORKERS_PER_ITEM:
            for spam in SPAM_SHARES:
                spec = CrowdSpec(skew, per_item, spam)
                cell = score_cell(spec, models, crowdkit, cache, fit_crowdkit, seeds)
                for name, values in cell["ece"].items():
                    ece.setdefault(name, []).extend(values)
                for name, scored in cell["crowdkit"].items():
                    ece.setdefault(name, []).extend(value[1] for value in scored.values())
                line, verdict = cell_line(spec, cell)
                verdicts[verdict] += 1
                print(line, flush=True)
        if crowdkit is not None and fit_crowdkit:
            save_cache(cache)  # after each skew: an interrupted run keeps what it fitted
    return ece, verdicts


if __name__ == "__main__":
    main()
