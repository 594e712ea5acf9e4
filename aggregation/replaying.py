"""Replaying labels collected elsewhere under a redundancy policy (`manage.py replay_labels`).

The input is long format, ``item,worker,label[,time]``; answers arrive in ``time`` order, or else in
file order. The policy sees an item's next answer only when it asks for one, so a replay tells what
the labels would have cost, and decided, had the job run adaptive. Pure module: no Django.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pandas as pd

from aggregation.adaptive import ADAPTIVE, FIXED, AdaptivePolicy, fixed_rounds, run_rounds
from aggregation.label_files import check_lines, kept_rows, quoted
from aggregation.label_models import IntArray
from aggregation.labels import NO_MAJORITY_LABEL, LabelSet
from aggregation.policy import LABEL_MODELS
from aggregation.responses import Responses
from aggregation.rules import AgreementRule
from aggregation.streaming import OUTPUT, CodedLabels, LabelFileError, aggregate_labels, labels_rule

REPLAY_OUTPUT = [*OUTPUT, "labels_used"]


@dataclass(frozen=True)
class Arrivals:
    """Each item's answers in arrival order: (items × most answers) workers and label codes."""

    item_names: list[str]
    workers: IntArray
    labels: IntArray
    available: IntArray  # answers per item

    def responses(self, used: npt.NDArray[np.bool_], label_names: Sequence[str]) -> Responses:
        items, slots = np.nonzero(used)
        label_set = LabelSet("labels", tuple(label_names))
        return Responses.from_codes(
            items, self.workers[items, slots], self.labels[items, slots], label_set, require_overlap=False
        )

    def coded(self, used: npt.NDArray[np.bool_]) -> CodedLabels:
        items, slots = np.nonzero(used)
        return CodedLabels(
            self.item_names,
            items.astype(np.int32),
            self.workers[items, slots].astype(np.int32),
            self.labels[items, slots].astype(np.int8),
        )


def read_arrivals(path: Path | str, labels: Sequence[str], duplicates: str = "refuse") -> Arrivals:
    """Read ``item,worker,label[,time]``; every label must be one of ``labels``, each (worker, item)
    pair labelled once unless `duplicates` keeps the "first" or "last" (aggregation.label_files)."""
    frame = _read_rows(path)
    codes = pd.Categorical(frame["label"], categories=list(labels)).codes
    if (codes < 0).any():
        line = int(np.argmax(codes < 0)) + 2
        raise LabelFileError(
            f"line {line}: label {quoted(frame['label'].iloc[line - 2])} not among {list(labels)}"
        )
    items, item_names = pd.factorize(frame["item"])
    workers, _ = pd.factorize(frame["worker"])
    kept = kept_rows(items, workers, duplicates)
    if kept is not None:
        frame, codes, items, workers = (
            frame[kept].reset_index(drop=True),
            codes[kept],
            items[kept],
            workers[kept],
        )
    order = _arrival_order(frame)
    items, workers, codes = items[order], workers[order], codes[order].astype(np.intp)
    slot = pd.Series(items).groupby(items).cumcount().to_numpy()
    available = np.bincount(items, minlength=len(item_names))
    shape = (len(item_names), int(available.max()))
    answer_workers, answer_labels = np.zeros(shape, dtype=np.intp), np.zeros(shape, dtype=np.intp)
    answer_workers[items, slot], answer_labels[items, slot] = workers, codes
    return Arrivals(
        [str(name) for name in item_names], answer_workers, answer_labels, available.astype(np.intp)
    )


def _read_rows(path: Path | str) -> pd.DataFrame:
    """The file's rows as text, once its lines pass `check_lines` and its header is the expected one."""
    check_lines(path)
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    except pd.errors.EmptyDataError:
        raise LabelFileError(f"{path} has no rows") from None
    except (pd.errors.ParserError, UnicodeDecodeError) as error:
        raise LabelFileError(f"{path}: {error}") from None
    columns = list(frame.columns)
    if columns not in (["item", "worker", "label"], ["item", "worker", "label", "time"]):
        raise LabelFileError(f"the header must be item,worker,label[,time], not {','.join(columns)}")
    if frame.empty:
        raise LabelFileError(f"{path} has no rows")
    return frame


def _arrival_order(frame: pd.DataFrame) -> IntArray:
    """Row order by ``time`` (numbers, else timestamps), ties and no time column in file order."""
    if "time" not in frame.columns:
        return np.arange(len(frame), dtype=np.intp)
    times = pd.to_numeric(frame["time"], errors="coerce")
    if times.isna().any():
        times = pd.to_datetime(frame["time"], errors="coerce", utc=True)
    if times.isna().any():
        line = int(np.argmax(times.isna().to_numpy())) + 2
        raise LabelFileError(
            f"line {line}: time {frame['time'].iloc[line - 2]!r} is neither a number nor a date"
        )
    return np.argsort(times.to_numpy(), kind="stable").astype(np.intp)


@dataclass(frozen=True)
class ReplayResult:
    table: pd.DataFrame  # aggregate_labels' columns plus labels_used
    labels_used: int
    rounds: int


def replay(
    arrivals: Arrivals,
    labels: Sequence[str],
    policy: str,
    adaptive: AdaptivePolicy,
    *,
    label_model: str = "dawid_skene",
    decision: str = "model",
) -> ReplayResult:
    """Replay ``policy`` ("adaptive", or "fixed": the first ``max_workers`` answers of each item)."""
    if label_model not in LABEL_MODELS:
        raise LabelFileError(f"unknown label model {label_model!r}; known: {sorted(LABEL_MODELS)}")
    if policy == FIXED:
        used, rounds = fixed_rounds(arrivals.available, adaptive.max_workers), 1
    elif policy == ADAPTIVE:
        rule: AgreementRule | None = labels_rule(labels, decision) if decision == "rule" else None
        played = run_rounds(
            arrivals.available,
            lambda mask: arrivals.responses(mask, labels),
            LABEL_MODELS[label_model](),
            adaptive,
            rule,
        )
        used, rounds = played.used, played.rounds
    else:
        raise LabelFileError(f"policy must be {FIXED} or {ADAPTIVE}, not {policy!r}")
    table = aggregate_labels(
        arrivals.coded(used), labels, label_model=label_model, decision=decision, require_overlap=False
    )
    per_item = pd.Series(used.sum(axis=1), index=arrivals.item_names)
    table["labels_used"] = per_item.loc[table["item"]].to_numpy()
    return ReplayResult(table, int(used.sum()), rounds)


def read_gold(path: Path | str) -> dict[str, str]:
    """``item,label`` rows: each item's true label."""
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (pd.errors.EmptyDataError, pd.errors.ParserError, UnicodeDecodeError) as error:
        raise LabelFileError(f"{path}: {error}") from None
    if list(frame.columns) != ["item", "label"]:
        raise LabelFileError(f"the gold file's header must be item,label, not {','.join(frame.columns)}")
    return dict(zip(frame["item"], frame["label"], strict=True))


def gold_accuracy(table: pd.DataFrame, gold: dict[str, str]) -> tuple[float, int]:
    """Share of gold items whose written label is right (an undecided one counts half) and how many."""
    judged = table[table["item"].isin(list(gold))]
    if judged.empty:
        return float("nan"), 0
    truth = judged["item"].map(gold)
    undecided = judged["label"] == NO_MAJORITY_LABEL
    right = np.where(undecided, 0.5, (judged["label"] == truth).astype(float))
    return float(np.mean(right)), len(judged)
