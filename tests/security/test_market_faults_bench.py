"""`bench faults`' two scenarios of markets faulting by themselves, small: nothing paid twice and
nothing left recruiting for a job that no longer wants it (rigs/market_faults.py)."""

from __future__ import annotations

import pytest

from rigs.market_faults import cancel_in_flight, mturk_outage

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_mturk_outage_past_the_tokens_lifetime_pays_every_bonus_once() -> None:
    outcome = mturk_outage(40)

    assert outcome.lost_replies == 2  # granted, their replies lost: read at MTurk after 25 hours
    assert (outcome.paid_once, outcome.paid_twice, outcome.unpaid, outcome.open_rows) == (40, 0, 0, 0)
    # The ledger settled every row by itself: none failed and had to be asked for again by the rig,
    # which would pay it once and hide the failure.
    assert outcome.asked_again == 0


def test_jobs_cancelled_while_their_publish_is_in_flight_leave_no_study_recruiting() -> None:
    outcome = cancel_in_flight(6)

    assert outcome.cancelled == 6 and outcome.studies >= 4
    assert outcome.live_for_cancelled == 0
    assert outcome.stopped_and_said >= 2
