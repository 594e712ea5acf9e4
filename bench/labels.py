"""10M labels: `aggregate_labels` over 1M items × 10 simulated workers (3 labels), in its own process,
reading the CSV in chunks; then `aggregate_job` over a job of 1M items × 10 simulated workers (the
5-point stance scale) written into PostgreSQL with COPY (bench._labels_db). Prints the stage times, the
whole command's wall time and its peak memory, with the goals (ρ + majority ≤ 10 s, Dawid–Skene ≤ 60 s,
peak memory ≤ 4 GB). The database figures need PostgreSQL (found as bench/load.py finds it)."""

from __future__ import annotations

import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from django.conf import settings

from bench import load
from bench.rigs.databases import scratch_database
from bench.rigs.processes import ProcessGroup

ITEMS, PER_ITEM, WORKERS = 1_000_000, 10, 2000
GOALS = {"majority_vote": 10.0, "dawid_skene": 60.0}
MEMORY_GOAL_GB = 4.0


def write_labels(path: Path) -> np.ndarray:
    rng = np.random.default_rng(7)
    truth = rng.integers(0, 3, ITEMS)
    accuracy = rng.uniform(0.6, 0.95, WORKERS)
    items = np.repeat(np.arange(ITEMS), PER_ITEM)
    workers = (
        np.repeat(rng.integers(0, WORKERS, ITEMS), PER_ITEM) + np.tile(np.arange(PER_ITEM), ITEMS)
    ) % WORKERS
    wrong = (truth[items] + rng.integers(1, 3, len(items))) % 3
    labels = np.where(rng.random(len(items)) < accuracy[workers], truth[items], wrong)
    frame = pd.DataFrame({"item": items, "worker": workers, "label": np.array(["a", "b", "c"])[labels]})
    frame.to_csv(path, index=False)
    return truth


def run(model: str, source: Path, out: Path, truth: np.ndarray) -> None:
    command = [sys.executable, "manage.py", "aggregate_labels", str(source), "--labels", "a,b,c",
               "--label-model", model, "--out", str(out)]  # fmt: skip
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    done = subprocess.run(command, cwd=settings.BASE_DIR, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - started
    peak_gb = max(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, before) / 1024**2
    read = float(re.search(r"read the labels: \d+ rows in ([\d.]+) s", done.stderr).group(1))  # type: ignore[union-attr]
    decide = float(re.search(r"decide by the rule: \d+ items in ([\d.]+) s", done.stderr).group(1))  # type: ignore[union-attr]
    table = pd.read_csv(out, usecols=["item", "model_label"], dtype={"item": np.int64, "model_label": str})
    codes = table["model_label"].map({"a": 0, "b": 1, "c": 2}).to_numpy()
    accuracy = float(np.mean(codes == truth[table["item"].to_numpy()]))
    goal = GOALS[model]
    met = read + decide <= goal and peak_gb <= MEMORY_GOAL_GB
    print(
        f"labels 10M {model}: read_s={read:.1f} decide_s={decide:.1f} wall_s={wall:.1f} "
        f"peak_gb={peak_gb:.2f} accuracy={accuracy:.3f} "
        f"goal: read+decide <= {goal:g} s, peak <= {MEMORY_GOAL_GB:g} GB: {'met' if met else 'MISSED'}",
        flush=True,
    )


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        source, out = Path(tmp) / "labels.csv", Path(tmp) / "out.csv"
        started = time.perf_counter()
        truth = write_labels(source)
        print(
            f"labels 10M: wrote {ITEMS * PER_ITEM} rows in {time.perf_counter() - started:.1f} s", flush=True
        )
        for model in ("majority_vote", "dawid_skene"):
            run(model, source, out, truth)

    database_figures()


DB_ITEMS = 1_000_000
STAGES = {
    "read": r"read the responses: \d+ responses in ([\d.]+) s",
    "fit": r"fit \w+: (?:done|\d+ iterations) in ([\d.]+) s",
    "write": r"write the outcomes and the corpus: \d+ items in ([\d.]+) s",
}


def database_figures(items: int = DB_ITEMS) -> None:
    database_url, redis_url = load.service_urls()
    if problem := load.unreachable(database_url, redis_url):
        print(f"labels in the database: not run: needs PostgreSQL ({problem})", flush=True)
        return
    with tempfile.TemporaryDirectory() as tmp, scratch_database("labels", database_url) as scratch:
        env = load.app_environment(Path(tmp), scratch, "")
        group = ProcessGroup(Path(tmp), Path(settings.BASE_DIR))
        group.run("migrate", [sys.executable, "manage.py", "migrate", "--noinput", "-v0"], env, timeout=300)
        started = time.perf_counter()
        job = group.run(
            "seed", [sys.executable, "-m", "bench._labels_db", str(items)], env, timeout=3600
        ).strip()
        print(f"labels in the database: wrote {items * 10} responses with COPY in "
              f"{time.perf_counter() - started:.0f} s", flush=True)  # fmt: skip
        for model in ("majority_vote", "dawid_skene"):
            print(aggregate_job_figure(job, model, env, items), flush=True)


def aggregate_job_figure(job: str, model: str, env: dict[str, str], items: int) -> str:
    command = [sys.executable, "-m", "bench._peak", "aggregate_job", job, "--label-model", model]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=settings.BASE_DIR, env=env, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - started
    stages = {name: float(_found(pattern, done.stderr)) for name, pattern in STAGES.items()}
    # Start-up, worker quality and the commit (where PostgreSQL checks the new rows' foreign keys).
    stages["other"] = max(0.0, wall - sum(stages.values()))
    peak_gb = int(_found(r"peak_rss_kb=(\d+)", done.stderr)) / 1024**2
    goal = GOALS[model]
    slowest = max(stages, key=lambda name: stages[name])
    missed = [f"wall over by {wall - goal:.0f} s, most of it in {slowest}"] if wall > goal else []
    missed += [f"peak over by {peak_gb - MEMORY_GOAL_GB:.1f} GB"] if peak_gb > MEMORY_GOAL_GB else []
    return (
        f"labels aggregate_job {items * 10 // 1_000_000}M {model}: "
        + " ".join(f"{name}_s={value:.1f}" for name, value in stages.items())
        + f" wall_s={wall:.1f} peak_gb={peak_gb:.2f} "
        + f"goal: wall <= {goal:g} s, peak <= {MEMORY_GOAL_GB:g} GB: "
        + ("met" if not missed else f"MISSED ({'; '.join(missed)})")
    )


def _found(pattern: str, text: str) -> str:
    found = re.search(pattern, text)
    if found is None:
        raise RuntimeError(f"no {pattern!r} in the command's output:\n{text[-2000:]}")
    return found.group(1)
