"""Prolific's URL parameters: PROLIFIC_PID, STUDY_ID and SESSION_ID, all three or none."""

from __future__ import annotations

import re
from collections.abc import Mapping

from annotation.market_interface.base import MarketIds, MissingParamsError, checked_id

PROLIFIC = "prolific"
PROLIFIC_PARAMS = ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID")
# Prolific's ids are 24 hexadecimal digits; letters and digits, at most 64, leaves room and no more.
PROLIFIC_ID = re.compile(r"[A-Za-z0-9]{1,64}")


def prolific_ids(params: Mapping[str, str]) -> MarketIds | None:
    """Prolific's ids in the parameters; None when none of Prolific's parameters are present."""
    present = [name for name in PROLIFIC_PARAMS if params.get(name)]
    if not present:
        return None
    if len(present) != len(PROLIFIC_PARAMS):
        missing = sorted(set(PROLIFIC_PARAMS) - set(present))
        raise MissingParamsError(f"Prolific parameters missing: {missing}")
    worker, study, session = (checked_id(name, params[name], PROLIFIC_ID) for name in PROLIFIC_PARAMS)
    return MarketIds(PROLIFIC, worker, study, session)
