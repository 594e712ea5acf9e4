"""The three-way merge a re-import makes, per row: the base (what the release said last time), ours
(what the platform holds now) and theirs (what the release says now). Pure: no Django."""

from __future__ import annotations

import enum
import hashlib
import json
from typing import Any


class Verdict(enum.Enum):
    CREATE = "created"  # no row yet
    UNCHANGED = "unchanged"  # the release did not change it, or the platform already agrees
    UPDATE = "updated"  # the row still holds the release's own content: take the new release's
    CONFLICT = "conflict"  # both changed it: the platform's version stays, and the import says so


def digest(content: Any) -> str:
    """A short stable fingerprint of JSON-able content (tuples count as lists)."""
    encoded = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.blake2b(encoded.encode(), digest_size=16).hexdigest()


def three_way(base: str, ours: str | None, theirs: str) -> Verdict:
    """Decide one row from the digests of base, ours (None: no row) and theirs.

    A blank base (a row from before bases were kept) is unknown: the platform's content is kept
    whenever it differs, so nothing written before the upgrade is overwritten either. Whatever the
    verdict, theirs becomes the row's next base: a conflict is reported once, then the platform's
    version simply stands until a release changes the row again.
    """
    if ours is None:
        return Verdict.CREATE
    if ours == theirs or theirs == base:
        return Verdict.UNCHANGED
    if ours == base:
        return Verdict.UPDATE
    return Verdict.CONFLICT
