"""How many random bytes a secret key holds, estimated from its text. Pure: no Django import.

A key is judged by its length and the alphabet it is written in: 64 hex digits carry 32 bytes,
43 URL-safe base64 characters carry 32 bytes. A key with few distinct characters (`x` repeated)
carries almost nothing whatever its length.
"""

from __future__ import annotations

import math
import string

MIN_KEY_BYTES = 32
# Fewer distinct characters than this and a key is a pattern, not random: a random 64-digit hex key
# shows about 16, a random 43-character base64 key about 30.
MIN_DISTINCT_CHARACTERS = 12
HOW_TO_MAKE_ONE = 'make one with: python -c "import secrets; print(secrets.token_urlsafe(48))"'

HEX = set(string.hexdigits)
BASE64 = set(string.ascii_letters + string.digits + "-_+/=")


def estimated_random_bytes(key: str) -> float:
    """An upper estimate of the key's randomness in bytes: length × bits per character of its alphabet."""
    if len(set(key)) < MIN_DISTINCT_CHARACTERS:
        return 0.0
    characters = set(key)
    alphabet = 16 if characters <= HEX else 64 if characters <= BASE64 else 94
    return len(key) * math.log2(alphabet) / 8


def weak_key_problem(name: str, key: str) -> str:
    """Why `key` is too weak to be `name` ("" when it is strong enough)."""
    if key.startswith("django-insecure-"):
        return f"{name} is Django's generated development key"
    held = estimated_random_bytes(key)
    if held < MIN_KEY_BYTES:
        return f"{name} holds about {held:.0f} random bytes; it needs at least {MIN_KEY_BYTES}"
    return ""
