"""What the fake Prolific's studies do by themselves, as Prolific documents (fake.py's docstring lists
each behaviour and schema.json's "sources" its page): the study's status follows its submissions.
"""

from __future__ import annotations

import itertools
from typing import Any

from annotation.markets.prolific.screening import least_maximum_time

# A submission holding one of the study's places.
TAKING = frozenset({"RESERVED", "ACTIVE", "AWAITING REVIEW", "APPROVED", "PARTIALLY APPROVED"})


class StudiesByThemselves:
    """The part of FakeProlific that moves its studies without being asked."""

    studies: dict[str, dict[str, Any]]
    submissions: dict[str, dict[str, Any]]
    changes: itertools.count[int]
    changed_at: dict[str, int]

    def _changed(self, study_id: str) -> None:
        self.changed_at[study_id] = next(self.changes)

    def _shown(self, study_id: str) -> dict[str, Any]:
        """A study as Prolific shows it: its places taken counted, our own notes left out."""
        study = self.studies[study_id]
        taken = sum(1 for s in self._of(study_id) if s["status"] in TAKING)
        return {k: v for k, v in study.items() if k != "stopped"} | {"places_taken": taken}

    def _of(self, study_id: str) -> list[dict[str, Any]]:
        return [s for s in self.submissions.values() if s["study_id"] == study_id]

    def _awaiting(self, study_id: str) -> bool:
        return any(s["status"] == "AWAITING REVIEW" for s in self._of(study_id))

    def _reopened(self, study_id: str) -> None:
        """Places were added: a full study is active again, a completed (or stopped) one too."""
        study = self.studies[study_id]
        if study["status"] in ("AWAITING REVIEW", "COMPLETED"):
            study["status"] = "ACTIVE"
            study.pop("stopped", None)

    def _moved(self, study_id: str, *, freed_from: str = "") -> None:
        """A submission of the study moved: the study follows as Prolific documents (see the docstring)."""
        study = self.studies.get(study_id)
        if study is None:
            return
        places, subs = study["total_available_places"], self._of(study_id)
        taken = [s for s in subs if s["status"] in TAKING]
        in_progress = any(s["status"] in ("RESERVED", "ACTIVE") for s in subs)
        approved = sum(1 for s in subs if s["status"] in ("APPROVED", "PARTIALLY APPROVED"))
        status = study["status"]
        if status == "AWAITING REVIEW" and freed_from == "AWAITING REVIEW" and not study.get("stopped"):
            study["status"] = "PAUSED"  # a full study lost a place: Prolific pauses it
        elif status == "ACTIVE" and len(taken) >= places and not in_progress:
            study["status"] = "AWAITING REVIEW"
        elif (
            status == "AWAITING REVIEW"
            and not self._awaiting(study_id)
            and (study.get("stopped") or approved >= places)
        ):
            study["status"] = "COMPLETED"
        if study["status"] != status:
            self._changed(study_id)


def too_short_a_time(body: dict[str, Any]) -> str:
    given, minutes = body.get("maximum_allowed_time"), body["estimated_completion_time"]
    least = least_maximum_time(minutes)
    if given is None or given >= least:
        return ""
    return f"maximum_allowed_time {given} is under {least} minutes, the least for {minutes} minutes' estimate"
