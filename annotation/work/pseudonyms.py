"""Keyed pseudonyms for worker ids. Pure: no Django.

External worker ids stay in the operational database. Anything that leaves it (exports, logs,
releases) carries `pseudonym(...)` instead: an HMAC, so the same worker gets the same pseudonym
across exports, and nobody without the key can go back to, or test a guess of, the real id.
"""

from __future__ import annotations

import hashlib
import hmac
import re

LENGTH = 20  # hex digits after `w_`
PATTERN = re.compile(rf"w_[0-9a-f]{{{LENGTH}}}")


class PseudonymKeyError(ValueError):
    """No usable key for worker pseudonyms."""


def pseudonym(market: str, external_id: str, key: bytes, length: int = LENGTH) -> str:
    """The keyed pseudonym of one market's worker id, `w_` + `length` hex digits."""
    if len(key) < 16:
        raise PseudonymKeyError("the worker pseudonym key must be at least 16 bytes")
    # The market is part of the message: the same id on two markets is two people.
    message = f"{market}\x1f{external_id}".encode()
    return "w_" + hmac.new(key, message, hashlib.sha256).hexdigest()[:length]


def is_pseudonym(text: str) -> bool:
    """Whether `text` has a pseudonym's form (`w_` and 20 lowercase hex digits): checked before any lookup."""
    return PATTERN.fullmatch(text) is not None
