"""Simulated machine annotators beside a simulated crowd: does the routing's bound hold? (issue 46)

200 seeds of a 5,000-item stance task (three labels, skewed, five answers per item from a crowd with
spammers and biased workers: the crowd's own decision is wrong on about one item in twenty). Four
simulated machines (good, mediocre, overconfident, chance-level) route their items against the crowd's
decision on a random calibration sample of ``CALIBRATION_ITEMS``. Goals, at δ = 0.05 for ε = 0.05 and
0.10: the realised error of machine-accepted items against the crowd's decision is ≤ ε in at least 95%
of seeds; the chance-level machine has nothing accepted. The crowd money saved is reported per machine.
Seed 0 is also written as CSV (``--csv=DIR`` keeps it) and `replay_labels --machine-scores` run on it
must give the same figures.
"""

from __future__ import annotations

import tempfile
import time
from decimal import Decimal
from pathlib import Path

import numpy as np
import pandas as pd

from aggregation.adaptive import FIXED, AdaptivePolicy
from aggregation.machines.checking import RoutingCheck, check_routing, read_machine_scores
from aggregation.machines.simulated import MACHINES, MachineSpec, simulate_machine
from aggregation.replaying import Arrivals, read_arrivals, read_gold, replay
from aggregation.simulated_crowds import Crowd, CrowdSpec, simulate_crowd
from bench.adaptive import write_csv

SEEDS = 200
LABELS = ("support", "undermine", "not_valid")
SPEC = CrowdSpec(majority_share=0.5, per_item=5, n_labels=3, spam_share=0.1, items=5000, pool=30)
TARGETS = (0.05, 0.10)
DELTA = 0.05
CALIBRATION_ITEMS = 1000
CROWD_PER_ITEM = Decimal("0.25")  # five labels at 0.05 USD
MACHINE_PER_ITEM = Decimal("0.002")  # about what a hosted model's reply to one item costs


HARD_AGREEMENT = 0.4  # ρ at or below which the crowd is split: nine in ten of its mistakes are there


def crowd_table(arrivals: Arrivals) -> pd.DataFrame:
    """The crowd's decision of each item: Dawid–Skene over every item's five answers, as
    `replay_labels --policy fixed --max-workers 5` decides, indexed by item."""
    played = replay(arrivals, LABELS, FIXED, AdaptivePolicy(2, SPEC.per_item, 0.95))
    return played.table.set_index("item")


def in_memory(crowd: Crowd) -> Arrivals:
    n = len(crowd.truth)
    return Arrivals(
        [f"i{i}" for i in range(n)], crowd.answer_workers, crowd.answer_labels, np.full(n, SPEC.per_item)
    )


def machines_of(crowd: Crowd, table: pd.DataFrame, seed: int) -> dict[str, pd.DataFrame]:
    """Each simulated machine's ``item,label,score`` rows, hard where the crowd is split."""
    hard = table["agreement"].to_numpy() <= HARD_AGREEMENT
    frames = {}
    for spec in MACHINES:
        machine = simulate_machine(spec, crowd.truth, len(LABELS), seed, hard)
        frames[spec.name] = pd.DataFrame(
            {
                "item": [f"i{i}" for i in range(len(machine.labels))],
                "label": np.asarray(LABELS, dtype=object)[machine.labels],
                "score": machine.scores,
            }
        )
    return frames


def gold_of(crowd: Crowd) -> dict[str, str]:
    return {f"i{i}": LABELS[label] for i, label in enumerate(crowd.truth.tolist())}


def seed_crowd(seed: int) -> tuple[Crowd, pd.DataFrame]:
    crowd = simulate_crowd(CrowdSpec(**{**SPEC.__dict__, "seed": seed}))
    return crowd, crowd_table(in_memory(crowd))


def one_seed(seed: int) -> dict[tuple[str, float], RoutingCheck]:
    crowd, table = seed_crowd(seed)
    checks = {}
    for name, frame in machines_of(crowd, table, seed).items():
        for target in TARGETS:
            plan = (target, DELTA, CALIBRATION_ITEMS)
            checks[name, target] = check_routing(table["label"], frame, plan, seed=seed, gold=gold_of(crowd))
    return checks


def saved(check: RoutingCheck) -> Decimal:
    """The crowd money the accepted items did not cost, less the machine's cost on every item."""
    items = check.others + check.routing.calibration_items
    return check.accepted * CROWD_PER_ITEM - items * MACHINE_PER_ITEM


def summarise(spec: MachineSpec, target: float, checks: list[RoutingCheck]) -> str:
    held = [not c.accepted or c.realised_error <= target for c in checks]
    shares = [c.accepted / c.others for c in checks]
    none = sum(c.routing.threshold is None for c in checks)
    gold = [c.error_against_gold for c in checks if c.accepted]
    goal = np.mean(held) >= 0.95 and (not spec.chance_level or none == len(checks))
    return (
        f"machines {spec.name:<13} eps={target:.2f}: "
        f"bound held in {np.mean(held):.1%} of {len(checks)} seeds; "
        f"accepted {np.mean(shares):.1%} of items (nothing in {none} seeds); "
        f"error vs truth {np.mean(gold) if gold else float('nan'):.4f}; "
        f"ECE {np.mean([c.calibration.ece for c in checks]):.4f}; "
        f"saved {sum(map(saved, checks)) / len(checks):.2f} USD per 5,000 items; "
        f"goal: >= 95% of seeds{', nothing accepted' if spec.chance_level else ''}: "
        f"{'met' if goal else 'MISSED'}"
    )


def write_seed(seed: int, folder: Path) -> dict[str, Path]:
    """Seed ``seed`` as `replay_labels` reads it: labels.csv, gold.csv and one machine_<name>.csv each."""
    crowd, table = seed_crowd(seed)
    labels, gold = write_csv(crowd, folder, LABELS)
    files = {"labels": labels, "gold": gold}
    for name, frame in machines_of(crowd, table, seed).items():
        files[name] = folder / f"machine_{name}.csv"
        frame.to_csv(files[name], index=False, float_format="%.17g")
    return files


def replay_from_csv(folder: Path, figures: dict[tuple[str, float], RoutingCheck]) -> None:
    """What `replay_labels --machine-scores` computes from seed 0's CSVs, beside the figures above."""
    files = write_seed(0, folder)
    decided = crowd_table(read_arrivals(files["labels"], LABELS))["label"]
    gold = read_gold(files["gold"])
    for (name, target), check in figures.items():
        machine = read_machine_scores(files[name], LABELS)
        again = check_routing(decided, machine, (target, DELTA, CALIBRATION_ITEMS), seed=0, gold=gold)
        same = again.routing == check.routing and again.describe() == check.describe()
        print(
            f"machines replay_labels from CSV {name} eps={target:.2f}: {again.describe()} "
            f"(same as seed 0: {'yes' if same else 'NO'})",
            flush=True,
        )
    print(
        f"machines: seed 0 in {folder}: manage.py replay_labels labels.csv --labels {','.join(LABELS)} "
        f"--policy fixed --max-workers {SPEC.per_item} --gold gold.csv --machine-scores machine_good.csv "
        f"--target-error 0.05 --confidence 0.95 --calibration-items {CALIBRATION_ITEMS} --seed 0",
        flush=True,
    )


def main(options: list[str] | None = None) -> None:
    started = time.perf_counter()
    kept = next((o.split("=", 1)[1] for o in options or [] if o.startswith("--csv=")), None)
    runs = [one_seed(seed) for seed in range(SEEDS)]
    for spec in MACHINES:
        for target in TARGETS:
            print(summarise(spec, target, [run[spec.name, target] for run in runs]), flush=True)
    if kept:
        Path(kept).mkdir(parents=True, exist_ok=True)
        replay_from_csv(Path(kept), runs[0])
    else:
        with tempfile.TemporaryDirectory() as folder:
            replay_from_csv(Path(folder), runs[0])
    print(f"machines: done in {time.perf_counter() - started:.0f} s", flush=True)


if __name__ == "__main__":
    main()
