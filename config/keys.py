"""How many random bytes a secret key holds, estimated from its text. Pure: no Django import.

Two estimates, both needed:

- by length and alphabet: 64 hex digits carry 32 bytes, 43 URL-safe base64 characters carry 32 bytes;
- by its patterns: the parts of the key that are repetitions, sequences (`abcd…`, `0123…`) or
  dictionary words count as what it takes to guess them (zxcvbn's matchers and guess counts), the rest
  at its alphabet's rate. `'uncopyrightable' * 4`, `'0123456789abcdef' * 4` and `string.ascii_letters`
  are long, but hold a few bytes.

A random key loses a byte or two to patterns found by chance, so the pattern estimate may fall short
of the minimum by CHANCE_PATTERNS bytes; a key built from patterns falls far below it.
"""

from __future__ import annotations

import math
import string
from typing import Any

from zxcvbn import matching, scoring

MIN_KEY_BYTES = 32
CHANCE_PATTERNS = 4  # bytes; 1,000 random 32-byte hex and base64 keys each lost under 3
HOW_TO_MAKE_ONE = 'make one with: python -c "import secrets; print(secrets.token_urlsafe(48))"'

HEX = set(string.hexdigits)
BASE64 = set(string.ascii_letters + string.digits + "-_+/=")
# The patterns a key is discounted for; l33t, dates and keyboard walks match by chance in random text.
MATCHERS = (
    matching.dictionary_match,
    matching.reverse_dictionary_match,
    matching.sequence_match,
    matching.repeat_match,
)


def _bits_per_character(key: str) -> float:
    characters = set(key)
    return math.log2(16 if characters <= HEX else 64 if characters <= BASE64 else 94)


def nominal_random_bytes(key: str) -> float:
    """An upper estimate: length × bits per character of the key's alphabet."""
    return len(key) * _bits_per_character(key) / 8


def estimated_random_bytes(key: str) -> float:
    """The key's randomness in bytes, its repetitions, sequences and dictionary words counted as
    what it takes to guess them."""
    if not key:
        return 0.0
    found: list[dict[str, Any]] = [match for matcher in MATCHERS for match in matcher(key)]
    cheapest = scoring.most_guessable_match_sequence(key, found)["sequence"]
    per_character = _bits_per_character(key)
    bits = 0.0
    for match in cheapest:
        random_bits = len(match["token"]) * per_character
        if match["pattern"] != "bruteforce":
            random_bits = min(random_bits, math.log2(match["guesses"]))
        bits += random_bits
    return bits / 8


def weak_key_problem(name: str, key: str) -> str:
    """Why `key` is too weak to be `name` ("" when it is strong enough)."""
    if key.startswith("django-insecure-"):
        return f"{name} is Django's generated development key"
    held = estimated_random_bytes(key)
    if nominal_random_bytes(key) < MIN_KEY_BYTES or held < MIN_KEY_BYTES - CHANCE_PATTERNS:
        return (
            f"{name} holds about {held:.0f} random bytes (estimated from its length and alphabet, less "
            f"what its repetitions, sequences and dictionary words make guessable); it needs at least "
            f"{MIN_KEY_BYTES}"
        )
    return ""
