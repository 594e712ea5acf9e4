"""Crowd quality acted on while a job runs, against today's fixed gold (issue 47), on a simulated crowd.

A simulated crowd (every worker a model: ``annotation.simulation``) of 40 workers, 20% spammers and
10% adversaries (who answer anything but what they believe), does a stance-like job of 3 labels:
``ITEMS`` items in HITs of ``HIT_ITEMS``, each item done by 3 workers, paid ``REWARD`` a HIT. Workers
arrive one at a time at random and take the next HIT they may. Two ways to run it:

- today: one gold item in every HIT (10% of what is shown), nothing acts while the job runs;
- live: gold from the adaptive schedule (``annotation.quality.gold_schedule``) and, after each
  submit, the worker's estimate (``annotation.quality.estimates``); a worker whose interval lies
  below the bar gets no more work. The estimate compares answers with the label model's current
  decisions where they are stored, the others' majority elsewhere: here the running job is
  aggregated by its label model (Dawid-Skene, the default) each time another ``AGGREGATE_EVERY`` of
  its HITs is done, as a person may aggregate a job while it runs (the decisions are then stored).

Both use the same crowd, arrivals and seed. Accuracy is the majority of each item's answers against
the known label (a tie counts as wrong). Goals, over 20 seeds: money paid to spammers and
adversaries falls by at least 70%, accuracy is at least today's, gold shown is at most half of 10%.
"""

from __future__ import annotations

import random
import statistics
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import numpy as np

from aggregation.dawid_skene import DawidSkene
from aggregation.labels import NO_MAJORITY, LabelSet
from aggregation.responses import Responses
from annotation.quality.estimates import Evidence, agreement, estimate, should_stop
from annotation.quality.gold_schedule import QualityPolicy, gold_count, gold_rate
from annotation.simulation import CrowdParams, WorkerModel, answer, make_crowd

LABELS = ("SUPPORT", "UNDERMINE", "NOT_VALID")
ITEMS, HIT_ITEMS, PER_ITEM, GOLD_POOL = 7200, 9, 3, 800
CROWD = {"size": 40, "spammer_share": 0.2, "adversary_share": 0.1, "accuracy_low": 0.7, "accuracy_high": 0.95}
REWARD = 1.0
SEEDS = range(20)
POLICY = QualityPolicy(gold_schedule="adaptive", stop_workers=True)
# The share of the job's HITs done between two aggregations of the running job.
AGGREGATE_EVERY = 0.1


@dataclass
class Run:
    """What one job of the simulated crowd did."""

    paid_bad: float = 0.0
    paid: float = 0.0
    shown: int = 0
    gold_shown: int = 0
    honest_stopped: int = 0  # honest workers the checks stopped (false stops)
    answers: dict[int, dict[int, str]] = field(
        default_factory=lambda: defaultdict(dict)
    )  # item → worker → label
    decided: dict[int, str] = field(default_factory=dict)  # item → the label model's stored decision


@dataclass
class Seen:
    """One worker's state in the job: items answered, gold, whether they were stopped."""

    gold_answered: int = 0
    gold_correct: int = 0
    items: int = 0
    gold_seen: set[int] = field(default_factory=set)
    answered: list[int] = field(default_factory=list)
    stopped: bool = False


def run_job(crowd: list[WorkerModel], truth: list[str], gold: list[str], seed: int, live: bool) -> Run:
    rng = random.Random(seed)
    hits = [
        list(range(start, min(start + HIT_ITEMS, len(truth)))) for start in range(0, len(truth), HIT_ITEMS)
    ]
    takers: list[set[int]] = [set() for _ in hits]
    seen = [Seen() for _ in crowd]
    run = Run()
    waiting = list(range(len(hits)))
    every, done = max(1, round(AGGREGATE_EVERY * len(hits) * PER_ITEM)), 0
    while waiting:
        active = [w for w in range(len(crowd)) if not seen[w].stopped]
        if not active:
            break
        worker = rng.choice(active)
        hit = next((h for h in waiting if worker not in takers[h]), None)
        if hit is None:
            seen[worker].stopped = True  # nothing left for them; not a stop for quality
            continue
        takers[hit].add(worker)
        if len(takers[hit]) == PER_ITEM:
            waiting.remove(hit)
        _do_hit(run, crowd, seen, worker, hits[hit], truth, gold, rng, live)
        done += 1
        if live and done % every == 0:
            run.decided = label_model_decisions(run)
    return run


def label_model_decisions(run: Run) -> dict[int, str]:
    """What an aggregation of the running job stores: the label model's decision on each item answered."""
    rows = [(item, worker, label) for item, by in run.answers.items() for worker, label in by.items()]
    items, workers, labels = zip(*rows, strict=True)
    codes = np.array([LABELS.index(label) for label in labels])
    label_set = LabelSet("bench", LABELS)
    fitted = DawidSkene().fit(Responses.from_codes(items, workers, codes, label_set, require_overlap=False))
    return {
        int(item): LABELS[code]
        for item, code in zip(fitted.items.tolist(), fitted.labels.tolist(), strict=True)
        if code != NO_MAJORITY
    }


def _do_hit(
    run: Run,
    crowd: list[WorkerModel],
    seen: list[Seen],
    worker: int,
    items: list[int],
    truth: list[str],
    gold: list[str],
    rng: random.Random,
    live: bool,
) -> None:
    state, model = seen[worker], crowd[worker]
    rate = gold_rate(POLICY, state.gold_correct, state.gold_answered, state.items) if live else None
    how_many = gold_count(rate, len(items), rng) if rate is not None else 1
    fresh = [g for g in range(len(gold)) if g not in state.gold_seen]
    for g in rng.sample(fresh, min(how_many, len(fresh))):
        state.gold_seen.add(g)
        state.gold_answered += 1
        state.gold_correct += answer(model, gold[g], LABELS, rng) == gold[g]
        run.gold_shown += 1
    for item in items:
        run.answers[item][worker] = answer(model, truth[item], LABELS, rng)
    state.answered.extend(items)
    state.items += len(items) + how_many
    run.shown += len(items) + how_many
    run.paid += REWARD
    if model.spammer or model.adversary:
        run.paid_bad += REWARD
    if live and should_stop(estimate(_evidence(run, worker, state), POLICY.quality_confidence), POLICY):
        state.stopped = True
        run.honest_stopped += not (model.spammer or model.adversary)


def _evidence(run: Run, worker: int, state: Seen) -> Evidence:
    mine = {item: run.answers[item][worker] for item in state.answered}
    others = {item: [label for w, label in run.answers[item].items() if w != worker] for item in mine}
    compared, agreed = agreement(mine, others, run.decided)
    return Evidence(state.gold_answered, state.gold_correct, compared, agreed)


def majority_accuracy(run: Run, truth: list[str]) -> float:
    right = 0
    for item, label in enumerate(truth):
        counts = Counter(run.answers[item].values()).most_common(2)
        tie = len(counts) == 2 and counts[0][1] == counts[1][1]
        right += bool(counts) and not tie and counts[0][0] == label
    return right / len(truth)


def one_seed(seed: int) -> tuple[Run, Run, list[str]]:
    crowd = make_crowd(CrowdParams.from_mapping({**CROWD, "seed": seed}), LABELS)
    rng = random.Random(f"truth-{seed}")
    truth = [rng.choice(LABELS) for _ in range(ITEMS)]
    gold = [rng.choice(LABELS) for _ in range(GOLD_POOL)]
    return run_job(crowd, truth, gold, seed, live=False), run_job(crowd, truth, gold, seed, live=True), truth


def main() -> None:
    started = time.perf_counter()
    falls, gains, shares, today_shares, false_stops = [], [], [], [], 0
    for seed in SEEDS:
        today, live, truth = one_seed(seed)
        fall = 1 - live.paid_bad / today.paid_bad if today.paid_bad else 0.0
        falls.append(fall)
        shares.append(live.gold_shown / live.shown)
        today_shares.append(today.gold_shown / today.shown)
        accuracies = majority_accuracy(today, truth), majority_accuracy(live, truth)
        print(
            f"crowd_quality (simulated crowd) seed={seed}: paid to spammers+adversaries "
            f"today={today.paid_bad:.0f} live={live.paid_bad:.0f} (fall {fall:.0%}); "
            f"accuracy today={accuracies[0]:.4f} live={accuracies[1]:.4f}; "
            f"gold shown today={today_shares[-1]:.1%} live={shares[-1]:.1%}",
            flush=True,
        )
        gains.append(accuracies[1] - accuracies[0])
        false_stops += live.honest_stopped
    met_money, met_accuracy, met_gold = min(falls) >= 0.7, min(gains) >= 0, max(shares) <= 0.05
    print(
        f"crowd_quality (simulated crowd) over {len(falls)} seeds: money to spammers+adversaries falls "
        f"min={min(falls):.0%} mean={statistics.mean(falls):.0%} (goal >= 70%: {_verdict(met_money)}); "
        f"accuracy live-today min={min(gains):+.4f} mean={statistics.mean(gains):+.4f} "
        f"(goal >= 0: {_verdict(met_accuracy)}); gold shown live max={max(shares):.2%} "
        f"mean={statistics.mean(shares):.2%} vs today {statistics.mean(today_shares):.1%} "
        f"(goal <= 5%: {_verdict(met_gold)}); honest workers stopped: {false_stops} of "
        f"{len(falls) * round(CROWD['size'] * 0.7)}",
        flush=True,
    )
    print(f"crowd_quality: done in {time.perf_counter() - started:.0f} s", flush=True)


def _verdict(met: bool) -> str:
    return "met" if met else "MISSED"


if __name__ == "__main__":
    main()
