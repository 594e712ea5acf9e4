"""A Prolific study as we create it, and the status transitions Prolific accepts. Pure: no Django.

Statuses and transitions follow Prolific's study object and its transition endpoint
(docs.prolific.com/api-reference/studies): PUBLISH from UNPUBLISHED; PAUSE from ACTIVE; START from
PAUSED; STOP from ACTIVE or PAUSED, which leaves the study COMPLETED. Anything else is answered 400.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from annotation.market_interface.errors import MarketRejectedError
from annotation.markets.prolific.screening import Screening

COMPLETION_URL = "https://app.prolific.com/submissions/complete"
# Prolific fills these in per participant; they must reach the page literally, braces and all.
URL_PLACEHOLDERS = (
    ("PROLIFIC_PID", "{{%PROLIFIC_PID%}}"),
    ("STUDY_ID", "{{%STUDY_ID%}}"),
    ("SESSION_ID", "{{%SESSION_ID%}}"),
)
BLOCKLIST_FILTER = "participant_group_blocklist"

UNPUBLISHED = "UNPUBLISHED"
PUBLISHING = "PUBLISHING"
SCHEDULED = "SCHEDULED"
ACTIVE = "ACTIVE"
PAUSED = "PAUSED"
AWAITING_REVIEW = "AWAITING REVIEW"
COMPLETED = "COMPLETED"


class StudyTransitionError(MarketRejectedError):
    """A study action Prolific would refuse in the study's current status; nothing was sent."""


@dataclass(frozen=True)
class Transition:
    """An action: the statuses Prolific accepts it from, and those where it has nothing left to do."""

    send_from: frozenset[str]
    done_in: frozenset[str]


TRANSITIONS: dict[str, Transition] = {
    # A study past its draft is published already: a retried publish must not publish it again.
    "PUBLISH": Transition(
        frozenset({UNPUBLISHED}),
        frozenset({PUBLISHING, SCHEDULED, ACTIVE, PAUSED, AWAITING_REVIEW, COMPLETED}),
    ),
    # A draft or a finished study recruits nobody: there is nothing to pause.
    "PAUSE": Transition(frozenset({ACTIVE}), frozenset({PAUSED, UNPUBLISHED, AWAITING_REVIEW, COMPLETED})),
    "START": Transition(frozenset({PAUSED}), frozenset({ACTIVE, PUBLISHING, SCHEDULED})),
    # Stopping offers the study to nobody more; a draft and a finished study are offered to nobody.
    "STOP": Transition(frozenset({ACTIVE, PAUSED}), frozenset({UNPUBLISHED, AWAITING_REVIEW, COMPLETED})),
}


def needs_transition(action: str, status: str) -> bool:
    """Whether to send `action` to a study in `status`: True to send, False when already done.

    Raises StudyTransitionError when Prolific would refuse it (a study still publishing or
    scheduled cannot be stopped or paused yet; a finished study cannot be started again).
    """
    rule = TRANSITIONS.get(action)
    if rule is None:
        raise MarketRejectedError(f"unknown study action {action!r}; use one of {sorted(TRANSITIONS)}")
    if status in rule.send_from:
        return True
    if status in rule.done_in:
        return False
    raise StudyTransitionError(
        f"Prolific accepts {action} only from {sorted(rule.send_from)}; the study is {status}"
    )


def external_study_url(base_url: str) -> str:
    """Our task page URL with Prolific's three placeholders appended."""
    params = "&".join(f"{name}={placeholder}" for name, placeholder in URL_PLACEHOLDERS)
    return f"{base_url}{'&' if '?' in base_url else '?'}{params}"


def completion_redirect(code: str) -> str:
    """Where a participant goes after saving: Prolific records the completion code there."""
    return f"{COMPLETION_URL}?cc={code}"


@dataclass(frozen=True)
class StudySpec:
    """A Prolific study for one batch of a job. `reward_cents` is per participant.

    `project` is the Prolific project the study is created and billed in: without it Prolific
    uses the account's first created project. `blocklist_group` is our participant group of blocked
    workers, `job_blocklist_group` the job's own group of workers stopped in it by the live quality
    check; a study's filters are fixed once published, the groups' members are not.
    """

    name: str
    description: str
    task_url: str
    places: int
    reward_cents: int
    minutes: int
    completion_code: str
    project: str
    internal_name: str = ""
    blocklist_group: str = ""
    job_blocklist_group: str = ""
    screening: Screening = field(default_factory=Screening)

    def as_params(self) -> dict[str, Any]:
        """The spec as a ledger row keeps it (JSON)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> StudySpec:
        given = dict(params)
        chosen = dict(given.pop("screening", None) or {})
        given.pop("devices", None)  # rows written before screening named the devices here
        screen = Screening(
            filters=tuple(chosen.get("filters", ())),
            devices=tuple(chosen.get("devices", ("desktop",))),
            naivety_distribution_rate=chosen.get("naivety_distribution_rate"),
            maximum_allowed_time=chosen.get("maximum_allowed_time"),
        )
        return cls(**given, screening=screen)

    def as_request(self) -> dict[str, Any]:
        if self.places < 1 or self.reward_cents < 1 or self.minutes < 1:
            raise MarketRejectedError("a study needs places, a reward and an estimated time above zero")
        if not self.project:
            raise MarketRejectedError("a study needs the Prolific project it is created and billed in")
        body: dict[str, Any] = {
            "name": self.name,
            "internal_name": self.internal_name or self.name,
            "description": self.description,
            "external_study_url": external_study_url(self.task_url),
            "prolific_id_option": "url_parameters",
            "completion_codes": [
                {
                    "code": self.completion_code,
                    "code_type": "COMPLETED",
                    # We approve after our own checks, through the ledger.
                    "actions": [{"action": "MANUALLY_REVIEW"}],
                }
            ],
            "total_available_places": self.places,
            "estimated_completion_time": self.minutes,
            "reward": self.reward_cents,
            "project": self.project,
            **self.screening.as_request(),
        }
        filters = [dict(f) for f in self.screening.filters]
        groups = [group for group in (self.blocklist_group, self.job_blocklist_group) if group]
        if groups:
            filters.append({"filter_id": BLOCKLIST_FILTER, "selected_values": groups})
        if filters:
            body["filters"] = filters
        return body
