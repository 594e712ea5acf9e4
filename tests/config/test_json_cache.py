"""The shared cache stores JSON: what comes back from Redis is data, and a pickle is never loaded."""

from __future__ import annotations

import pickle

import pytest

from config.json_cache import JSONSerializer


class Exploding:
    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (print, ("unpickled",))


def test_values_travel_as_json_and_a_pickle_is_never_loaded() -> None:
    serializer = JSONSerializer()
    assert serializer.dumps('<p class="x">ü</p>') == b'"<p class=\\"x\\">\\u00fc</p>"'
    assert serializer.loads(serializer.dumps('<p class="x">ü</p>')) == '<p class="x">ü</p>'
    with pytest.raises(ValueError):
        serializer.loads(pickle.dumps(Exploding()))


@pytest.mark.redis
def test_the_redis_cache_builds_one_client_per_pool_and_stores_json() -> None:
    import os

    from config.json_cache import RedisCache

    cache = RedisCache(os.environ["REDIS_URL"], {"KEY_PREFIX": "test-json-cache", "OPTIONS": {
        "serializer": "config.json_cache.JSONSerializer"}})  # fmt: skip
    cache.set("part", "<p>x</p>", 30)

    assert cache.get("part") == "<p>x</p>" and cache.get("none-such") is None
    assert cache._cache.get_client() is cache._cache.get_client(write=True)
    raw = cache._cache.get_client().get(cache.make_key("part"))
    assert raw == b'"<p>x</p>"'
    cache.delete("part")
