from __future__ import annotations

import pytest

from annotation.work.pseudonyms import PseudonymKeyError, pseudonym

KEY = b"k" * 32


def test_pseudonym_is_stable_and_hides_the_id() -> None:
    first = pseudonym("mturk", "A2Z8QB6XQFTQ1D", KEY)

    assert first == pseudonym("mturk", "A2Z8QB6XQFTQ1D", KEY)
    assert "A2Z8QB6XQFTQ1D" not in first
    assert first.startswith("w_") and len(first) == 22


def test_pseudonym_depends_on_key_and_provider() -> None:
    base = pseudonym("mturk", "W1", KEY)

    assert base != pseudonym("mturk", "W1", b"x" * 32)
    assert base != pseudonym("prolific", "W1", KEY)


def test_pseudonym_refuses_a_short_key() -> None:
    with pytest.raises(PseudonymKeyError):
        pseudonym("mturk", "W1", b"short")
