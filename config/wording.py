"""Plain words for numbers people read: counts with their noun in the right number, money in its
currency at its precision (ISO 4217's, as Babel lists it), and mappings as "name: value" lists
(never a Python repr on a page)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from babel.numbers import get_currency_precision

# Nouns whose plural is not the noun plus "s".
IRREGULAR = {
    "person": "people",
    "analysis": "analyses",
    "entry": "entries",
    "query": "queries",
    "reply": "replies",
    "study": "studies",
    "property": "properties",
}


def plural(noun: str) -> str:
    if noun in IRREGULAR:
        return IRREGULAR[noun]
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    return noun + "s"


def count(number: int, noun: str, many: str | None = None) -> str:
    """`count(1, "claim")` is "1 claim", `count(2, "claim")` "2 claims"; `many` for any other plural."""
    return f"{number} {noun if number == 1 else many or plural(noun)}"


def money(amount: Decimal | float | int | str | None, currency: str = "USD") -> str:
    """An amount at its currency's precision, with the currency: "287.78 USD"; "none" without one."""
    if amount is None or amount == "":
        return "none"
    places = get_currency_precision(currency.upper())
    quantum = Decimal(1).scaleb(-places)
    rounded = Decimal(str(amount)).quantize(quantum, rounding=ROUND_HALF_UP)
    return f"{rounded:,} {currency.upper()}"


def listing(values: Mapping[Any, Any] | Iterable[tuple[Any, Any]]) -> str:
    """Pairs as "train: 569, dev: 142" in their given order; "none" when there are none."""
    pairs = list(values.items()) if isinstance(values, Mapping) else list(values)
    return ", ".join(f"{key}: {value}" for key, value in pairs) or "none"


def votes(counts: Sequence[int], labels: Sequence[str]) -> str:
    """Votes per label with the label names, the labels nobody chose left out: "SUPPORT 2, NOT_VALID 1"."""
    if len(counts) != len(labels):
        raise ValueError(f"{len(counts)} counts for {len(labels)} labels")
    shown = [f"{label} {number}" for label, number in zip(labels, counts, strict=True) if number]
    return ", ".join(shown) or "no votes"


def figure(value: float | None, digits: int = 3, missing: str = "n/a") -> str:
    """A measured figure to `digits` places, or what stands in for one that could not be computed."""
    return missing if value is None else f"{value:.{digits}f}"
