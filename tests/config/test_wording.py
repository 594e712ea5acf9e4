"""Plain words for numbers: counts with the right noun, money at its currency's precision, votes named."""

from __future__ import annotations

from decimal import Decimal

import pytest

from config.wording import count, figure, listing, money, votes


def test_a_count_takes_the_noun_in_the_right_number() -> None:
    assert [count(1, "claim"), count(2, "claim"), count(0, "claim")] == ["1 claim", "2 claims", "0 claims"]
    assert count(1, "poor worker") == "1 poor worker" and count(3, "entry") == "3 entries"
    assert count(2, "match") == "2 matches" and count(2, "person") == "2 people"


def test_money_shows_its_currency_at_its_precision() -> None:
    assert money(Decimal("287.780000000000000"), "USD") == "287.78 USD"
    assert money(Decimal("1500"), "JPY") == "1,500 JPY"
    assert money(Decimal("0.125"), "gbp") == "0.13 GBP"
    assert money(None) == "none"


def test_mappings_and_votes_read_as_words() -> None:
    assert listing({"train": 569, "dev": 142}) == "train: 569, dev: 142"
    stance = ["SUPPORT", "MILDLY_SUPPORT", "MILDLY_UNDERMINE", "UNDERMINE", "NOT_VALID"]
    assert votes([2, 0, 0, 0, 1], stance) == "SUPPORT 2, NOT_VALID 1"
    with pytest.raises(ValueError, match="5 counts for 2 labels"):
        votes([1, 0, 0, 0, 0], ["A", "B"])
    assert figure(None, missing="not computable") == "not computable" and figure(-0.375) == "-0.375"
