"""Who wrote a corpus row last, set by every write path through one helper (house style rule 21,
docs/design/house-style.md).

A write path names its writer (`Writer.release`, `.crawl`, `.job`, `.person`) with `writing(...)`;
inside, `stamp()` gives the provenance fields for the rows it writes, and `guard()` decides which
existing rows it may rewrite: never a person's (unless a person is writing), and every row of
another writer it does rewrite is counted, for its output and the audit trail.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import models
from django.utils import timezone

from corpus.models import WrittenBy

# The fields that say who wrote a row and when, as a merge reads them (with `last_change`).
PROVENANCE = ("written_by", "written_ref", "written_at")
_active: ContextVar[WriteLog | None] = ContextVar("corpus_write_log", default=None)


@dataclass(frozen=True)
class Writer:
    """Who is writing: a kind (`WrittenBy`), which one (release, crawl run, job, decision), a user."""

    kind: str
    ref: str
    user_id: int | None = None

    @classmethod
    def release(cls, version: str) -> Writer:
        return cls(WrittenBy.IMPORT, f"PERSPECTRUM v{version}")

    @classmethod
    def crawl(cls, run_id: int | None) -> Writer:
        return cls(WrittenBy.CRAWL, f"crawl run {run_id}" if run_id else "crawl")

    @classmethod
    def job(cls, job_id: int, detail: str = "") -> Writer:
        return cls(WrittenBy.JOB, f"job {job_id}" + (f", {detail}" if detail else ""))

    @classmethod
    def process(cls, name: str) -> Writer:
        """A platform process that is not a job (the split, web search candidates)."""
        return cls(WrittenBy.JOB, name)

    @classmethod
    def person(cls, user: Any, what: str) -> Writer:
        user_id = getattr(user, "pk", None)
        name = user.get_username() if user_id is not None else (str(user) if user else "system")
        return cls(WrittenBy.PERSON, f"{what} by {name}", user_id)

    @property
    def source(self) -> str:
        """The writer without its detail: "job 5" for every aggregation run of job 5."""
        return self.ref.split(", ")[0]

    def fields(self, at: datetime | None = None) -> dict[str, Any]:
        """The provenance fields for `Model(**...)` or `QuerySet.update(**...)`."""
        return {
            "written_by": self.kind,
            "written_ref": self.ref[:200],
            "written_by_user_id": self.user_id,
            "written_at": at or timezone.now(),
        }


@dataclass
class WriteLog:
    """What one write path did to rows others wrote last: rewrote (counted by writer) or kept; of the
    rewritten, the members and evidence links it removed."""

    writer: Writer
    rewrote: Counter[str] = field(default_factory=Counter)
    kept: Counter[str] = field(default_factory=Counter)
    removed: Counter[str] = field(default_factory=Counter)

    @property
    def touched_others(self) -> bool:
        return bool(+self.rewrote or +self.kept)

    def stamp(self, at: datetime | None = None) -> dict[str, Any]:
        """The provenance fields of this log's writer."""
        return self.writer.fields(at)

    def owns(self, kind: str, ref: str) -> bool:
        """Whether a row written by (kind, ref) is this writer's own (any run of the same job)."""
        return kind == self.writer.kind and ref.split(", ")[0] == self.writer.source

    def detail(self) -> dict[str, dict[str, int]]:
        said = {"rewrote": dict(sorted(self.rewrote.items())), "kept": dict(sorted(self.kept.items()))}
        return said | ({"removed": dict(sorted(self.removed.items()))} if self.removed else {})

    def lines(self) -> list[str]:
        said = [f"rewrote {n} row(s) last written by {who}" for who, n in sorted(self.rewrote.items())]
        removed = [
            f"of them, removed {n} member(s) or link(s) of {who}" for who, n in sorted(self.removed.items())
        ]
        return (
            said + removed + [f"kept {n} row(s) as {who} left them" for who, n in sorted(self.kept.items())]
        )

    def guard(self, rows: models.QuerySet[Any]) -> list[int]:
        """The pks of `rows` this writer may rewrite or delete; a person's rows are kept (unless a
        person writes), and rows of other writers are counted as rewritten."""
        allowed = []
        for pk, kind, ref in rows.values_list("pk", "written_by", "written_ref"):
            if self.owns(kind, ref):
                allowed.append(pk)
            elif kind == WrittenBy.PERSON and self.writer.kind != WrittenBy.PERSON:
                self.kept[f"{kind}: {ref}"] += 1
            else:
                self.rewrote[f"{kind}: {ref}"] += 1
                allowed.append(pk)
        return allowed

    def touch(self, rows: models.QuerySet[Any]) -> int:
        """Stamp rows whose parts this writer changed (a cluster's links or members): a person's rows
        keep saying so, unless a person writes."""
        if self.writer.kind != WrittenBy.PERSON:
            rows = rows.exclude(written_by=WrittenBy.PERSON)
        return rows.update(**self.stamp())


@contextmanager
def writing(writer: Writer) -> Iterator[WriteLog]:
    """Name the writer of every corpus write inside the block; yields the block's log."""
    log = WriteLog(writer)
    token = _active.set(log)
    try:
        yield log
    finally:
        _active.reset(token)


UNNAMED = Writer(WrittenBy.JOB, "a write-back outside a job")


def active() -> WriteLog:
    """The log of the enclosing `writing` block; outside one, a fresh log of an unnamed writer."""
    return _active.get() or WriteLog(UNNAMED)


def stamp(at: datetime | None = None) -> dict[str, Any]:
    """The provenance fields of the active writer."""
    return active().stamp(at)


def guard(rows: models.QuerySet[Any]) -> list[int]:
    """`WriteLog.guard` of the active writer."""
    return active().guard(rows)


def touch(rows: models.QuerySet[Any]) -> int:
    """`WriteLog.touch` of the active writer."""
    return active().touch(rows)


def last_change(rows: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
    """Of provenance rows (dicts of the fields), the latest one not written by an import."""
    changes = [row for row in rows if row["written_by"] != WrittenBy.IMPORT]
    if not changes:
        return None
    epoch = datetime.min.replace(tzinfo=timezone.get_current_timezone())
    return max(changes, key=lambda row: row["written_at"] or epoch)
