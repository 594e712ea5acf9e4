"""annotation/ledger/tokens.py: a token names what the call is about, the same on every attempt."""

from __future__ import annotations

from annotation.ledger.tokens import idempotency_token


def test_tokens_are_those_calls_had_before_the_provider_was_called_a_market() -> None:
    """An open ledger row resent after the rename must reach the market with the token it was first
    sent with (values from the code before the rename, commit 8111ceb)."""
    assert (
        idempotency_token("bonus", "mturk", "asg:1", "rule:accuracy")
        == "sw1-bonus-212a40231d9164ced6058dd2961223bd0d8baaa8739aef1210a18d"
    )
    assert (
        idempotency_token("create_hit", "prolific", "job:7", "hit:0")
        == "sw1-create_hit-5dca1d43dd9f3ba4d4638ac41394825a057241fd9985bda3c"
    )
