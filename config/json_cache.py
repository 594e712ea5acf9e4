"""Values in the shared (Redis) cache as JSON, never pickle: whatever is read back from Redis can only
be data, not code run by the web processes (Django's default Redis serializer unpickles)."""

from __future__ import annotations

import json
from typing import Any


class JSONSerializer:
    def dumps(self, value: Any) -> bytes:
        return json.dumps(value).encode()

    def loads(self, data: bytes) -> Any:
        return json.loads(data)
