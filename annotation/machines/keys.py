"""What identifies an item for a machine whatever job it is in: the hash of the texts it reads. Pure:
a machine's reply is cached, and its training examples are remembered, under this key."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence


def example_key(texts: Sequence[str]) -> str:
    return hashlib.sha256("\x1f".join(texts).encode("utf-8")).hexdigest()
