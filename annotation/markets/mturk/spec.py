"""What an MTurk HIT is made of, as plain data: qualification requirements, ExternalQuestion, money.

Pure (no boto3, no Django): the adapter in mturk.py turns these into API calls, and the ledger and
admin use them to show what a publication will cost before anything is sent.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from urllib.parse import urlsplit
from xml.sax.saxutils import escape

from annotation.market_interface.errors import MarketConfigError, MarketError

# System qualification types (MTurk documentation, "QualificationRequirement").
LOCALE_QUALIFICATION = "00000000000000000071"
APPROVED_HITS_QUALIFICATION = "00000000000000000040"
APPROVAL_RATE_QUALIFICATION = "000000000000000000L0"

# The paper's crowd: ISO 3166 codes, so Great Britain is GB (MTurk refuses UK).
DEFAULT_LOCALES = ("US", "GB", "CA", "NZ", "AU")
# MTurk charges 20% on rewards and bonuses, plus 20% more on HITs with 10 or more assignments.
MAX_ASSIGNMENTS_PER_HIT = 9
DEFAULT_FEE_RATE = Decimal("0.20")
EXTERNAL_QUESTION_NS = (
    "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2006-07-14/ExternalQuestion.xsd"
)
CENT = Decimal("0.01")


class AssignmentLimitError(MarketError):
    """A HIT would need 10 or more assignments, which triggers MTurk's extra 20% fee."""


class SpecError(MarketConfigError):
    """A HIT description that MTurk would refuse, caught before any call."""


def money(amount: Decimal | str | int) -> str:
    """MTurk's currency string: US dollars, two decimals, no symbol ("1.50")."""
    value = Decimal(str(amount)).quantize(CENT, rounding=ROUND_HALF_UP)
    if value <= 0:
        raise SpecError(f"an amount must be positive, got {amount!r}")
    return f"{value:.2f}"


@dataclass(frozen=True)
class QualificationPolicy:
    """Who may work on a job. Defaults are the paper's; every field can change per job."""

    locales: tuple[str, ...] = DEFAULT_LOCALES
    min_approved_hits: int | None = 1000
    min_approval_rate: int | None = 95
    quiz_qualification_id: str | None = None
    soft_block_qualification_id: str | None = None
    # The job's own qualification, held by the workers the live quality check stopped in it.
    job_blocklist_qualification_id: str | None = None

    def requirements(self) -> list[dict[str, object]]:
        """The QualificationRequirements list for CreateHITType."""
        reqs: list[dict[str, object]] = []
        if self.locales:
            bad = [code for code in self.locales if len(code) != 2 or not code.isupper() or code == "UK"]
            if bad:
                raise SpecError(f"locales must be ISO 3166 alpha-2 codes (GB, not UK): {bad}")
            reqs.append(
                {
                    "QualificationTypeId": LOCALE_QUALIFICATION,
                    "Comparator": "In",
                    "LocaleValues": [{"Country": code} for code in self.locales],
                    "ActionsGuarded": "DiscoverPreviewAndAccept",
                }
            )
        if self.min_approved_hits is not None:
            reqs.append(_integer(APPROVED_HITS_QUALIFICATION, "GreaterThan", self.min_approved_hits))
        if self.min_approval_rate is not None:
            reqs.append(_integer(APPROVAL_RATE_QUALIFICATION, "GreaterThanOrEqualTo", self.min_approval_rate))
        if self.quiz_qualification_id:
            # Workers may look at the task before the quiz, but only accept it after passing.
            reqs.append(
                {
                    "QualificationTypeId": self.quiz_qualification_id,
                    "Comparator": "Exists",
                    "ActionsGuarded": "Accept",
                }
            )
        # A soft block hides our HITs without touching the worker's MTurk record (a real block does);
        # the job's own blocklist hides the job's HITs from the workers stopped in it, the same way.
        for kept_out in (self.soft_block_qualification_id, self.job_blocklist_qualification_id):
            if kept_out:
                reqs.append(
                    {
                        "QualificationTypeId": kept_out,
                        "Comparator": "DoesNotExist",
                        "ActionsGuarded": "DiscoverPreviewAndAccept",
                    }
                )
        return reqs


def _integer(type_id: str, comparator: str, value: int) -> dict[str, object]:
    return {
        "QualificationTypeId": type_id,
        "Comparator": comparator,
        "IntegerValues": [value],
        "ActionsGuarded": "Accept",
    }


def external_question(url: str, frame_height: int = 0) -> str:
    """ExternalQuestion XML pointing at our task page (frame height 0 lets MTurk size the frame)."""
    parts = urlsplit(url)
    if parts.scheme != "https" or not parts.netloc:
        raise SpecError(f"MTurk only frames https pages; got {url!r}")
    if not 0 <= frame_height <= 10_000:
        raise SpecError(f"frame height {frame_height} is out of range 0..10000")
    return (
        f'<ExternalQuestion xmlns="{EXTERNAL_QUESTION_NS}">'
        f"<ExternalURL>{escape(url)}</ExternalURL>"
        f"<FrameHeight>{frame_height}</FrameHeight>"
        "</ExternalQuestion>"
    )


@dataclass(frozen=True)
class HitTypeSpec:
    """The part of a HIT that is the same for every HIT of a job."""

    title: str
    description: str
    reward: Decimal
    assignment_duration: dt.timedelta = dt.timedelta(hours=1)
    auto_approval_delay: dt.timedelta = dt.timedelta(days=3)
    keywords: Sequence[str] = ()
    qualifications: QualificationPolicy = field(default_factory=QualificationPolicy)

    def as_request(self) -> dict[str, object]:
        request: dict[str, object] = {
            "Title": self.title,
            "Description": self.description,
            "Reward": money(self.reward),
            "AssignmentDurationInSeconds": int(self.assignment_duration.total_seconds()),
            "AutoApprovalDelayInSeconds": int(self.auto_approval_delay.total_seconds()),
            "QualificationRequirements": self.qualifications.requirements(),
        }
        if self.keywords:
            request["Keywords"] = ", ".join(self.keywords)
        return request


@dataclass(frozen=True)
class HitSpec:
    """One HIT: the page it shows, how many distinct workers, for how long."""

    task_url: str
    max_assignments: int
    lifetime: dt.timedelta = dt.timedelta(days=7)
    frame_height: int = 0

    def __post_init__(self) -> None:
        check_assignments(self.max_assignments)


def check_assignments(count: int, already: int = 0) -> None:
    """Refuse 10+ assignments on one HIT.

    Splitting the HIT instead would let one worker answer the same items twice, which breaks the
    "N distinct workers" design, so the caller must choose (fewer workers, or a new job).
    """
    if count < 1:
        raise SpecError(f"a HIT needs at least one assignment, got {count}")
    if already + count > MAX_ASSIGNMENTS_PER_HIT:
        raise AssignmentLimitError(
            f"{already + count} assignments on one HIT: MTurk adds a 20% fee from 10 on "
            f"(and will not extend a HIT past 9); keep at most {MAX_ASSIGNMENTS_PER_HIT}"
        )
