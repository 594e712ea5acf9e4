"""Check a release directory against its manifest and schemas, naming every problem found. Pure.

Checks: the manifest is there, is JSON and matches its schema; every listed file exists with the
listed size and sha256; no unlisted file is present; the PERSPECTRUM files pass `read_release`
(schemas and cross-file ids); every JSONL line matches its schema. JSON files are validated with the
schemas shipped in the release's `schemas/` (a release describes itself), falling back to ours.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from corpus.perspectrum import ReleaseFormatError, read_release
from export.jsonl import DIRECTORY as JSONL_DIRECTORY
from export.jsonl import schema_for
from export.manifest import MANIFEST, SCHEMAS, release_paths, schema_files, sha256_of

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

MAX_PER_FILE = 20


@dataclass(frozen=True)
class Problem:
    file: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.message}"


def verify_release(directory: Path | str) -> list[Problem]:
    """Every problem with the release in `directory`; an empty list means it verifies."""
    directory = Path(directory)
    manifest, problems = _read_manifest(directory)
    if manifest is None:
        return problems
    problems += _check_files(directory, manifest)
    listed = {entry.get("name") for entry in manifest.get("files", []) if isinstance(entry, dict)}
    problems += [
        Problem(name, "present but not listed in the manifest")
        for name in release_paths(directory)
        if name not in listed
    ]
    problems += _check_perspectrum(directory, str(manifest.get("version", "")))
    for name in sorted(n for n in listed if isinstance(n, str) and n.startswith(f"{JSONL_DIRECTORY}/")):
        if (directory / name).is_file():
            problems += _check_jsonl(directory, name)
    return problems


def _read_manifest(directory: Path) -> tuple[dict[str, Any] | None, list[Problem]]:
    path = directory / MANIFEST
    if not path.is_file():
        return None, [Problem(MANIFEST, f"missing from {directory}")]
    try:
        manifest = json.loads(path.read_bytes())
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        return None, [Problem(MANIFEST, f"not valid JSON: {error}")]
    problems = _schema_problems(manifest, _validator(directory, "manifest.schema.json"), MANIFEST)
    if not isinstance(manifest, dict) or not isinstance(manifest.get("files"), list):
        return None, problems or [Problem(MANIFEST, "has no list of files")]
    return manifest, problems


def _check_files(directory: Path, manifest: dict[str, Any]) -> list[Problem]:
    problems = []
    for entry in manifest["files"]:
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            continue  # already reported by the manifest's schema
        name = entry["name"]
        path = directory / name
        if not path.resolve().is_relative_to(directory.resolve()):
            problems.append(Problem(name, "points outside the release directory"))
        elif not path.is_file():
            problems.append(Problem(name, "listed in the manifest but missing"))
        elif path.stat().st_size != entry.get("bytes"):
            problems.append(Problem(name, f"{path.stat().st_size} bytes, manifest says {entry.get('bytes')}"))
        elif sha256_of(path) != entry.get("sha256"):
            problems.append(Problem(name, f"sha256 {sha256_of(path)} differs from the manifest's"))
    return problems


def _check_perspectrum(directory: Path, version: str) -> list[Problem]:
    try:
        read_release(directory, version or None)
    except ReleaseFormatError as error:
        name, _, message = str(error).partition(": ")
        return [Problem(name, message or str(error))]
    return []


def _check_jsonl(directory: Path, name: str) -> list[Problem]:
    validator = _validator(directory, schema_for(name))
    problems: list[Problem] = []
    with (directory / name).open("rb") as handle:
        for number, line in enumerate(handle, start=1):
            try:
                record = json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError) as error:
                problems.append(Problem(name, f"line {number}: not valid JSON: {error}"))
            else:
                problems += _schema_problems(record, validator, name, f"line {number}")
            if len(problems) >= MAX_PER_FILE:
                problems.append(Problem(name, f"stopped after {MAX_PER_FILE} problems"))
                break
    return problems


def _schema_problems(data: Any, validator: Draft202012Validator, name: str, where: str = "") -> list[Problem]:
    found = []
    for error in sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.absolute_path))):
        field = "/".join(map(str, error.absolute_path)) or "top level"
        found.append(Problem(name, f"{where + ', ' if where else ''}{field}: {error.message}"))
        if len(found) >= MAX_PER_FILE:
            break
    return found


def _validator(directory: Path, schema_name: str) -> Draft202012Validator:
    shipped = directory / SCHEMAS / schema_name
    if shipped.is_file():
        try:
            return _compiled(shipped.read_text())
        except (json.JSONDecodeError, UnicodeDecodeError):
            pass  # a damaged shipped schema fails its sha256 check above; validate with ours instead
    ours = {path.name: path for path in schema_files()}
    return _compiled(ours[schema_name].read_text())


@cache
def _compiled(text: str) -> Draft202012Validator:
    # Keyed by the schema's text, so a changed schema file is never served from the cache.
    from jsonschema import Draft202012Validator  # loads with the first check, not with every process

    return Draft202012Validator(json.loads(text))
