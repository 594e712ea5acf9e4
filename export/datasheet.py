"""The release's datasheet (after Gebru et al., "Datasheets for Datasets"): how it was collected and
annotated, by how many workers, for what pay, and its known issues. Pure: facts in, a dict and a
Markdown rendering out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

PERSPECTRUM_CONSTRUCTION = (
    "PERSPECTRUM v1.0 (Chen et al., NAACL 2019; CC BY-SA 4.0) was built on Amazon Mechanical Turk: "
    "claims and perspectives crawled from idebate, debatewise and procon; stance verification by 3 "
    "workers on 5 labels ($1.50-2.00 per HIT of 10 claims), kept when agreement rho >= 0.5 and the "
    "majority is support or undermine; 2 paraphrases written per perspective ($1.50 per HIT of 15) and "
    "verified ($1.00 per HIT of 24); web perspectives from search results annotated as in stance "
    "verification; an expert merged clusters and copied perspectives across the 350 most similar claim "
    "pairs; evidence verified by at least 4 workers ($1.00 per HIT of 20 paragraphs x 8 perspectives); "
    "topics tagged by 2 workers. Workers: US, GB, CA, NZ, AU; > 1000 approved HITs; >= 95% approval. "
    "Experts agreed with the crowd on 94% of a stance sample and 87.7% of an evidence sample."
)


def known_issues(
    claims: Sequence[Mapping[str, Any]],
    pool: Sequence[Mapping[str, Any]],
    evidence_missing: int,
    split: Mapping[str, Any],
    simulated: bool,
) -> list[str]:
    """Problems a user of the files should know about, counted from the records themselves."""
    found = [
        _simulated_issue(simulated),
        _contradiction_issue(claims),
        _duplicate_text_issue(claims, pool),
        _missing_evidence_issue(evidence_missing),
        *_coverage_issues(claims),
        _leakage_issue(split),
    ]
    return [issue for issue in found if issue]


def _simulated_issue(simulated: bool) -> str:
    if not simulated:
        return ""
    return (
        "Contains labels from a SIMULATED crowd (modelled workers answering from known labels): "
        "for demonstrations and tests only, not for research results."
    )


def _contradiction_issue(claims: Sequence[Mapping[str, Any]]) -> str:
    contradicting = sum(1 for claim in claims for cluster in claim["perspectives"] if _contradicts(cluster))
    if not contradicting:
        return ""
    return (
        f"{contradicting} clusters have a 3-way label that contradicts their voter counts (in "
        "PERSPECTRUM v1.0: stance-flipped copies whose counts were reversed, not swapped); "
        "trust stance_label_3/5 for these."
    )


def _duplicate_text_issue(claims: Sequence[Mapping[str, Any]], pool: Sequence[Mapping[str, Any]]) -> str:
    text_of = {p["pId"]: p["text"] for p in pool}
    duplicated = [
        claim["cId"]
        for claim in claims
        if _has_duplicate_texts([text_of.get(pid) for c in claim["perspectives"] for pid in c["pids"]])
    ]
    if not duplicated:
        return ""
    shown = ", ".join(map(str, duplicated[:8]))
    return f"{len(duplicated)} claims hold different pIds with identical text (e.g. claims {shown})."


def _missing_evidence_issue(evidence_missing: int) -> str:
    if not evidence_missing:
        return ""
    return (
        f"{evidence_missing} evidence ids cited by clusters have no text here (the PERSPECTRUM v1.0 "
        "evidence pool was not available); their ids are kept, their texts are not invented."
    )


def _coverage_issues(claims: Sequence[Mapping[str, Any]]) -> list[str]:
    """Claims with no topic, and claims with no released cluster."""
    untopical = sum(1 for claim in claims if not claim["topics"])
    bare = sum(1 for claim in claims if not claim["perspectives"])
    return [
        f"{untopical} claims have no topic; each was split on its own." if untopical else "",
        f"{bare} claims have no released perspective cluster." if bare else "",
    ]


def _leakage_issue(split: Mapping[str, Any]) -> str:
    leakage = split.get("leakage", {})
    if not leakage.get("topic_sharing_pairs_across_splits"):
        return ""
    return (
        f"{leakage['topic_sharing_pairs_across_splits']} of {leakage['topic_sharing_pairs']} claim "
        f"pairs that share a topic fall in different splits (split grouping: "
        f"{split.get('grouping', 'as stored')}); see manifest split.leakage."
    )


def _contradicts(cluster: Mapping[str, Any]) -> bool:
    votes = cluster["voter_counts"]
    if len(votes) != 5:
        return False
    support, undermine = votes[0] + votes[1], votes[2] + votes[3]
    label = cluster["stance_label_3"]
    return (label == "SUPPORT" and undermine > support) or (label == "UNDERMINE" and support > undermine)


def _has_duplicate_texts(texts: Sequence[str | None]) -> bool:
    known = [t for t in texts if t is not None]
    return len(set(known)) < len(known)


def build_datasheet(
    version: str,
    statistics: Mapping[str, Any],
    crawl: Mapping[str, Any],
    jobs: Sequence[Mapping[str, Any]],
    workers: Mapping[str, int],
    issues: Sequence[str],
    pay: Mapping[str, Any],
    origins: Mapping[str, int] | None = None,
    machine_labels: bool = True,
) -> dict[str, Any]:
    """The datasheet as a dict: composition, collection, annotation steps, pay, workers, each
    annotator's labels (`origins`: labels by who gave them, with the machines' bounds; without
    `machine_labels` the machines' labels were left out of the release, and it says so), known issues.

    `pay` is what the jobs paid as the ledger records it (annotation.ledger.payments): its figures by
    currency and the sentence that says them."""
    return {
        "title": f"Stancework release {version}",
        "motivation": "Claims, perspectives and evidence from debate websites, verified by a crowd, "
        "for research on perspective discovery and stance (after PERSPECTRUM, NAACL 2019).",
        "composition": _composition(statistics),
        "collection": _collection(crawl),
        "annotation_steps": [_annotation_step(job) for job in jobs],
        "pay": {**pay, "by_job": {str(job["id"]): job["pay"] for job in jobs}},
        "workers": dict(workers),
        "worker_identities": "Keyed pseudonyms only (HMAC-SHA256 with a per-release key kept out of "
        "the release); raw worker ids never leave the platform's database.",
        "annotator_labels": _annotator_labels(origins or {})
        + _machine_labels(jobs, (origins or {}).get("machine", 0), machine_labels),
        "known_issues": list(issues),
    }


def _annotator_labels(origins: Mapping[str, int]) -> str:
    total = sum(origins.values())
    counts = (
        ", ".join(
            f"{count} from the {origin} ({count / total:.1%})" for origin, count in sorted(origins.items())
        )
        or "none"
    )
    return (
        "Every label is released with its annotator (a keyed pseudonym) and its origin: crowd (a worker's "
        "answer), expert (an adjudicator's decision) or machine (a model's answer) "
        f"(jsonl/annotations.jsonl; labels: {counts}). Each item of a single-choice task also has its "
        "crowd's label distribution, as counts and as a soft label summing to 1 "
        "(jsonl/label_distributions.jsonl). They are included because disagreement is data: "
        "perspectivist evaluation, and models trained on soft labels, need each annotator's label and "
        "the spread of opinions on an item, not only the decided label. Gold answers are kept out of "
        "the distributions, and so are expert and machine labels."
    )


def _machine_labels(jobs: Sequence[Mapping[str, Any]], released: int, included: bool) -> str:
    """What the release says of its machines' labels: the bound each step's were held to, or that they
    were left out. Empty when no step had a machine."""
    bounds = [
        f"job {job['id']}: {step['annotator']}, {step['bound']}"
        for job in jobs
        if (step := machine_step(job["params"])) is not None
    ]
    if not included:
        return (
            " Machine labels were left out of this release: every released label is a person's, and "
            "items a machine labelled alone have no label here"
            + (f" ({'; '.join(bounds)})." if bounds else ".")
        )
    if not bounds:
        return ""
    return (
        f" The {released} machine labels each name their model and prompt version; a machine's label was "
        f"accepted without a person only within the bound of its step ({'; '.join(bounds)})."
    )


def _composition(statistics: Mapping[str, Any]) -> dict[str, Any]:
    table_2 = statistics["table_2"]
    return {
        "claims": table_2["claims"]["count"],
        "perspectives": table_2["perspectives"]["count"],
        "perspective_clusters": table_2["perspectives"]["with_stances"],
        "evidence": table_2["evidence"]["count"],
        "split": statistics["split"],
    }


def _collection(crawl: Mapping[str, Any]) -> dict[str, Any]:
    imported = crawl.get("claims_without_crawl_record", 0)
    return {
        "crawl_runs": len(crawl.get("runs", [])),
        "debates_by_site": crawl.get("debates_by_site", {}),
        "claims_with_crawl_record": crawl.get("claims_with_crawl_record", 0),
        "claims_without_crawl_record": imported,
        "imported": PERSPECTRUM_CONSTRUCTION if imported else "",
    }


def _annotation_step(job: Mapping[str, Any]) -> dict[str, Any]:
    copied = (
        "task_type",
        "market",
        "simulated",
        "items",
        "workers_per_item",
        "reward_per_hit",
        "hits",
        "workers",
    )
    return {
        "job_id": job["id"],
        **{key: job[key] for key in copied},
        "quiz_pass_mark": job["params"].get("quiz_pass_mark"),
        "machine": machine_step(job["params"]),
    }


def machine_step(params: Mapping[str, Any]) -> dict[str, Any] | None:
    """The machine beside the crowd in a step (None without one): the bound its accepted labels were
    held to, and the share of the step's items it labelled alone (0 until its routing is chosen)."""
    plan = params.get("machine")
    if not plan:
        return None
    routing = params.get("machine_routing") or {}
    accepted = routing.get("threshold") is not None
    return {
        "annotator": routing.get("annotator", plan["annotator"]),
        "bound": f"error at most {plan['target_error']} against the crowd's decision, "
        f"with confidence {plan['confidence']}, on {plan['calibration_items']} calibration items",
        "share_by_machine": routing.get("share_accepted", 0.0) if accepted else 0.0,
        "why_none": routing.get("reason", "its routing is not chosen yet") if not accepted else "",
    }


# The annotation-steps table: its column headings and the step keys they show, in order.
STEP_COLUMNS = (
    ("job", "job_id"),
    ("task type", "task_type"),
    ("market", "market"),
    ("simulated", "simulated"),
    ("items", "items"),
    ("workers/item", "workers_per_item"),
    ("reward/HIT", "reward_per_hit"),
    ("HITs", "hits"),
    ("workers", "workers"),
)


def render_markdown(sheet: Mapping[str, Any], statistics: Mapping[str, Any]) -> str:
    """The datasheet as Markdown, with the paper-shaped statistics tables."""
    lines = [f"# Datasheet: {sheet['title']}", "", sheet["motivation"], "", "## Composition", ""]
    lines += [f"- {key.replace('_', ' ')}: {_plain(value)}" for key, value in sheet["composition"].items()]
    lines += _collection_lines(sheet["collection"])
    lines += ["", "## Annotation steps", ""]
    lines += _steps_table(sheet["annotation_steps"])
    lines += ["", "## Pay", "", sheet["pay"]["sentence"]]
    lines += ["", "## Workers", ""]
    lines += [f"- {key}: {value}" for key, value in sheet["workers"].items()]
    lines += ["", sheet["worker_identities"]]
    if "annotator_labels" in sheet:  # releases built before per-annotator labels have none
        lines += ["", "## Each annotator's labels", "", sheet["annotator_labels"]]
    lines += _statistics_lines(statistics)
    lines += ["", "## Known issues", ""]
    lines += [f"- {issue}" for issue in sheet["known_issues"]] or ["None recorded."]
    return "\n".join(lines) + "\n"


def _collection_lines(collection: Mapping[str, Any]) -> list[str]:
    lines = ["", "## Collection", ""]
    lines += [
        f"- {key.replace('_', ' ')}: {_plain(value)}"
        for key, value in collection.items()
        if key != "imported"
    ]
    if collection["imported"]:
        lines += ["", "Claims without a crawl record were imported. " + collection["imported"]]
    return lines


def _steps_table(steps: Sequence[Mapping[str, Any]]) -> list[str]:
    if not steps:
        return ["No crowd jobs were run on this platform."]
    return _table(
        [heading for heading, _ in STEP_COLUMNS], [[_cell(s[key]) for _, key in STEP_COLUMNS] for s in steps]
    )


def _cell(value: Any) -> Any:
    """A step's value as a person reads it: yes/no for a flag, a task type's slug in words."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return value.replace("_", " ") if isinstance(value, str) else value


def _statistics_lines(statistics: Mapping[str, Any]) -> list[str]:
    """The paper's Tables 2 and 4 as two-column tables."""
    lines = ["", "## Statistics (paper Table 2)", ""]
    lines += _table(["statistic", "value"], _flatten(statistics["table_2"]))
    lines += ["", "## Statistics by site and step (paper Table 4)", ""]
    lines += _table(["statistic", "value"], _flatten(statistics["table_4"]))
    return lines


def _plain(value: Any) -> str:
    if isinstance(value, Mapping):
        return ", ".join(f"{key} {count}" for key, count in value.items()) or "none"
    return str(value)


def _flatten(data: Mapping[str, Any], prefix: str = "") -> list[list[Any]]:
    rows: list[list[Any]] = []
    for key, value in data.items():
        name = f"{prefix}{key}".replace("_", " ")
        if isinstance(value, Mapping):
            rows += _flatten(value, f"{prefix}{key} / ")
        else:
            rows.append([name, value])
    return rows


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    return [
        "| " + " | ".join(header) + " |",
        "|" + "|".join("---" for _ in header) + "|",
        *("| " + " | ".join("" if v is None else str(v) for v in row) + " |" for row in rows),
    ]


def count_workers(rows: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Distinct workers in the annotation rows, people and simulated apart."""
    seen = {row["worker"]: bool(row["simulated"]) for row in rows}
    kinds = Counter(seen.values())
    return {"distinct": len(seen), "people": kinds[False], "simulated": kinds[True]}
