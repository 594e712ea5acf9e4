"""What Prolific accepts in a rejection: a message of 100+ characters and one of its 12 categories. Pure.

Checked (`ProlificMarket.check`) before any ledger row is written (work's review, the admin's reject
form), so a rejection Prolific would refuse writes nothing and a corrected one goes through.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from annotation.market_interface.errors import RejectionError

MIN_REJECTION_MESSAGE = 100  # characters, per the submission transition endpoint
REJECTION_CATEGORIES = frozenset(
    {
        "TOO_QUICKLY",
        "TOO_SLOWLY",
        "FAILED_INSTRUCTIONS",
        "INCOMP_LONGITUDINAL",
        "FAILED_CHECK",
        "LOW_EFFORT",
        "MALINGERING",
        "NO_CODE",
        "BAD_CODE",
        "NO_DATA",
        "UNSUPP_DEVICE",
        "OTHER",
    }
)
DEFAULT_CATEGORY = "OTHER"


def check_rejection(message: str, category: str) -> None:
    """Raise RejectionError, saying what to fix, unless Prolific would accept this rejection."""
    length = len(message.strip())
    if length < MIN_REJECTION_MESSAGE:
        raise RejectionError(
            f"Prolific needs a rejection message of at least {MIN_REJECTION_MESSAGE} characters "
            f"(this one has {length}): tell the participant what was wrong"
        )
    if category not in REJECTION_CATEGORIES:
        raise RejectionError(
            f"unknown Prolific rejection category {category!r}; use one of {sorted(REJECTION_CATEGORIES)}"
        )


def rejection_category(params: Mapping[str, Any]) -> str:
    """The rejection category a job's rejections use (job parameter `rejection_category`)."""
    return str(params.get("rejection_category", DEFAULT_CATEGORY))
