"""The local machine annotator on PERSPECTRUM's release (issue 46): trained on the train and dev
splits, it labels the test split, for stance and for paraphrase verification; routing at ε = 0.05 and
0.10 (δ = 0.05) reports the share accepted and its realised error against the release's labels.

Stance: (claim, perspective) → the cluster's SUPPORT / UNDERMINE. Paraphrase: two perspectives of one
cluster (same) or of two clusters of the same claim (different). Features: the packaged MiniLM when the
dense extra is installed, else TF-IDF (the line says which). The release's labels stand in for people's
decisions; each routing is drawn over ``SAMPLES`` random calibration samples of ``CALIBRATION_ITEMS``.
"""

from __future__ import annotations

import itertools
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from django.conf import settings

from aggregation.calibration import calibration_error
from aggregation.machines.calibrating import calibrate
from aggregation.machines.checking import check_routing
from aggregation.machines.local import Example, LocalClassifier, cross_validated, dense_encoder
from corpus.perspectrum import read_release

TARGETS = (0.05, 0.10)
DELTA = 0.05
CALIBRATION_ITEMS = 500
SAMPLES = 20
Task = tuple[list[Example], list[str], list[str], list[int]]  # examples, labels, split and claim of each


def load(folder: Path) -> tuple[list[dict[str, Any]], dict[int, str], dict[str, str]]:
    """The release's claims, its perspective texts by id and its split, as the importer reads them."""
    release = read_release(folder)
    return release.claims, {p["pId"]: p["text"] for p in release.pool}, release.split


def stance_task(claims: list[dict[str, Any]], pool: dict[int, str], split: dict[str, str]) -> Task:
    rows = [
        ((claim["text"], pool[pid]), cluster["stance_label_3"], split[str(claim["cId"])], claim["cId"])
        for claim in claims
        for cluster in claim["perspectives"]
        for pid in cluster["pids"]
    ]
    examples, labels, splits, groups = zip(*rows, strict=True)
    return list(examples), list(labels), list(splits), list(groups)


def paraphrase_task(claims: list[dict[str, Any]], pool: dict[int, str], split: dict[str, str]) -> Task:
    rows = []
    for claim in claims:
        where, group = split[str(claim["cId"])], claim["cId"]
        clusters = [cluster["pids"] for cluster in claim["perspectives"]]
        for pids in clusters:
            rows += [((pool[a], pool[b]), "same", where, group) for a, b in itertools.combinations(pids, 2)]
        for first, second in itertools.combinations(clusters, 2):
            rows.append(((pool[first[0]], pool[second[0]]), "different", where, group))
    examples, labels, splits, groups = zip(*rows, strict=True)
    return list(examples), list(labels), list(splits), list(groups)


def evaluate(name: str, task: Task) -> None:
    examples, labels, splits, groups = task
    names = tuple(sorted(set(labels)))
    train = [i for i, s in enumerate(splits) if s in ("train", "dev")]
    test = [i for i, s in enumerate(splits) if s == "test"]
    model = LocalClassifier(names, dense_encoder()).fit(
        [examples[i] for i in train], [labels[i] for i in train]
    )
    codes, scores, unseen = model.label([examples[i] for i in test])
    truth = np.array([labels[i] for i in test], dtype=object)
    predicted = np.array(names, dtype=object)[np.where(unseen, codes, 0)]
    majority = pd.Series(truth).value_counts(normalize=True).iloc[0]
    kept = unseen.nonzero()[0]
    accuracy = float(np.mean(predicted[kept] == truth[kept]))
    cv_codes, cv_scores = cross_validated(
        [examples[i] for i in train], [labels[i] for i in train], names, [groups[i] for i in train]
    )
    cv_right = cv_codes == np.array([names.index(labels[i]) for i in train])
    print(
        f"machines_perspectrum {name} features={model.features}: train+dev={len(train)} test={len(test)} "
        f"(labelled {len(kept)}; {len(test) - len(kept)} seen in training, left to people) "
        f"test accuracy={accuracy:.4f} majority={majority:.4f}; 5-fold CV by claim on train+dev accuracy="
        f"{cv_right.mean():.4f} ECE of its scores={calibration_error(cv_scores, cv_right):.4f}, "
        f"calibrated (cross-fitted)={calibrate(cv_scores, cv_right).ece:.4f}",
        flush=True,
    )
    machine = pd.DataFrame({"item": [f"t{i}" for i in kept], "label": predicted[kept], "score": scores[kept]})
    decided = pd.Series(truth[kept], index=machine["item"])
    for target in TARGETS:
        route(name, target, machine, decided)


def route(name: str, target: float, machine: pd.DataFrame, decided: pd.Series) -> None:
    checks = [
        check_routing(decided, machine, (target, DELTA, CALIBRATION_ITEMS), seed=seed)
        for seed in range(SAMPLES)
    ]
    accepted = [c for c in checks if c.accepted]
    held = sum(c.realised_error <= target for c in accepted) + len(checks) - len(accepted)
    share = np.mean([c.accepted / c.others for c in checks])
    error = np.mean([c.realised_error for c in accepted]) if accepted else float("nan")
    print(
        f"machines_perspectrum {name} eps={target:.2f}: accepted {share:.1%} of the other test items "
        f"(nothing in {len(checks) - len(accepted)} of {len(checks)} samples); realised error {error:.4f}; "
        f"bound held in {held} of {len(checks)}; "
        f"ECE (cross-fitted) {np.mean([c.calibration.ece for c in checks]):.4f}",
        flush=True,
    )
    if not accepted:
        print(f"machines_perspectrum {name} eps={target:.2f}: {checks[0].routing.reason}", flush=True)


def main() -> None:
    started = time.perf_counter()
    claims, pool, split = load(Path(settings.PERSPECTRUM_DIR))
    evaluate("stance", stance_task(claims, pool, split))
    evaluate("paraphrase", paraphrase_task(claims, pool, split))
    print(f"machines_perspectrum: done in {time.perf_counter() - started:.0f} s", flush=True)


if __name__ == "__main__":
    main()
