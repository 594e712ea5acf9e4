"""What an import did: counts per kind of row, and each conflict with the platform's work."""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from config.wording import count
from corpus.merging import Verdict
from corpus.perspectrum import detect_version, file_names


@dataclass(frozen=True)
class Conflict:
    """A row the release changed and the platform changed too: the platform's version stays."""

    kind: str  # "claims", "claim clusters", ...
    key: str  # the claim (c7), perspective (p3) or evidence (e11)
    release: Any  # what the release says
    platform: Any  # what the platform has
    changed_by: str  # who wrote the platform's version last
    changed_at: str  # when (ISO 8601), or "" when not recorded

    def line(self) -> str:
        when = f" at {self.changed_at}" if self.changed_at else ""
        return (
            f"conflict {self.kind} {self.key}: the release says {self.release!r}; the platform has "
            f"{self.platform!r}, changed by {self.changed_by}{when}; the platform's version stays"
        )


@dataclass
class ImportReport:
    version: str
    checksum: str = ""
    dry_run: bool = False
    created: Counter[str] = field(default_factory=Counter)
    updated: Counter[str] = field(default_factory=Counter)
    unchanged: Counter[str] = field(default_factory=Counter)
    conflicts: list[Conflict] = field(default_factory=list)
    evidence_without_text: int = 0
    # kind → ids of records whose text is empty in the release read
    empty_texts: dict[str, list[int]] = field(default_factory=dict)

    @property
    def changed(self) -> bool:
        return bool(+self.created or +self.updated)

    def count(self, kind: str, verdict: Verdict) -> None:
        if verdict is Verdict.CREATE:
            self.created[kind] += 1
        elif verdict is Verdict.UPDATE:
            self.updated[kind] += 1
        elif verdict is Verdict.UNCHANGED:
            self.unchanged[kind] += 1

    def lines(self) -> list[str]:
        kinds = sorted(set(self.created) | set(self.updated) | set(self.unchanged))
        notes = (
            [f"evidence without text (ids kept, text marked missing): {self.evidence_without_text}"]
            if self.evidence_without_text
            else []
        )
        notes += [
            f"{count(len(ids), kind.removesuffix('s'))} with empty text in the release, imported as they are "
            f"(ids {_ids(ids)})"
            for kind, ids in self.empty_texts.items()
        ]
        counts = [
            f"{kind}: {self.created[kind]} created, {self.updated[kind]} updated, "
            f"{self.unchanged[kind]} unchanged"
            + (f", {n} conflicts" if (n := sum(c.kind == kind for c in self.conflicts)) else "")
            for kind in kinds
        ]
        conflicts = [conflict.line() for conflict in self.conflicts]
        summary = [f"{len(self.conflicts)} conflicts: the platform's version kept"] if self.conflicts else []
        return notes + counts + summary + conflicts

    def as_dict(self) -> dict[str, Any]:
        return {
            "created": dict(self.created),
            "updated": dict(self.updated),
            "unchanged": dict(self.unchanged),
            "conflicts": [asdict(conflict) for conflict in self.conflicts],
        }


def _ids(ids: list[int], shown: int = 10) -> str:
    more = f" and {len(ids) - shown} more" if len(ids) > shown else ""
    return ", ".join(map(str, ids[:shown])) + more


def release_checksum(directory: Path, version: str | None = None) -> str:
    """sha256 over a release directory's files (names and bytes), the evidence pool when present."""
    names = file_names(version or detect_version(directory))
    digest = hashlib.sha256()
    for kind in sorted(names):
        path = directory / names[kind]
        if path.exists():
            digest.update(names[kind].encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def who(row: dict[str, Any] | None) -> tuple[str, str]:
    """(who, when) of a provenance row for a conflict; unknown when no row says."""
    if row is None:
        return "not recorded (rows deleted)", ""
    at = row["written_at"]
    return f"{row['written_by']}: {row['written_ref']}", at.isoformat(timespec="seconds") if at else ""
