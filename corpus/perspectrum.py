"""The PERSPECTRUM v1.0 release format: file names, schemas, reading with validation, writing.

Pure: no Django. Import (corpus.services) and export (export.services) both go through here, so
what we write is exactly what we accept.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import fastjsonschema

from corpus.topics import TOPICS

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

SCHEMA_DIR = Path(__file__).resolve().parent / "schemas"
CLAIMS, POOL, EVIDENCE, SPLIT, TOPIC = "claims", "pool", "evidence", "split", "topic"
# The release's own spelling of the 5 voter_counts slots, in order.
VOTER_ORDER = ("SUPPORT", "MILDLY_SUPPORT", "MILDLY_UNDERMINE", "UNDERMINE", "NOT_VALID")
_ID_FIELD = {CLAIMS: "cId", POOL: "pId", EVIDENCE: "eId", TOPIC: "claim_id"}
_SCHEMA_FILE = {
    CLAIMS: "perspectrum_with_answers",
    POOL: "perspective_pool",
    EVIDENCE: "evidence_pool",
    SPLIT: "dataset_split",
    TOPIC: "topic",
}


class ReleaseFormatError(ValueError):
    """A release file is unreadable or breaks the format; the message names the file and record."""


def file_names(version: str) -> dict[str, str]:
    return {
        CLAIMS: f"perspectrum_with_answers_v{version}.json",
        POOL: f"perspective_pool_v{version}.json",
        EVIDENCE: f"evidence_pool_v{version}.json",
        SPLIT: f"dataset_split_v{version}.json",
        TOPIC: "topic.json",
    }


@dataclass
class Release:
    """The parsed, validated content of one release directory."""

    version: str
    claims: list[dict[str, Any]]
    pool: list[dict[str, Any]]
    split: dict[str, str]
    topics: list[dict[str, Any]]
    evidence: list[dict[str, Any]] | None = None  # None when the release ships no evidence pool
    files: dict[str, str] = field(default_factory=dict)


def dumps(data: Any) -> bytes:
    """Serialise exactly as the original release: plain `json.dumps` (ASCII escapes, ', ' and ': ')."""
    return json.dumps(data).encode("ascii")


@cache
def schema(kind: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((SCHEMA_DIR / f"{_SCHEMA_FILE[kind]}.schema.json").read_text())
    return loaded


def detect_version(directory: Path) -> str:
    found = sorted(directory.glob("perspectrum_with_answers_v*.json"))
    if not found:
        raise ReleaseFormatError(f"{directory}: no perspectrum_with_answers_v<V>.json in this directory")
    if len(found) > 1:
        names = ", ".join(p.name for p in found)
        raise ReleaseFormatError(f"{directory}: several releases ({names}); name the version")
    match = re.fullmatch(r"perspectrum_with_answers_v(.+)\.json", found[0].name)
    assert match  # the glob guarantees the shape
    return match.group(1)


def read_release(directory: Path, version: str | None = None) -> Release:
    """Read and validate every file of a release; raise ReleaseFormatError on the first problem."""
    directory = Path(directory)
    version = version or detect_version(directory)
    names = file_names(version)
    data = {
        kind: _load(directory / name, kind)
        for kind, name in names.items()
        if kind != EVIDENCE or (directory / name).exists()
    }
    release = Release(
        version=version,
        claims=data[CLAIMS],
        pool=data[POOL],
        split=data[SPLIT],
        topics=data[TOPIC],
        evidence=data.get(EVIDENCE),
        files={kind: names[kind] for kind in data},
    )
    check_references(release)
    return release


def _load(path: Path, kind: str) -> Any:
    if not path.exists():
        raise ReleaseFormatError(f"{path.name}: missing from {path.parent}")
    try:
        data = json.loads(path.read_bytes())
    except json.JSONDecodeError as error:
        raise ReleaseFormatError(f"{path.name}: not valid JSON: {error}") from None
    except UnicodeDecodeError as error:
        raise ReleaseFormatError(f"{path.name}: not UTF-8 text: {error}") from None
    validate(data, kind, path.name)
    return data


@cache
def _compiled(kind: str) -> Callable[[Any], Any]:
    return fastjsonschema.compile(schema(kind))


def validate(data: Any, kind: str, name: str) -> None:
    """Check `data` against the file's JSON Schema; the error names the record and the field.

    A valid file is passed by fastjsonschema's compiled check (over a 100k-claim corpus many times
    faster than jsonschema); an invalid one is explained by jsonschema's best match."""
    try:
        _compiled(kind)(data)
        return
    except fastjsonschema.JsonSchemaValueException:
        pass
    # Loaded for an invalid file only: every command and worker process would pay for it otherwise.
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match

    error = best_match(Draft202012Validator(schema(kind)).iter_errors(data))
    if error is not None:
        raise ReleaseFormatError(f"{name}: {_where(error, data, kind)}: {error.message}")


def _where(error: ValidationError, data: Any, kind: str) -> str:
    path = list(error.absolute_path)
    if not path:
        return "top level"
    head, rest = path[0], path[1:]
    if isinstance(head, int):
        record = data[head]
        id_field = _ID_FIELD.get(kind)
        label = f"record {head}"
        if id_field and isinstance(record, Mapping) and id_field in record:
            label += f" ({id_field} {record[id_field]!r})"
    else:
        label = f"key {head!r}"
    return label + (f", field {'/'.join(map(str, rest))}" if rest else "")


def check_references(release: Release) -> None:
    """Cross-file checks the schemas cannot express: unique ids, dangling ids, known topics."""
    names = file_names(release.version)
    cids = _unique_ids(release.claims, "cId", names[CLAIMS])
    pids = _unique_ids(release.pool, "pId", names[POOL])
    if release.evidence is not None:
        # Evidence ids missing from the pool are not an error: the original v1.0 ships without its
        # evidence pool, so referenced ids are kept and their text is marked missing on import.
        _unique_ids(release.evidence, "eId", names[EVIDENCE])
    topic_map = {}
    for index, entry in enumerate(release.topics):
        where = f"{names[TOPIC]}: record {index} (claim_id {entry['claim_id']})"
        if entry["claim_id"] in topic_map:
            raise ReleaseFormatError(f"{where}: duplicate claim_id")
        _check_topics(entry["topics"], where)
        topic_map[entry["claim_id"]] = entry["topics"]
    for index, claim in enumerate(release.claims):
        where = f"{names[CLAIMS]}: record {index} (cId {claim['cId']})"
        _check_topics(claim["topics"], where)
        if claim["cId"] in topic_map and topic_map[claim["cId"]] != claim["topics"]:
            raise ReleaseFormatError(f"{where}: topics differ from {names[TOPIC]}")
        for number, cluster in enumerate(claim["perspectives"]):
            _check_known(cluster["pids"], pids, f"{where}, perspectives/{number}/pids", "pId", names[POOL])
    for key in release.split:
        if int(key) not in cids:
            raise ReleaseFormatError(f"{names[SPLIT]}: key {key!r}: no claim with cId {key}")


def _unique_ids(records: list[dict[str, Any]], id_field: str, name: str) -> set[int]:
    seen: set[int] = set()
    for index, record in enumerate(records):
        if record[id_field] in seen:
            raise ReleaseFormatError(
                f"{name}: record {index} ({id_field} {record[id_field]}): duplicate {id_field}"
            )
        seen.add(record[id_field])
    return seen


def _check_topics(slugs: Iterable[str], where: str) -> None:
    for slug in slugs:
        if slug not in TOPICS:
            raise ReleaseFormatError(f"{where}: unknown topic {slug!r}")


def _check_known(ids: Iterable[int], known: set[int], where: str, id_field: str, pool_name: str) -> None:
    for value in ids:
        if value not in known:
            raise ReleaseFormatError(f"{where}: {id_field} {value} is not in {pool_name}")
