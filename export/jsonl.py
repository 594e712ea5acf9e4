"""JSON Lines files of a release, flat enough for `pandas.read_json(lines=True)` and the Hugging Face
`datasets` JSON loader. Pure: built from the PERSPECTRUM records and plain annotation rows.

One record per line, keys sorted, UTF-8. Every record of a file has the same keys and each key one
type (lists of ints, strings, null only where said), because Arrow infers one column type per file.
Files with no records are not written: an empty file is not a loadable dataset.

- ``stance_<split>.jsonl``: one line per claim–cluster: the claim, its topics and split, the cluster's
  perspective ids and texts (original first), both stance labels, the voter counts, evidence ids.
- ``perspectives.jsonl``, ``evidence.jsonl``: the pools.
- ``annotations.jsonl``: one line per label given: each crowd response, each machine's answer and each
  expert's decision, with its annotator as a keyed pseudonym only and its ``origin`` (crowd, expert or
  machine; a machine's line names its ``model`` and ``prompt_version``, null on a person's); a richer
  answer than a label (a written paraphrase, a topic list) is kept as a JSON string in ``value_json``.
- ``label_distributions.jsonl``: one line per item with categorical crowd answers: the task's labels in
  its order, the crowd's count of each, and the share of each (a soft label summing to 1), for
  perspectivist evaluation that wants the spread of opinions and not only the majority.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from export.splits import SPLITS

DIRECTORY = "jsonl"
UNSPLIT = "unsplit"
# Who gave a label: crowd workers, experts (adjudication), or a machine annotator.
ORIGINS = ("crowd", "expert", "machine")


def dumps_lines(records: Iterable[Mapping[str, Any]]) -> bytes:
    return b"".join(
        json.dumps(record, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        for record in records
    )


def stance_records(
    claims: Sequence[Mapping[str, Any]], pool: Sequence[Mapping[str, Any]], split: Mapping[str, str]
) -> dict[str, list[dict[str, Any]]]:
    """Split name → one record per claim–cluster, in claim id then cluster order."""
    text_of = {p["pId"]: p["text"] for p in pool}
    by_split: dict[str, list[dict[str, Any]]] = {}
    for claim in claims:
        name = split.get(str(claim["cId"]), UNSPLIT)
        for index, cluster in enumerate(claim["perspectives"]):
            by_split.setdefault(name, []).append(
                {
                    "claim_id": claim["cId"],
                    "claim": claim["text"],
                    "claim_source": claim["source"],
                    "topics": list(claim["topics"]),
                    "split": name,
                    "cluster_index": index,
                    "perspective_ids": list(cluster["pids"]),
                    "perspectives": [text_of[pid] for pid in cluster["pids"]],
                    "stance_label_3": cluster["stance_label_3"],
                    "stance_label_5": cluster["stance_label_5"],
                    "voter_counts": list(cluster["voter_counts"]),
                    "evidence_ids": list(cluster["evidence"]),
                }
            )
    order = [*SPLITS, UNSPLIT]
    return {name: by_split[name] for name in order if name in by_split}


def pool_records(records: Sequence[Mapping[str, Any]], id_field: str, name: str) -> list[dict[str, Any]]:
    return [{name: r[id_field], "text": r["text"], "source": r["source"]} for r in records]


def annotation_record(row: Mapping[str, Any]) -> dict[str, Any]:
    """One response as a release line; `row` has these keys already, with `worker` a pseudonym."""
    value = row.get("value")
    return {
        "job_id": row["job_id"],
        "task_type": row["task_type"],
        "item": row["item"],
        "claim_id": row.get("claim_id"),
        "perspective_id": row.get("perspective_id"),
        "evidence_id": row.get("evidence_id"),
        "worker": row["worker"],
        "label": row.get("label") or "",
        "value_json": None if value is None else json.dumps(value, sort_keys=True, ensure_ascii=False),
        "gold": bool(row.get("gold")),
        "simulated": bool(row.get("simulated")),
        "origin": str(row.get("origin", "crowd")),
        "model": row.get("model"),
        "prompt_version": row.get("prompt_version"),
    }


def label_distribution_records(
    annotations: Sequence[Mapping[str, Any]], label_orders: Mapping[str, Sequence[str]]
) -> list[dict[str, Any]]:
    """One record per item of a categorical task: its crowd's label counts and shares, in the task's
    label order (`label_orders`: task type → labels). Gold answers and other origins are left out."""
    counted: dict[tuple[int, str], dict[str, Any]] = {}
    for row in annotations:
        labels = label_orders.get(row["task_type"])
        if (
            not labels
            or row.get("gold")
            or row.get("origin", "crowd") != "crowd"
            or row.get("label") not in labels
        ):
            continue
        key = (row["job_id"], row["item"])
        if key not in counted:
            counted[key] = {
                **{
                    name: row.get(name)
                    for name in ("job_id", "task_type", "item", "claim_id", "perspective_id", "evidence_id")
                },
                "labels": list(labels),
                "counts": [0] * len(labels),
                "simulated": False,
            }
        record = counted[key]
        record["counts"][list(labels).index(row["label"])] += 1
        record["simulated"] = record["simulated"] or bool(row.get("simulated"))
    for record in counted.values():
        total = sum(record["counts"])
        record["annotators"] = total
        record["soft_label"] = [count / total for count in record["counts"]]
    return [counted[key] for key in sorted(counted)]


def jsonl_files(
    records: Mapping[str, Any],
    annotations: Sequence[Mapping[str, Any]],
    label_orders: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, list[dict[str, Any]]]:
    """Relative path → records, for every non-empty JSONL file of a release."""
    files: dict[str, list[dict[str, Any]]] = {
        f"{DIRECTORY}/stance_{name}.jsonl": rows
        for name, rows in stance_records(records["claims"], records["pool"], records["split"]).items()
    }
    files[f"{DIRECTORY}/perspectives.jsonl"] = pool_records(records["pool"], "pId", "perspective_id")
    files[f"{DIRECTORY}/evidence.jsonl"] = pool_records(records["evidence"], "eId", "evidence_id")
    files[f"{DIRECTORY}/annotations.jsonl"] = [annotation_record(row) for row in annotations]
    files[f"{DIRECTORY}/label_distributions.jsonl"] = label_distribution_records(
        annotations, label_orders or {}
    )
    return {path: rows for path, rows in files.items() if rows}


def schema_for(path: str) -> str:
    """The schema file (in the release's schemas/) that each line of `path` must match."""
    name = path.rsplit("/", 1)[-1]
    if name.startswith("stance_"):
        return "stance_jsonl.schema.json"
    return {
        "perspectives.jsonl": "perspectives_jsonl.schema.json",
        "evidence.jsonl": "evidence_jsonl.schema.json",
        "annotations.jsonl": "annotations_jsonl.schema.json",
        "label_distributions.jsonl": "label_distributions_jsonl.schema.json",
    }[name]
