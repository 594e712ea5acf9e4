"""Who may take part in the fake Prolific's studies: a participant starts a study only while it is
ACTIVE with a place free, and only as its participant-group filters allow.

Prolific documents the groups as live (participant groups, docs.prolific.com/api-reference/
participant-groups): "any participants added to or removed from the participant group on the fly
will be automatically eligible or ineligible for studies that use a participant group allowlist or
blocklist filter". So a study's `participant_group_blocklist` filter keeps out whoever is in one of
its groups now, and a `participant_group_allowlist` filter lets in only whoever is in one of its
groups now; a participant never takes two places in one study.
"""

from __future__ import annotations

import itertools
from typing import Any

from annotation.markets.prolific.fake_studies import TAKING

BLOCKLIST, ALLOWLIST = "participant_group_blocklist", "participant_group_allowlist"


class NotEligibleError(Exception):
    """A participant Prolific would not let start the study, and why."""


class ParticipantsAtProlific:
    """The part of FakeProlific that lets participants start studies (a mixin: it gives `studies`,
    `submissions`, `groups` and `ids`)."""

    studies: dict[str, dict[str, Any]]
    submissions: dict[str, dict[str, Any]]
    groups: dict[str, dict[str, Any]]
    ids: itertools.count[int]
    lock: Any

    def eligible(self, study_id: str, participant_id: str) -> bool:
        """Whether the study's participant-group filters let the participant in, now."""
        for found in self.studies[study_id].get("filters", []):
            named = [self.groups[g] for g in found.get("selected_values", []) if g in self.groups]
            member = any(participant_id in known["members"] for known in named)
            if found["filter_id"] == BLOCKLIST and member:
                return False
            if found["filter_id"] == ALLOWLIST and not member:
                return False
        return True

    def start(self, study_id: str, participant_id: str) -> str:
        """The participant starts the study: their submission's id (ACTIVE), or NotEligibleError."""
        with self.lock:
            study = self.studies[study_id]
            if study["status"] != "ACTIVE":
                raise NotEligibleError(f"study {study_id} is {study['status']}, not recruiting")
            if not self.eligible(study_id, participant_id):
                raise NotEligibleError(f"participant {participant_id} is excluded by the study's filters")
            mine = [s for s in self.submissions.values() if s["study_id"] == study_id]
            if any(s["participant_id"] == participant_id for s in mine):
                raise NotEligibleError(f"participant {participant_id} already took part in {study_id}")
            if sum(1 for s in mine if s["status"] in TAKING) >= study["total_available_places"]:
                raise NotEligibleError(f"study {study_id} has no place left")
            submission_id = f"submission{next(self.ids):014d}"
            self.submissions[submission_id] = {
                "id": submission_id,
                "participant_id": participant_id,
                "status": "ACTIVE",
                "study_id": study_id,
                "started_at": "2026-11-02T10:00:00Z",
                "bonus_payments": [],
            }
            return submission_id
