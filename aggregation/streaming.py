"""Labels collected anywhere, aggregated without the database (`manage.py aggregate_labels`).

The input is long format, ``item,worker,label``; it is read in chunks with pandas into integer codes,
so ten million rows take a few hundred megabytes, never the whole file as text. The same rule, label
models and decision as `aggregate_job` then give one row per item. Pure module: no Django.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pandas as pd

from aggregation.deciding import decide
from aggregation.label_files import LabelFileError, check_lines, kept_rows, quoted, warnings_about
from aggregation.labels import LabelSet, LabelSetError
from aggregation.policy import LABEL_MODELS
from aggregation.responses import Responses, ResponsesError
from aggregation.rules import AgreementRule, Comparison

COLUMNS = ["item", "worker", "label"]
OUTPUT = ["item", "label", "agreement", "status", "model_label", "confidence"]
CHUNK_ROWS = 1_000_000


@dataclass(frozen=True)
class CodedLabels:
    """The file as codes: ``item_names[item_codes[r]]`` is row r's item, and so on."""

    item_names: list[str]
    item_codes: npt.NDArray[np.int32]
    worker_codes: npt.NDArray[np.int32]
    label_codes: npt.NDArray[np.int8]
    warnings: tuple[str, ...] = ()  # allowed, but worth a word: one item, blank item names


def _label_codes(chunk: pd.DataFrame, labels: Sequence[str], first_line: int) -> npt.NDArray[np.int8]:
    """One chunk's labels as codes of ``labels``, its header and labels checked (``first_line``: the
    file's line of its first row, for the message)."""
    if list(chunk.columns) != COLUMNS:
        header = ",".join(map(str, chunk.columns))
        raise LabelFileError(f"the header must be {','.join(COLUMNS)}, not {header}")
    codes = pd.Categorical(chunk["label"], categories=list(labels)).codes
    if (codes < 0).any():
        unknown = ", ".join(map(quoted, sorted(set(chunk["label"][codes < 0]))[:5]))
        first = first_line + int(np.argmax(codes < 0))
        raise LabelFileError(f"line {first}: label(s) {unknown} not among {list(labels)}")
    return codes.astype(np.int8)


def read_labels(
    path: Path | str, labels: Sequence[str], chunk_rows: int = CHUNK_ROWS, duplicates: str = "refuse"
) -> CodedLabels:
    """Read ``item,worker,label`` rows chunk by chunk; every label must be one of ``labels``, each
    (worker, item) pair labelled once unless `duplicates` keeps the "first" or "last" (label_files)."""
    check_lines(path)
    known: dict[str, int] = {}
    workers: dict[str, int] = {}
    parts: list[tuple[npt.NDArray[np.int32], npt.NDArray[np.int32], npt.NDArray[np.int8]]] = []
    try:
        reader = pd.read_csv(path, dtype=str, chunksize=chunk_rows, keep_default_na=False)
        for number, chunk in enumerate(reader):
            codes = _label_codes(chunk, labels, first_line=number * chunk_rows + 2)
            items, raters = _global_codes(chunk["item"], known), _global_codes(chunk["worker"], workers)
            parts.append((items, raters, codes))
    except pd.errors.EmptyDataError:
        raise LabelFileError(f"{path} has no rows") from None
    except (pd.errors.ParserError, UnicodeDecodeError) as error:
        raise LabelFileError(f"{path}: {error}") from None
    if not sum(len(part[0]) for part in parts):
        raise LabelFileError(f"{path} has no rows")
    item_codes = np.concatenate([p[0] for p in parts])
    worker_codes = np.concatenate([p[1] for p in parts])
    label_codes = np.concatenate([p[2] for p in parts])
    kept = kept_rows(item_codes, worker_codes, duplicates)
    if kept is not None:
        item_codes, worker_codes, label_codes = item_codes[kept], worker_codes[kept], label_codes[kept]
    names = list(known)
    return CodedLabels(names, item_codes, worker_codes, label_codes, tuple(warnings_about(names)))


def _global_codes(values: pd.Series, index: dict[str, int]) -> npt.NDArray[np.int32]:
    """The chunk's values as codes shared by every chunk (first seen, first numbered)."""
    local, uniques = pd.factorize(values)
    shared = np.fromiter(
        (index.setdefault(name, len(index)) for name in uniques), dtype=np.int32, count=len(uniques)
    )
    return shared[local]


def _responses(coded: CodedLabels, rule: AgreementRule, require_overlap: bool) -> Responses:
    """The file's codes as responses to `rule`'s answers; a bad file is a `LabelFileError`."""
    try:
        return Responses.from_codes(
            coded.item_codes,
            coded.worker_codes,
            coded.label_codes,
            rule.answer_set,
            require_overlap=require_overlap,
        )
    except (ResponsesError, LabelSetError) as error:
        raise LabelFileError(str(error)) from None


def aggregate_labels(
    coded: CodedLabels,
    labels: Sequence[str],
    *,
    label_model: str = "dawid_skene",
    decision: str = "rule",
    threshold: float | None = None,
    comparison: str | None = None,
    require_overlap: bool = True,
    declared: AgreementRule | None = None,
) -> pd.DataFrame:
    """One row per item: the written label, ρ, kept/rejected, the model's label and its posterior.

    With ``decision="rule"``, the majority is written and kept when ρ meets ``threshold`` (0.5 by
    default); with ``"model"``, the model's label, kept when its posterior meets ``threshold`` (0 by
    default). ``declared``: a task type's rule in place of plain labels that keep every label, so the
    file is decided as `aggregate_job` decides its jobs (``labels`` are then its answer labels)."""
    if label_model not in LABEL_MODELS:
        raise LabelFileError(f"unknown label model {label_model!r}; known: {sorted(LABEL_MODELS)}")
    rule = labels_rule(labels, decision, threshold, comparison, declared)
    responses = _responses(coded, rule, require_overlap)
    outcome, fitted, _ = decide(responses, rule, LABEL_MODELS[label_model](), decision, threshold or 0.0)
    names = np.asarray(coded.item_names, dtype=object)
    return pd.DataFrame(
        {
            "item": names[responses.items],
            "label": rule.label_set.names_of(outcome.labels),
            "agreement": outcome.agreement,
            "status": np.where(outcome.kept, "kept", "rejected"),
            "model_label": rule.label_set.names_of(fitted.labels),
            "confidence": fitted.probabilities.max(axis=1),
        }
    )


def labels_rule(
    labels: Sequence[str],
    decision: str,
    threshold: float | None = None,
    comparison: str | None = None,
    declared: AgreementRule | None = None,
) -> AgreementRule:
    """The rule for plain labels: every label kept; ρ ≥ ``threshold`` (0.5) when the rule decides. A
    ``declared`` rule instead, with ``threshold`` and ``comparison`` over its own where given (the
    threshold is ρ's only when the rule decides; the model's is its posterior)."""
    if declared is not None:
        moved = threshold if decision == "rule" and threshold is not None else declared.threshold
        if declared.threshold is None:
            moved = None  # a majority-only rule has no agreement threshold to move (as a job's policy)
        return declared.with_threshold(moved, Comparison(comparison) if comparison else None)
    rho_threshold = (0.5 if threshold is None else threshold) if decision == "rule" else None
    return AgreementRule(
        "labels",
        LabelSet("labels", tuple(labels)),
        frozenset(labels),
        rho_threshold,
        Comparison(comparison or ">="),
    )
