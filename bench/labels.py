"""10M labels: `aggregate_labels` over 1M items × 10 simulated workers (3 labels), in its own process,
reading the CSV in chunks; then `aggregate_job` over a job of 1M items × 10 simulated workers (the
5-point stance scale) written into PostgreSQL with COPY (bench._labels_db). Prints the stage times, the
whole command's wall time and its peak memory, with the goals (ρ + majority ≤ 10 s, Dawid–Skene ≤ 60 s,
peak memory ≤ 4 GB). The database figures need PostgreSQL (found as rigs/serving.py finds it): three runs,
a first (every outcome new), again with nothing new (no outcome written) and Dawid–Skene after it, each
with its stages, its CPU seconds (its own + its PostgreSQL backend's, which other processes sharing the
cores do not inflate as they do wall seconds) and the load average beside them. The three are run
three times over, each time from no outcomes, and every run is printed; each goal is judged on the
median of its three. The seeded database is kept between runs (`--reseed` writes it anew)."""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import psycopg
from django.conf import settings

from bench._labels_db import PER_ITEM as DB_PER_ITEM
from bench._labels_db import job_name
from rigs import serving
from rigs.databases import database_of, recreate_database, with_database
from rigs.processes import ProcessGroup

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
    command = [
        sys.executable,
        "manage.py",
        "aggregate_labels",
        str(source),
        "--labels",
        "a,b,c",
        "--label-model",
        model,
        "--out",
        str(out),
    ]
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


def main(options: list[str] | None = None) -> None:
    """``--reseed``: write the database's labels anew rather than use the kept ones."""
    with tempfile.TemporaryDirectory() as tmp:
        source, out = Path(tmp) / "labels.csv", Path(tmp) / "out.csv"
        started = time.perf_counter()
        truth = write_labels(source)
        print(
            f"labels 10M: wrote {ITEMS * PER_ITEM} rows in {time.perf_counter() - started:.1f} s", flush=True
        )
        for model in ("majority_vote", "dawid_skene"):
            run(model, source, out, truth)

    database_figures(reseed="--reseed" in (options or []))


DB_ITEMS = 1_000_000
# (label model, what the run meets): a first run writes every outcome, a second with nothing new none,
# and Dawid–Skene after majority vote rewrites the rows whose posterior (or label) differs.
RUNS = (
    ("majority_vote", "first run"),
    ("majority_vote", "again, nothing new"),
    ("dawid_skene", "after majority vote"),
)
ROUNDS = 3  # of the three runs, each from no outcomes; the goals are judged on each run's median
STAGES = {
    "read": r"read the responses: \d+ responses in ([\d.]+) s",
    "fit": r"fit \w+: (?:done|\d+ iterations) in ([\d.]+) s",
    "write": r"write the outcomes and the corpus: \d+ items in ([\d.]+) s",
    "quality": r"record worker quality: \d+ workers in ([\d.]+) s",
}


def database_figures(items: int = DB_ITEMS, *, reseed: bool = False) -> None:
    database_url, redis_url = serving.service_urls()
    if problem := serving.unreachable(database_url, redis_url):
        print(f"labels in the database: not run: needs PostgreSQL ({problem})", flush=True)
        return
    kept = with_database(database_url, f"{database_of(database_url)}_labels_{items}")
    with tempfile.TemporaryDirectory() as tmp:
        env = serving.app_environment(Path(tmp), kept, "")
        group = ProcessGroup(Path(tmp), Path(settings.BASE_DIR))
        job = _seeded_job(group, env, kept, items, reseed)
        took: dict[tuple[str, str], list[tuple[float, float]]] = {run: [] for run in RUNS}
        for round_ in range(1, ROUNDS + 1):
            if round_ > 1:  # the kept seed's aggregation state cleared: the first run is one again
                group.run("reset", [sys.executable, "-m", "bench._labels_db", str(items)], env, 600)
            for model, meets in RUNS:
                line, seconds, peak_gb = aggregate_job_figure(job, model, env, items, meets)
                took[model, meets].append((seconds, peak_gb))
                print(f"{line} (round {round_} of {ROUNDS})", flush=True)
        for (model, meets), runs in took.items():
            print(_median_line(model, meets, runs, items), flush=True)


def _median_line(model: str, meets: str, runs: list[tuple[float, float]], items: int) -> str:
    """The goal judged on the median of the rounds' times (one run on two shared cores varies by a
    third), every round's time beside it, and the largest peak."""
    median, peak_gb = float(np.median([seconds for seconds, _ in runs])), max(peak for _, peak in runs)
    each = ", ".join(f"{seconds:.1f}" for seconds, _ in runs)
    return (
        f"{_run_name(model, meets, items)}: median of {len(runs)} "
        f"aggregate_job_s={median:.1f} (rounds: {each}) peak_gb={peak_gb:.2f} "
        + _verdict(GOALS[model], median, peak_gb, {})
    )


def _seeded_job(group: ProcessGroup, env: dict[str, str], kept: str, items: int, reseed: bool) -> str:
    """The job of the database kept between runs (10M rows take minutes to write even by COPY):
    seeded the first time, when its seed is of another version, or with --reseed."""
    started = time.perf_counter()
    if reseed or not _has_seed(kept, items):
        recreate_database(kept)
    group.run("migrate", [sys.executable, "manage.py", "migrate", "--noinput", "-v0"], env, timeout=300)
    job, how = group.run("seed", [sys.executable, "-m", "bench._labels_db", str(items)], env, 3600).split()
    print(
        f"labels in the database: {how} {items * DB_PER_ITEM} responses ({database_of(kept)}, kept for "
        f"the next run; --reseed writes them anew) in {time.perf_counter() - started:.0f} s",
        flush=True,
    )
    return job


def _has_seed(url: str, items: int) -> bool:
    try:
        with psycopg.connect(url) as database:
            found = database.execute("SELECT 1 FROM annotation_job WHERE name = %s", [job_name(items)])
            return found.fetchone() is not None
    except psycopg.Error:  # no such database yet, or no tables
        return False


def aggregate_job_figure(
    job: str, model: str, env: dict[str, str], items: int, meets: str
) -> tuple[str, float, float]:
    """One run's stages, its time without the interpreter's start-up (what the goal is about: on a
    loaded machine importing Django and numpy alone takes seconds), CPU, memory and the load; and
    that time and the peak memory."""
    command = [sys.executable, "-m", "bench._peak", "aggregate_job", job, "--label-model", model]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=settings.BASE_DIR, env=env, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - started
    took = float(_found(r"command_s=([\d.]+)", done.stderr))
    stages = {name: float(_found(pattern, done.stderr)) for name, pattern in STAGES.items()}
    stages["other"] = max(0.0, took - sum(stages.values()))  # the job's lock, the run's rows, the commit
    peak_gb = int(_found(r"peak_rss_kb=(\d+)", done.stderr)) / 1024**2
    own, server = _found(r" cpu_s=([\d.]+)", done.stderr), re.search(r"server_cpu_s=([\d.]+)", done.stderr)
    cpu = f"cpu_s={own}" + (f"+{server.group(1)}(server)" if server else "")
    line = (
        f"{_run_name(model, meets, items)}: "
        + " ".join(f"{name}_s={value:.1f}" for name, value in stages.items())
        + f" aggregate_job_s={took:.1f} wall_s={wall:.1f} {cpu} peak_gb={peak_gb:.2f} "
        + f"load={os.getloadavg()[0]:.1f} "
        + _verdict(GOALS[model], took, peak_gb, stages)
    )
    return line, took, peak_gb


def _run_name(model: str, meets: str, items: int) -> str:
    return f"labels aggregate_job {items * DB_PER_ITEM / 1e6:g}M {model}, {meets}"


def _verdict(goal: float, took: float, peak_gb: float, stages: dict[str, float]) -> str:
    slowest = f", most of it in {max(stages, key=lambda name: stages[name])}" if stages else ""
    missed = [f"over by {took - goal:.0f} s{slowest}"] if took > goal else []
    missed += [f"peak over by {peak_gb - MEMORY_GOAL_GB:.1f} GB"] if peak_gb > MEMORY_GOAL_GB else []
    verdict = "met" if not missed else f"MISSED ({'; '.join(missed)})"
    return f"goal: aggregate_job <= {goal:g} s, peak <= {MEMORY_GOAL_GB:g} GB: {verdict}"


def _found(pattern: str, text: str) -> str:
    found = re.search(pattern, text)
    if found is None:
        raise RuntimeError(f"no {pattern!r} in the command's output:\n{text[-2000:]}")
    return found.group(1)
