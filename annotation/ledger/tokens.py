"""Deterministic idempotency tokens for calls that create work or move money.

Pure. A token is derived from what the call is about (kind, market, references), never from a
clock or a random source, so a retry after a crash rebuilds exactly the same token.
MTurk's UniqueRequestToken allows 1 to 64 characters and is honoured for 24 hours.
"""

from __future__ import annotations

import hashlib
import re

TOKEN_MAX_LENGTH = 64
TOKEN_VERSION = "sw1"
_KIND = re.compile(r"^[a-z][a-z0-9_]{0,15}$")


class TokenError(ValueError):
    """The parts given cannot make a stable token (empty, or an unsafe kind)."""


def idempotency_token(kind: str, market: str, *refs: str | int) -> str:
    """A token of at most 64 characters, the same for the same (kind, market, refs).

    >>> idempotency_token("bonus", "mturk", "job:7", "asg:3ABC", "rule:accuracy")[:16]
    'sw1-bonus-22afb1'
    """
    if not _KIND.match(kind):
        raise TokenError(f"kind {kind!r} must be lower-case letters, digits or _, at most 16 characters")
    if not market or not refs:
        raise TokenError("a token needs a market and at least one reference")
    parts = [market, *(str(ref) for ref in refs)]
    if any(not part for part in parts):
        raise TokenError(f"empty reference in {parts!r}")
    # A length prefix per part keeps ("ab", "c") and ("a", "bc") apart.
    material = "".join(f"{len(part)}:{part}" for part in [kind, *parts])
    digest = hashlib.sha256(material.encode("utf-8")).hexdigest()
    token = f"{TOKEN_VERSION}-{kind}-{digest}"
    return token[:TOKEN_MAX_LENGTH]
