"""The MTurk market reads the worker's identity from MTurk's URL parameters and hands finished work back
to MTurk, never a previewed HIT."""

from __future__ import annotations

import pytest

from tests.annotation.stubbed_mturk import HIT_ID, WORKER_ID, mturk

__all__ = ["mturk"]  # the fixture, imported for pytest (it retries, unlike conftest's)


def test_the_mturk_market_reads_identity_and_sends_workers_back_to_mturk() -> None:
    from annotation.market_interface.base import external_identity
    from annotation.market_interface.registry import get_market

    market = get_market("mturk")
    params = {
        "assignmentId": "ASG1",
        "hitId": HIT_ID,
        "workerId": WORKER_ID,
        "turkSubmitTo": "https://www.mturk.com",
    }
    identity = external_identity(market, params)
    preview = external_identity(market, {"assignmentId": "ASSIGNMENT_ID_NOT_AVAILABLE", "hitId": HIT_ID})

    assert identity is not None and (identity.worker_id, identity.assignment_id) == (WORKER_ID, "ASG1")
    assert preview is not None and preview.preview
    handoff = market.after_submit(None, identity)  # type: ignore[arg-type]
    assert handoff is not None
    assert (handoff.url, dict(handoff.fields)) == (
        "https://www.mturk.com/mturk/externalSubmit",
        {"assignmentId": "ASG1"},
    )
    assert external_identity(market, {"PROLIFIC_PID": "p", "STUDY_ID": "s", "SESSION_ID": "x"}) is None


def test_a_previewed_hit_is_never_handed_back_to_mturk_even_with_a_return_address() -> None:
    """The identity's ids are read as the page read them: a preview stays a preview, and MTurk
    takes no assignment ASSIGNMENT_ID_NOT_AVAILABLE."""
    from annotation.market_interface.base import WorkerIdentityError, external_identity
    from annotation.market_interface.registry import get_market

    market = get_market("mturk")
    params = {
        "assignmentId": "ASSIGNMENT_ID_NOT_AVAILABLE",
        "hitId": HIT_ID,
        "turkSubmitTo": "https://www.mturk.com",
    }
    preview = external_identity(market, params)
    assert preview is not None and preview.preview

    with pytest.raises(WorkerIdentityError, match="only an accepted MTurk assignment"):
        market.after_submit(None, preview)  # type: ignore[arg-type]
