"""Values in the shared (Redis) cache as JSON, never pickle: whatever is read back from Redis can only
be data, not code run by the web processes (Django's default Redis serializer unpickles)."""

from __future__ import annotations

import json
from typing import Any

from django.core.cache.backends import redis as redis_backend


class JSONSerializer:
    def dumps(self, value: Any) -> bytes:
        return json.dumps(value).encode()

    def loads(self, data: bytes) -> Any:
        return json.loads(data)


class RedisCache(redis_backend.RedisCache):
    """Django's Redis cache, its client built once per connection pool: Django builds a new one for
    every call (a tenth of a millisecond of CPU on each worker page that reads a shared part). A
    redis-py client is safe to share between threads: each command takes a connection from the pool."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = _OneClientPerPool


class _OneClientPerPool(redis_backend.RedisCacheClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        django_client: Any = self  # the pool and the client class are Django's (not in its stubs)
        pool = django_client._get_connection_pool(write)
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients[id(pool)] = django_client._client(connection_pool=pool)
        return client
