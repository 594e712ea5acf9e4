"""Prolific's submission and study statuses in our vocabulary, written once."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from annotation.market_interface.money import RowKind
from annotation.markets.prolific.resources import Study
from annotation.markets.prolific.studies import ACTIVE, COMPLETED, PAUSED
from annotation.markets.prolific.studies import AWAITING_REVIEW as STUDY_AWAITING_REVIEW
from annotation.models import AssignmentState

AWAITING_REVIEW = "AWAITING REVIEW"
APPROVED = "APPROVED"
PARTIALLY_APPROVED = "PARTIALLY APPROVED"
REJECTED = "REJECTED"

# A submission's status at Prolific → our assignment state. Every documented status is here.
ASSIGNMENT_STATES: dict[str, str] = {
    "RESERVED": AssignmentState.ACCEPTED,  # a place held for a participant who has not started
    "ACTIVE": AssignmentState.ACCEPTED,
    AWAITING_REVIEW: AssignmentState.SUBMITTED,
    APPROVED: AssignmentState.APPROVED,
    PARTIALLY_APPROVED: AssignmentState.APPROVED,  # reviewed and paid, in part
    REJECTED: AssignmentState.REJECTED,
    "RETURNED": AssignmentState.RETURNED,
    "SCREENED OUT": AssignmentState.RETURNED,  # left at screening: no work of theirs to review
    "TIMED-OUT": AssignmentState.EXPIRED,
}
# What a study's status says about recruiting: (market_status shown on the job, its reason).
STUDY_NOTES: dict[str, str] = {
    PAUSED: (
        "Prolific paused the study: it does so by itself when a submission awaiting review is rejected "
        "or returned while every place was taken. Resume the job once places are free."
    ),
    STUDY_AWAITING_REVIEW: (
        "Every place of the study is taken and its submissions await review: Prolific recruits nobody "
        "more until places are added or freed."
    ),
    COMPLETED: "The study is completed at Prolific: it recruits nobody more.",
}

RECRUITING_NOTE = (
    "Prolific's study {} is ACTIVE, recruiting, though the job was paused here (a START whose answer "
    "was lost, or one made at Prolific): the job follows Prolific and collects again."
)


def submission_state(status: str) -> str | None:
    """Our assignment state for a submission's status; None for one we do not know (UNKNOWN, a status
    Prolific adds later): never read as accepted, so no work counts on a guess."""
    return ASSIGNMENT_STATES.get(status)


class StudyNote(NamedTuple):
    status: str
    note: str
    paused: bool = False  # Prolific paused a study of a job that is recruiting here
    recruiting: bool = False  # a study recruits while the job is paused here


def study_status_note(studies: Sequence[Study], *, paused_here: bool) -> StudyNote:
    """The status of a job's studies that most holds recruiting back, its reason, and whether the job
    must follow Prolific (paused there, or recruiting there while paused here)."""
    for study in studies:
        if study.status == PAUSED and not paused_here:
            return StudyNote(PAUSED, STUDY_NOTES[PAUSED], paused=True)
        if study.status == ACTIVE and paused_here:
            return StudyNote(ACTIVE, RECRUITING_NOTE.format(study.study_id), recruiting=True)
    for status in (STUDY_AWAITING_REVIEW, COMPLETED):
        for study in studies:
            if study.status == status:
                taken = f" ({study.places_taken} of {study.places} places taken)" if study.places else ""
                return StudyNote(status, STUDY_NOTES[status] + taken)
    if any(study.status == PAUSED for study in studies):
        return StudyNote(PAUSED, "Paused at Prolific, as the job is paused here.")
    return StudyNote(studies[0].status if studies else "", "")


# The status a confirmed review leaves the submission in at Prolific.
REVIEWED: dict[str, str] = {RowKind.APPROVE: APPROVED, RowKind.REJECT: REJECTED}
# Statuses in which Prolific accepts each paying call.
PAYABLE: dict[str, tuple[str, ...]] = {
    RowKind.APPROVE: (AWAITING_REVIEW,),
    RowKind.REJECT: (AWAITING_REVIEW,),
    RowKind.BONUS: (AWAITING_REVIEW, APPROVED, PARTIALLY_APPROVED),
}
