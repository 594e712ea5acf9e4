"""MTurk's URL parameters: assignmentId, hitId, workerId and turkSubmitTo, checked before use.

In preview (nobody has accepted the HIT yet) MTurk sends assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE
and hitId only. turkSubmitTo is where the finished assignment is posted back, so only MTurk's own
sites are accepted there.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import urlsplit

from django.conf import settings

from annotation.market_interface.base import (
    MarketIds,
    MissingParamsError,
    SubmitOriginError,
    WorkerIdentityError,
    checked_id,
)

MTURK = "mturk"
PREVIEW_ASSIGNMENT = "ASSIGNMENT_ID_NOT_AVAILABLE"
MTURK_PARAMS = ("assignmentId", "hitId", "workerId", "turkSubmitTo")
DEFAULT_SUBMIT_ORIGINS = ("https://www.mturk.com", "https://workersandbox.mturk.com")
# The sites that show our task page to MTurk workers in a frame (live, sandbox and the old site).
WORKER_SITES = ("https://worker.mturk.com", "https://workersandbox.mturk.com", "https://www.mturk.com")
# MTurk's worker, HIT and assignment ids are upper-case letters and digits (30 for HITs and assignments).
MTURK_ID = re.compile(r"[A-Z0-9]{1,64}")


def mturk_ids(params: Mapping[str, str]) -> MarketIds | None:
    """MTurk's ids in the parameters; None when none of MTurk's parameters are present."""
    present = [name for name in MTURK_PARAMS if params.get(name)]
    if not present:
        return None
    if params.get("assignmentId") == PREVIEW_ASSIGNMENT:
        hit_id = checked_id("hitId", params.get("hitId", ""), MTURK_ID)
        return MarketIds(MTURK, "", hit_id, PREVIEW_ASSIGNMENT, preview=True)
    if len(present) != len(MTURK_PARAMS):
        raise MissingParamsError(f"MTurk parameters missing: {sorted(set(MTURK_PARAMS) - set(present))}")
    return MarketIds(
        MTURK,
        checked_id("workerId", params["workerId"], MTURK_ID),
        checked_id("hitId", params["hitId"], MTURK_ID),
        checked_id("assignmentId", params["assignmentId"], MTURK_ID),
        submit_origin(params["turkSubmitTo"]),
    )


def submit_origin(url: str) -> str:
    """turkSubmitTo reduced to an allowed origin (scheme and host, nothing else), or an error."""
    allowed = tuple(settings.MTURK_SUBMIT_ORIGINS or DEFAULT_SUBMIT_ORIGINS)
    parts = urlsplit(url.strip())
    origin = f"{parts.scheme}://{parts.netloc}"
    # userinfo, ports, queries and paths are all ways to smuggle another destination in.
    if origin not in allowed or parts.username or parts.password or parts.path.strip("/") or parts.query:
        raise SubmitOriginError(f"turkSubmitTo {url!r} is not one of {list(allowed)}")
    return origin


def external_submit_url(ids: MarketIds | None) -> str:
    """Where the saved assignment is posted back to MTurk (None: no MTurk ids at all)."""
    if ids is None or ids.market != MTURK or ids.preview:
        raise WorkerIdentityError("only an accepted MTurk assignment is submitted to MTurk")
    return f"{submit_origin(ids.submit_to)}/mturk/externalSubmit"
