"""The release manifest: every file with its sha256 and size, and how the release was made. Pure.

The manifest and every other file we write (apart from the PERSPECTRUM files, which keep the
original's exact `json.dumps` format) are canonical JSON: sorted keys, two-space indent, UTF-8, one
final newline. Nothing in them reads a clock: the only time is `state_time`, the latest change in the
database state the release was built from, so two builds of the same state are byte-identical.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from corpus.perspectrum import SCHEMA_DIR as FORMAT_SCHEMA_DIR

FORMAT = "stancework-release/1"
MANIFEST = "manifest.json"
SCHEMAS = "schemas"
# Every schema a release ships: the PERSPECTRUM format's (corpus) and the release's own files'.
RELEASE_SCHEMA_DIR = Path(__file__).resolve().parent / "schemas"


def schema_files() -> list[Path]:
    """The schema files a release ships, sorted by name (one name never stands in both folders)."""
    return sorted(
        [*FORMAT_SCHEMA_DIR.glob("*.schema.json"), *RELEASE_SCHEMA_DIR.glob("*.schema.json")],
        key=lambda path: path.name,
    )


_CHUNK = 1 << 20


def canonical_json(data: Any) -> bytes:
    return (json.dumps(data, sort_keys=True, indent=2, ensure_ascii=False) + "\n").encode()


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def release_paths(directory: Path) -> list[str]:
    """Every file under `directory` but the manifest, as sorted POSIX paths relative to it."""
    return sorted(
        path.relative_to(directory).as_posix()
        for path in directory.rglob("*")
        if path.is_file() and path.relative_to(directory).as_posix() != MANIFEST
    )


def file_entries(directory: Path, names: Iterable[str]) -> list[dict[str, Any]]:
    return [
        {"name": name, "sha256": sha256_of(directory / name), "bytes": (directory / name).stat().st_size}
        for name in sorted(names)
    ]


def build_manifest(directory: Path, facts: dict[str, Any]) -> dict[str, Any]:
    """The manifest of the files now in `directory`, with `facts` (version, jobs, rules…) beside them."""
    return {"format": FORMAT, **facts, "files": file_entries(directory, release_paths(directory))}
