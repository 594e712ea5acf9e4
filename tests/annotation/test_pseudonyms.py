from __future__ import annotations

import pytest

from annotation.work.pseudonyms import PseudonymKeyError, pseudonym

KEY = b"k" * 32


def test_pseudonym_is_stable_and_hides_the_id() -> None:
    first = pseudonym("mturk", "A2Z8QB6XQFTQ1D", KEY)

    assert first == pseudonym("mturk", "A2Z8QB6XQFTQ1D", KEY)
    assert "A2Z8QB6XQFTQ1D" not in first
    assert first.startswith("w_") and len(first) == 22


def test_pseudonym_depends_on_key_and_market() -> None:
    base = pseudonym("mturk", "W1", KEY)

    assert base != pseudonym("mturk", "W1", b"x" * 32)
    assert base != pseudonym("prolific", "W1", KEY)


def test_pseudonym_refuses_a_short_key() -> None:
    with pytest.raises(PseudonymKeyError):
        pseudonym("mturk", "W1", b"short")


def test_pseudonyms_are_those_workers_had_before_the_provider_was_called_a_market() -> None:
    """Computed from the market's name, not from what the code calls it: released pseudonyms stay valid
    (values from the code before the rename, commit 8111ceb)."""
    key = b"pinned-pseudonym-key-0123"

    assert pseudonym("mturk", "A0000000000001", key) == "w_70f08d3ed0689c6e8113"
    assert pseudonym("prolific", "5f1e0c0d0b0a090807060504", key) == "w_a3a6378eca3712e6ccfb"
